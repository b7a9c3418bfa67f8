//! Comparisons of two builds (`knotmeter compare`): stored whole, in one transaction, apart
//! from runs, and read back newest first.
//!
//! A comparison names both sides (label, commit, and whether the head's working tree had
//! uncommitted changes) and keeps every case as the comparison reported it: its status, each
//! side's result (raw samples in their compact form, as for runs) and the verdict. Its cases
//! never count as runs: a later before/after comparison of a case only ever looks at runs, so
//! the base build's result is never taken for the head's predecessor. Each has a uid (schema
//! version 6), its identity in every file it is merged into.

use knotmeter_protocol::{CompareReport, ComparedCase};
use rusqlite::params;

use crate::uid::new_uid;
use crate::write::{now, stored_form, write};
use crate::{machine_key, History, HistoryError};

/// The statement that adds a comparison, for new ones and merged ones alike: timestamp, base
/// label and commit, head label and commit, head dirty, machine key, cancelled, report, uid.
pub(crate) const INSERT_COMPARISON: &str = "INSERT INTO comparisons (timestamp, base_label, \
    base_commit, head_label, head_commit, head_dirty, machine_key, cancelled, report, uid) \
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";

/// The statement that adds a case to a comparison: comparison id, case id, status, ratio,
/// low, high, verdict, entry.
pub(crate) const INSERT_COMPARED_CASE: &str = "INSERT INTO compared_cases (comparison_id, \
    case_id, status, ratio, low, high, verdict, entry) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";

impl History {
    /// Records `report` (its cases included) as one comparison with a new uid, in one
    /// transaction, and returns its id. The head side's manifest gives the machine key (the base side's, when
    /// the head has none).
    ///
    /// Rejected ([`HistoryError::Rejected`], nothing written) when a case id appears twice,
    /// neither side has a manifest, or a value cannot be read back from JSON.
    pub fn record_comparison(&mut self, report: &CompareReport) -> Result<i64, HistoryError> {
        let manifest = report
            .head
            .manifest
            .as_ref()
            .or(report.base.manifest.as_ref())
            .ok_or_else(|| self.rejected("neither side of the comparison has a manifest".into()))?;
        let key = machine_key(manifest);
        let mut seen = std::collections::HashSet::new();
        let mut rows = Vec::with_capacity(report.cases.len());
        for case in &report.cases {
            if !seen.insert(case.id.as_str()) {
                return Err(self.rejected(format!("the case `{}` appears twice", case.id)));
            }
            let stored = ComparedCase {
                location: None,
                base: case.base.as_ref().map(stored_form),
                head: case.head.as_ref().map(stored_form),
                ..case.clone()
            };
            let json = self.checked_json(&stored, &format!("the comparison of `{}`", case.id))?;
            rows.push((case, json));
        }
        let head = CompareReport {
            cases: Vec::new(),
            stored: None,
            ..report.clone()
        };
        let report_json = self.checked_json(&head, "the comparison")?;
        let tx = write(&mut self.conn, &self.path)?;
        let sqlite = |e| HistoryError::sqlite(&self.path, e);
        tx.execute(
            INSERT_COMPARISON,
            params![
                now(),
                report.base.label,
                report.base.commit,
                report.head.label,
                report.head.commit,
                report.head.dirty,
                key,
                report.cancelled,
                report_json,
                new_uid()
            ],
        )
        .map_err(sqlite)?;
        let id = tx.last_insert_rowid();
        for (case, json) in &rows {
            let c = case.comparison.as_ref();
            tx.prepare_cached(INSERT_COMPARED_CASE)
                .and_then(|mut insert| {
                    insert.execute(params![
                        id,
                        case.id,
                        case.status.as_str(),
                        c.map(|c| c.ratio),
                        c.map(|c| c.low),
                        c.map(|c| c.high),
                        c.map(|c| c.verdict.as_str()),
                        json
                    ])
                })
                .map_err(sqlite)?;
        }
        tx.commit().map_err(sqlite)?;
        Ok(id)
    }

    /// The latest `limit` comparisons, newest first, each with its cases (raw samples in their
    /// compact form) and `stored` set to its id.
    pub fn comparisons(&self, limit: usize) -> Result<Vec<CompareReport>, HistoryError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut statement = self
            .conn
            .prepare("SELECT id, report FROM comparisons ORDER BY id DESC LIMIT ?1")
            .map_err(|e| self.sqlite(e))?;
        let heads = statement
            .query_map([limit], |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
            })
            .and_then(Iterator::collect::<rusqlite::Result<Vec<_>>>)
            .map_err(|e| self.sqlite(e))?;
        let mut cases = self
            .conn
            .prepare("SELECT entry FROM compared_cases WHERE comparison_id = ?1 ORDER BY rowid")
            .map_err(|e| self.sqlite(e))?;
        let mut reports = Vec::with_capacity(heads.len());
        for (id, json) in heads {
            let mut report: CompareReport = self.parse(&json, &format!("comparison {id}"))?;
            let entries = cases
                .query_map([id], |r| r.get::<_, String>(0))
                .and_then(Iterator::collect::<rusqlite::Result<Vec<_>>>)
                .map_err(|e| self.sqlite(e))?;
            report.cases = entries
                .iter()
                .map(|entry| self.parse(entry, &format!("a case of comparison {id}")))
                .collect::<Result<_, _>>()?;
            report.stored = Some(id);
            reports.push(report);
        }
        Ok(reports)
    }
}
