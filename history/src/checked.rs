//! Checking a history only when it changed since it was last known good.
//!
//! Opening for writing must never write to a damaged file, so it runs `PRAGMA quick_check`,
//! which reads every page: 34 ms at 10 000 results, about 0.9 s at 100 000 (docs/history.md),
//! paid by every bench binary before its first case. Most of the time nothing but knotmeter
//! touched the file since the last writer closed it, and that writer had checked it.
//!
//! So a writer that closes cleanly folds the WAL back into the file and then writes a stamp
//! beside it (`history.db-checked`): the file's device, inode, size, and modification and
//! status-change times, to the nanosecond. The next writer skips `quick_check` only when the
//! stamp matches the file exactly and no WAL holds anything: any change made to the file
//! since (a copy over it, a tool that wrote into it, a truncation, a `touch`, even a `chmod`)
//! moves its status-change time, which no program can set back, so the file is checked
//! again. A writer killed before it closed leaves its WAL or a changed file behind: the next
//! one checks too. The stamp itself is only ever trusted when it matches; one that cannot be
//! read or written means a check.
//!
//! A file this process found damaged in any way (SQLite reported a corrupt page, a stored value
//! did not read back) is never stamped, and its stamp is removed.
//!
//! What this does not see is damage that leaves the file's metadata alone (a disk that
//! silently flips bits); SQLite reports such pages as corrupt when it reads them.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::recognise::companion;

/// The suffix of the stamp's file name.
pub(crate) const STAMP: &str = "-checked";

/// What the stamp records of the history file, in its text form; `None` where the operating
/// system does not tell it (then every open checks).
fn fingerprint(path: &Path) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let m = fs::metadata(path).ok()?;
        Some(format!(
            "knotmeter-history-checked 1\ndev {}\nino {}\nsize {}\nmtime {}.{:09}\nctime {}.{:09}\n",
            m.dev(),
            m.ino(),
            m.len(),
            m.mtime(),
            m.mtime_nsec(),
            m.ctime(),
            m.ctime_nsec()
        ))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// Whether the history at `path` is exactly as a writer left it after a check: the stamp
/// matches and no WAL holds anything.
pub(crate) fn unchanged_since_check(path: &Path) -> bool {
    let wal_empty = fs::metadata(companion(path, "-wal")).map_or(true, |m| m.len() == 0);
    let (Some(now), Ok(stamp)) = (
        fingerprint(path),
        fs::read_to_string(companion(path, STAMP)),
    ) else {
        return false;
    };
    wal_empty && now == stamp
}

/// Histories this process found damaged: never stamped.
static DISTRUSTED: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);

/// Notes that the history at `path` showed damage: it is not stamped again by this process,
/// and its stamp goes.
pub(crate) fn distrust(path: &Path) {
    if let Ok(mut set) = DISTRUSTED.lock() {
        set.get_or_insert_with(HashSet::new)
            .insert(path.to_path_buf());
    }
    forget(path);
}

fn distrusted(path: &Path) -> bool {
    DISTRUSTED
        .lock()
        .map_or(true, |set| set.as_ref().is_some_and(|s| s.contains(path)))
}

/// Records the file as it is now as checked. Call only when the file is known good and the
/// WAL is empty; a stamp that cannot be written only means the next writer checks.
pub(crate) fn stamp(path: &Path) {
    if distrusted(path) {
        forget(path);
        return;
    }
    if let Some(now) = fingerprint(path) {
        let _ = fs::write(companion(path, STAMP), now);
    }
}

/// Removes the stamp: the file must be checked by the next writer.
pub(crate) fn forget(path: &Path) {
    let _ = fs::remove_file(companion(path, STAMP));
}
