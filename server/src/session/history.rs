//! The history, read in blocking tasks so the session never waits on SQLite:
//! `knotmeter/history`, and each case's last stored result when the workspace is loaded.

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

/// Reads the last complete stored result of every case from another thread and sends it to
/// the session as [`Event::Stored`]; nothing is sent when there is no readable history.
pub fn load_latest(target_dir: PathBuf, events: mpsc::UnboundedSender<Event>) {
    tokio::task::spawn_blocking(move || match stored::latest(Some(&target_dir)) {
        Stored::Found(results) if !results.is_empty() => {
            tracing::info!("{} stored results", results.len());
            let _ = events.send(Event::Stored(results));
        }
        Stored::Found(_) | Stored::NoStore(_) => {}
        Stored::Unreadable(why) => tracing::warn!("{why}"),
    });
}
