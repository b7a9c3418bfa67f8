//! Where a headless command finds the history: the workspace's target directory, unless
//! `KNOTMETER_HISTORY` names the file (`history`, `merge` and `export` all ask here).

use std::path::PathBuf;

use crate::discovery::workspace;

/// The target directory of the workspace at `path` (the current directory by default), to
/// find its history; `None` when `KNOTMETER_HISTORY` names the file, or (with a note) when
/// there is no workspace there.
pub(super) fn history_target_dir(path: Option<PathBuf>) -> Option<PathBuf> {
    if std::env::var_os(knotmeter_history::HISTORY_ENV).is_some_and(|v| !v.is_empty()) {
        return None;
    }
    let path = path.unwrap_or_else(|| PathBuf::from("."));
    match workspace::load(&path) {
        Ok(workspace) => Some(workspace.target_dir),
        Err(e) => {
            eprintln!("knotmeter: {e}; looking for the history without a workspace");
            None
        }
    }
}
