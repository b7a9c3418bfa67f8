//! The profilers a profile needs, found on `PATH`, with the package to install when one is not.

use std::path::{Path, PathBuf};

use knotmeter_protocol::ProfileTool;

/// The program `tool` runs.
pub fn program(tool: ProfileTool) -> &'static str {
    match tool {
        ProfileTool::Callgrind => "valgrind",
        ProfileTool::Perf => "perf",
    }
}

/// The profiler's own name: `callgrind` or `perf`.
pub fn program_name(tool: ProfileTool) -> &'static str {
    match tool {
        ProfileTool::Callgrind => "callgrind",
        ProfileTool::Perf => "perf",
    }
}

/// The executable `program` names on `path` (a `PATH` value), if any.
pub fn find_on(program: &str, path: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    std::env::split_paths(path?)
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The executable of `tool`, or one line saying what to install (or that this machine's
/// architecture cannot be profiled: the engine marks the timed region with x86_64 instructions).
pub fn require(tool: ProfileTool) -> Result<PathBuf, String> {
    if !cfg!(target_arch = "x86_64") {
        return Err(format!(
            "knotmeter profile marks the timed region with x86_64 instructions, and this \
             machine is {}: not supported yet",
            std::env::consts::ARCH
        ));
    }
    let program = program(tool);
    find_on(program, std::env::var_os("PATH").as_deref()).ok_or_else(|| missing(tool))
}

/// What to say when `tool` is not installed: one line, naming the package.
pub fn missing(tool: ProfileTool) -> String {
    match tool {
        ProfileTool::Callgrind => "knotmeter profile counts instructions with Valgrind's \
             callgrind, and `valgrind` is not on PATH: install Valgrind (Debian and Ubuntu: \
             `sudo apt install valgrind`; Fedora: `sudo dnf install valgrind`)"
            .to_owned(),
        ProfileTool::Perf => "sampling with Linux perf needs `perf`, and it is not on PATH: \
             install it (Debian: `sudo apt install linux-perf`; Ubuntu: `sudo apt install \
             linux-tools-common linux-tools-$(uname -r)`; Fedora: `sudo dnf install perf`)"
            .to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_profiler_names_its_package() {
        let nowhere = std::ffi::OsString::from("/nonexistent-knotmeter-dir");
        assert_eq!(find_on("valgrind", Some(&nowhere)), None);
        assert_eq!(find_on("valgrind", None), None);
        assert!(missing(ProfileTool::Callgrind).contains("apt install valgrind"));
        assert!(missing(ProfileTool::Perf).contains("apt install linux-perf"));
        assert!(!missing(ProfileTool::Perf).contains('\n'));
    }

    #[test]
    fn a_program_on_path_is_found() {
        let path = std::ffi::OsString::from("/nonexistent-knotmeter-dir:/bin:/usr/bin");
        assert!(find_on("sh", Some(&path)).is_some());
    }
}
