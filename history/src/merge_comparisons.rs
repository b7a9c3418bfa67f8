//! The comparisons of two builds (`knotmeter compare`) a merge carries, beside the runs.
//!
//! A comparison is the same comparison in every file it was copied to: it is matched by its
//! uid (schema version 6), never by its id. It is written whole in one transaction when it is
//! recorded, so a copy is never a part of one: a comparison this history lacks is added with
//! every case, one it holds is left as it is, and one that shares a uid with a comparison here
//! but is another (another time, machine key or report) is reported and not merged.
//!
//! Every comparison of every source is read, and its report and cases checked to read back,
//! before anything is written.

use std::path::PathBuf;

use knotmeter_protocol::{CompareReport, ComparedCase};
use rusqlite::{params, OptionalExtension, Transaction};

use crate::comparisons::{INSERT_COMPARED_CASE, INSERT_COMPARISON};
use crate::{History, HistoryError};

/// A comparison of a source, as stored there, with its cases.
pub(crate) struct SourceComparison {
    /// Which source (its index among the sources).
    source: usize,
    id: i64,
    uid: String,
    timestamp: i64,
    base_label: String,
    base_commit: Option<String>,
    head_label: String,
    head_commit: Option<String>,
    head_dirty: bool,
    machine_key: String,
    cancelled: bool,
    report: String,
    cases: Vec<SourceCase>,
}

impl SourceComparison {
    /// The order comparisons are added in: when each was made, each source's own order kept.
    pub(crate) fn order(&self) -> (i64, usize, i64) {
        (self.timestamp, self.source, self.id)
    }
}

/// One case of a source's comparison, as stored there.
struct SourceCase {
    case_id: String,
    status: String,
    ratio: Option<f64>,
    low: Option<f64>,
    high: Option<f64>,
    verdict: Option<String>,
    entry: String,
}

/// What carrying the sources' comparisons did.
#[derive(Debug, Default)]
pub(crate) struct CarriedComparisons {
    /// Comparisons added, with all their cases.
    pub(crate) added: u64,
    /// Their cases.
    pub(crate) cases_added: u64,
    /// Comparisons this history held already (matched by uid).
    pub(crate) present: u64,
    /// Comparisons that share a uid with one here but differ from it: (source, its id there,
    /// what differs).
    pub(crate) conflicts: Vec<(PathBuf, i64, String)>,
}

impl History {
    /// Every comparison of this (source) history with its cases, each report and case checked
    /// to read back.
    pub(crate) fn source_comparisons(
        &self,
        source: usize,
    ) -> Result<Vec<SourceComparison>, HistoryError> {
        let sqlite = |e| self.sqlite(e);
        let mut comparisons = self
            .conn
            .prepare(
                "SELECT id, uid, timestamp, base_label, base_commit, head_label, head_commit, \
                 head_dirty, machine_key, cancelled, report FROM comparisons ORDER BY id",
            )
            .and_then(|mut statement| {
                statement
                    .query_map([], |r| {
                        Ok(SourceComparison {
                            source,
                            id: r.get(0)?,
                            uid: r.get(1)?,
                            timestamp: r.get(2)?,
                            base_label: r.get(3)?,
                            base_commit: r.get(4)?,
                            head_label: r.get(5)?,
                            head_commit: r.get(6)?,
                            head_dirty: r.get(7)?,
                            machine_key: r.get(8)?,
                            cancelled: r.get(9)?,
                            report: r.get(10)?,
                            cases: Vec::new(),
                        })
                    })?
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(sqlite)?;
        let mut cases = self
            .conn
            .prepare(
                "SELECT case_id, status, ratio, low, high, verdict, entry FROM compared_cases \
                 WHERE comparison_id = ?1 ORDER BY rowid",
            )
            .map_err(sqlite)?;
        for comparison in &mut comparisons {
            let id = comparison.id;
            self.parse::<CompareReport>(&comparison.report, &format!("comparison {id}"))?;
            comparison.cases = cases
                .query_map([id], |r| {
                    Ok(SourceCase {
                        case_id: r.get(0)?,
                        status: r.get(1)?,
                        ratio: r.get(2)?,
                        low: r.get(3)?,
                        high: r.get(4)?,
                        verdict: r.get(5)?,
                        entry: r.get(6)?,
                    })
                })
                .and_then(Iterator::collect::<rusqlite::Result<Vec<_>>>)
                .map_err(sqlite)?;
            for case in &comparison.cases {
                self.parse::<ComparedCase>(
                    &case.entry,
                    &format!("the case `{}` of comparison {id}", case.case_id),
                )?;
            }
        }
        Ok(comparisons)
    }
}

/// Adds to the history `tx` writes every comparison of `comparisons` it lacks (they come
/// sorted in the order they are to be added); `sources` are the sources' paths by index.
pub(crate) fn carry_comparisons(
    tx: &Transaction<'_>,
    comparisons: &[SourceComparison],
    sources: &[PathBuf],
) -> rusqlite::Result<CarriedComparisons> {
    let mut carried = CarriedComparisons::default();
    for comparison in comparisons {
        let held: Option<(i64, String, String)> = tx
            .query_row(
                "SELECT timestamp, machine_key, report FROM comparisons WHERE uid = ?1",
                [&comparison.uid],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        if let Some(held) = held {
            match differs(&held, comparison) {
                Some(what) => carried.conflicts.push((
                    sources[comparison.source].clone(),
                    comparison.id,
                    what,
                )),
                None => carried.present += 1,
            }
            continue;
        }
        tx.execute(
            INSERT_COMPARISON,
            params![
                comparison.timestamp,
                comparison.base_label,
                comparison.base_commit,
                comparison.head_label,
                comparison.head_commit,
                comparison.head_dirty,
                comparison.machine_key,
                comparison.cancelled,
                comparison.report,
                comparison.uid
            ],
        )?;
        let id = tx.last_insert_rowid();
        let mut insert = tx.prepare_cached(INSERT_COMPARED_CASE)?;
        for case in &comparison.cases {
            insert.execute(params![
                id,
                case.case_id,
                case.status,
                case.ratio,
                case.low,
                case.high,
                case.verdict,
                case.entry
            ])?;
        }
        carried.added += 1;
        carried.cases_added += comparison.cases.len() as u64;
    }
    Ok(carried)
}

/// What makes a source's comparison another one than the one held under its uid, if anything.
fn differs(held: &(i64, String, String), comparison: &SourceComparison) -> Option<String> {
    let (timestamp, machine_key, report) = held;
    if *timestamp != comparison.timestamp {
        return Some(format!(
            "it was made at {timestamp} here and at {} there",
            comparison.timestamp
        ));
    }
    if *machine_key != comparison.machine_key {
        return Some(format!(
            "its machine key is {machine_key} here and {} there",
            comparison.machine_key
        ));
    }
    (*report != comparison.report).then(|| "its reports differ".to_owned())
}
