//! The verdicts of a comparison: one head bench binary corrects every estimate together
//! (Benjamini–Hochberg), decides each verdict with the engine's one verdict function, and
//! stores the comparison in the history with both commits named.

use std::time::Duration;

use knotmeter_protocol::{CompareReport, CompareStatus, DrivenCommand, DrivenEvent};
use tokio::time::Instant;

use super::binary::{Binary, Silence};
use super::measure::Measured;
use crate::process::Children;

/// How long `finalize` may take: a few milliseconds of statistics and one history write.
const FINALIZE_TIMEOUT: Duration = Duration::from_secs(60);

/// Fills in `report`'s verdicts (and, with `store`, its history id). Cases whose verdict could
/// not be decided become `not_compared`, saying why. Returns what the user should be told.
pub async fn finalize(
    report: &mut CompareReport,
    measured: &Measured,
    store: bool,
    children: &Children,
) -> Vec<String> {
    let mut notes = Vec::new();
    if measured.estimates.is_empty() && !store {
        return notes;
    }
    let outcome = match &measured.finalizer {
        Some(spec) => ask(spec, report, measured, store, children).await,
        None => Err("no bench binary of the head started, so nothing decides the verdicts".into()),
    };
    match outcome {
        Ok((comparisons, stored, store_error)) => {
            for c in comparisons {
                if let Some(case) = report.cases.iter_mut().find(|case| case.id == c.id) {
                    case.comparison = Some(c.comparison);
                    case.status = CompareStatus::Compared;
                }
            }
            report.stored = stored;
            if let Some(why) = store_error {
                notes.push(format!(
                    "the comparison was not stored in the history: {why}"
                ));
            }
        }
        Err(why) => {
            notes.push(why.clone());
            for case in &mut report.cases {
                if case.status == CompareStatus::Compared && case.comparison.is_none() {
                    case.status = CompareStatus::NotCompared;
                    case.note = Some(format!("no verdict: {why}"));
                }
            }
        }
    }
    notes
}

type Finalized = (
    Vec<knotmeter_protocol::CaseComparison>,
    Option<i64>,
    Option<String>,
);

async fn ask(
    spec: &super::binary::Spec,
    report: &CompareReport,
    measured: &Measured,
    store: bool,
    children: &Children,
) -> Result<Finalized, String> {
    let mut binary = Binary::start(spec, children, Duration::from_secs(30)).await?;
    let command = DrivenCommand::Finalize {
        estimates: measured.estimates.clone(),
        record: store.then(|| Box::new(report.clone())),
    };
    let answer = match binary.send(&command).await {
        Ok(()) => binary.recv(Instant::now() + FINALIZE_TIMEOUT).await,
        Err(silence) => Err(silence),
    };
    binary.stop().await;
    match answer {
        Ok(DrivenEvent::Finalized {
            comparisons,
            stored,
            store_error,
        }) => Ok((comparisons, stored, store_error)),
        Ok(other) => Err(format!(
            "the head's bench binary answered `finalize` with {}",
            serde_json::to_string(&other).unwrap_or_default()
        )),
        // In words, not as the `Silence` value: the user needs what happened to the process.
        Err(Silence::TimedOut) => Err(format!(
            "the head's bench binary did not decide the verdicts: it sent nothing for {} s and \
             was stopped",
            FINALIZE_TIMEOUT.as_secs()
        )),
        Err(Silence::Ended(how)) => Err(format!(
            "the head's bench binary did not decide the verdicts: it {how}"
        )),
    }
}
