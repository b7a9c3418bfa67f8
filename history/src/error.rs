//! The one error type of the crate.
//!
//! Every variant names the history file it is about, and its message says what the user can
//! do. The variants that mean "this file is not a history this code may write"
//! ([`HistoryError::Corrupt`], [`HistoryError::Foreign`], [`HistoryError::TooNew`]) are kept
//! apart so a caller can decide between moving the file aside
//! ([`crate::History::open_or_move_aside`] does it for the first two) and carrying on without
//! history.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// Why the history store could not be opened, read or written.
#[derive(Debug)]
#[non_exhaustive]
pub enum HistoryError {
    /// A file-system operation on the store's file or directory failed.
    Io {
        /// The file or directory involved.
        path: PathBuf,
        /// What was being done, such as "create the directory".
        action: &'static str,
        /// The operating system's error.
        source: io::Error,
    },
    /// The history file does not exist (or holds no history yet) and was opened read-only.
    Missing {
        /// The history file.
        path: PathBuf,
    },
    /// The file is not an SQLite database, or SQLite found it damaged.
    Corrupt {
        /// The history file.
        path: PathBuf,
        /// What is wrong with it.
        detail: String,
    },
    /// The file is an SQLite database of another program.
    Foreign {
        /// The file.
        path: PathBuf,
        /// How it was recognised as foreign.
        detail: String,
    },
    /// The history was written by a newer knotmeter with a schema this code does not know.
    TooNew {
        /// The history file.
        path: PathBuf,
        /// The schema version found in the file.
        found: i64,
        /// The newest schema version this code knows.
        supported: i64,
    },
    /// A read-only open found an older schema, which only a writer can upgrade.
    NeedsUpgrade {
        /// The history file.
        path: PathBuf,
        /// The schema version found in the file.
        found: i64,
        /// The schema version this code reads.
        supported: i64,
    },
    /// The run handed to [`crate::History::record_run`] cannot be stored as it is.
    Rejected {
        /// The history file.
        path: PathBuf,
        /// What is wrong with the run.
        detail: String,
    },
    /// SQLite reported an error (for example a full disk, or a lock held longer than
    /// [`crate::BUSY_TIMEOUT`]).
    Database {
        /// The history file.
        path: PathBuf,
        /// SQLite's error.
        source: rusqlite::Error,
    },
}

impl fmt::Display for HistoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io {
                path,
                action,
                source,
            } => write!(
                f,
                "cannot {action} {}: {source}; check that the path is right and writable, \
                 or set KNOTMETER_HISTORY to another file",
                path.display()
            ),
            Self::Missing { path } => write!(
                f,
                "no benchmark history at {} yet; run `cargo bench` to record one, or set \
                 KNOTMETER_HISTORY to the history file",
                path.display()
            ),
            Self::Corrupt { path, detail } => write!(
                f,
                "the benchmark history {} is damaged ({detail}); move or delete it and a new \
                 one will be created",
                path.display()
            ),
            Self::Foreign { path, detail } => write!(
                f,
                "{} is not a knotmeter history ({detail}); it was left untouched: move it, or \
                 set KNOTMETER_HISTORY to another file",
                path.display()
            ),
            Self::TooNew {
                path,
                found,
                supported,
            } => write!(
                f,
                "the benchmark history {} has schema version {found}, newer than the {supported} \
                 this knotmeter knows; upgrade knotmeter, or set KNOTMETER_HISTORY to another \
                 file",
                path.display()
            ),
            Self::NeedsUpgrade {
                path,
                found,
                supported,
            } => write!(
                f,
                "the benchmark history {} has the older schema version {found} (this knotmeter \
                 reads {supported}); run `cargo bench` once to upgrade it",
                path.display()
            ),
            Self::Rejected { path, detail } => write!(
                f,
                "cannot record this run in the benchmark history {}: {detail}",
                path.display()
            ),
            Self::Database { path, source } => write!(
                f,
                "the benchmark history {} could not be used: {source}; if this persists, check \
                 the disk and that no other program holds the file",
                path.display()
            ),
        }
    }
}

impl std::error::Error for HistoryError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io { source, .. } => Some(source),
            Self::Database { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl HistoryError {
    /// Sorts an SQLite error: "not a database" and "malformed" become [`Self::Corrupt`], the
    /// rest [`Self::Database`].
    pub(crate) fn sqlite(path: &std::path::Path, source: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode::{DatabaseCorrupt, NotADatabase};
        match source.sqlite_error_code() {
            Some(NotADatabase | DatabaseCorrupt) => Self::Corrupt {
                path: path.to_path_buf(),
                detail: source.to_string(),
            },
            _ => Self::Database {
                path: path.to_path_buf(),
                source,
            },
        }
    }

    /// True for the errors that mean the file must not be written by this code and may be
    /// moved aside: [`Self::Corrupt`] and [`Self::Foreign`].
    pub fn is_unusable_file(&self) -> bool {
        matches!(self, Self::Corrupt { .. } | Self::Foreign { .. })
    }
}
