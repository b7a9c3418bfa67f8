//! Looking results up: for comparisons, for charts, for listings, and for the editor after a
//! restart.
//!
//! Lookups order by [`RunId`] (recording order), never by timestamp. A result cut short by a
//! cancel (`partial`) is never a baseline: [`History::previous`], [`History::baseline`] and
//! [`History::medians`] skip it. A run whose status is `running` but whose process is gone
//! reads as `interrupted`.

use knotmeter_protocol::{BenchResult, HistoryRun, Manifest, RunStatus};
use std::path::Path;

use rusqlite::{params, OptionalExtension, Row};
use serde::de::DeserializeOwned;

use crate::{BaselineRun, History, HistoryError, HistoryPoint, RunId, StoredMedian, StoredResult};

/// The columns [`History::stored_result`] reads, in order.
macro_rules! stored_columns {
    () => {
        "SELECT r.run_id, u.timestamp, u.git_commit, r.result, \
         coalesce(r.stored_at, u.timestamp), u.probe FROM results r JOIN runs u ON u.id = r.run_id "
    };
}

/// [`History::previous`]: one search of the index on (case, machine, partial, run).
const PREVIOUS: &str = concat!(
    stored_columns!(),
    "WHERE r.case_id = ?1 AND r.machine_key = ?2 AND r.run_id < ?3 \
     AND r.partial = 0 ORDER BY r.run_id DESC LIMIT 1"
);

/// [`History::baseline`].
const BASELINE: &str = concat!(
    stored_columns!(),
    "WHERE u.baseline = ?1 AND r.case_id = ?2 AND r.machine_key = ?3 \
     AND r.run_id < ?4 AND r.partial = 0 ORDER BY r.run_id DESC LIMIT 1"
);

/// [`History::medians`]: the results from the index, each one's run by its primary key.
const MEDIANS: &str = "SELECT r.median_ns, u.git_commit, json_extract(u.manifest, '$.git_dirty'), \
     CASE WHEN json_valid(u.probe) THEN json_extract(u.probe, '$.ns_per_step') END, \
     CASE WHEN json_valid(u.probe) THEN json_extract(u.probe, '$.build') END \
     FROM results r JOIN runs u ON u.id = r.run_id WHERE r.case_id = ?1 AND r.machine_key = ?2 \
     AND r.run_id < ?3 AND r.partial = 0 ORDER BY r.run_id DESC LIMIT ?4";

/// [`History::probes`]: the runs of one machine key whose probe one build compiled, newest
/// first. A probe that is not JSON, or whose figure is not a number, reads as none.
const PROBES: &str = "SELECT json_extract(probe, '$.ns_per_step') FROM runs \
     WHERE machine_key = ?1 AND id < ?2 AND json_valid(probe) \
     AND typeof(json_extract(probe, '$.ns_per_step')) IN ('real', 'integer') \
     AND json_extract(probe, '$.build') = ?4 \
     ORDER BY id DESC LIMIT ?3";

/// [`History::points`].
const POINTS: &str = "SELECT r.run_id, u.timestamp, u.git_commit, r.machine_key, u.baseline, \
     r.median_ns, r.low_ns, r.high_ns, r.verdict, u.status, u.pid, r.partial, \
     u.budget_ms, coalesce(r.stored_at, u.timestamp), \
     json_extract(r.result, '$.warnings'), json_extract(r.result, '$.comparison') \
     FROM results r JOIN runs u ON u.id = r.run_id \
     WHERE r.case_id = ?1 ORDER BY r.run_id DESC LIMIT ?2";

/// [`History::latest_results`]: one walk of the covering index.
const LATEST: &str = "SELECT r.result, coalesce(r.stored_at, u.timestamp), r.run_id \
     FROM results r JOIN runs u ON u.id = r.run_id \
     JOIN (SELECT case_id, max(run_id) AS latest FROM results WHERE partial = 0 \
           GROUP BY case_id) l ON l.case_id = r.case_id AND l.latest = r.run_id \
     ORDER BY r.case_id";

/// [`History::latest_results_at_commit`]: the runs at the commit, then their results.
const LATEST_AT_COMMIT: &str = "SELECT r.result, coalesce(r.stored_at, u.timestamp), r.run_id \
     FROM results r JOIN runs u ON u.id = r.run_id \
     JOIN (SELECT case_id, max(run_id) AS latest FROM results WHERE partial = 0 \
           AND run_id IN (SELECT id FROM runs WHERE substr(git_commit, 1, length(?1)) = ?1) \
           GROUP BY case_id) l ON l.case_id = r.case_id AND l.latest = r.run_id \
     ORDER BY r.case_id";

/// [`History::runs`].
const RUNS: &str = "SELECT u.id, u.timestamp, u.ended_at, u.status, u.pid, u.budget_ms, \
     u.git_commit, u.machine_key, u.baseline, \
     (SELECT count(*) FROM results r WHERE r.run_id = u.id), \
     (SELECT count(*) FROM results r WHERE r.run_id = u.id AND r.partial = 1) \
     FROM runs u ORDER BY u.id DESC LIMIT ?1";

impl History {
    /// The latest complete (not partial) result of `case_id` with the same `machine_key`,
    /// recorded strictly before run `before` — or the latest of all when `before` is `None`.
    pub fn previous(
        &self,
        case_id: &str,
        machine_key: &str,
        before: Option<RunId>,
    ) -> Result<Option<StoredResult>, HistoryError> {
        self.stored_result(PREVIOUS, params![case_id, machine_key, before_id(before)])
    }

    /// The complete result of `case_id` with the same `machine_key` in the latest run saved
    /// under the baseline `name` (before run `before`, when given) that measured that case.
    pub fn baseline(
        &self,
        name: &str,
        case_id: &str,
        machine_key: &str,
        before: Option<RunId>,
    ) -> Result<Option<StoredResult>, HistoryError> {
        self.stored_result(
            BASELINE,
            params![name, case_id, machine_key, before_id(before)],
        )
    }

    /// The medians of up to `limit` complete results of `case_id` with the same
    /// `machine_key`, recorded before run `before` (when given), **oldest first**, each with
    /// the commit its run measured and whether its working directory had uncommitted changes:
    /// run-to-run noise is learnt from results of the same code.
    pub fn medians(
        &self,
        case_id: &str,
        machine_key: &str,
        before: Option<RunId>,
        limit: usize,
    ) -> Result<Vec<StoredMedian>, HistoryError> {
        let mut statement = self
            .conn
            .prepare_cached(MEDIANS)
            .map_err(|e| self.sqlite(e))?;
        let mut medians = statement
            .query_map(
                params![case_id, machine_key, before_id(before), limit_of(limit)],
                |r| {
                    Ok(StoredMedian {
                        median_ns: r.get(0)?,
                        git_commit: r.get(1)?,
                        // A manifest whose flag is not a boolean reads as unknown.
                        git_dirty: r.get::<_, Option<i64>>(2).ok().flatten().map(|v| v != 0),
                        // A probe that is not a positive number reads as none.
                        probe_ns_per_step: r
                            .get::<_, Option<f64>>(3)
                            .ok()
                            .flatten()
                            .filter(|v| v.is_finite() && *v > 0.0),
                        probe_build: r
                            .get::<_, Option<String>>(4)
                            .ok()
                            .flatten()
                            .unwrap_or_default(),
                    })
                },
            )
            .and_then(Iterator::collect::<rusqlite::Result<Vec<_>>>)
            .map_err(|e| self.sqlite(e))?;
        medians.reverse();
        Ok(medians)
    }

    /// The machine's probe figures (nanoseconds per step of its fixed chain) of up to `limit`
    /// runs with the same `machine_key` whose probe `build` compiled (`MachineProbe::build`),
    /// recorded before run `before` (when given), **oldest first**, whatever they measured and
    /// however they ended: how far the machine's speed moves between runs. A run without a
    /// readable, positive probe is left out.
    pub fn probes(
        &self,
        machine_key: &str,
        build: &str,
        before: Option<RunId>,
        limit: usize,
    ) -> Result<Vec<f64>, HistoryError> {
        let mut statement = self
            .conn
            .prepare_cached(PROBES)
            .map_err(|e| self.sqlite(e))?;
        let mut probes = statement
            .query_map(
                params![machine_key, before_id(before), limit_of(limit), build],
                |r| r.get::<_, f64>(0),
            )
            .and_then(Iterator::collect::<rusqlite::Result<Vec<_>>>)
            .map_err(|e| self.sqlite(e))?;
        probes.retain(|p| p.is_finite() && *p > 0.0);
        probes.reverse();
        Ok(probes)
    }

    /// Up to `limit` results of `case_id` on any machine, **newest first** (reverse for a
    /// chart), partial ones included and marked. Each point carries its machine key: only
    /// points with equal keys compare.
    pub fn points(&self, case_id: &str, limit: usize) -> Result<Vec<HistoryPoint>, HistoryError> {
        let mut statement = self
            .conn
            .prepare_cached(POINTS)
            .map_err(|e| self.sqlite(e))?;
        statement
            .query_map(params![case_id, limit_of(limit)], |row| {
                Ok(HistoryPoint {
                    run: RunId(row.get(0)?),
                    timestamp: seconds(row.get(1)?),
                    git_commit: row.get(2)?,
                    machine_key: row.get(3)?,
                    baseline: row.get(4)?,
                    median_ns: row.get(5)?,
                    low_ns: row.get(6)?,
                    high_ns: row.get(7)?,
                    verdict: row
                        .get::<_, Option<String>>(8)?
                        .as_deref()
                        .and_then(|word| word.parse().ok()),
                    status: Some(status(row, 9, 10, &self.path)?),
                    partial: Some(row.get(11)?),
                    budget_ms: Some(seconds(row.get(12)?)),
                    stored_at: Some(seconds(row.get(13)?)),
                    // Shown beside the point (an optimised-away median means nothing); a
                    // result whose warnings cannot be read shows none rather than failing.
                    warnings: row
                        .get::<_, Option<String>>(14)?
                        .and_then(|json| serde_json::from_str(&json).ok())
                        .unwrap_or_default(),
                    // What the verdict was against; likewise left out when it cannot be read.
                    comparison: row
                        .get::<_, Option<String>>(15)?
                        .and_then(|json| serde_json::from_str(&json).ok()),
                })
            })
            .and_then(Iterator::collect::<rusqlite::Result<Vec<_>>>)
            .map_err(|e| self.sqlite(e))
    }

    /// The latest `limit` runs, **newest first**, with how each ended and how many results it
    /// stored.
    pub fn runs(&self, limit: usize) -> Result<Vec<HistoryRun>, HistoryError> {
        let mut statement = self.conn.prepare_cached(RUNS).map_err(|e| self.sqlite(e))?;
        statement
            .query_map(params![limit_of(limit)], |row| {
                Ok(HistoryRun {
                    run: RunId(row.get(0)?),
                    timestamp: seconds(row.get(1)?),
                    ended_at: row.get::<_, Option<i64>>(2)?.map(seconds),
                    status: status(row, 3, 4, &self.path)?,
                    budget_ms: seconds(row.get(5)?),
                    git_commit: row.get(6)?,
                    machine_key: row.get(7)?,
                    baseline: row.get(8)?,
                    results: seconds(row.get(9)?),
                    partial: seconds(row.get(10)?),
                })
            })
            .and_then(Iterator::collect::<rusqlite::Result<Vec<_>>>)
            .map_err(|e| self.sqlite(e))
    }

    /// The latest run of each baseline name on each machine key, by name.
    pub fn baselines(&self) -> Result<Vec<BaselineRun>, HistoryError> {
        let mut statement = self
            .conn
            .prepare_cached(
                "SELECT u.baseline, u.id, u.timestamp, u.machine_key FROM runs u \
                 WHERE u.baseline IS NOT NULL AND u.id = (SELECT max(v.id) FROM runs v \
                 WHERE v.baseline = u.baseline AND v.machine_key = u.machine_key) \
                 ORDER BY u.baseline, u.id DESC",
            )
            .map_err(|e| self.sqlite(e))?;
        statement
            .query_map([], |row| {
                Ok(BaselineRun {
                    name: row.get(0)?,
                    run: RunId(row.get(1)?),
                    timestamp: seconds(row.get(2)?),
                    machine_key: row.get(3)?,
                })
            })
            .and_then(Iterator::collect::<rusqlite::Result<Vec<_>>>)
            .map_err(|e| self.sqlite(e))
    }

    /// The latest complete (not partial) stored result of every case, on any machine, each
    /// with `stored_at` set: what the editor shows before anything is run.
    pub fn latest_results(&self) -> Result<Vec<BenchResult>, HistoryError> {
        self.latest_results_where(None)
    }

    /// [`History::latest_results`] of the runs made at `commit` (a full hash or a prefix of
    /// one): the results of one CI run, whose shards all measured the same commit, without
    /// the older results of cases it did not measure.
    pub fn latest_results_at_commit(&self, commit: &str) -> Result<Vec<BenchResult>, HistoryError> {
        self.latest_results_where(Some(commit))
    }

    fn latest_results_where(&self, commit: Option<&str>) -> Result<Vec<BenchResult>, HistoryError> {
        // Two statements rather than `?1 IS NULL OR ...`, so the one without a commit keeps
        // the plan of the covering index.
        let sql = if commit.is_some() {
            LATEST_AT_COMMIT
        } else {
            LATEST
        };
        let mut statement = self.conn.prepare_cached(sql).map_err(|e| self.sqlite(e))?;
        let rows = statement
            .query_map(rusqlite::params_from_iter(commit), |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, i64>(1)?,
                    row.get::<_, i64>(2)?,
                ))
            })
            .and_then(Iterator::collect::<rusqlite::Result<Vec<_>>>)
            .map_err(|e| self.sqlite(e))?;
        rows.into_iter()
            .map(|(json, stored_at, run)| {
                let mut result: BenchResult =
                    self.parse(&json, &format!("a result of run {run}"))?;
                result.stored_at = Some(seconds(stored_at));
                Ok(result)
            })
            .collect()
    }

    /// The manifest of run `run`, or `None` when there is no such run.
    pub fn manifest(&self, run: RunId) -> Result<Option<Manifest>, HistoryError> {
        let json: Option<String> = self
            .conn
            .query_row(
                "SELECT manifest FROM runs WHERE id = ?1",
                params![run.0],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.sqlite(e))?;
        json.map(|json| self.parse(&json, &format!("the manifest of run {run}")))
            .transpose()
    }

    fn stored_result(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
    ) -> Result<Option<StoredResult>, HistoryError> {
        let row = self
            .conn
            .prepare_cached(sql)
            .and_then(|mut statement| {
                statement
                    .query_row(params, |r| {
                        Ok((
                            r.get::<_, i64>(0)?,
                            r.get::<_, i64>(1)?,
                            r.get::<_, Option<String>>(2)?,
                            r.get::<_, String>(3)?,
                            r.get::<_, i64>(4)?,
                            r.get::<_, Option<String>>(5)?,
                        ))
                    })
                    .optional()
            })
            .map_err(|e| self.sqlite(e))?;
        let Some((run, timestamp, git_commit, json, stored_at, probe)) = row else {
            return Ok(None);
        };
        let mut result: BenchResult = self.parse(&json, &format!("a result of run {run}"))?;
        result.stored_at = Some(seconds(stored_at));
        Ok(Some(StoredResult {
            run: RunId(run),
            timestamp: seconds(timestamp),
            git_commit,
            result,
            // A probe that cannot be read is no probe: the comparison goes without it.
            probe: probe.and_then(|json| serde_json::from_str(&json).ok()),
        }))
    }

    pub(crate) fn parse<T: DeserializeOwned>(
        &self,
        json: &str,
        what: &str,
    ) -> Result<T, HistoryError> {
        serde_json::from_str(json).map_err(|e| {
            crate::checked::distrust(&self.path);
            HistoryError::Corrupt {
                path: self.path.clone(),
                detail: format!("{what} is unreadable: {e}"),
            }
        })
    }

    pub(crate) fn sqlite(&self, e: rusqlite::Error) -> HistoryError {
        HistoryError::sqlite(&self.path, e)
    }
}

/// The status of a run of the history at `path` from its stored status (column `status_at`)
/// and process id (column `pid_at`): a `running` run whose process is gone was interrupted,
/// and so was one whose process id is alive when no process records a run of this history
/// (the id was reused, or is another machine's: see the `recording` module).
pub(crate) fn status(
    row: &Row<'_>,
    status_at: usize,
    pid_at: usize,
    path: &Path,
) -> rusqlite::Result<RunStatus> {
    let text: String = row.get(status_at)?;
    let pid: Option<i64> = row.get(pid_at)?;
    let recorded =
        || pid.is_some_and(crate::os::process_alive) && crate::recording::anyone_recording(path);
    Ok(match text.as_str() {
        "running" if recorded() => RunStatus::Running,
        "running" | "interrupted" => RunStatus::Interrupted,
        "cancelled" => RunStatus::Cancelled,
        _ => RunStatus::Complete,
    })
}

fn before_id(before: Option<RunId>) -> i64 {
    before.map_or(i64::MAX, |r| r.0)
}

fn limit_of(limit: usize) -> i64 {
    i64::try_from(limit).unwrap_or(i64::MAX)
}

/// A count or a time in seconds read from SQLite; negative values (never written) read as 0.
pub(crate) fn seconds(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

#[cfg(test)]
mod plans {
    //! The lookups stay fast at 100 000 results because each is a search of an index: checked
    //! with `EXPLAIN QUERY PLAN` on a history of the current schema, so a query or an index
    //! changed later cannot fall back to reading the whole table unnoticed.

    use rusqlite::types::Value;

    use super::{BASELINE, LATEST, LATEST_AT_COMMIT, MEDIANS, POINTS, PREVIOUS, RUNS};
    use crate::History;

    /// The plan of `sql` as SQLite reports it, one step a line.
    fn plan(history: &History, sql: &str) -> Vec<String> {
        let mut statement = history
            .conn
            .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
            .unwrap();
        let nulls = vec![Value::Null; statement.parameter_count()];
        statement
            .query_map(rusqlite::params_from_iter(nulls), |row| {
                row.get::<_, String>(3)
            })
            .unwrap()
            .collect::<rusqlite::Result<Vec<_>>>()
            .unwrap()
    }

    /// A step that reads every row of the results table (or of its alias `r`).
    fn scans_results(step: &str) -> bool {
        step.starts_with("SCAN results") || step == "SCAN r" || step.starts_with("SCAN r ")
    }

    #[test]
    fn every_lookup_searches_an_index_and_never_scans_the_results() {
        let dir = tempfile::tempdir().unwrap();
        let history = History::open(&dir.path().join("history.db")).unwrap();
        for (name, sql) in [
            ("previous", PREVIOUS),
            ("baseline", BASELINE),
            ("medians", MEDIANS),
            ("points", POINTS),
            ("runs", RUNS),
            ("latest at a commit", LATEST_AT_COMMIT),
        ] {
            let steps = plan(&history, sql);
            assert!(
                steps.iter().any(|s| s.starts_with("SEARCH")),
                "{name}: {steps:#?}"
            );
            assert!(
                !steps.iter().any(|s| scans_results(s)),
                "{name} reads the whole results table: {steps:#?}"
            );
        }
        // Every case's latest result reads each case once: a walk of the covering index,
        // never of the table with its stored JSON.
        let steps = plan(&history, LATEST);
        let walks: Vec<&String> = steps.iter().filter(|s| scans_results(s)).collect();
        assert!(
            !walks.is_empty()
                && walks
                    .iter()
                    .all(|s| s.contains("COVERING INDEX results_by_case_machine_partial_run")),
            "{steps:#?}"
        );
    }
}
