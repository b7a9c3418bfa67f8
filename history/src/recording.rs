//! Whether a run left `running` is still being recorded.
//!
//! A run's row says `running` from its start until its end is written. When the end cannot be
//! written (a full disk) or its process dies (`kill -9`), the row keeps saying it. Its process
//! id alone cannot tell a reader whether that run goes on: the id is reused by a later process
//! (in a container, the bench binary is often process 1 of its own namespace, and process 1
//! is alive in every other), and it means nothing on another machine (a merged shard).
//!
//! So a process that begins a run holds a shared lock ([`std::fs::File::lock_shared`]) on the
//! file beside the history named with [`SUFFIX`] until it exits: the operating system releases
//! it however the process ends, and no other process or machine can hold it for it. A reader
//! that finds a `running` row whose process id is alive asks whether any process holds that
//! lock: when none does, no run of this history is being recorded, and the row reads
//! `interrupted`.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::recognise::companion;

/// Appended to the history's file name: the file whose lock a recording process holds.
pub(crate) const SUFFIX: &str = "-recording";

/// The lock files this process holds, one per history it began a run in, until it exits.
static HELD: Mutex<Vec<(PathBuf, File)>> = Mutex::new(Vec::new());

/// Takes this process's shared lock on the recording file of the history at `path` (once per
/// history), before its run's row is written. When the file cannot be created or locked
/// (a read-only directory, which the run cannot be written into either), the run is
/// recorded without it and reads `interrupted` to other processes.
pub(crate) fn hold(path: &Path) {
    let mut held = HELD.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if held.iter().any(|(p, _)| p == path) {
        return;
    }
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(companion(path, SUFFIX));
    if let Ok(file) = file {
        if file.lock_shared().is_ok() {
            held.push((path.to_path_buf(), file));
        }
    }
}

/// Whether some process holds the recording lock of the history at `path` (this one
/// included): false when the lock file is absent or can be locked exclusively. When it cannot
/// be told (the file cannot be opened), true: the process id decides alone.
pub(crate) fn anyone_recording(path: &Path) -> bool {
    let file = match File::open(companion(path, SUFFIX)) {
        Ok(file) => file,
        Err(e) => return e.kind() != std::io::ErrorKind::NotFound,
    };
    match file.try_lock() {
        Ok(()) => false,
        Err(TryLockError::WouldBlock) => true,
        Err(TryLockError::Error(_)) => true,
    }
}
