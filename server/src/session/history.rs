//! `knotmeter/history`: read in a blocking task so the session never waits on SQLite.

use std::path::PathBuf;

use knotmeter_protocol::editor::{HistoryParams, HistoryResult};

use super::Reply;
use crate::stored::{self, Stored};

/// Answers `params` from another thread; an absent or unreadable store gives no points.
pub fn answer(params: HistoryParams, target_dir: Option<PathBuf>, reply: Reply<HistoryResult>) {
    tokio::task::spawn_blocking(move || {
        let limit = params.limit.unwrap_or(100) as usize;
        let points = match stored::points(target_dir.as_deref(), &params.id, limit) {
            Stored::Points(points) => points,
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
