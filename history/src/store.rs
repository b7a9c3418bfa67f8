//! The store: opening a history file, recording runs and looking results up.
//!
//! Opening for writing looks before it writes. A non-empty file must start with SQLite's
//! header; it is then inspected through a read-only connection (which writes nothing, not
//! even a checkpoint of another program's WAL) and only when it is empty or a history of a
//! known version is it opened for writing, switched to WAL mode and migrated. The migration
//! check is repeated inside an immediate (write-locked) transaction, so two processes
//! opening a new file at once create the schema once.
//!
//! Writes take the write lock up front (`BEGIN IMMEDIATE`) and every connection has a busy
//! timeout of [`BUSY_TIMEOUT`]: a writer waits for another writer instead of failing, and in
//! WAL mode readers never wait for writers. Everything a run needs is serialised and checked
//! before the lock is taken, so the lock is held only for the inserts.
//!
//! Lookups order by [`RunId`] (recording order), never by timestamp.

use std::collections::HashSet;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::time::Duration;

use knotmeter_protocol::{BenchResult, Manifest, RawSamples, Verdict};
use rusqlite::{params, Connection, OpenFlags, OptionalExtension, TransactionBehavior};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::aside::move_aside;
use crate::schema::{inspect, migrate, Found, SCHEMA_VERSION};
use crate::{
    machine_key, thin_samples, HistoryError, HistoryPoint, MovedAside, RunId, StoredResult,
    MAX_STORED_SAMPLES,
};

/// How long a connection waits for a lock held by another before giving up with
/// [`HistoryError::Database`].
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The first 16 bytes of every SQLite database file.
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// An open history file.
///
/// Opened with [`History::open`] (or [`History::open_or_move_aside`]) it records runs;
/// opened with [`History::open_read_only`] it only answers lookups. Any number of readers
/// and writers, in any processes, may have the same file open.
#[derive(Debug)]
pub struct History {
    conn: Connection,
    path: PathBuf,
}

impl History {
    /// Opens the history at `path` for reading and writing, creating the file and its parent
    /// directories when missing, and upgrading an older schema in place.
    ///
    /// A file that is not an SQLite database or is damaged gives [`HistoryError::Corrupt`],
    /// another program's database [`HistoryError::Foreign`], and a history of a newer
    /// knotmeter [`HistoryError::TooNew`]; none of them is written to.
    pub fn open(path: &Path) -> Result<Self, HistoryError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(parent).map_err(|source| HistoryError::Io {
                path: parent.to_path_buf(),
                action: "create the directory",
                source,
            })?;
        }
        if has_content(path)? {
            check_header(path)?;
            let conn = connect(path, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
            let found = inspect(&conn).map_err(|e| HistoryError::sqlite(path, e))?;
            version_of(path, found)?;
        }

        let mut conn = connect(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE,
        )?;
        let sqlite = |e| HistoryError::sqlite(path, e);
        // WAL survives in the file; setting it again is a no-op. A file system without
        // shared memory keeps the old mode, which only costs concurrency.
        conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get::<_, String>(0))
            .map_err(sqlite)?;
        // In WAL mode NORMAL is safe against corruption; a power cut may lose the last run.
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(sqlite)?;
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sqlite)?;
        let version = version_of(path, inspect(&tx).map_err(sqlite)?)?;
        if version < SCHEMA_VERSION {
            migrate(&tx, version).map_err(sqlite)?;
        }
        tx.commit().map_err(sqlite)?;
        Ok(Self {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// Opens an existing history for lookups only, as the daemon and the CLI do.
    ///
    /// A missing or empty file gives [`HistoryError::Missing`]; a history of an older schema
    /// gives [`HistoryError::NeedsUpgrade`] (only a writer upgrades); bad files give the
    /// same errors as [`History::open`].
    pub fn open_read_only(path: &Path) -> Result<Self, HistoryError> {
        if !has_content(path)? {
            return Err(HistoryError::Missing {
                path: path.to_path_buf(),
            });
        }
        check_header(path)?;
        let conn = connect(path, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        let found = inspect(&conn).map_err(|e| HistoryError::sqlite(path, e))?;
        match version_of(path, found)? {
            0 => Err(HistoryError::Missing {
                path: path.to_path_buf(),
            }),
            found if found < SCHEMA_VERSION => Err(HistoryError::NeedsUpgrade {
                path: path.to_path_buf(),
                found,
                supported: SCHEMA_VERSION,
            }),
            _ => Ok(Self {
                conn,
                path: path.to_path_buf(),
            }),
        }
    }

    /// Opens the history like [`History::open`], but when the file is corrupt or foreign,
    /// renames it (and its `-wal`/`-shm`/`-journal` files) to
    /// `<name>.corrupt-<unix seconds>` and starts a new history in its place. The
    /// [`MovedAside`] says where the old file went, for the caller to tell the user.
    ///
    /// A history of a newer knotmeter is not moved: it is intact and the fix is to upgrade,
    /// so [`HistoryError::TooNew`] is returned as from [`History::open`].
    pub fn open_or_move_aside(path: &Path) -> Result<(Self, Option<MovedAside>), HistoryError> {
        match Self::open(path) {
            Ok(history) => Ok((history, None)),
            Err(reason) if reason.is_unusable_file() => {
                let to = move_aside(path)?;
                let history = Self::open(path)?;
                let moved = MovedAside {
                    from: path.to_path_buf(),
                    to,
                    reason,
                };
                Ok((history, Some(moved)))
            }
            Err(e) => Err(e),
        }
    }

    /// The history file this store reads and writes.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records one run — its manifest, [`machine_key`], git commit, timestamp, optional
    /// baseline name, and every case's result — in one transaction, and returns its id.
    ///
    /// Each result's raw samples are thinned to [`MAX_STORED_SAMPLES`] per vector (see
    /// [`thin_samples`]). The run is rejected ([`HistoryError::Rejected`], nothing written)
    /// when a case id appears twice, the baseline name is empty, or a value cannot be read
    /// back from JSON (a NaN or infinite number).
    pub fn record_run(
        &mut self,
        manifest: &Manifest,
        results: &[BenchResult],
        baseline: Option<&str>,
    ) -> Result<RunId, HistoryError> {
        if baseline.is_some_and(|name| name.trim().is_empty()) {
            return Err(self.rejected("the baseline name is empty".to_owned()));
        }
        let timestamp = i64::try_from(manifest.timestamp).map_err(|_| {
            self.rejected(format!(
                "the manifest's timestamp {} is out of range",
                manifest.timestamp
            ))
        })?;
        let key = machine_key(manifest);
        let manifest_json = self.checked_json(manifest, "the manifest")?;
        let mut seen = HashSet::new();
        let mut rows = Vec::with_capacity(results.len());
        for result in results {
            if !seen.insert(result.id.as_str()) {
                return Err(self.rejected(format!("the case `{}` appears twice", result.id)));
            }
            let stored = BenchResult {
                raw: RawSamples {
                    workload_ns: thin_samples(&result.raw.workload_ns, MAX_STORED_SAMPLES),
                    baseline_ns: thin_samples(&result.raw.baseline_ns, MAX_STORED_SAMPLES),
                },
                ..result.clone()
            };
            let json = self.checked_json(&stored, &format!("the result of `{}`", result.id))?;
            rows.push((result, json));
        }

        let path = self.path.clone();
        let sqlite = |e| HistoryError::sqlite(&path, e);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sqlite)?;
        tx.execute(
            "INSERT INTO runs (timestamp, git_commit, machine_key, manifest, baseline) \
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![timestamp, manifest.git_commit, key, manifest_json, baseline],
        )
        .map_err(sqlite)?;
        let run = tx.last_insert_rowid();
        {
            let mut insert = tx
                .prepare(
                    "INSERT INTO results (run_id, case_id, machine_key, median_ns, low_ns, \
                     high_ns, verdict, result) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                )
                .map_err(sqlite)?;
            for (result, json) in rows {
                let verdict = result.comparison.as_ref().map(|c| verdict_text(c.verdict));
                insert
                    .execute(params![
                        run,
                        result.id,
                        key,
                        result.estimate.median_ns,
                        result.estimate.low_ns,
                        result.estimate.high_ns,
                        verdict,
                        json
                    ])
                    .map_err(sqlite)?;
            }
        }
        tx.commit().map_err(sqlite)?;
        Ok(RunId(run))
    }

    /// The latest result of `case_id` with the same `machine_key`, recorded strictly before
    /// run `before` — or the latest of all when `before` is `None`.
    ///
    /// To skip a result (a partial one, say), ask again with `before` set to its run.
    pub fn previous(
        &self,
        case_id: &str,
        machine_key: &str,
        before: Option<RunId>,
    ) -> Result<Option<StoredResult>, HistoryError> {
        self.stored_result(
            "SELECT r.run_id, u.timestamp, u.git_commit, r.result \
             FROM results r JOIN runs u ON u.id = r.run_id \
             WHERE r.case_id = ?1 AND r.machine_key = ?2 AND r.run_id < ?3 \
             ORDER BY r.run_id DESC LIMIT 1",
            params![case_id, machine_key, before.map_or(i64::MAX, |r| r.0)],
        )
    }

    /// The result of `case_id` with the same `machine_key` in the latest run saved under the
    /// baseline `name`, if any such run measured that case.
    pub fn baseline(
        &self,
        name: &str,
        case_id: &str,
        machine_key: &str,
    ) -> Result<Option<StoredResult>, HistoryError> {
        self.stored_result(
            "SELECT r.run_id, u.timestamp, u.git_commit, r.result \
             FROM results r JOIN runs u ON u.id = r.run_id \
             WHERE u.baseline = ?1 AND r.case_id = ?2 AND r.machine_key = ?3 \
             ORDER BY r.run_id DESC LIMIT 1",
            params![name, case_id, machine_key],
        )
    }

    /// Up to `limit` results of `case_id` on any machine, **newest first** (reverse for a
    /// chart). Each point carries its machine key: only points with equal keys compare.
    pub fn points(&self, case_id: &str, limit: usize) -> Result<Vec<HistoryPoint>, HistoryError> {
        let sqlite = |e| HistoryError::sqlite(&self.path, e);
        let mut statement = self
            .conn
            .prepare_cached(
                "SELECT r.run_id, u.timestamp, u.git_commit, r.machine_key, u.baseline, \
                 r.median_ns, r.low_ns, r.high_ns, r.verdict \
                 FROM results r JOIN runs u ON u.id = r.run_id \
                 WHERE r.case_id = ?1 ORDER BY r.run_id DESC LIMIT ?2",
            )
            .map_err(sqlite)?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = statement
            .query_map(params![case_id, limit], |row| {
                Ok(HistoryPoint {
                    run: RunId(row.get(0)?),
                    timestamp: timestamp(row.get(1)?),
                    git_commit: row.get(2)?,
                    machine_key: row.get(3)?,
                    baseline: row.get(4)?,
                    median_ns: row.get(5)?,
                    low_ns: row.get(6)?,
                    high_ns: row.get(7)?,
                    verdict: row
                        .get::<_, Option<String>>(8)?
                        .as_deref()
                        .and_then(verdict),
                })
            })
            .map_err(sqlite)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(sqlite)
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
            .map_err(|e| HistoryError::sqlite(&self.path, e))?;
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
                        ))
                    })
                    .optional()
            })
            .map_err(|e| HistoryError::sqlite(&self.path, e))?;
        let Some((run, seconds, git_commit, json)) = row else {
            return Ok(None);
        };
        Ok(Some(StoredResult {
            run: RunId(run),
            timestamp: timestamp(seconds),
            git_commit,
            result: self.parse(&json, &format!("a result of run {run}"))?,
        }))
    }

    /// `value` as JSON, after checking that it reads back (serde_json writes NaN and
    /// infinities as `null`, which would make the stored value unreadable).
    fn checked_json<T: Serialize + DeserializeOwned>(
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

    fn parse<T: DeserializeOwned>(&self, json: &str, what: &str) -> Result<T, HistoryError> {
        serde_json::from_str(json).map_err(|e| HistoryError::Corrupt {
            path: self.path.clone(),
            detail: format!("{what} is unreadable: {e}"),
        })
    }

    fn rejected(&self, detail: String) -> HistoryError {
        HistoryError::Rejected {
            path: self.path.clone(),
            detail,
        }
    }
}

/// Opens a connection with the busy timeout and foreign keys on.
fn connect(path: &Path, flags: OpenFlags) -> Result<Connection, HistoryError> {
    let sqlite = |e| HistoryError::sqlite(path, e);
    let conn = Connection::open_with_flags(path, flags | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        .map_err(sqlite)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(sqlite)?;
    conn.pragma_update(None, "foreign_keys", true)
        .map_err(sqlite)?;
    Ok(conn)
}

/// The schema version of an inspected file, or the error that forbids using it.
fn version_of(path: &Path, found: Found) -> Result<i64, HistoryError> {
    let path = path.to_path_buf();
    match found {
        Found::Empty => Ok(0),
        Found::Ours(found) if found > SCHEMA_VERSION => Err(HistoryError::TooNew {
            path,
            found,
            supported: SCHEMA_VERSION,
        }),
        Found::Ours(version) => Ok(version),
        Found::Damaged(detail) => Err(HistoryError::Corrupt { path, detail }),
        Found::Foreign(detail) => Err(HistoryError::Foreign { path, detail }),
    }
}

/// True when `path` exists and is not empty.
fn has_content(path: &Path) -> Result<bool, HistoryError> {
    match fs::metadata(path) {
        Ok(metadata) => Ok(metadata.len() > 0),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(source) => Err(HistoryError::Io {
            path: path.to_path_buf(),
            action: "read",
            source,
        }),
    }
}

/// Checks that a non-empty file starts with SQLite's header, so SQLite never sees (nor
/// writes next to) a file that is not a database.
fn check_header(path: &Path) -> Result<(), HistoryError> {
    let mut start = Vec::with_capacity(SQLITE_MAGIC.len());
    fs::File::open(path)
        .and_then(|file| file.take(SQLITE_MAGIC.len() as u64).read_to_end(&mut start))
        .map_err(|source| HistoryError::Io {
            path: path.to_path_buf(),
            action: "read",
            source,
        })?;
    if start == SQLITE_MAGIC {
        return Ok(());
    }
    let bytes: Vec<String> = start.iter().take(8).map(|b| format!("{b:02x}")).collect();
    Err(HistoryError::Corrupt {
        path: path.to_path_buf(),
        detail: format!(
            "it is not an SQLite database: it starts with the bytes {}",
            bytes.join(" ")
        ),
    })
}

fn timestamp(seconds: i64) -> u64 {
    u64::try_from(seconds).unwrap_or(0)
}

fn verdict_text(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Faster => "faster",
        Verdict::Slower => "slower",
        Verdict::Same => "same",
    }
}

fn verdict(text: &str) -> Option<Verdict> {
    match text {
        "faster" => Some(Verdict::Faster),
        "slower" => Some(Verdict::Slower),
        "same" => Some(Verdict::Same),
        _ => None,
    }
}
