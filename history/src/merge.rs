//! Combining histories: the shards of a CI run, each measured on its own machine into its own
//! file, merged into one (`knotmeter history merge`).
//!
//! A run is the same run in every file it was copied to: it is matched by its uid (schema
//! version 4), never by its id, which is only its place in one file. So:
//!
//! * **nothing is duplicated**: a run this history holds already is not added again, and
//!   merging the same files twice changes nothing the second time;
//! * **nothing is lost**: every run of every source that this history lacks is added with all
//!   its results, and a run it holds is completed with results it lacks (a copy taken while
//!   the run was still going);
//! * **runs keep their identity**: uid, start time, commit, machine key, manifest, baseline
//!   name, process id, how the run ended and when, the machine's probe, and each result as
//!   stored (its verdict, whether it was cut short, when it was stored). Only the id changes:
//!   added runs come after the runs already here, in the order they started (each source's own
//!   order kept), since ids are recording order.
//!
//! How a run ended follows the run: `complete` and `cancelled` are written by the run itself
//! and are final; `interrupted` is a reader's conclusion (the process is gone). A run still
//! `running` in a source whose process is alive on this machine is skipped (merge it once it
//! ends); one whose process is gone is added as `interrupted`. A run held here as
//! `interrupted` that a source holds as `complete` or `cancelled` takes the source's status
//! and results (with their verdicts, written at the run's end), its end, its process id and
//! its probe.
//!
//! Comparisons of two builds are carried too, matched by their own uid (the
//! `merge_comparisons` module).
//!
//! Every source must pass `PRAGMA quick_check`, every added manifest and result and every
//! comparison must read back, and the whole merge is one transaction: an error leaves this
//! history as it was.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use knotmeter_protocol::{BenchResult, Manifest, RunStatus};
use rusqlite::{params, OptionalExtension, Transaction};

use crate::merge_comparisons::carry_comparisons;
use crate::read::status;
use crate::store::quick_check;
use crate::write::write;
use crate::{History, HistoryError, RunId};

/// What [`History::merge`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Merged {
    /// Runs added, with all their results.
    pub runs_added: u64,
    /// Runs of the sources this history held already (matched by uid).
    pub runs_present: u64,
    /// Runs held here as `interrupted` that a source holds as `complete` or `cancelled`: they
    /// took the source's status and results.
    pub runs_completed: u64,
    /// Results added (those of added runs, and those a held run lacked).
    pub results_added: u64,
    /// Results of the sources this history held already.
    pub results_present: u64,
    /// Runs of the sources still measuring on this machine, not merged: (source, its run id).
    pub still_running: Vec<(PathBuf, RunId)>,
    /// Runs that share a uid with a run here but differ from it (another start, machine key
    /// or manifest), not merged: (source, its run id, what differs).
    pub conflicts: Vec<(PathBuf, RunId, String)>,
    /// Comparisons of two builds added, with all their cases.
    pub comparisons_added: u64,
    /// The cases of the comparisons added.
    pub compared_cases_added: u64,
    /// Comparisons of the sources this history held already (matched by uid).
    pub comparisons_present: u64,
    /// Comparisons that share a uid with one here but differ from it (another time, machine
    /// key or report), not merged: (source, its comparison id, what differs).
    pub comparison_conflicts: Vec<(PathBuf, i64, String)>,
}

/// A run of a source, as stored there.
struct SourceRun {
    source: usize,
    id: i64,
    uid: String,
    timestamp: i64,
    git_commit: Option<String>,
    machine_key: String,
    manifest: String,
    baseline: Option<String>,
    status: RunStatus,
    pid: Option<i64>,
    ended_at: Option<i64>,
    budget_ms: i64,
    /// The machine's probe as stored (JSON), if the run has one.
    probe: Option<String>,
}

/// A run already in this history, with what a source's copy is compared against.
struct HeldRun {
    id: i64,
    timestamp: i64,
    machine_key: String,
    manifest: String,
    status: RunStatus,
}

impl History {
    /// Adds to this history every run of `sources` it does not hold, the results it lacks of
    /// runs it holds, and every comparison of two builds it does not hold, in one transaction
    /// (see the module documentation for the rules).
    ///
    /// Fails, writing nothing, when a source is this history's own file, fails `quick_check`
    /// ([`HistoryError::Corrupt`]), or holds a manifest, result or comparison that does not
    /// read back.
    pub fn merge(&mut self, sources: &[History]) -> Result<Merged, HistoryError> {
        let here = self
            .path
            .canonicalize()
            .unwrap_or_else(|_| self.path.clone());
        let mut runs = Vec::new();
        let mut comparisons = Vec::new();
        for (index, source) in sources.iter().enumerate() {
            let there = source
                .path
                .canonicalize()
                .unwrap_or_else(|_| source.path.clone());
            if there == here {
                return Err(self.rejected(format!(
                    "{} is the history being merged into: merging it into itself would change \
                     nothing",
                    source.path.display()
                )));
            }
            quick_check(&source.path, &source.conn)?;
            runs.extend(source.source_runs(index)?);
            comparisons.extend(source.source_comparisons(index)?);
        }
        // Recording order: when each run started, each source's own order kept.
        runs.sort_by_key(|r| (r.timestamp, r.source, r.id));
        comparisons.sort_by_key(|c| c.order());

        let mut merged = Merged::default();
        let path = self.path.clone();
        let sqlite = |e| HistoryError::sqlite(&path, e);
        let tx = write(&mut self.conn, &path)?;
        for run in &runs {
            let source = &sources[run.source];
            if run.status == RunStatus::Running {
                merged
                    .still_running
                    .push((source.path.clone(), RunId(run.id)));
                continue;
            }
            match held(&tx, &path, &run.uid).map_err(sqlite)? {
                None => {
                    let id = add_run(&tx, run).map_err(sqlite)?;
                    merged.runs_added += 1;
                    merged.results_added += copy_results(&tx, source, run.id, id, None)?;
                }
                Some(held) => {
                    if let Some(difference) = differs(&held, run) {
                        merged
                            .conflicts
                            .push((source.path.clone(), RunId(run.id), difference));
                        continue;
                    }
                    merged.runs_present += 1;
                    let final_there =
                        matches!(run.status, RunStatus::Complete | RunStatus::Cancelled);
                    if held.status == RunStatus::Interrupted && final_there {
                        tx.execute(
                            "UPDATE runs SET status = ?2, ended_at = ?3, pid = ?4, probe = ?5 \
                             WHERE id = ?1",
                            params![
                                held.id,
                                run.status.as_str(),
                                run.ended_at,
                                run.pid,
                                run.probe
                            ],
                        )
                        .map_err(sqlite)?;
                        merged.runs_completed += 1;
                        // The run's end wrote its verdicts: take its results as they ended.
                        let replaced = replace_results(&tx, source, run.id, held.id)?;
                        merged.results_present += replaced.0;
                        merged.results_added += replaced.1;
                        continue;
                    }
                    let here_cases = case_ids(&tx, held.id).map_err(sqlite)?;
                    let there_cases =
                        case_ids(&source.conn, run.id).map_err(|e| source.sqlite(e))?;
                    let missing: HashSet<String> =
                        there_cases.difference(&here_cases).cloned().collect();
                    merged.results_present += (there_cases.len() - missing.len()) as u64;
                    if !missing.is_empty() {
                        merged.results_added +=
                            copy_results(&tx, source, run.id, held.id, Some(&missing))?;
                    }
                }
            }
        }
        let paths: Vec<PathBuf> = sources.iter().map(|s| s.path.clone()).collect();
        let carried = carry_comparisons(&tx, &comparisons, &paths).map_err(sqlite)?;
        merged.comparisons_added = carried.added;
        merged.compared_cases_added = carried.cases_added;
        merged.comparisons_present = carried.present;
        merged.comparison_conflicts = carried.conflicts;
        tx.commit().map_err(sqlite)?;
        Ok(merged)
    }

    /// Every run of this (source) history, as stored.
    fn source_runs(&self, source: usize) -> Result<Vec<SourceRun>, HistoryError> {
        let mut statement = self
            .conn
            .prepare(
                "SELECT id, uid, timestamp, git_commit, machine_key, manifest, baseline, status, \
                 pid, ended_at, budget_ms, probe FROM runs ORDER BY id",
            )
            .map_err(|e| self.sqlite(e))?;
        let rows = statement
            .query_map([], |r| {
                Ok(SourceRun {
                    source,
                    id: r.get(0)?,
                    uid: r.get(1)?,
                    timestamp: r.get(2)?,
                    git_commit: r.get(3)?,
                    machine_key: r.get(4)?,
                    manifest: r.get(5)?,
                    baseline: r.get(6)?,
                    status: status(r, 7, 8, &self.path)?,
                    pid: r.get(8)?,
                    ended_at: r.get(9)?,
                    budget_ms: r.get(10)?,
                    probe: r.get(11)?,
                })
            })
            .and_then(Iterator::collect::<rusqlite::Result<Vec<_>>>)
            .map_err(|e| self.sqlite(e))?;
        for run in &rows {
            self.parse::<Manifest>(&run.manifest, &format!("the manifest of run {}", run.id))?;
        }
        Ok(rows)
    }
}

/// The run of this history (at `path`) with `uid`, if any.
fn held(tx: &Transaction<'_>, path: &Path, uid: &str) -> rusqlite::Result<Option<HeldRun>> {
    tx.query_row(
        "SELECT id, timestamp, machine_key, manifest, status, pid FROM runs WHERE uid = ?1",
        [uid],
        |r| {
            Ok(HeldRun {
                id: r.get(0)?,
                timestamp: r.get(1)?,
                machine_key: r.get(2)?,
                manifest: r.get(3)?,
                status: status(r, 4, 5, path)?,
            })
        },
    )
    .optional()
}

/// What makes a source's run another run than the one held under its uid, if anything.
fn differs(held: &HeldRun, run: &SourceRun) -> Option<String> {
    if held.timestamp != run.timestamp {
        return Some(format!(
            "it started at {} here and at {} there",
            held.timestamp, run.timestamp
        ));
    }
    if held.machine_key != run.machine_key {
        return Some(format!(
            "its machine key is {} here and {} there",
            held.machine_key, run.machine_key
        ));
    }
    (held.manifest != run.manifest).then(|| "its manifests differ".to_owned())
}

/// Inserts `run` with its identity and status (a run whose process is gone as
/// `interrupted`), and returns its id here.
fn add_run(tx: &Transaction<'_>, run: &SourceRun) -> rusqlite::Result<i64> {
    let status = match run.status {
        RunStatus::Running | RunStatus::Interrupted => RunStatus::Interrupted,
        other => other,
    };
    tx.execute(
        crate::write::INSERT_RUN,
        params![
            run.timestamp,
            run.git_commit,
            run.machine_key,
            run.manifest,
            run.baseline,
            status.as_str(),
            run.pid,
            run.ended_at,
            run.budget_ms,
            run.uid,
            run.probe
        ],
    )?;
    Ok(tx.last_insert_rowid())
}

/// The case ids stored for run `run` (read from the primary key's index alone).
fn case_ids(conn: &rusqlite::Connection, run: i64) -> rusqlite::Result<HashSet<String>> {
    conn.prepare_cached("SELECT case_id FROM results WHERE run_id = ?1")?
        .query_map([run], |r| r.get(0))?
        .collect()
}

/// One stored result row, as a source holds it.
struct ResultRow {
    case_id: String,
    machine_key: String,
    median_ns: f64,
    low_ns: f64,
    high_ns: f64,
    verdict: Option<String>,
    result: String,
    partial: bool,
    stored_at: Option<i64>,
}

/// The results of `source`'s run `run` (only the cases in `only`, when given), each checked to
/// read back.
fn source_results(
    source: &History,
    run: i64,
    only: Option<&HashSet<String>>,
) -> Result<Vec<ResultRow>, HistoryError> {
    let mut statement = source
        .conn
        .prepare_cached(
            "SELECT case_id, machine_key, median_ns, low_ns, high_ns, verdict, result, partial, \
             stored_at FROM results WHERE run_id = ?1 ORDER BY rowid",
        )
        .map_err(|e| source.sqlite(e))?;
    let rows = statement
        .query_map([run], |r| {
            Ok(ResultRow {
                case_id: r.get(0)?,
                machine_key: r.get(1)?,
                median_ns: r.get(2)?,
                low_ns: r.get(3)?,
                high_ns: r.get(4)?,
                verdict: r.get(5)?,
                result: r.get(6)?,
                partial: r.get(7)?,
                stored_at: r.get(8)?,
            })
        })
        .and_then(Iterator::collect::<rusqlite::Result<Vec<_>>>)
        .map_err(|e| source.sqlite(e))?;
    let rows: Vec<ResultRow> = rows
        .into_iter()
        .filter(|row| only.is_none_or(|only| only.contains(&row.case_id)))
        .collect();
    for row in &rows {
        source.parse::<BenchResult>(
            &row.result,
            &format!("the result of `{}` in run {run}", row.case_id),
        )?;
    }
    Ok(rows)
}

/// Copies the results of `source`'s run `from` (only `only`, when given) into run `to` here;
/// returns how many were added.
fn copy_results(
    tx: &Transaction<'_>,
    source: &History,
    from: i64,
    to: i64,
    only: Option<&HashSet<String>>,
) -> Result<u64, HistoryError> {
    let rows = source_results(source, from, only)?;
    for row in &rows {
        write_result(tx, INSERT_RESULT, to, row)?;
    }
    Ok(rows.len() as u64)
}

/// Makes run `to`'s results those of `source`'s run `from`: stored ones rewritten, missing ones
/// added. Returns (rewritten, added).
fn replace_results(
    tx: &Transaction<'_>,
    source: &History,
    from: i64,
    to: i64,
) -> Result<(u64, u64), HistoryError> {
    let mut counts = (0, 0);
    for row in &source_results(source, from, None)? {
        if write_result(tx, UPDATE_RESULT, to, row)? > 0 {
            counts.0 += 1;
        } else {
            write_result(tx, INSERT_RESULT, to, row)?;
            counts.1 += 1;
        }
    }
    Ok(counts)
}

/// Adds a result to a run; parameters as [`write_result`] binds them.
const INSERT_RESULT: &str = "INSERT INTO results (run_id, case_id, machine_key, median_ns, \
    low_ns, high_ns, verdict, result, partial, stored_at) \
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";

/// Rewrites a run's stored result of a case; parameters as [`write_result`] binds them.
const UPDATE_RESULT: &str = "UPDATE results SET machine_key = ?3, median_ns = ?4, low_ns = ?5, \
    high_ns = ?6, verdict = ?7, result = ?8, partial = ?9, stored_at = ?10 \
    WHERE run_id = ?1 AND case_id = ?2";

/// Runs `statement` (one of the two above) for `row` in run `to`; returns the rows changed.
fn write_result(
    tx: &Transaction<'_>,
    statement: &str,
    to: i64,
    row: &ResultRow,
) -> Result<usize, HistoryError> {
    tx.prepare_cached(statement)
        .and_then(|mut statement| {
            statement.execute(params![
                to,
                row.case_id,
                row.machine_key,
                row.median_ns,
                row.low_ns,
                row.high_ns,
                row.verdict,
                row.result,
                row.partial,
                row.stored_at
            ])
        })
        .map_err(|e| HistoryError::sqlite(tx_path(tx), e))
}

/// The file a transaction writes, for error messages.
fn tx_path<'t>(tx: &'t Transaction<'_>) -> &'t std::path::Path {
    tx.path()
        .map_or(std::path::Path::new("history"), std::path::Path::new)
}
