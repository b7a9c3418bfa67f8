//! A profile job of the daemon's queue (`knotmeter/run` with `profile`): each case of the job
//! profiled in turn, reported as a run's items are ([`JobEvent`]): `building`, `started` once
//! the profiler runs, [`JobEvent::Profiled`] with the profile (stored in the history first),
//! then `passed`; or `errored`, `failed` or `skipped` with the reason. With a base, each case
//! is profiled on both builds and its [`JobEvent::ProfileCompared`] comes before `passed`.

use knotmeter_protocol::editor::ItemState;
use knotmeter_protocol::{Profile, ProfileComparison, ProfileTool};
use knotmeter_server_builds::{BuildsRequest, Sides};
use knotmeter_server_discovery::discovery::{TargetRef, Workspace};
use knotmeter_server_process::process::Children;
use knotmeter_server_runs::cargo_build::BuildEvent;
use knotmeter_server_runs::runs::{Job, JobEvent, Sink};
use tokio_util::sync::CancellationToken;

use crate::compared::{profile_both, Side, Wanted};
use crate::{profile, ProfileError, ProfileEvent, ProfileRequest, DEFAULT_SECONDS, QUICK_SECONDS};
use knotmeter_protocol::editor::RunMode;

/// Carries out `job` as profiles: every item reaches a final state, then
/// [`JobEvent::Finished`]. With `base` ("Compare with base" with profiling on), each case is
/// profiled on both builds ([`crate::compared`]) and its comparison arrives as
/// [`JobEvent::ProfileCompared`]; the head's own profile is kept and sent as a plain profile's
/// when the head is the working tree.
pub async fn execute_job(
    job: Job,
    tool: ProfileTool,
    workspace: Workspace,
    base: Option<BuildsRequest>,
    children: Children,
    cancel: CancellationToken,
    mut sink: Sink,
) {
    // Once set, every case left ends so: a cancel skips them, a missing profiler errors them
    // (every one would miss it), sides that cannot be resolved error them.
    let mut rest: Option<(ItemState, String)> = None;
    let sides = match base {
        None => None,
        Some(request) => match resolve_sides(request, &mut sink).await {
            Ok(sides) => Some(sides),
            Err(why) => {
                rest = Some((ItemState::Errored, why));
                None
            }
        },
    };
    for (target, ids) in &job.targets {
        for id in ids {
            if rest.is_none() && cancel.is_cancelled() {
                rest = Some((ItemState::Skipped, "cancelled".to_owned()));
            }
            if let Some((state_of_rest, why)) = &rest {
                sink(state(id, *state_of_rest, Some(why.clone())));
                continue;
            }
            sink(state(id, ItemState::Building, None));
            let case = Case {
                target,
                id,
                tool,
                seconds: match job.mode {
                    RunMode::Quick => QUICK_SECONDS,
                    RunMode::Full => DEFAULT_SECONDS,
                },
                workspace: &workspace,
                sides: sides.as_ref(),
            };
            let done = {
                let mut on = |side: Side, event: ProfileEvent| {
                    relay(&mut sink, id, sides.is_some(), side, event);
                };
                case.profile(&children, &cancel, &mut on).await
            };
            rest = report(done, id, &workspace, &mut sink).await;
        }
    }
    sink(JobEvent::Finished);
}

/// The two sides of "Compare with base", resolved off the async runtime (git and cargo
/// metadata); their notes go to the run's output. The error says why they cannot be.
async fn resolve_sides(request: BuildsRequest, sink: &mut Sink) -> Result<Sides, String> {
    let resolved =
        tokio::task::spawn_blocking(move || knotmeter_server_builds::resolve(&request)).await;
    match resolved {
        Ok(Ok(sides)) => {
            for note in &sides.notes {
                sink(JobEvent::Output {
                    id: None,
                    text: format!("knotmeter: {note}"),
                });
            }
            Ok(sides)
        }
        Ok(Err(why)) => Err(format!("{why:#}")),
        Err(e) => Err(format!("internal error: {e}")),
    }
}

/// One case of the job to profile: on the working tree alone, or on both `sides`.
struct Case<'a> {
    target: &'a TargetRef,
    id: &'a str,
    tool: ProfileTool,
    /// The budget: quick or full, as the run's mode.
    seconds: f64,
    workspace: &'a Workspace,
    sides: Option<&'a Sides>,
}

/// What profiling a case gives: the profile of the code in the editor (none when the head of a
/// comparison is not the working tree), and the comparison with the base, if asked.
type Profiled = (Option<Profile>, Option<ProfileComparison>);

impl Case<'_> {
    /// Profiles the case, its events to `on`.
    async fn profile(
        &self,
        children: &Children,
        cancel: &CancellationToken,
        on: &mut (dyn FnMut(Side, ProfileEvent) + Send),
    ) -> Result<Profiled, ProfileError> {
        match self.sides {
            None => {
                let request = ProfileRequest {
                    workspace: self.workspace.clone(),
                    target: self.target.clone(),
                    id: self.id.to_owned(),
                    seconds: self.seconds,
                    tool: self.tool,
                };
                profile(&request, children, cancel, &mut |event| {
                    on(Side::Head, event)
                })
                .await
                .map(|profile| (Some(profile), None))
            }
            Some(sides) => {
                let wanted = Wanted {
                    target: self.target.clone(),
                    id: self.id.to_owned(),
                    tool: self.tool,
                    seconds: self.seconds,
                };
                profile_both(sides, &wanted, children, cancel, on)
                    .await
                    // A head that is not the working tree is not the code in the editor.
                    .map(|cmp| {
                        let head = sides.head_tree.is_none().then(|| cmp.head.clone());
                        (head, Some(cmp))
                    })
            }
        }
    }
}

/// A profile's event as the run's: the build's output and steps, the case started once the
/// head's profiler runs, its progress (one bar for both sides of a comparison), the profiler's
/// command in the case's output.
fn relay(sink: &mut Sink, id: &str, two_sides: bool, side: Side, event: ProfileEvent) {
    match event {
        ProfileEvent::Build(build) => sink(JobEvent::Build(build)),
        ProfileEvent::Counting(command) => {
            if side == Side::Head {
                sink(JobEvent::Built { errors: Vec::new() });
                sink(state(id, ItemState::Started, None));
            }
            let on_side = if two_sides {
                format!(" on the {}", side.name())
            } else {
                String::new()
            };
            sink(JobEvent::Build(BuildEvent::Progress(format!(
                "profiling {id}{on_side}"
            ))));
            sink(JobEvent::Output {
                id: Some(id.to_owned()),
                text: format!("knotmeter: {command}"),
            });
        }
        ProfileEvent::Progress(fraction) => sink(JobEvent::Progress {
            id: id.to_owned(),
            fraction: if two_sides {
                side.overall(fraction)
            } else {
                fraction.clamp(0.0, 1.0)
            },
        }),
        ProfileEvent::Reading => sink(JobEvent::Build(BuildEvent::Progress(format!(
            "reading perf's samples of {id}"
        )))),
    }
}

/// Reports how the case `id` ended: its profile (stored first) and comparison, then its final
/// state. Returns how every case left ends when this one's ending decides it (a missing
/// profiler).
async fn report(
    done: Result<Profiled, ProfileError>,
    id: &str,
    workspace: &Workspace,
    sink: &mut Sink,
) -> Option<(ItemState, String)> {
    match done {
        Ok((profile, comparison)) => {
            if let Some(profile) = profile {
                let stored_at = store(workspace, &profile, sink).await;
                sink(JobEvent::Profiled {
                    profile: Box::new(profile),
                    stored_at,
                });
            }
            if let Some(comparison) = comparison {
                sink(JobEvent::ProfileCompared(Box::new(comparison)));
            }
            sink(state(id, ItemState::Passed, None));
        }
        Err(ProfileError::Cancelled) => {
            sink(state(id, ItemState::Skipped, Some("cancelled".to_owned())));
        }
        Err(ProfileError::Missing(why)) => {
            sink(state(id, ItemState::Errored, Some(why.clone())));
            return Some((ItemState::Errored, why));
        }
        Err(ProfileError::Build { message, errors }) => {
            sink(JobEvent::Built { errors });
            sink(state(id, ItemState::Errored, Some(message)));
        }
        Err(ProfileError::Failed(why)) => {
            sink(state(id, ItemState::Failed, Some(why)));
        }
        Err(ProfileError::Unusable(why)) => {
            sink(state(id, ItemState::Errored, Some(why)));
        }
    }
    None
}

/// Stores `profile` in the workspace's history; returns when (seconds since the Unix epoch),
/// or says in the run's output why it was not stored.
async fn store(workspace: &Workspace, profile: &Profile, sink: &mut Sink) -> Option<i64> {
    let target_dir = workspace.target_dir.clone();
    let owned = profile.clone();
    let stored = tokio::task::spawn_blocking(move || crate::store(&target_dir, &owned))
        .await
        .unwrap_or_else(|e| Err(format!("internal error: {e}")));
    match stored {
        Ok(at) => Some(at),
        Err(why) => {
            sink(JobEvent::Output {
                id: Some(profile.id.clone()),
                text: format!(
                    "knotmeter: the profile of {} was not stored: {why}",
                    profile.id
                ),
            });
            None
        }
    }
}

fn state(id: &str, state: ItemState, message: Option<String>) -> JobEvent {
    JobEvent::State {
        id: id.to_owned(),
        state,
        result: None,
        message,
        location: None,
    }
}
