//! The end of a comparison: every paired estimate corrected together (Benjamini–Hochberg) and
//! decided by the engine's one verdict function, then stored in the history as a comparison.

use knotmeter_history::{resolve_path, History};
use knotmeter_protocol::{
    CaseComparison, CompareReport, CompareStatus, ComparisonKind, DrivenEvent, PairEstimate,
};

use super::Driven;
use crate::compare::{self, Pending, RatioEstimate};

impl Driven<'_> {
    /// `finalize`: the verdicts of `estimates`, and `record` stored with them filled in.
    pub(super) fn finalize(&self, estimates: &[PairEstimate], record: Option<CompareReport>) {
        let pending: Vec<Pending> = estimates
            .iter()
            .map(|e| Pending {
                id: e.id.clone(),
                against: e.against.clone(),
                estimate: RatioEstimate {
                    ratio: e.ratio,
                    low: e.low,
                    high: e.high,
                    p_value: e.p_value,
                },
                threshold: e.threshold,
                kind: ComparisonKind::Builds,
                machine_ratio: None,
            })
            .collect();
        let comparisons: Vec<CaseComparison> = compare::finalize(&pending)
            .into_iter()
            .map(|(id, comparison)| CaseComparison { id, comparison })
            .collect();
        let (stored, store_error) = match record {
            Some(report) if !self.options.no_history => {
                match store(with_verdicts(report, &comparisons)) {
                    Ok(id) => (Some(id), None),
                    Err(why) => (None, Some(why)),
                }
            }
            _ => (None, None),
        };
        self.channel.borrow_mut().send(&DrivenEvent::Finalized {
            comparisons,
            stored,
            store_error,
        });
    }
}

/// `report` with each compared case's verdict.
fn with_verdicts(mut report: CompareReport, comparisons: &[CaseComparison]) -> CompareReport {
    for case in &mut report.cases {
        if let Some(c) = comparisons.iter().find(|c| c.id == case.id) {
            case.comparison = Some(c.comparison.clone());
            case.status = CompareStatus::Compared;
            case.note = None;
        }
    }
    report
}

/// Stores the comparison in the history this binary would record its runs in.
fn store(report: CompareReport) -> Result<i64, String> {
    let path = resolve_path(None);
    let mut history = History::open(&path).map_err(|e| e.to_string())?;
    history
        .record_comparison(&report)
        .map_err(|e| e.to_string())
}
