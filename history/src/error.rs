//! The one error type of the crate.
//!
//! Every variant names the history file it is about, and its message says what was not done
//! and what the user can do. The store never moves, renames or deletes a file on its own:
//! where a file is in the way ([`HistoryError::Foreign`], [`HistoryError::Corrupt`]), the
//! message gives the exact commands that would set it aside, and leaves the choice to the
//! user.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use crate::recognise::companion;

/// SQLite's companion files of a database, by the suffix appended to its name.
pub(crate) const COMPANIONS: &[&str] = &["-wal", "-shm", "-journal"];

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
    /// A knotmeter history that SQLite finds damaged: missing tables, damaged pages, an
    /// unreadable stored value. Nothing is written to it.
    Corrupt {
        /// The history file.
        path: PathBuf,
        /// What is wrong with it.
        detail: String,
    },
    /// The file is not a knotmeter history: not an SQLite database, or another program's.
    /// SQLite never opens it, so nothing is written to it or next to it.
    Foreign {
        /// The file.
        path: PathBuf,
        /// What the file is.
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
    /// The history can be read but not written: a read-only file, directory or companion
    /// file.
    ReadOnly {
        /// The history file.
        path: PathBuf,
        /// The files or directories that cannot be written, as far as they could be found.
        blockers: Vec<PathBuf>,
        /// SQLite's or the operating system's words.
        detail: String,
    },
    /// Another process held the history's write lock for longer than this one would wait.
    Locked {
        /// The history file.
        path: PathBuf,
    },
    /// The run handed to the store cannot be stored as it is.
    Rejected {
        /// The history file.
        path: PathBuf,
        /// What is wrong with the run.
        detail: String,
    },
    /// SQLite reported another error (for example a full disk).
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
                "the benchmark history {} is damaged ({detail}); nothing was written to it. \
                 To keep it and let the next run start a new history: {}",
                path.display(),
                set_aside_commands(path, ".damaged")
            ),
            Self::Foreign { path, detail } => write!(
                f,
                "{} is not a knotmeter history ({detail}); it was left untouched and nothing \
                 was created next to it. Set KNOTMETER_HISTORY to another file, or, if the \
                 file is not needed where it is: {}",
                path.display(),
                set_aside_commands(path, ".not-knotmeter")
            ),
            Self::TooNew {
                path,
                found,
                supported,
            } => write!(
                f,
                "the benchmark history {} has schema version {found}, newer than the {supported} \
                 this knotmeter knows; it was left untouched: upgrade knotmeter, or set \
                 KNOTMETER_HISTORY to another file",
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
            Self::ReadOnly {
                path,
                blockers,
                detail,
            } => {
                write!(
                    f,
                    "the benchmark history {} cannot be written",
                    path.display()
                )?;
                if !blockers.is_empty() {
                    let names: Vec<String> =
                        blockers.iter().map(|p| p.display().to_string()).collect();
                    write!(f, ": {} is read-only", names.join(", "))?;
                }
                write!(
                    f,
                    " ({detail}); make it writable (or remove a leftover -wal/-shm file once no \
                     knotmeter runs), or set KNOTMETER_HISTORY to a writable file"
                )
            }
            Self::Locked { path } => write!(
                f,
                "the benchmark history {} is locked by another process; if none is running \
                 benchmarks, look for a program holding it open (`fuser {}`)",
                path.display(),
                path.display()
            ),
            Self::Rejected { path, detail } => write!(
                f,
                "cannot record this in the benchmark history {}: {detail}",
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
    /// Sorts an SQLite error: "not a database" and "malformed" become [`Self::Corrupt`], a
    /// lock held too long [`Self::Locked`], "read-only" and "cannot open" [`Self::ReadOnly`]
    /// (naming what cannot be written), the rest [`Self::Database`].
    pub(crate) fn sqlite(path: &Path, source: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode::{
            CannotOpen, DatabaseBusy, DatabaseCorrupt, DatabaseLocked, NotADatabase,
            PermissionDenied, ReadOnly,
        };
        match source.sqlite_error_code() {
            Some(NotADatabase | DatabaseCorrupt) => {
                crate::checked::distrust(path);
                Self::Corrupt {
                    path: path.to_path_buf(),
                    detail: source.to_string(),
                }
            }
            Some(DatabaseBusy | DatabaseLocked) => Self::Locked {
                path: path.to_path_buf(),
            },
            Some(ReadOnly | CannotOpen | PermissionDenied) => Self::ReadOnly {
                path: path.to_path_buf(),
                blockers: unwritable(path),
                detail: source.to_string(),
            },
            _ => Self::Database {
                path: path.to_path_buf(),
                source,
            },
        }
    }

    /// True when the file itself is the problem and must not be read as a history at all:
    /// [`Self::Foreign`], [`Self::TooNew`], [`Self::NeedsUpgrade`] and [`Self::Missing`]. After
    /// any other error a reader may still get something out of the file.
    pub fn is_not_readable_history(&self) -> bool {
        matches!(
            self,
            Self::Foreign { .. }
                | Self::TooNew { .. }
                | Self::NeedsUpgrade { .. }
                | Self::Missing { .. }
        )
    }
}

/// The shell commands that rename `path` and its existing companion files with `suffix`
/// added, so that SQLite still finds them together.
fn set_aside_commands(path: &Path, suffix: &str) -> String {
    let quoted = |p: &Path| format!("'{}'", p.display().to_string().replace('\'', r"'\''"));
    let mut commands = vec![format!(
        "mv {} {}",
        quoted(path),
        quoted(&companion(path, suffix))
    )];
    for c in COMPANIONS {
        let from = companion(path, c);
        if from.exists() {
            let to = companion(&companion(path, suffix), c);
            commands.push(format!("mv {} {}", quoted(&from), quoted(&to)));
        }
    }
    commands.join(" && ")
}

/// The history file, its companions and its directory, those of them that exist and cannot be
/// written by this process.
pub(crate) fn unwritable(path: &Path) -> Vec<PathBuf> {
    let mut candidates: Vec<PathBuf> = vec![path.to_path_buf()];
    candidates.extend(COMPANIONS.iter().map(|c| companion(path, c)));
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        candidates.push(dir.to_path_buf());
    }
    candidates
        .into_iter()
        .filter(|p| p.exists() && !crate::os::writable(p))
        .collect()
}
