//! Watching the workspace for files changed on disk outside the editor (notify), debounced:
//! a burst of changes (a `git checkout`, a formatter over the tree) arrives as one batch
//! once the files have been quiet for [`QUIET`].
//!
//! Only `.rs` files and `Cargo.toml` manifests matter; the target directory and `.git` are
//! ignored. Files the editor holds are watched too, but discovery keeps the editor's text
//! for them until they are closed.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use notify::{RecursiveMode, Watcher};
use tokio::sync::mpsc;

/// How long the files must be quiet before a batch is delivered.
pub const QUIET: Duration = Duration::from_millis(100);

/// Watches `root` recursively and sends batches of changed paths to `out`. The watch lasts
/// as long as the returned watcher lives.
pub fn spawn(
    root: &Path,
    target_dir: &Path,
    out: mpsc::UnboundedSender<Vec<PathBuf>>,
) -> notify::Result<notify::RecommendedWatcher> {
    let (raw_tx, mut raw_rx) = mpsc::unbounded_channel::<PathBuf>();
    let target_dir = target_dir.to_path_buf();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let Ok(event) = event else { return };
        if event.kind.is_access() {
            return;
        }
        for path in event.paths {
            if relevant(&path, &target_dir) {
                let _ = raw_tx.send(path);
            }
        }
    })?;
    watcher.watch(root, RecursiveMode::Recursive)?;
    tokio::spawn(async move {
        while let Some(first) = raw_rx.recv().await {
            let mut batch = BTreeSet::from([first]);
            loop {
                match tokio::time::timeout(QUIET, raw_rx.recv()).await {
                    Ok(Some(path)) => {
                        batch.insert(path);
                    }
                    Ok(None) => return,
                    Err(_) => break,
                }
            }
            if out.send(batch.into_iter().collect()).is_err() {
                return;
            }
        }
    });
    Ok(watcher)
}

fn relevant(path: &Path, target_dir: &Path) -> bool {
    if path.starts_with(target_dir) || path.components().any(|c| c.as_os_str() == ".git") {
        return false;
    }
    path.extension().is_some_and(|e| e == "rs")
        || path.file_name().is_some_and(|n| n == "Cargo.toml")
}
