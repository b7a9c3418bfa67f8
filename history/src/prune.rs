//! Keeping the history small: what `knotmeter history prune` removes, and removing it.
//!
//! The retention rule, per case and comparability key (case id and machine key):
//!
//! * the newest [`Retention::keep_per_case`] results are kept (100 by default: the editor's
//!   chart shows 100 points, a comparison needs the latest, the run-to-run noise estimate the
//!   latest 20), older ones are removed;
//! * every result of the latest run saved under each baseline name on each machine key is
//!   kept, however old, and so is each case's latest result saved under each name on each
//!   machine key: `--baseline NAME` compares a case with its latest result saved as NAME, and
//!   a baseline saved by the shards of a CI run is several runs, one per shard;
//! * a run whose process is still measuring is left alone;
//! * a run left with no result (a crash before its first case ended, or every result pruned)
//!   is removed, unless it is a kept baseline or still running.
//!
//! Comparisons of two builds (`knotmeter compare`) are kept per pair of sides: the newest
//! [`Retention::keep_comparisons`] comparisons of each (base label, head label) on each machine
//! key, older ones removed with their cases. The labels are the question the user asked
//! (`main` against the working tree, `origin/main` against a pull request's head): a pair of
//! commits changes with every push, so keeping per commit pair would keep every comparison of
//! a CI forever. Nothing reads an older comparison but the listing: no before/after verdict,
//! noise estimate or chart uses them.
//!
//! Pruning also closes runs left `running` by a process that is gone (they become
//! `interrupted`), rewrites results stored by knotmeter 0.1.0 with their raw samples in full
//! into the compact form, and then `VACUUM`s the file so that it shrinks on disk.
//! [`History::prune_plan`] only reads: it is what `--dry-run` prints.

use std::collections::{HashMap, HashSet};

use knotmeter_protocol::{BenchResult, RunStatus};
use rusqlite::{params, TransactionBehavior};

use crate::read::status;
use crate::write::stored_form;
use crate::{
    BaselineRun, History, HistoryError, RunId, STORED_BASELINE_SAMPLES, STORED_WORKLOAD_SAMPLES,
};

/// How much history to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// The newest results kept per case and machine key.
    pub keep_per_case: usize,
    /// The newest comparisons kept per pair of sides (base label, head label) and machine key.
    pub keep_comparisons: usize,
}

/// The comparisons kept per pair of sides unless told otherwise: a comparison holds two
/// results of every case, and only the latest few are ever looked at again.
pub const DEFAULT_KEEP_COMPARISONS: usize = 20;

impl Default for Retention {
    fn default() -> Self {
        Self {
            keep_per_case: 100,
            keep_comparisons: DEFAULT_KEEP_COMPARISONS,
        }
    }
}

/// What pruning would remove and rewrite, computed without writing anything.
#[derive(Debug, Clone, PartialEq)]
pub struct PrunePlan {
    /// The retention the plan follows.
    pub retention: Retention,
    /// Results to remove: (run, case id).
    pub results: Vec<(RunId, String)>,
    /// Runs to remove: those left without results (never a kept baseline or a live run).
    pub runs: Vec<RunId>,
    /// Runs kept whatever their age: the latest of each baseline name on each machine key.
    pub baselines: Vec<BaselineRun>,
    /// Runs still measuring, left alone.
    pub running: Vec<RunId>,
    /// Runs left `running` by a process that is gone, to be closed as `interrupted`.
    pub to_close: Vec<RunId>,
    /// Comparisons to remove with their cases (ids in this file): those beyond the newest
    /// [`Retention::keep_comparisons`] of their pair of sides on their machine key.
    pub comparisons: Vec<i64>,
    /// The cases those comparisons hold.
    pub compared_cases: u64,
    /// Comparisons the history holds now.
    pub comparisons_before: u64,
    /// Results kept whose raw samples are stored in full (by knotmeter 0.1.0), to be
    /// rewritten in the compact form.
    pub to_compact: u64,
    /// Results and runs the history holds now.
    pub results_before: u64,
    /// Runs the history holds now.
    pub runs_before: u64,
}

impl PrunePlan {
    /// Whether applying the plan would change anything.
    pub fn is_empty(&self) -> bool {
        self.results.is_empty()
            && self.runs.is_empty()
            && self.comparisons.is_empty()
            && self.to_close.is_empty()
            && self.to_compact == 0
    }
}

/// What pruning did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pruned {
    /// Results removed.
    pub results: u64,
    /// Runs removed.
    pub runs: u64,
    /// Runs closed as `interrupted`.
    pub closed: u64,
    /// Results rewritten in the compact form.
    pub compacted: u64,
    /// Comparisons removed, with their cases.
    pub comparisons: u64,
    /// The file's size before, in bytes.
    pub bytes_before: u64,
    /// The file's size after `VACUUM`, in bytes.
    pub bytes_after: u64,
}

impl History {
    /// What [`History::prune`] would do with `retention`, without writing anything.
    pub fn prune_plan(&self, retention: Retention) -> Result<PrunePlan, HistoryError> {
        let baselines = self.baselines()?;
        let (running, to_close) = self.runs_marked_running()?;
        let protected: HashSet<RunId> = baselines
            .iter()
            .map(|b| b.run)
            .chain(running.iter().copied())
            .collect();
        let results = self.results_beyond_retention(retention.keep_per_case, &protected)?;
        let counts = self.result_counts_per_run()?;
        let runs = runs_left_empty(&counts, &results, &protected);
        let to_compact = self.full_sample_rows_kept(&results)?;
        let results_before: i64 = self
            .conn
            .query_row("SELECT count(*) FROM results", [], |r| r.get(0))
            .map_err(|e| self.sqlite(e))?;
        let (comparisons, compared_cases, comparisons_before) =
            self.comparisons_to_prune(retention.keep_comparisons)?;
        Ok(PrunePlan {
            retention,
            results,
            runs,
            baselines,
            running,
            to_close,
            comparisons,
            compared_cases,
            comparisons_before,
            to_compact,
            results_before: results_before.max(0) as u64,
            runs_before: counts.len() as u64,
        })
    }

    /// The runs whose status says `running`, split into those whose process is still
    /// measuring (left alone) and those left behind by a process that is gone (to be closed
    /// as `interrupted`), each in id order.
    fn runs_marked_running(&self) -> Result<(Vec<RunId>, Vec<RunId>), HistoryError> {
        let sqlite = |e| self.sqlite(e);
        let mut running = Vec::new();
        let mut to_close = Vec::new();
        let mut statement = self
            .conn
            .prepare("SELECT id, status, pid FROM runs WHERE status = 'running' ORDER BY id")
            .map_err(sqlite)?;
        let rows = statement
            .query_map([], |row| {
                Ok((RunId(row.get(0)?), status(row, 1, 2, &self.path)?))
            })
            .and_then(Iterator::collect::<rusqlite::Result<Vec<_>>>)
            .map_err(sqlite)?;
        for (run, status) in rows {
            match status {
                RunStatus::Running => running.push(run),
                _ => to_close.push(run),
            }
        }
        Ok((running, to_close))
    }

    /// The results beyond the newest `keep_per_case` of their case and machine key, as (run,
    /// case id) in that order, except those of a `protected` run (a kept baseline or a live
    /// run) and those `--baseline NAME` compares with (see `latest_baseline_results`).
    fn results_beyond_retention(
        &self,
        keep_per_case: usize,
        protected: &HashSet<RunId>,
    ) -> Result<Vec<(RunId, String)>, HistoryError> {
        let sqlite = |e| self.sqlite(e);
        let keep = i64::try_from(keep_per_case).unwrap_or(i64::MAX);
        let mut statement = self
            .conn
            .prepare(
                "SELECT run_id, case_id FROM (SELECT run_id, case_id, row_number() OVER \
                 (PARTITION BY case_id, machine_key ORDER BY run_id DESC) AS newest \
                 FROM results) WHERE newest > ?1 ORDER BY run_id, case_id",
            )
            .map_err(sqlite)?;
        let baseline_results = self.latest_baseline_results()?;
        let results = statement
            .query_map(params![keep], |row| {
                Ok((RunId(row.get(0)?), row.get::<_, String>(1)?))
            })
            .and_then(Iterator::collect::<rusqlite::Result<Vec<_>>>)
            .map_err(sqlite)?
            .into_iter()
            .filter(|(run, case)| {
                !protected.contains(run) && !baseline_results.contains(&(*run, case.clone()))
            })
            .collect();
        Ok(results)
    }

    /// Every run with the number of results it holds, in id order.
    fn result_counts_per_run(&self) -> Result<Vec<(RunId, u64)>, HistoryError> {
        let sqlite = |e| self.sqlite(e);
        let mut statement = self
            .conn
            .prepare(
                "SELECT u.id, (SELECT count(*) FROM results r WHERE r.run_id = u.id) \
                 FROM runs u ORDER BY u.id",
            )
            .map_err(sqlite)?;
        statement
            .query_map([], |row| {
                Ok((RunId(row.get(0)?), row.get::<_, i64>(1)?.max(0) as u64))
            })
            .and_then(Iterator::collect::<rusqlite::Result<Vec<_>>>)
            .map_err(sqlite)
    }

    /// How many results whose raw samples are stored in full survive the removal of
    /// `removed`: those that pruning rewrites in the compact form.
    fn full_sample_rows_kept(&self, removed: &[(RunId, String)]) -> Result<u64, HistoryError> {
        let to_remove: HashSet<(RunId, &str)> =
            removed.iter().map(|(r, c)| (*r, c.as_str())).collect();
        Ok(self
            .full_sample_rows()?
            .into_iter()
            .filter(|(run, case)| !to_remove.contains(&(*run, case.as_str())))
            .count() as u64)
    }

    /// Applies `plan`: removes its results and runs, closes its dead runs, compacts the
    /// samples of results stored in full, then `VACUUM`s. Rows added since the plan was made
    /// are not touched.
    pub fn prune(&mut self, plan: &PrunePlan) -> Result<Pruned, HistoryError> {
        let bytes_before = self.file_size();
        let compact: Vec<(RunId, String)> = self.full_sample_rows()?;
        let path = self.path.clone();
        let sqlite = |e| HistoryError::sqlite(&path, e);
        let mut done = Pruned {
            results: 0,
            runs: 0,
            closed: 0,
            compacted: 0,
            comparisons: 0,
            bytes_before,
            bytes_after: bytes_before,
        };
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sqlite)?;
        {
            let mut delete = tx
                .prepare("DELETE FROM results WHERE run_id = ?1 AND case_id = ?2")
                .map_err(sqlite)?;
            for (run, case) in &plan.results {
                done.results += delete.execute(params![run.0, case]).map_err(sqlite)? as u64;
            }
            let mut delete = tx
                .prepare(
                    "DELETE FROM runs WHERE id = ?1 \
                     AND NOT EXISTS (SELECT 1 FROM results WHERE run_id = ?1)",
                )
                .map_err(sqlite)?;
            for run in &plan.runs {
                done.runs += delete.execute(params![run.0]).map_err(sqlite)? as u64;
            }
            let mut close = tx
                .prepare(
                    "UPDATE runs SET status = 'interrupted' WHERE id = ?1 AND status = 'running'",
                )
                .map_err(sqlite)?;
            for run in &plan.to_close {
                done.closed += close.execute(params![run.0]).map_err(sqlite)? as u64;
            }
            // Their cases go with them (`compared_cases` references them `ON DELETE CASCADE`,
            // and every connection turns foreign keys on).
            let mut delete = tx
                .prepare("DELETE FROM comparisons WHERE id = ?1")
                .map_err(sqlite)?;
            for id in &plan.comparisons {
                done.comparisons += delete.execute(params![id]).map_err(sqlite)? as u64;
            }
            let mut read = tx
                .prepare("SELECT result FROM results WHERE run_id = ?1 AND case_id = ?2")
                .map_err(sqlite)?;
            let mut write = tx
                .prepare("UPDATE results SET result = ?3 WHERE run_id = ?1 AND case_id = ?2")
                .map_err(sqlite)?;
            for (run, case) in &compact {
                let Some(json) = read
                    .query_row(params![run.0, case], |r| r.get::<_, String>(0))
                    .map(Some)
                    .or_else(|e| match e {
                        rusqlite::Error::QueryReturnedNoRows => Ok(None),
                        e => Err(e),
                    })
                    .map_err(sqlite)?
                else {
                    continue;
                };
                let full: BenchResult = serde_json::from_str(&json).map_err(|e| {
                    crate::checked::distrust(&path);
                    HistoryError::Corrupt {
                        path: path.clone(),
                        detail: format!("a result of run {run} is unreadable: {e}"),
                    }
                })?;
                let compacted = serde_json::to_string(&stored_form(&full)).map_err(|e| {
                    HistoryError::Rejected {
                        path: path.clone(),
                        detail: format!("a result of run {run} cannot be rewritten: {e}"),
                    }
                })?;
                done.compacted += write
                    .execute(params![run.0, case, compacted])
                    .map_err(sqlite)? as u64;
            }
        }
        tx.commit().map_err(sqlite)?;
        if done.results + done.runs + done.compacted + done.comparisons > 0 {
            // Rewrites the file without the free pages, then folds the WAL back into it.
            self.conn
                .execute_batch("VACUUM; PRAGMA wal_checkpoint(TRUNCATE);")
                .map_err(|e| self.sqlite(e))?;
        }
        done.bytes_after = self.file_size();
        Ok(done)
    }

    /// The comparisons beyond the newest `keep` of their pair of sides on their machine key,
    /// oldest first; the cases they hold; and how many comparisons there are.
    fn comparisons_to_prune(&self, keep: usize) -> Result<(Vec<i64>, u64, u64), HistoryError> {
        let sqlite = |e| self.sqlite(e);
        let keep = i64::try_from(keep).unwrap_or(i64::MAX);
        // Each comparison to remove with the number of its cases, in one statement.
        let pruned: Vec<(i64, i64)> = self
            .conn
            .prepare(
                "SELECT c.id, (SELECT count(*) FROM compared_cases WHERE comparison_id = c.id) \
                 FROM (SELECT id, row_number() OVER (PARTITION BY machine_key, base_label, \
                 head_label ORDER BY id DESC) AS newest FROM comparisons) AS c \
                 WHERE c.newest > ?1 ORDER BY c.id",
            )
            .and_then(|mut statement| {
                statement
                    .query_map(params![keep], |row| Ok((row.get(0)?, row.get(1)?)))?
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(sqlite)?;
        let cases = pruned.iter().map(|(_, n)| (*n).max(0) as u64).sum();
        let ids = pruned.into_iter().map(|(id, _)| id).collect();
        let total: i64 = self
            .conn
            .query_row("SELECT count(*) FROM comparisons", [], |r| r.get(0))
            .map_err(sqlite)?;
        Ok((ids, cases, total.max(0) as u64))
    }

    /// Each case's latest complete result saved under each baseline name on each machine key:
    /// what `--baseline NAME` compares with.
    fn latest_baseline_results(&self) -> Result<HashSet<(RunId, String)>, HistoryError> {
        let mut statement = self
            .conn
            .prepare(
                "SELECT max(r.run_id), r.case_id FROM results r JOIN runs u ON u.id = r.run_id \
                 WHERE u.baseline IS NOT NULL AND r.partial = 0 \
                 GROUP BY u.baseline, r.machine_key, r.case_id",
            )
            .map_err(|e| self.sqlite(e))?;
        statement
            .query_map([], |row| Ok((RunId(row.get(0)?), row.get(1)?)))
            .and_then(Iterator::collect::<rusqlite::Result<HashSet<_>>>)
            .map_err(|e| self.sqlite(e))
    }

    /// Results whose raw samples are longer than the compact form keeps.
    fn full_sample_rows(&self) -> Result<Vec<(RunId, String)>, HistoryError> {
        let mut statement = self
            .conn
            .prepare(
                "SELECT run_id, case_id FROM results \
                 WHERE json_array_length(result, '$.raw.workload_ns') > ?1 \
                 OR json_array_length(result, '$.raw.baseline_ns') > ?2 ORDER BY run_id",
            )
            .map_err(|e| self.sqlite(e))?;
        statement
            .query_map(
                params![
                    STORED_WORKLOAD_SAMPLES as i64,
                    STORED_BASELINE_SAMPLES as i64
                ],
                |row| Ok((RunId(row.get(0)?), row.get(1)?)),
            )
            .and_then(Iterator::collect::<rusqlite::Result<Vec<_>>>)
            .map_err(|e| self.sqlite(e))
    }

    /// The history file's size in bytes (0 when it cannot be read).
    pub fn file_size(&self) -> u64 {
        std::fs::metadata(&self.path).map_or(0, |m| m.len())
    }
}

/// The runs, of `counts` (each run with its number of results), that removing `results` would
/// leave with no result, in the order of `counts`; never a `protected` run (a kept baseline or
/// a live run).
fn runs_left_empty(
    counts: &[(RunId, u64)],
    results: &[(RunId, String)],
    protected: &HashSet<RunId>,
) -> Vec<RunId> {
    let mut removed_per_run: HashMap<RunId, u64> = HashMap::new();
    for (run, _) in results {
        *removed_per_run.entry(*run).or_default() += 1;
    }
    counts
        .iter()
        .filter(|(run, count)| {
            !protected.contains(run) && removed_per_run.get(run).copied().unwrap_or(0) == *count
        })
        .map(|(run, _)| *run)
        .collect()
}
