//! Starting the count: the bench binary replaces itself with callgrind running it.
//!
//! `--measure instructions` outside Valgrind `exec`s `valgrind --tool=callgrind
//! --collect-atstart=no --combine-dumps=yes --callgrind-out-file=FILE -q -- <this executable>
//! <the same arguments>`: the same process (its id, its process group, its standard input,
//! output and error, its exit status), now counted. Nothing is collected until a counted batch
//! turns collection on (`measure::region`), so start-up, the report and the history are not
//! in any count. FILE, named in [`COUNTS_ENV`] for the engine under callgrind to read, is
//! removed at the end of the run.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The environment variable that names the file callgrind appends each dump to.
pub(crate) const COUNTS_ENV: &str = "KNOTMETER_COUNTS";

/// Replaces this process with callgrind running it with the same arguments; returns only when
/// that cannot be done, with why (in one line that names the package to install when Valgrind
/// is missing).
pub(crate) fn under_callgrind(cache_simulation: bool) -> String {
    if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        return "--measure instructions counts under Valgrind's callgrind, which knotmeter \
                drives on x86_64 Linux only"
            .to_owned();
    }
    let Some(valgrind) = find_on_path("valgrind", std::env::var_os("PATH").as_deref()) else {
        return "--measure instructions counts under Valgrind's callgrind, and `valgrind` is not \
                on PATH: install it (Debian and Ubuntu: `apt install valgrind`)"
            .to_owned();
    };
    let counts = counts_file();
    let mut command = std::process::Command::new(valgrind);
    command
        .args(arguments(&counts, cache_simulation))
        .arg("--")
        .arg(own_executable())
        .args(std::env::args_os().skip(1))
        .env(COUNTS_ENV, &counts);
    exec(command)
}

/// Valgrind's arguments before the program's.
fn arguments(counts: &Path, cache_simulation: bool) -> Vec<OsString> {
    let mut args: Vec<OsString> = [
        "--tool=callgrind",
        "--collect-atstart=no",
        "--combine-dumps=yes",
        "-q",
    ]
    .map(OsString::from)
    .to_vec();
    let mut out = OsString::from("--callgrind-out-file=");
    out.push(counts);
    args.push(out);
    args.push(OsString::from(if cache_simulation {
        "--cache-sim=yes"
    } else {
        "--cache-sim=no"
    }));
    args
}

/// A file of this run's own for callgrind's dumps, in the system's temporary directory.
fn counts_file() -> PathBuf {
    std::env::temp_dir().join(format!("knotmeter-counts-{}.out", std::process::id()))
}

/// This very executable, by its path: after the `exec`, `/proc/self/exe` is Valgrind's.
fn own_executable() -> PathBuf {
    std::env::current_exe()
        .unwrap_or_else(|_| PathBuf::from(std::env::args_os().next().unwrap_or_default()))
}

/// The executable `program` names on `path` (a `PATH` value), if any.
fn find_on_path(program: &str, path: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(path?)
        .map(|dir| dir.join(program))
        .find(|candidate| {
            candidate
                .metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

#[cfg(unix)]
fn exec(mut command: std::process::Command) -> String {
    use std::os::unix::process::CommandExt;
    let error = command.exec();
    format!("cannot start callgrind: {error}")
}

#[cfg(not(unix))]
fn exec(_: std::process::Command) -> String {
    "--measure instructions counts under Valgrind's callgrind, on Linux only".to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callgrind_collects_nothing_until_told_and_appends_every_dump_to_one_file() {
        let args = arguments(Path::new("/t/counts.out"), false);
        let args: Vec<&str> = args.iter().map(|a| a.to_str().unwrap()).collect();
        assert_eq!(
            args,
            [
                "--tool=callgrind",
                "--collect-atstart=no",
                "--combine-dumps=yes",
                "-q",
                "--callgrind-out-file=/t/counts.out",
                "--cache-sim=no"
            ]
        );
        assert!(arguments(Path::new("x"), true)
            .iter()
            .any(|a| a == "--cache-sim=yes"));
    }

    #[test]
    fn a_program_is_found_only_where_it_is_executable() {
        let dir = std::env::temp_dir().join(format!("knotmeter-path-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let tool = dir.join("valgrind");
        std::fs::write(&tool, "#!/bin/sh\n").unwrap();
        let path = std::env::join_paths([dir.clone()]).unwrap();
        assert_eq!(
            find_on_path("valgrind", Some(&path)),
            None,
            "not executable"
        );
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(find_on_path("valgrind", Some(&path)), Some(tool));
        assert_eq!(find_on_path("valgrind", None), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
