//! The two questions the store asks the operating system: may this process write a path, and
//! is a process still alive.

use std::path::Path;

/// Whether this process may write `path` (a file or a directory), by the operating system's
/// own rules (`access(2)` with `W_OK`, which also says no on a read-only file system).
#[cfg(unix)]
pub(crate) fn writable(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c_path) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `c_path` is a valid NUL-terminated string that outlives the call.
    unsafe { libc::access(c_path.as_ptr(), libc::W_OK) == 0 }
}

/// Whether this process may write `path`: not marked read-only.
#[cfg(not(unix))]
pub(crate) fn writable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.permissions().readonly())
}

/// The bytes this process may still write on the file system holding `path` (`statvfs(3)`),
/// or `None` when that cannot be asked.
#[cfg(unix)]
pub(crate) fn free_bytes(path: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: `stats` is plain data that `statvfs` fills in; `c_path` is a valid
    // NUL-terminated string that outlives the call.
    let mut stats: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c_path.as_ptr(), &mut stats) } != 0 {
        return None;
    }
    #[allow(clippy::useless_conversion)] // the field types differ between platforms
    Some(u64::from(stats.f_bavail).saturating_mul(u64::from(stats.f_frsize)))
}

/// Without a way to ask, the free space is unknown.
#[cfg(not(unix))]
pub(crate) fn free_bytes(_path: &Path) -> Option<u64> {
    None
}

/// Whether the process `pid` is alive (it may belong to another user).
#[cfg(unix)]
pub(crate) fn process_alive(pid: i64) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 only checks that the process exists and may be signalled.
    let sent = unsafe { libc::kill(pid, 0) };
    sent == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Without a way to ask, a run left open is taken to be over (shown `interrupted`).
#[cfg(not(unix))]
pub(crate) fn process_alive(pid: i64) -> bool {
    i64::from(std::process::id()) == pid
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_a_finished_child_is_not() {
        assert!(process_alive(i64::from(std::process::id())));
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .arg("--list")
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let pid = i64::from(child.id());
        child.wait().unwrap();
        assert!(!process_alive(pid), "a reaped child is gone");
        assert!(!process_alive(0));
        assert!(!process_alive(-1));
    }

    #[test]
    fn a_temporary_directory_is_writable() {
        let dir = tempfile::tempdir().unwrap();
        assert!(writable(dir.path()));
        assert!(!writable(&dir.path().join("absent")));
    }
}
