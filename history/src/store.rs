//! The store: opening a history file for writing or for reading.
//!
//! Opening looks before it touches. The `recognise` module decides from the file's bytes (and
//! its journal or WAL) whether it is a history, holds nothing yet, or is something else; only
//! a history or an empty file is handed to SQLite. Then:
//!
//! * **for writing** ([`History::open`]) the file is opened read-write, which lets SQLite roll
//!   back a hot journal left by a writer killed while it created the file. A new file gets its
//!   schema and application id in one transaction, in rollback-journal mode, and only then
//!   switches to WAL mode, so a file never holds knotmeter's data without knotmeter's
//!   application id in its header. An existing history must pass `PRAGMA quick_check` (a
//!   damaged one is [`HistoryError::Corrupt`] and is not written), and an older schema is
//!   migrated inside an immediate (write-locked) transaction, so two processes opening an old
//!   file at once migrate it once;
//! * **for reading** ([`History::open_read_only`]) the file is opened read-only; a hot journal
//!   (which a reader cannot roll back) is recovered by a short read-write open first, and a
//!   history in a directory nobody may write is read as an immutable file when no WAL is left
//!   beside it.
//!
//! Every connection waits for locks as the `connect` module describes.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, TransactionBehavior, MAIN_DB};

use crate::checked;
use crate::connect::{connect, uri, Waiting};
use crate::recognise::{companion, recognise, Recognised};
use crate::schema::{inspect, migrate, Found, SCHEMA_VERSION};
use crate::HistoryError;

/// An open history file.
///
/// Opened with [`History::open`] it records runs; opened with [`History::open_read_only`]
/// it only answers lookups. Any number of readers and writers, in any processes, may have
/// the same file open.
#[derive(Debug)]
pub struct History {
    pub(crate) conn: Connection,
    pub(crate) path: PathBuf,
    waiting: Arc<Waiting>,
    /// Opened for writing: it checked the file (or found it unchanged since a check), so on
    /// a clean close it may stamp the file as checked (see the `checked` module).
    writer: bool,
}

impl History {
    /// Opens the history at `path` for reading and writing, creating the file and its parent
    /// directories when missing, recovering an interrupted write, and upgrading an older schema
    /// in place.
    ///
    /// Nothing is written to, or created next to, a file that is not a knotmeter history
    /// ([`HistoryError::Foreign`]) or a history of a newer knotmeter ([`HistoryError::TooNew`]).
    /// A damaged history gives [`HistoryError::Corrupt`] and is not written either; a history
    /// that may not be written gives [`HistoryError::ReadOnly`]. After those two,
    /// [`History::open_read_only`] may still read it.
    pub fn open(path: &Path) -> Result<Self, HistoryError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(parent).map_err(|source| HistoryError::Io {
                path: parent.to_path_buf(),
                action: "create the directory",
                source,
            })?;
        }
        refuse_unless_ours(path)?;

        let sqlite = |e| HistoryError::sqlite(path, e);
        let (mut conn, waiting) = connect(
            path,
            None,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE,
        )?;
        if conn.is_readonly(MAIN_DB).map_err(sqlite)? {
            return Err(read_only(path, "the file is opened read-only"));
        }
        // The first read rolls back a hot journal of this (our own) file.
        let version = version_of(path, inspect(&conn).map_err(sqlite)?)?;
        if version == 0 {
            create(path, &mut conn)?;
        } else if !checked::unchanged_since_check(path) {
            checked::forget(path);
            quick_check(path, &conn)?;
        }
        // WAL survives in the file; setting it again is a no-op. A file system without
        // shared memory keeps the old mode, which only costs concurrency.
        conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get::<_, String>(0))
            .map_err(sqlite)?;
        // In WAL mode NORMAL is safe against corruption; a power cut may lose the last result.
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(sqlite)?;
        if (1..SCHEMA_VERSION).contains(&version) {
            let tx = conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(sqlite)?;
            let version = version_of(path, inspect(&tx).map_err(sqlite)?)?;
            if version < SCHEMA_VERSION {
                migrate(&tx, version).map_err(sqlite)?;
            }
            tx.commit().map_err(sqlite)?;
        }
        Ok(Self {
            conn,
            path: path.to_path_buf(),
            waiting,
            writer: true,
        })
    }

    /// Opens an existing history for lookups only, as the daemon and the CLI do.
    ///
    /// A missing or empty file gives [`HistoryError::Missing`]; a history of an older schema
    /// gives [`HistoryError::NeedsUpgrade`] (only a writer upgrades); a file that is not a
    /// history gives [`HistoryError::Foreign`] and is never opened.
    pub fn open_read_only(path: &Path) -> Result<Self, HistoryError> {
        match recognise(path).map_err(|source| read_error(path, source))? {
            Recognised::New => {
                return Err(HistoryError::Missing {
                    path: path.to_path_buf(),
                })
            }
            Recognised::Foreign(detail) => {
                return Err(HistoryError::Foreign {
                    path: path.to_path_buf(),
                    detail,
                })
            }
            Recognised::Ours { version } if version > SCHEMA_VERSION => {
                return Err(HistoryError::TooNew {
                    path: path.to_path_buf(),
                    found: version,
                    supported: SCHEMA_VERSION,
                })
            }
            Recognised::Ours { .. } => {}
        }
        let reader = match Self::reader(path, None) {
            Err(HistoryError::ReadOnly { .. }) if hot_journal(path) => {
                // A reader cannot roll the journal back; a short read-write open does.
                drop(Self::open(path)?);
                Self::reader(path, None)
            }
            Err(HistoryError::ReadOnly { .. } | HistoryError::Database { .. })
                if !wal_left(path) && !directory_writable(path) =>
            {
                // WAL mode needs a `-shm` file that nobody may create here. With no WAL left
                // beside it the file holds everything committed: read it as immutable.
                Self::reader(path, Some(uri(path, "immutable=1")))
            }
            other => other,
        }?;
        let found = inspect(&reader.conn).map_err(|e| HistoryError::sqlite(path, e))?;
        match version_of(path, found)? {
            0 => Err(HistoryError::Missing {
                path: path.to_path_buf(),
            }),
            found if found < SCHEMA_VERSION => Err(HistoryError::NeedsUpgrade {
                path: path.to_path_buf(),
                found,
                supported: SCHEMA_VERSION,
            }),
            _ => Ok(reader),
        }
    }

    fn reader(path: &Path, uri: Option<String>) -> Result<Self, HistoryError> {
        let (conn, waiting) = connect(path, uri.as_deref(), OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        // Opening is lazy: read once so that errors show here.
        conn.query_row("PRAGMA schema_version", [], |r| r.get::<_, i64>(0))
            .map_err(|e| HistoryError::sqlite(path, e))?;
        Ok(Self {
            conn,
            path: path.to_path_buf(),
            waiting,
            writer: false,
        })
    }

    /// The history file this store reads and writes.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// From now on, waits at most `wait` for a lock another process holds (the default is
    /// [`crate::BUSY_TIMEOUT`]); zero fails at once with [`HistoryError::Locked`].
    pub fn set_lock_wait(&self, wait: Duration) {
        self.waiting.set(wait);
    }

    /// From now on, stops waiting for a lock as soon as `flag` is set: a cancelled run never
    /// sits out another process's lock.
    pub fn give_up_waiting_when(&self, flag: &'static AtomicBool) {
        self.waiting.give_up_when(flag);
    }
}

impl Drop for History {
    /// A writer folds the WAL back into the file, without waiting for anyone, and when that
    /// leaves the WAL empty stamps the file as checked: the next writer need not read every
    /// page again (see the `checked` module).
    fn drop(&mut self) {
        if !self.writer {
            return;
        }
        self.waiting.set(Duration::ZERO);
        let folded = self
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
                r.get::<_, i64>(0)
            })
            .is_ok_and(|busy| busy == 0);
        let wal_empty = fs::metadata(companion(&self.path, "-wal")).map_or(true, |m| m.len() == 0);
        if folded && wal_empty {
            checked::stamp(&self.path);
        }
    }
}

/// Refuses, from the bytes alone, a file that is not a history or is a newer one.
fn refuse_unless_ours(path: &Path) -> Result<(), HistoryError> {
    match recognise(path).map_err(|source| read_error(path, source))? {
        Recognised::Foreign(detail) => Err(HistoryError::Foreign {
            path: path.to_path_buf(),
            detail,
        }),
        Recognised::Ours { version } if version > SCHEMA_VERSION => Err(HistoryError::TooNew {
            path: path.to_path_buf(),
            found: version,
            supported: SCHEMA_VERSION,
        }),
        Recognised::New | Recognised::Ours { .. } => Ok(()),
    }
}

/// Creates the schema of a new file, with knotmeter's application id, in one transaction in
/// rollback-journal mode. Another process may have created it meanwhile: then nothing is done.
fn create(path: &Path, conn: &mut Connection) -> Result<(), HistoryError> {
    let sqlite = |e| HistoryError::sqlite(path, e);
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(sqlite)?;
    if version_of(path, inspect(&tx).map_err(sqlite)?)? == 0 {
        migrate(&tx, 0).map_err(sqlite)?;
    }
    tx.commit().map_err(sqlite)
}

/// `PRAGMA quick_check`: SQLite's structural check of every page, without the index
/// cross-checks of `integrity_check` (linear in the file's size: milliseconds for a history
/// of thousands of results).
pub(crate) fn quick_check(path: &Path, conn: &Connection) -> Result<(), HistoryError> {
    let checked = |e| match HistoryError::sqlite(path, e) {
        HistoryError::Corrupt { path, detail } => HistoryError::Corrupt {
            path,
            detail: format!("SQLite's quick_check stopped: {detail}"),
        },
        other => other,
    };
    let mut statement = conn.prepare("PRAGMA quick_check(5)").map_err(checked)?;
    let problems = statement
        .query_map([], |r| r.get::<_, String>(0))
        .and_then(|rows| rows.collect::<rusqlite::Result<Vec<String>>>())
        .map_err(checked)?;
    if problems.len() == 1 && problems[0] == "ok" {
        return Ok(());
    }
    checked::distrust(path);
    Err(HistoryError::Corrupt {
        path: path.to_path_buf(),
        detail: format!("SQLite's quick_check reports: {}", problems.join("; ")),
    })
}

/// The schema version of an inspected file, or the error that forbids using it.
pub(crate) fn version_of(path: &Path, found: Found) -> Result<i64, HistoryError> {
    let path = path.to_path_buf();
    match found {
        Found::Empty => Ok(0),
        Found::Ours(found) if found > SCHEMA_VERSION => Err(HistoryError::TooNew {
            path,
            found,
            supported: SCHEMA_VERSION,
        }),
        Found::Ours(version) => Ok(version),
        Found::Damaged(detail) => {
            checked::distrust(&path);
            Err(HistoryError::Corrupt { path, detail })
        }
        Found::Foreign(detail) => Err(HistoryError::Foreign { path, detail }),
    }
}

fn read_error(path: &Path, source: std::io::Error) -> HistoryError {
    HistoryError::Io {
        path: path.to_path_buf(),
        action: "read",
        source,
    }
}

fn read_only(path: &Path, detail: &str) -> HistoryError {
    let mut blockers = crate::error::unwritable(path);
    if blockers.is_empty() {
        blockers.push(path.to_path_buf());
    }
    HistoryError::ReadOnly {
        path: path.to_path_buf(),
        blockers,
        detail: detail.to_owned(),
    }
}

/// A rollback journal with a valid header beside the file.
fn hot_journal(path: &Path) -> bool {
    fs::read(companion(path, "-journal")).is_ok_and(|bytes| {
        bytes.len() >= 28 && bytes[..8] == [0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7]
    })
}

/// A non-empty WAL file beside the history.
fn wal_left(path: &Path) -> bool {
    fs::metadata(companion(path, "-wal")).is_ok_and(|m| m.len() > 0)
}

fn directory_writable(path: &Path) -> bool {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    crate::os::writable(dir)
}
