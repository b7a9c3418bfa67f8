//! A comparison whose base cannot be compared with at all: the base does not build, its
//! knotmeter predates driven mode, or (in the editor) `knotmeter.compare.base` names no commit.
//! On the command line and in the editor alike the head is not lost: its cases are measured
//! on their own (`knotmeter run`'s pipeline, stored in the history as a run), and each
//! measured case carries the `not_compared` warning with why, so that no surface shows it as
//! a pass. The base's error is said once: whole in the run's output, and in one line as a
//! message (a [`Problem::BaseUnusable`]).

use knotmeter_protocol::editor::{ItemState, RunMode};
use knotmeter_protocol::{BenchResult, CompareReport, CompareSide, CompareStatus, ComparedCase};
use tokio_util::sync::CancellationToken;

use super::build::Built;
use super::sides::Sides;
use super::BuildsRequest;
use crate::discovery::{Discovery, TargetRef, Workspace};
use crate::process::Children;
use crate::runs::{self, Job, JobEvent, Problem, RunOptions, Sink};

/// The editor's name for the setting that chooses the base.
const BASE_SETTING: &str = "knotmeter.compare.base";

/// Why the base cannot be compared with.
#[derive(Debug, Clone, PartialEq)]
pub struct Unusable {
    /// One line that names the base and why, the first compiler error included: `the base
    /// (main) does not build: error[E0425]: cannot find value …`. Each case's warning says it.
    pub reason: String,
    /// The whole account, for the run's output: every compiler error, or git's answer.
    pub detail: String,
    /// The base, as far as it is known.
    pub base: CompareSide,
    /// The head.
    pub head: CompareSide,
}

impl Unusable {
    /// The sides could not be resolved: `rev` (the setting, `None` when empty) names no
    /// commit, there is no default base, or the folder is not in a git repository.
    pub fn unresolved(rev: Option<&str>, why: &anyhow::Error) -> Unusable {
        let setting = match rev {
            Some(rev) => format!("the setting `{BASE_SETTING}` is `{rev}`"),
            None => {
                format!("the setting `{BASE_SETTING}` is empty, so the default base was looked for")
            }
        };
        let why = format!("{why:#}");
        // The command line's usage hint means nothing in the editor.
        let first = why.lines().next().unwrap_or_default();
        let first = first
            .split(" (knotmeter compare [REV]")
            .next()
            .unwrap_or(first);
        Unusable {
            reason: format!("no base to compare with ({setting}): {first}"),
            detail: format!(
                "knotmeter compare: no base to compare with ({setting}):\n{why}\nSet \
                 `{BASE_SETTING}` to a branch, tag or commit, or leave it empty to compare with \
                 HEAD (uncommitted changes) or the upstream's merge base."
            ),
            base: CompareSide {
                label: rev.map_or_else(|| "the default base".to_owned(), |rev| format!("`{rev}`")),
                commit: None,
                dirty: false,
                manifest: None,
            },
            head: CompareSide {
                label: "working tree".to_owned(),
                commit: None,
                dirty: false,
                manifest: None,
            },
        }
    }

    /// The base did not build: `why` is the build's account, a heading line and then each
    /// target's failure, whose first line names the first compiler error.
    pub fn unbuilt(sides: &Sides, why: &str) -> Unusable {
        let base_label = &sides.base_label;
        let first = first_error(why);
        Unusable {
            reason: format!("the base ({base_label}) does not build: {first}"),
            detail: format!("knotmeter compare: {why}"),
            base: sides.base_side(),
            head: sides.head_side(),
        }
    }

    /// The base's bench binaries cannot be driven: its knotmeter predates driven mode.
    pub fn undriven(sides: &Sides, why: &str) -> Unusable {
        let base_label = &sides.base_label;
        Unusable {
            reason: format!(
                "the base ({base_label}) cannot be compared with: {}",
                why.lines().next().unwrap_or_default()
            ),
            detail: format!("knotmeter compare: {why}"),
            base: sides.base_side(),
            head: sides.head_side(),
        }
    }
}

/// The first compiler error of a build's account (`build`'s: a heading line, then
/// each target's failure, which starts with the first error).
fn first_error(why: &str) -> &str {
    why.lines()
        .nth(1)
        .map(|line| line.strip_prefix("the build failed: ").unwrap_or(line))
        .unwrap_or_default()
}

/// Marks `result` as not compared, saying why (once).
pub fn warn(result: &mut BenchResult, why: &str) {
    let code = knotmeter_format::text::NOT_COMPARED;
    if !result.warnings.iter().any(|w| w.code == code) {
        result
            .warnings
            .push(knotmeter_format::text::not_compared_warning(why));
    }
}

/// What is said when the head's cases are measured on their own.
pub const ON_THEIR_OWN: &str =
    "measuring the head's cases on their own, so their results are kept (stored in the history \
     as a run)";

/// The run of the head's cases that `sides` selects, in the targets the head built, measured
/// as `request` says (`knotmeter compare`'s, whose base cannot be compared with).
pub fn head_job(sides: &Sides, built: &Built, request: &BuildsRequest) -> (Job, RunOptions) {
    let filter = sides.filter.as_deref();
    let mut discovery = Discovery::new(sides.head_ws.clone());
    let targets: Vec<(TargetRef, Vec<String>)> = discovery
        .tree()
        .select(None, &[])
        .into_iter()
        .filter(|(target, _)| matches!(built.head.get(target), Some(Ok(_))))
        .map(|(target, ids)| {
            let ids = ids
                .into_iter()
                .filter(|id| filter.is_none_or(|f| id.contains(f)))
                .collect();
            (target, ids)
        })
        .collect();
    let job = Job {
        run_id: 1,
        mode: if request.quick {
            RunMode::Quick
        } else {
            RunMode::Full
        },
        targets,
    };
    let options = RunOptions {
        silence_limit: request.case_timeout,
        quick_time: request.time.filter(|_| request.quick),
        full_time: request.time.filter(|_| !request.quick),
        ..RunOptions::default()
    };
    (job, options)
}

/// Measures `job`'s cases on their own, as a run, reporting through `sink`: every item
/// reaches a final state, each measured one warned `not_compared` with `unusable.reason`.
/// Returns the comparison's report, every case `not_compared`, `failed` or `skipped` (none
/// when the job holds no case). Does not send [`JobEvent::Finished`]: the comparison job
/// does.
pub async fn execute(
    job: Job,
    workspace: Workspace,
    options: RunOptions,
    children: Children,
    cancel: CancellationToken,
    unusable: &Unusable,
    sink: &mut Sink,
) -> CompareReport {
    sink(JobEvent::Output {
        id: None,
        text: unusable.detail.clone(),
    });
    sink(JobEvent::Problem(Problem::BaseUnusable {
        message: unusable.reason.clone(),
    }));
    let cancelled = cancel.clone();
    let report = |cases| CompareReport {
        version: knotmeter_protocol::VERSION,
        base: unusable.base.clone(),
        head: unusable.head.clone(),
        cases,
        cancelled: cancelled.is_cancelled(),
        stored: None,
    };
    if job.ids().next().is_none() {
        return report(Vec::new());
    }
    sink(JobEvent::Output {
        id: None,
        text: format!("knotmeter compare: {ON_THEIR_OWN}"),
    });
    // The run's events pass through here on their way to the session.
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let inner: Sink = Box::new(move |event| {
        let _ = tx.send(event);
    });
    let run = runs::execute(job, workspace, options, children, cancel, inner);
    let mut cases = Vec::new();
    let relay = async {
        while let Some(event) = rx.recv().await {
            match event {
                JobEvent::Finished => {}
                JobEvent::State {
                    id,
                    state,
                    mut result,
                    message,
                    location,
                } => {
                    if let Some(result) = result.as_mut() {
                        warn(result, &unusable.reason);
                    }
                    if state.is_final() {
                        cases.push(case(
                            &id,
                            state,
                            result.as_deref(),
                            message.as_deref(),
                            unusable,
                        ));
                    }
                    sink(JobEvent::State {
                        id,
                        state,
                        result,
                        message,
                        location,
                    });
                }
                other => sink(other),
            }
        }
    };
    tokio::join!(run, relay);
    report(cases)
}

/// An item's final state as a case of the comparison: measured but not compared, failed, or
/// skipped.
fn case(
    id: &str,
    state: ItemState,
    result: Option<&BenchResult>,
    message: Option<&str>,
    unusable: &Unusable,
) -> ComparedCase {
    let status = match state {
        ItemState::Passed => CompareStatus::NotCompared,
        ItemState::Skipped => CompareStatus::Skipped,
        _ => CompareStatus::Failed,
    };
    ComparedCase {
        location: None,
        id: id.to_owned(),
        status,
        base: None,
        head: result.cloned(),
        comparison: None,
        note: Some(match message {
            Some(m) if status != CompareStatus::NotCompared => format!("{m}; {}", unusable.reason),
            _ => unusable.reason.clone(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_compiler_error_is_read_from_the_builds_account() {
        let why = "the base, main (9f8e7d6c5b), does not build, so nothing can be compared with \
                   it:\nthe build failed: error[E0425]: cannot find value `x` in this scope at \
                   benches/two.rs:5:9\nerror[E0425]: cannot find value `x`\n --> benches/two.rs";
        assert_eq!(
            first_error(why),
            "error[E0425]: cannot find value `x` in this scope at benches/two.rs:5:9"
        );
    }

    #[test]
    fn a_revision_that_names_nothing_names_the_setting() {
        let why = anyhow::anyhow!("`mian` is not a commit, branch or tag; did you mean `main`?");
        let unusable = Unusable::unresolved(Some("mian"), &why);
        assert!(
            unusable
                .reason
                .starts_with("no base to compare with (the setting `knotmeter.compare.base` is `mian`): `mian` is not a commit"),
            "{}",
            unusable.reason
        );
        assert!(unusable.detail.contains("did you mean `main`?"));
        let empty = Unusable::unresolved(None, &why);
        assert!(empty.reason.contains("is empty"), "{}", empty.reason);
    }
}
