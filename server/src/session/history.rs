//! The history, read in blocking tasks so the session never waits on SQLite:
//! `knotmeter/history`, and each case's last stored result and profile when the workspace is
//! loaded.

use std::path::PathBuf;

use knotmeter_protocol::editor::{HistoryParams, HistoryResult};
use tokio::sync::mpsc;

use super::{Event, Reply};
use crate::stored::{self, Stored};

/// Answers `params` from another thread; an absent or unreadable store gives no points.
pub fn answer(params: HistoryParams, target_dir: Option<PathBuf>, reply: Reply<HistoryResult>) {
    tokio::task::spawn_blocking(move || {
        let limit = params.limit.unwrap_or(100) as usize;
        let points = match stored::points(target_dir.as_deref(), &params.id, limit) {
            Stored::Found(points) => points,
            Stored::NoStore(path) => {
                tracing::info!("no history yet at {}", path.display());
                Vec::new()
            }
            Stored::Unreadable(why) => {
                tracing::warn!("{why}");
                Vec::new()
            }
        };
        let _ = reply.send(Ok(HistoryResult { points }));
    });
}

/// Reads the last complete stored result of every case, then the newest stored profile of
/// every case, from another thread and sends them to the session as [`Event::Stored`] and
/// [`Event::StoredProfiles`]; nothing is sent of what there is no readable history for.
pub fn load_latest(target_dir: PathBuf, events: mpsc::UnboundedSender<Event>) {
    tokio::task::spawn_blocking(move || {
        if let Some(results) = found(stored::latest(Some(&target_dir)), "results") {
            let _ = events.send(Event::Stored(results));
        }
        if let Some(profiles) = found(stored::latest_profiles(Some(&target_dir)), "profiles") {
            let _ = events.send(Event::StoredProfiles(profiles));
        }
    });
}

/// What the store holds of `what`, when it holds any; why not is logged.
fn found<T>(stored: Stored<Vec<T>>, what: &str) -> Option<Vec<T>> {
    match stored {
        Stored::Found(found) if !found.is_empty() => {
            tracing::info!("{} stored {what}", found.len());
            Some(found)
        }
        Stored::Found(_) | Stored::NoStore(_) => None,
        Stored::Unreadable(why) => {
            tracing::warn!("{why}");
            None
        }
    }
}
