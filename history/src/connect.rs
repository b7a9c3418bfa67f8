//! SQLite connections and how long they wait for a lock.
//!
//! In WAL mode readers never wait, but two writers take turns: a writer that finds the write
//! lock taken waits for it. SQLite's own busy timeout cannot be interrupted, and a cancelled
//! run must not sit out a lock (the daemon kills a bench binary two seconds after asking it to
//! stop). So every connection gets a busy handler that sleeps in short steps and gives up when
//! the wait set with [`Waiting::set`] has passed, or at once when the flag given to
//! [`Waiting::give_up_when`] is set.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags};

use crate::HistoryError;

/// How long a connection waits for a lock held by another before giving up with
/// [`HistoryError::Locked`], unless told otherwise ([`crate::History::set_lock_wait`]).
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The longest sleep between two tries for a lock: how late a cancel is noticed.
const STEP: Duration = Duration::from_millis(10);

/// A connection's patience for locks, shared with its busy handler.
#[derive(Debug)]
pub(crate) struct Waiting {
    millis: AtomicU64,
    give_up: OnceLock<&'static AtomicBool>,
}

impl Waiting {
    fn new() -> Arc<Self> {
        Arc::new(Self {
            millis: AtomicU64::new(BUSY_TIMEOUT.as_millis() as u64),
            give_up: OnceLock::new(),
        })
    }

    /// Waits at most `wait` for each lock from now on.
    pub(crate) fn set(&self, wait: Duration) {
        self.millis.store(
            wait.as_millis().min(u128::from(u64::MAX)) as u64,
            Ordering::Relaxed,
        );
    }

    /// Stops waiting for any lock as soon as `flag` is set (the first flag given stays).
    pub(crate) fn give_up_when(&self, flag: &'static AtomicBool) {
        let _ = self.give_up.set(flag);
    }

    fn given_up(&self) -> bool {
        self.give_up
            .get()
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
    }

    fn limit(&self) -> Duration {
        Duration::from_millis(self.millis.load(Ordering::Relaxed))
    }
}

/// Opens a connection with `flags` (and `uri` as the name when given), the lock-waiting busy
/// handler, and foreign keys on.
pub(crate) fn connect(
    path: &Path,
    uri: Option<&str>,
    flags: OpenFlags,
) -> Result<(Connection, Arc<Waiting>), HistoryError> {
    let sqlite = |e| HistoryError::sqlite(path, e);
    let flags = flags | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let mut conn = match uri {
        Some(uri) => Connection::open_with_flags(uri, flags | OpenFlags::SQLITE_OPEN_URI),
        None => Connection::open_with_flags(path, flags),
    }
    .map_err(sqlite)?;
    let waiting = Waiting::new();
    let handler_waiting = Arc::clone(&waiting);
    let mut started = Instant::now();
    conn.busy_handler(Some(move |attempt: i32| {
        if attempt == 0 {
            started = Instant::now();
        }
        if handler_waiting.given_up() {
            return false;
        }
        let Some(left) = handler_waiting.limit().checked_sub(started.elapsed()) else {
            return false;
        };
        if left.is_zero() {
            return false;
        }
        std::thread::sleep(left.min(STEP));
        true
    }))
    .map_err(sqlite)?;
    conn.pragma_update(None, "foreign_keys", true)
        .map_err(sqlite)?;
    Ok((conn, waiting))
}

/// `file:` URI of `path` with `query`, for SQLite's URI filenames: every byte outside the
/// unreserved set and `/` is percent-encoded.
pub(crate) fn uri(path: &Path, query: &str) -> String {
    let text = path.to_string_lossy();
    let mut out = String::from("file:");
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(char::from(byte))
            }
            other => out.push_str(&format!("%{other:02X}")),
        }
    }
    out.push('?');
    out.push_str(query);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_escape_what_sqlite_would_misread() {
        assert_eq!(
            uri(Path::new("/a b/h?#%.db"), "immutable=1"),
            "file:/a%20b/h%3F%23%25.db?immutable=1"
        );
    }
}
