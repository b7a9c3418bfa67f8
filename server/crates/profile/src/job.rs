//! A profile job of the daemon's queue (`knotmeter/run` with `profile`): each case of the job
//! profiled in turn, reported as a run's items are ([`JobEvent`]): `building`, `started` once
//! the profiler runs, [`JobEvent::Profiled`] with the profile (stored in the history first),
//! then `passed`; or `errored`, `failed` or `skipped` with the reason.

use knotmeter_protocol::editor::ItemState;
use knotmeter_protocol::Profile;
use knotmeter_server_discovery::discovery::Workspace;
use knotmeter_server_process::process::Children;
use knotmeter_server_runs::cargo_build::BuildEvent;
use knotmeter_server_runs::runs::{Job, JobEvent, Sink};
use tokio_util::sync::CancellationToken;

use crate::{profile, ProfileError, ProfileEvent, ProfileRequest, DEFAULT_SECONDS};

/// Carries out `job` as profiles: every item reaches a final state, then
/// [`JobEvent::Finished`].
pub async fn execute_job(
    job: Job,
    workspace: Workspace,
    children: Children,
    cancel: CancellationToken,
    mut sink: Sink,
) {
    // Once set, every case left ends so: a cancel skips them, a missing profiler errors them
    // (every one would miss it).
    let mut rest: Option<(ItemState, String)> = None;
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
            let request = ProfileRequest {
                workspace: workspace.clone(),
                target: target.clone(),
                id: id.clone(),
                seconds: DEFAULT_SECONDS,
            };
            let mut on = |event: ProfileEvent| match event {
                ProfileEvent::Build(build) => sink(JobEvent::Build(build)),
                ProfileEvent::Counting(command) => {
                    sink(JobEvent::Built { errors: Vec::new() });
                    sink(JobEvent::Build(BuildEvent::Progress(format!(
                        "profiling {id}"
                    ))));
                    sink(JobEvent::Output {
                        id: Some(id.clone()),
                        text: format!("knotmeter: {command}"),
                    });
                    sink(state(id, ItemState::Started, None));
                }
            };
            match profile(&request, &children, &cancel, &mut on).await {
                Ok(profile) => {
                    let stored_at = store(&workspace, &profile, &mut sink).await;
                    sink(JobEvent::Profiled {
                        profile: Box::new(profile),
                        stored_at,
                    });
                    sink(state(id, ItemState::Passed, None));
                }
                Err(ProfileError::Cancelled) => {
                    sink(state(id, ItemState::Skipped, Some("cancelled".to_owned())));
                }
                Err(ProfileError::Missing(why)) => {
                    sink(state(id, ItemState::Errored, Some(why.clone())));
                    rest = Some((ItemState::Errored, why));
                }
                Err(ProfileError::Build { message, errors }) => {
                    sink(JobEvent::Built { errors });
                    sink(state(id, ItemState::Errored, Some(message)));
                }
                Err(ProfileError::Failed(why)) => {
                    sink(state(id, ItemState::Failed, Some(why)));
                }
            }
        }
    }
    sink(JobEvent::Finished);
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
