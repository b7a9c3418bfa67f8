//! Recording runs as they go.
//!
//! A measuring run is recorded in steps, each one short transaction that takes the write lock
//! up front (`BEGIN IMMEDIATE`): [`History::begin_run`] when it starts, [`History::record_result`]
//! when each case finishes, [`History::record_verdicts`] once the run's comparisons are
//! decided, and [`History::end_run`]. A process that dies between two steps leaves every
//! finished case stored, in a run that reads as `interrupted`. Everything a step writes is
//! serialised and checked before the lock is taken, so the lock is held only for the inserts.
//!
//! [`History::record_run`] records a whole run at once, in one transaction.

use std::collections::HashSet;
use std::time::{SystemTime, UNIX_EPOCH};

use knotmeter_protocol::{BenchResult, MachineProbe, Manifest, RawSamples, RunStatus};
use std::path::Path;

use rusqlite::{params, Connection, Transaction, TransactionBehavior};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::{
    machine_key, stored_samples, History, HistoryError, RunId, STORED_BASELINE_SAMPLES,
    STORED_WORKLOAD_SAMPLES,
};

/// A result ready to insert: its columns and its JSON.
struct Row<'a> {
    result: &'a BenchResult,
    json: String,
}

impl History {
    /// Records the start of a run — its manifest, [`machine_key`], git commit, timestamp,
    /// optional baseline name and this process's id — as `running`, and returns its id.
    ///
    /// Rejected ([`HistoryError::Rejected`], nothing written) when the baseline name is empty
    /// or the manifest cannot be read back from JSON.
    pub fn begin_run(
        &mut self,
        manifest: &Manifest,
        baseline: Option<&str>,
    ) -> Result<RunId, HistoryError> {
        let run = self.run_row(manifest, baseline)?;
        crate::recording::hold(&self.path);
        let tx = write(&mut self.conn, &self.path)?;
        let id = insert_run(&tx, &run, RunStatus::Running, None)
            .map_err(|e| HistoryError::sqlite(&self.path, e))?;
        tx.commit()
            .map_err(|e| HistoryError::sqlite(&self.path, e))?;
        Ok(id)
    }

    /// Stores the result of one case of run `run`, as it finished (or, with `partial` set, as
    /// far as it got before a cancel: such a result is kept but never used as a baseline).
    ///
    /// The raw samples are stored in their compact form ([`crate::stored_samples`]). Rejected
    /// when the run is not in the history, the case is already stored for it, or a value cannot
    /// be read back from JSON (a NaN or infinite number).
    pub fn record_result(&mut self, run: RunId, result: &BenchResult) -> Result<(), HistoryError> {
        let row = self.result_row(result)?;
        let tx = write(&mut self.conn, &self.path)?;
        let key: Option<String> = tx
            .query_row("SELECT machine_key FROM runs WHERE id = ?1", [run.0], |r| {
                r.get(0)
            })
            .map(Some)
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                e => Err(e),
            })
            .map_err(|e| HistoryError::sqlite(&self.path, e))?;
        let Some(key) = key else {
            return Err(rejected(
                &self.path,
                format!("run {run} is not in this history"),
            ));
        };
        if stored(&tx, run, &result.id).map_err(|e| HistoryError::sqlite(&self.path, e))? {
            return Err(rejected(
                &self.path,
                format!("the case `{}` is already stored for run {run}", result.id),
            ));
        }
        insert_result(&tx, run, &key, &row, now())
            .map_err(|e| HistoryError::sqlite(&self.path, e))?;
        tx.commit().map_err(|e| HistoryError::sqlite(&self.path, e))
    }

    /// Replaces the stored results of run `run` that `results` names with these (the run's
    /// comparisons are decided at its end, after its cases were stored), and returns how many
    /// were replaced. Results of the run that were never stored are left out.
    pub fn record_verdicts(
        &mut self,
        run: RunId,
        results: &[BenchResult],
    ) -> Result<usize, HistoryError> {
        let rows = results
            .iter()
            .map(|r| self.result_row(r))
            .collect::<Result<Vec<_>, _>>()?;
        let tx = write(&mut self.conn, &self.path)?;
        let mut replaced = 0;
        {
            let mut update = tx
                .prepare(
                    "UPDATE results SET verdict = ?1, result = ?2 WHERE run_id = ?3 AND case_id = ?4",
                )
                .map_err(|e| HistoryError::sqlite(&self.path, e))?;
            for row in &rows {
                replaced += update
                    .execute(params![
                        verdict_of(row.result),
                        row.json,
                        run.0,
                        row.result.id
                    ])
                    .map_err(|e| HistoryError::sqlite(&self.path, e))?;
            }
        }
        tx.commit()
            .map_err(|e| HistoryError::sqlite(&self.path, e))?;
        Ok(replaced)
    }

    /// Closes run `run` as `complete`, `cancelled` or `interrupted`, with the machine's probe
    /// of the run when it has one (schema version 7).
    ///
    /// Rejected when the run is not in the history or the probe cannot be read back from JSON.
    pub fn end_run(
        &mut self,
        run: RunId,
        status: RunStatus,
        probe: Option<&MachineProbe>,
    ) -> Result<(), HistoryError> {
        let probe = probe
            .map(|p| self.checked_json(p, "the machine's probe"))
            .transpose()?;
        let tx = write(&mut self.conn, &self.path)?;
        let changed = tx
            .execute(
                "UPDATE runs SET status = ?1, ended_at = ?2, probe = ?3 WHERE id = ?4",
                params![status.as_str(), now(), probe, run.0],
            )
            .map_err(|e| HistoryError::sqlite(&self.path, e))?;
        if changed == 0 {
            return Err(rejected(
                &self.path,
                format!("run {run} is not in this history"),
            ));
        }
        tx.commit().map_err(|e| HistoryError::sqlite(&self.path, e))
    }

    /// Records a whole run — its manifest, [`machine_key`], git commit, timestamp, optional
    /// baseline name, and every case's result — in one transaction, as `complete`, and returns
    /// its id.
    ///
    /// The run is rejected ([`HistoryError::Rejected`], nothing written) when a case id
    /// appears twice, the baseline name is empty, or a value cannot be read back from JSON.
    pub fn record_run(
        &mut self,
        manifest: &Manifest,
        results: &[BenchResult],
        baseline: Option<&str>,
    ) -> Result<RunId, HistoryError> {
        let run = self.run_row(manifest, baseline)?;
        let mut seen = HashSet::new();
        let mut rows = Vec::with_capacity(results.len());
        for result in results {
            if !seen.insert(result.id.as_str()) {
                return Err(self.rejected(format!("the case `{}` appears twice", result.id)));
            }
            rows.push(self.result_row(result)?);
        }
        let tx = write(&mut self.conn, &self.path)?;
        let stored_at = now();
        let id = insert_run(&tx, &run, RunStatus::Complete, Some(stored_at))
            .map_err(|e| HistoryError::sqlite(&self.path, e))?;
        for row in &rows {
            insert_result(&tx, id, &run.key, row, stored_at)
                .map_err(|e| HistoryError::sqlite(&self.path, e))?;
        }
        tx.commit()
            .map_err(|e| HistoryError::sqlite(&self.path, e))?;
        Ok(id)
    }

    fn run_row(&self, manifest: &Manifest, baseline: Option<&str>) -> Result<RunRow, HistoryError> {
        if baseline.is_some_and(|name| name.trim().is_empty()) {
            return Err(self.rejected("the baseline name is empty".to_owned()));
        }
        let timestamp = i64::try_from(manifest.timestamp).map_err(|_| {
            self.rejected(format!(
                "the manifest's timestamp {} is out of range",
                manifest.timestamp
            ))
        })?;
        Ok(RunRow {
            timestamp,
            git_commit: manifest.git_commit.clone(),
            key: machine_key(manifest),
            manifest: self.checked_json(manifest, "the manifest")?,
            baseline: baseline.map(str::to_owned),
            budget_ms: i64::try_from(manifest.budget_ms).unwrap_or(i64::MAX),
        })
    }

    fn result_row<'a>(&self, result: &'a BenchResult) -> Result<Row<'a>, HistoryError> {
        let json = self.checked_json(
            &stored_form(result),
            &format!("the result of `{}`", result.id),
        )?;
        Ok(Row { result, json })
    }

    /// `value` as JSON, after checking that it reads back (serde_json writes NaN and
    /// infinities as `null`, which would make the stored value unreadable).
    pub(crate) fn checked_json<T: Serialize + DeserializeOwned>(
        &self,
        value: &T,
        what: &str,
    ) -> Result<String, HistoryError> {
        let json = serde_json::to_string(value)
            .map_err(|e| self.rejected(format!("{what} cannot be written as JSON: {e}")))?;
        serde_json::from_str::<T>(&json).map_err(|e| {
            self.rejected(format!(
                "{what} would not read back ({e}); a NaN or infinite number is the usual cause"
            ))
        })?;
        Ok(json)
    }

    pub(crate) fn rejected(&self, detail: String) -> HistoryError {
        rejected(&self.path, detail)
    }
}

/// A write transaction, the lock taken up front.
pub(crate) fn write<'c>(
    conn: &'c mut Connection,
    path: &Path,
) -> Result<Transaction<'c>, HistoryError> {
    conn.transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|e| HistoryError::sqlite(path, e))
}

fn stored(tx: &Transaction<'_>, run: RunId, case_id: &str) -> rusqlite::Result<bool> {
    tx.query_row(
        "SELECT count(*) FROM results WHERE run_id = ?1 AND case_id = ?2",
        params![run.0, case_id],
        |r| r.get::<_, i64>(0),
    )
    .map(|n| n > 0)
}

fn rejected(path: &Path, detail: String) -> HistoryError {
    HistoryError::Rejected {
        path: path.to_path_buf(),
        detail,
    }
}

/// A run's columns, checked and serialised before any lock is taken.
struct RunRow {
    timestamp: i64,
    git_commit: Option<String>,
    key: String,
    manifest: String,
    baseline: Option<String>,
    budget_ms: i64,
}

/// Adds a run: timestamp, commit, machine key, manifest, baseline, status, pid, end, budget,
/// uid and probe, in that order (a run of this process, or one merged from another history).
pub(crate) const INSERT_RUN: &str = "INSERT INTO runs (timestamp, git_commit, machine_key, \
    manifest, baseline, status, pid, ended_at, budget_ms, uid, probe) \
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)";

fn insert_run(
    tx: &Transaction<'_>,
    run: &RunRow,
    status: RunStatus,
    ended_at: Option<i64>,
) -> rusqlite::Result<RunId> {
    tx.execute(
        INSERT_RUN,
        params![
            run.timestamp,
            run.git_commit,
            run.key,
            run.manifest,
            run.baseline,
            status.as_str(),
            i64::from(std::process::id()),
            ended_at,
            run.budget_ms,
            crate::uid::new_uid(),
            None::<String>
        ],
    )?;
    Ok(RunId(tx.last_insert_rowid()))
}

fn insert_result(
    tx: &Transaction<'_>,
    run: RunId,
    key: &str,
    row: &Row<'_>,
    stored_at: i64,
) -> rusqlite::Result<()> {
    let r = row.result;
    tx.prepare_cached(
        "INSERT INTO results (run_id, case_id, machine_key, median_ns, low_ns, high_ns, verdict, \
         result, partial, stored_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?
    .execute(params![
        run.0,
        r.id,
        key,
        r.estimate.median_ns,
        r.estimate.low_ns,
        r.estimate.high_ns,
        verdict_of(r),
        row.json,
        r.partial,
        stored_at
    ])?;
    Ok(())
}

/// `result` as it is stored: raw samples in their compact form, no `stored_at` (the column
/// holds it).
pub(crate) fn stored_form(result: &BenchResult) -> BenchResult {
    BenchResult {
        raw: RawSamples {
            workload_ns: stored_samples(&result.raw.workload_ns, STORED_WORKLOAD_SAMPLES),
            baseline_ns: stored_samples(&result.raw.baseline_ns, STORED_BASELINE_SAMPLES),
        },
        stored_at: None,
        ..result.clone()
    }
}

fn verdict_of(result: &BenchResult) -> Option<&'static str> {
    result.comparison.as_ref().map(|c| c.verdict.as_str())
}

/// Seconds since the Unix epoch.
pub(crate) fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}
