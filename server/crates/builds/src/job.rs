//! A comparison run from the editor: `knotmeter/run` with `compare` set ("Compare with base"
//! in the Test Explorer, the "⇄ Compare with base" lens). The same pipeline as `knotmeter
//! compare`, reported as the job events of a run, so the session and the editor treat it as
//! one: each item goes `building`, `started`, then `passed` with the working tree's result,
//! and once every case is measured the verdicts arrive as comparisons (kind `builds`) of those
//! results, which the session sends again as `passed`.
//!
//! | the case | the item |
//! |---|---|
//! | compared | `passed`, its result, later its comparison |
//! | measured, not compared | `passed`, its result; the output says why |
//! | only in the working tree | `skipped`: nothing to compare it with |
//! | failed on one side, or its bench binary crashed or hung | `failed`, saying which side and why |
//! | cancelled | `skipped` |
//! | measured, but the base gave no verdict for it | `passed`, its result warned `not_compared` |
//!
//! When the base cannot be compared with at all — it does not build, its knotmeter predates
//! driven mode, or `knotmeter.compare.base` names no commit — the head is not lost
//! ([`head_alone`]): its cases are measured on their own, as a run stored in the history,
//! each `passed` with its result warned `not_compared: the base (main) does not build: …`
//! (a warning on every surface, never a pass), and the base's error is said once.

use std::collections::HashSet;

use knotmeter_protocol::editor::{ItemState, SourceLocation};
use knotmeter_protocol::{CompareReport, CompareStatus};
use tokio_util::sync::CancellationToken;

use super::head_alone::{self, Unusable};
use super::measure::MeasureEvent;
use super::pipeline::{self, Outcome, Step};
use super::BuildsRequest;
use super::{binary, build, render};
use crate::discovery::Workspace;
use crate::process::Children;
use crate::runs::{Job, JobEvent, RunOptions, Sink};

/// Carries out a comparison job; every item reaches a final state, then
/// [`JobEvent::Finished`].
pub async fn execute_job(
    job: Job,
    request: BuildsRequest,
    workspace: Workspace,
    options: RunOptions,
    children: Children,
    cancel: CancellationToken,
    mut sink: Sink,
) {
    let ids: Vec<String> = job.ids().cloned().collect();
    for id in &ids {
        sink(state(id, ItemState::Building, None, None));
    }
    let mut finals = HashSet::new();
    let outcome = compare(&job, &request, &children, &cancel, &mut sink, &mut finals).await;
    match outcome {
        Ok(Some(unusable)) if !cancel.is_cancelled() => {
            let rest = Job {
                targets: job
                    .targets
                    .iter()
                    .map(|(target, ids)| {
                        let ids = ids.iter().filter(|id| !finals.contains(*id)).cloned();
                        (target.clone(), ids.collect::<Vec<_>>())
                    })
                    .filter(|(_, ids)| !ids.is_empty())
                    .collect(),
                ..job.clone()
            };
            finals.extend(rest.ids().cloned());
            let report = head_alone::execute(
                rest,
                workspace,
                options,
                children,
                cancel.clone(),
                &unusable,
                &mut sink,
            )
            .await;
            if !report.cases.is_empty() {
                sink(JobEvent::BuildsShown(Box::new(
                    knotmeter_format::compared::compared(&report),
                )));
            }
        }
        Ok(_) => {}
        // Cancelled before measuring (while resolving or building): the items are skipped
        // below, as in any cancelled run; nothing went wrong with them.
        Err(_) if cancel.is_cancelled() => {}
        Err(why) => {
            // The head is the user's code: its compiler errors are shown where they are.
            if let Some(unbuilt) = why.downcast_ref::<build::HeadUnbuilt>() {
                sink(JobEvent::Built {
                    errors: unbuilt.errors.clone(),
                });
            }
            let message = format!("{why:#}");
            sink(JobEvent::Output {
                id: None,
                text: format!("knotmeter compare: {message}"),
            });
            let errors = why
                .downcast_ref::<build::HeadUnbuilt>()
                .map_or(&[][..], |unbuilt| &unbuilt.errors[..]);
            for (target, ids) in &job.targets {
                let location = crate::runs::compiler_error_location(errors, &target.package);
                for id in ids {
                    if finals.insert(id.clone()) {
                        let why = Some(message.clone());
                        sink(located(id, ItemState::Errored, why, location.clone()));
                    }
                }
            }
        }
    }
    let why = if cancel.is_cancelled() {
        "cancelled"
    } else {
        "not run"
    };
    for id in ids.iter().filter(|id| !finals.contains(*id)) {
        sink(state(id, ItemState::Skipped, None, Some(why.into())));
    }
    sink(JobEvent::Finished);
}

/// A state without a result, its message about `location` in the sources.
fn located(
    id: &str,
    state: ItemState,
    message: Option<String>,
    location: Option<SourceLocation>,
) -> JobEvent {
    JobEvent::State {
        id: id.to_owned(),
        state,
        result: None,
        message,
        location,
    }
}

fn state(
    id: &str,
    state: ItemState,
    result: Option<knotmeter_protocol::BenchResult>,
    message: Option<String>,
) -> JobEvent {
    JobEvent::State {
        id: id.to_owned(),
        state,
        result: result.map(Box::new),
        message,
        location: None,
    }
}

/// The head's result of a case that was not compared, warned `not_compared` with the case's
/// note and the base it was not compared with.
fn warned_head(
    case: &knotmeter_protocol::ComparedCase,
    base_label: &str,
) -> Option<knotmeter_protocol::BenchResult> {
    let mut head = case.head.clone();
    if let (Some(head), Some(note)) = (head.as_mut(), case.note.as_deref()) {
        head_alone::warn(head, &format!("{note} (base: {base_label})"));
    }
    head
}

/// Compares the job's cases; `Ok(Some(_))` when the base cannot be compared with at all, so
/// the cases not yet final are to be measured on their own.
async fn compare(
    job: &Job,
    request: &BuildsRequest,
    children: &Children,
    cancel: &CancellationToken,
    sink: &mut Sink,
    finals: &mut HashSet<String>,
) -> anyhow::Result<Option<Unusable>> {
    let wanted: HashSet<String> = job.ids().cloned().collect();
    let mut base_label = String::new();
    let mut on = |step: Step| match step {
        Step::Note(text) | Step::Line(text) => sink(JobEvent::Output { id: None, text }),
        Step::HeadBuilt(errors) => sink(JobEvent::Built { errors }),
        Step::Resolved { base_label: label } => base_label = label,
        Step::Phase(_) => {}
        Step::Measure(event) => report_measured(event, &base_label, sink, finals),
    };
    let outcome = pipeline::compare(request, Some(&wanted), children, cancel, &mut on).await?;
    Ok(match outcome {
        Outcome::Compared { report, undecided } => {
            report_verdicts(&report, &undecided, &base_label, sink);
            None
        }
        Outcome::BaseUnusable { unusable, .. } => Some(unusable),
        Outcome::Unresolved(why) => Some(Unusable::unresolved(request.base.as_deref(), &why)),
    })
}

/// Reports what measuring found as job events: a note as output, a pair begun as its item
/// `started`, progress as progress, and a case done as its item's state (which then is final,
/// in `finals`), with its note as output.
fn report_measured(
    event: MeasureEvent,
    base_label: &str,
    sink: &mut Sink,
    finals: &mut HashSet<String>,
) {
    match event {
        MeasureEvent::Note(text) => sink(JobEvent::Output { id: None, text }),
        MeasureEvent::Started(id) => sink(state(&id, ItemState::Started, None, None)),
        MeasureEvent::Progress { id, fraction } => sink(JobEvent::Progress { id, fraction }),
        // A base whose knotmeter predates driven mode fails every case it lists: those are
        // measured on their own afterwards, not ended here.
        MeasureEvent::Case(case)
            if case
                .note
                .as_deref()
                .is_some_and(|n| n.contains(binary::PREDATES_DRIVEN_MODE)) => {}
        MeasureEvent::Case(case) => {
            let (item, message) = match case.status {
                CompareStatus::Compared | CompareStatus::NotCompared => (ItemState::Passed, None),
                CompareStatus::Added => (
                    ItemState::Skipped,
                    Some(format!(
                        "nothing to compare with: {} has no such case",
                        base_label
                    )),
                ),
                CompareStatus::Removed => return,
                CompareStatus::Failed => (ItemState::Failed, case.note.clone()),
                CompareStatus::Skipped => (ItemState::Skipped, Some("cancelled".into())),
            };
            if let Some(note) = &case.note {
                sink(JobEvent::Output {
                    id: Some(case.id.clone()),
                    text: format!("{}: {note}", case.id),
                });
            }
            let head = if case.status == CompareStatus::NotCompared {
                warned_head(&case, base_label)
            } else {
                case.head.clone()
            };
            sink(match head {
                Some(head) => state(&case.id, item, Some(head), message),
                None => located(&case.id, item, message, case.location.clone()),
            });
            finals.insert(case.id.clone());
        }
    }
}

/// Reports the verdicts of the finished `report`: a compared case whose verdict could not be
/// decided (`undecided`) `passed` again, warned; each comparison with its change as output;
/// then the summary and the whole comparison.
fn report_verdicts(
    report: &CompareReport,
    undecided: &HashSet<String>,
    base_label: &str,
    sink: &mut Sink,
) {
    // A pair whose verdict could not be decided was reported `passed`: now it says why.
    for case in report.cases.iter().filter(|c| undecided.contains(&c.id)) {
        let head = warned_head(case, base_label);
        sink(state(&case.id, ItemState::Passed, head, None));
    }
    for case in &report.cases {
        if let Some(comparison) = &case.comparison {
            sink(JobEvent::Comparison {
                id: case.id.clone(),
                comparison: comparison.clone(),
            });
            sink(JobEvent::Output {
                id: Some(case.id.clone()),
                text: format!("{}: {}", case.id, render::change(comparison)),
            });
        }
    }
    sink(JobEvent::Output {
        id: None,
        text: render::summary(report),
    });
    sink(JobEvent::BuildsShown(Box::new(
        knotmeter_format::compared::compared(report),
    )));
}
