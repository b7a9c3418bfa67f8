//! `measured REPORT -- COMMAND ARGS…`: runs COMMAND with inherited standard streams, waits for it
//! with `wait4`, and writes `<exit status> <peak resident set in KiB>` to the file REPORT.
//!
//! Linux's `wait4` reports the larger of the child's own peak and that of every descendant it
//! waited for, so a harness that measures in worker processes (tango-bench) is covered: the
//! figure is the peak of its largest process.

use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (report, command) = match args.as_slice() {
        [report, dashes, command @ ..] if dashes == "--" && !command.is_empty() => {
            (report, command)
        }
        _ => {
            eprintln!("usage: measured REPORT -- COMMAND [ARGS…]");
            return ExitCode::from(2);
        }
    };
    let child = match Command::new(&command[0]).args(&command[1..]).spawn() {
        Ok(child) => child,
        Err(err) => {
            eprintln!("measured: cannot run {}: {err}", command[0]);
            return ExitCode::from(2);
        }
    };
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero rusage is a valid value; wait4 fills it for the child we spawned.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: plain FFI call with pointers to live locals.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    if waited != pid {
        eprintln!(
            "measured: wait4 failed: {}",
            std::io::Error::last_os_error()
        );
        return ExitCode::from(2);
    }
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        128 + libc::WTERMSIG(status)
    };
    // ru_maxrss is in KiB on Linux.
    if let Err(err) = std::fs::write(report, format!("{code} {}\n", usage.ru_maxrss)) {
        eprintln!("measured: cannot write {report}: {err}");
        return ExitCode::from(2);
    }
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}
