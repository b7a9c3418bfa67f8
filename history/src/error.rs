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

/// Below this many free bytes, an I/O error of SQLite is taken for a full disk: a write of
/// the history needs a few pages of 4 KiB in the -wal file and 32 KiB for the -shm file.
const NEARLY_FULL: u64 = 256 * 1024;

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
    /// The disk holding the history is full: SQLite said so (`SQLITE_FULL`), or failed to
    /// write (`SQLITE_IOERR`) with almost no space left. The write was rolled back: what was
    /// stored before it is all there.
    DiskFull {
        /// The history file.
        path: PathBuf,
        /// The bytes left on its file system, when they could be asked.
        free: Option<u64>,
        /// SQLite's error.
        source: rusqlite::Error,
    },
    /// SQLite reported another error.
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
            Self::Missing { .. }
            | Self::Corrupt { .. }
            | Self::Foreign { .. }
            | Self::TooNew { .. }
            | Self::NeedsUpgrade { .. } => self.fmt_unusable_file(f),
            Self::ReadOnly { .. } | Self::Locked { .. } | Self::DiskFull { .. } => {
                self.fmt_unwritable(f)
            }
            Self::Io { .. } | Self::Rejected { .. } | Self::Database { .. } => {
                self.fmt_failed_operation(f)
            }
        }
    }
}

impl HistoryError {
    /// The message of an error about the file itself, which is no history this code can use
    /// as it is: missing, damaged, another program's, or of another schema version. It says
    /// what was left untouched and how to go on.
    fn fmt_unusable_file(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
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
            _ => unreachable!("fmt_unusable_file is called for an unusable file only"),
        }
    }

    /// The message of an error that kept a write out of a history that is itself fine:
    /// read-only files, another process's lock, a full disk. It names what is in the way and
    /// how to clear it.
    fn fmt_unwritable(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
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
            Self::DiskFull { path, free, source } => write!(
                f,
                "the disk holding the benchmark history {} is full{} (SQLite: {source}); \
                 anything half-written was rolled back and nothing already stored was lost. \
                 Free some space, or set KNOTMETER_HISTORY to a file on another disk",
                path.display(),
                free.map_or(String::new(), |bytes| format!(
                    " ({} KiB free)",
                    bytes / 1024
                ))
            ),
            _ => unreachable!("fmt_unwritable is called for an unwritable history only"),
        }
    }

    /// The message of a single operation that failed: a file-system call, a run the store
    /// cannot take, or any other error of SQLite. It passes on the underlying error's words.
    fn fmt_failed_operation(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
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
            _ => unreachable!("fmt_failed_operation is called for a failed operation only"),
        }
    }
}

impl std::error::Error for HistoryError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io { source, .. } => Some(source),
            Self::Database { source, .. } | Self::DiskFull { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl HistoryError {
    /// Sorts an SQLite error: "not a database" and "malformed" become [`Self::Corrupt`], a
    /// lock held too long [`Self::Locked`], "read-only" and "cannot open" [`Self::ReadOnly`]
    /// (naming what cannot be written), a full disk [`Self::DiskFull`], the rest
    /// [`Self::Database`].
    pub(crate) fn sqlite(path: &Path, source: rusqlite::Error) -> Self {
        Self::sorted(path, source, || crate::os::free_bytes(&directory_of(path)))
    }

    /// [`Self::sqlite`], with the free space of the history's file system from `free` (asked
    /// only after an I/O error).
    fn sorted(path: &Path, source: rusqlite::Error, free: impl FnOnce() -> Option<u64>) -> Self {
        use rusqlite::ErrorCode::{
            CannotOpen, DatabaseBusy, DatabaseCorrupt, DatabaseLocked, DiskFull, NotADatabase,
            PermissionDenied, ReadOnly, SystemIoFailure,
        };
        match source.sqlite_error_code() {
            Some(DiskFull) => Self::DiskFull {
                path: path.to_path_buf(),
                free: free(),
                source,
            },
            Some(SystemIoFailure) => match free() {
                // With a few KiB left SQLite often fails to grow its -shm or -wal file and
                // says "disk I/O error" rather than "disk is full".
                Some(bytes) if bytes < NEARLY_FULL => Self::DiskFull {
                    path: path.to_path_buf(),
                    free: Some(bytes),
                    source,
                },
                _ => Self::Database {
                    path: path.to_path_buf(),
                    source,
                },
            },
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

/// The directory holding `path` (the current one for a bare file name).
fn directory_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
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

#[cfg(test)]
mod tests {
    //! Issue 21 §7: with 0–24 KiB free, a write failed with "disk I/O error" and the message
    //! did not say the disk was full. A full disk cannot be made without root, so the errors
    //! SQLite gives on one are sorted here as it reports them: `SQLITE_FULL`, and
    //! `SQLITE_IOERR_WRITE` or `SQLITE_IOERR_SHMSIZE` (`ENOSPC` while growing a file) with
    //! almost nothing free.

    use super::*;
    use rusqlite::ffi;

    fn sqlite_error(code: std::ffi::c_int) -> rusqlite::Error {
        rusqlite::Error::SqliteFailure(ffi::Error::new(code), None)
    }

    fn message(code: std::ffi::c_int, free: Option<u64>) -> String {
        HistoryError::sorted(Path::new("/h/history.db"), sqlite_error(code), || free).to_string()
    }

    #[test]
    fn a_full_disk_read_disk_io_error_instead_of_saying_it_is_full() {
        for (code, free) in [
            (ffi::SQLITE_FULL, Some(0)),
            (ffi::SQLITE_FULL, None),
            (ffi::SQLITE_IOERR_WRITE, Some(12 * 1024)),
            (ffi::SQLITE_IOERR_SHMSIZE, Some(0)),
        ] {
            let text = message(code, free);
            assert!(
                text.contains("the disk holding the benchmark history /h/history.db is full"),
                "{code}: {text}"
            );
            assert!(text.contains("nothing already stored was lost"), "{text}");
        }
        assert!(message(ffi::SQLITE_IOERR_WRITE, Some(12 * 1024)).contains("(12 KiB free)"));
    }

    #[test]
    fn an_io_error_with_space_left_is_not_called_a_full_disk() {
        for free in [Some(10 << 30), None] {
            let text = message(ffi::SQLITE_IOERR_WRITE, free);
            assert!(!text.contains("full"), "{text}");
            assert!(text.contains("disk I/O error"), "{text}");
        }
    }
}
