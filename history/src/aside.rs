//! Moving an unusable history file out of the way.
//!
//! The engine must never overwrite a file it does not understand: it may be the only copy of
//! a long history damaged by a crash, or another program's database that `KNOTMETER_HISTORY`
//! pointed at by mistake. [`crate::History::open_or_move_aside`] therefore renames such a file
//! to `<name>.corrupt-<unix seconds>` in the same directory (adding `-2`, `-3`, ... if that
//! name is taken) and moves SQLite's companion files (`-wal`, `-shm`, `-journal`) along under
//! the same new name, so the moved database can still be opened with everything it had.
//!
//! Two processes that find the same bad file at the same moment may race: the second rename
//! then fails with an [`HistoryError::Io`] error rather than touching the first one's new
//! file, except in the narrow window after the first has created it.

use std::ffi::OsString;
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::HistoryError;

/// SQLite's companion files of a database, by the suffix appended to its name.
const COMPANIONS: &[&str] = &["-wal", "-shm", "-journal"];

/// A history file that was unusable and was renamed so a new one could be created.
#[derive(Debug)]
pub struct MovedAside {
    /// Where the file was.
    pub from: PathBuf,
    /// Where it is now.
    pub to: PathBuf,
    /// Why it could not be used: [`HistoryError::Corrupt`] or [`HistoryError::Foreign`].
    pub reason: HistoryError,
}

impl fmt::Display for MovedAside {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let why = match &self.reason {
            HistoryError::Corrupt { detail, .. } => format!("damaged: {detail}"),
            HistoryError::Foreign { detail, .. } => format!("not a knotmeter history: {detail}"),
            other => other.to_string(),
        };
        write!(
            f,
            "the benchmark history {} was unusable ({why}); it was moved to {} and a new \
             history was started",
            self.from.display(),
            self.to.display()
        )
    }
}

/// Renames `path` and its companion files to a fresh `.corrupt-<unix seconds>` name and
/// returns the new path of the main file.
pub(crate) fn move_aside(path: &Path) -> Result<PathBuf, HistoryError> {
    let seconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let base = with_suffix(path, &format!(".corrupt-{seconds}"));
    let to = (1..)
        .map(|n| match n {
            1 => base.clone(),
            n => with_suffix(&base, &format!("-{n}")),
        })
        .find(|candidate| !exists(candidate))
        .expect("an unbounded sequence of names has a free one");
    fs::rename(path, &to).map_err(|source| HistoryError::Io {
        path: path.to_path_buf(),
        action: "move aside the unusable history file",
        source,
    })?;
    for suffix in COMPANIONS {
        let companion = with_suffix(path, suffix);
        if exists(&companion) {
            fs::rename(&companion, with_suffix(&to, suffix)).map_err(|source| {
                HistoryError::Io {
                    path: companion.clone(),
                    action: "move aside the companion file",
                    source,
                }
            })?;
        }
    }
    Ok(to)
}

/// `path` with `suffix` appended to its last component.
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = OsString::from(path.as_os_str());
    name.push(suffix);
    PathBuf::from(name)
}

fn exists(path: &Path) -> bool {
    !matches!(fs::symlink_metadata(path), Err(e) if e.kind() == io::ErrorKind::NotFound)
}
