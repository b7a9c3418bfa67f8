//! Reading the history store, which the engine writes as it measures: points for charts and
//! `knotmeter history ID`, runs for `knotmeter history`, and each case's last stored result and
//! profile for the editor after the daemon starts. A missing or unreadable store means "no history", with a
//! message that says why, never a crash. This module only reads: the server writes the history
//! only where the user asks for it (`knotmeter history prune` and `merge` in `headless`,
//! `knotmeter compare` storing its comparison, a profile storing itself), and those open it
//! themselves.

use std::path::{Path, PathBuf};

use knotmeter_history::{resolve_path, History, HistoryError};
use knotmeter_protocol::{BenchResult, HistoryPoint, HistoryRun};

/// What the store holds, or why there is nothing.
#[derive(Debug, Clone, PartialEq)]
pub enum Stored<T> {
    /// What the store holds (maybe nothing).
    Found(T),
    /// No store yet at this path: nothing has been run.
    NoStore(PathBuf),
    /// The store cannot be read: the message says why and what to do.
    Unreadable(String),
}

/// Opens the history of the workspace whose target directory is `target_dir` (or wherever
/// `KNOTMETER_HISTORY` points) and reads it with `read`.
pub fn read<T>(
    target_dir: Option<&Path>,
    read: impl FnOnce(&History) -> Result<T, HistoryError>,
) -> Stored<T> {
    let path = resolve_path(target_dir);
    match History::open_read_only(&path).and_then(|h| read(&h)) {
        Ok(found) => Stored::Found(found),
        Err(HistoryError::Missing { path }) => Stored::NoStore(path),
        Err(e) => Stored::Unreadable(format!("the history store cannot be read: {e}")),
    }
}

/// Up to `limit` points of `id`, newest first.
pub fn points(target_dir: Option<&Path>, id: &str, limit: usize) -> Stored<Vec<HistoryPoint>> {
    read(target_dir, |h| h.points(id, limit))
}

/// The latest `limit` runs, newest first.
pub fn runs(target_dir: Option<&Path>, limit: usize) -> Stored<Vec<HistoryRun>> {
    read(target_dir, |h| h.runs(limit))
}

/// The last complete stored result of every case, each with `stored_at`.
pub fn latest(target_dir: Option<&Path>) -> Stored<Vec<BenchResult>> {
    read(target_dir, History::latest_results)
}

/// The newest stored profile of every case that has one.
pub fn latest_profiles(target_dir: Option<&Path>) -> Stored<Vec<knotmeter_history::StoredProfile>> {
    read(target_dir, History::latest_profiles)
}

pub use knotmeter_format::text::{stored_note, time_text};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_utc_calendar_days_hours_and_minutes() {
        assert_eq!(time_text(0), "1970-01-01 00:00");
        assert_eq!(time_text(1_700_000_000), "2023-11-14 22:13");
        assert_eq!(time_text(951_782_400 + 86_399), "2000-02-29 23:59");
    }
}
