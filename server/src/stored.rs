//! Reading the history store, which the engine writes on every run. The daemon and
//! `knotmeter history` only read it; a missing or unreadable store means "no history", with a
//! message that says why, never a crash.

use std::path::{Path, PathBuf};

use knotmeter_history::{resolve_path, History, HistoryError};
use knotmeter_protocol::HistoryPoint;

/// The points of `id`, newest first, or why there are none.
#[derive(Debug, Clone, PartialEq)]
pub enum Stored {
    /// What the store holds (maybe nothing for this id).
    Points(Vec<HistoryPoint>),
    /// No store yet at this path: nothing has been run.
    NoStore(PathBuf),
    /// The store cannot be read: the message says why and what to do.
    Unreadable(String),
}

/// Reads up to `limit` points of `id` from the history of the workspace whose target
/// directory is `target_dir` (or wherever `KNOTMETER_HISTORY` points).
pub fn points(target_dir: Option<&Path>, id: &str, limit: usize) -> Stored {
    let path = resolve_path(target_dir);
    match History::open_read_only(&path).and_then(|h| h.points(id, limit)) {
        Ok(points) => Stored::Points(points),
        Err(HistoryError::Missing { path }) => Stored::NoStore(path),
        Err(e) => Stored::Unreadable(format!("the history store cannot be read: {e}")),
    }
}
