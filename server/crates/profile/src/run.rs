//! Running one case of a bench binary under a profiler, its timed region only.
//!
//! The bench binary measures the case in its own process, in one round (`--exact ID
//! --in-process --rounds 1`, no history), with `KNOTMETER_PROFILE_REGION=callgrind` so that it
//! toggles callgrind's collection around each sampled batch of the workload, and
//! `KNOTMETER_PROFILE_OPS` naming a file where it says how many operations those batches held.
//! callgrind collects nothing outside them (`--collect-atstart=no`), so start-up, tuning, the
//! set-up, the empty body, the drops and the engine's probe are not in the profile.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use knotmeter_protocol::{Profile, Report, PROFILE_OPS_ENV, PROFILE_REGION_ENV};
use nix::sys::signal::Signal;
use tokio::io::AsyncReadExt;
use tokio::process::Command;
use tokio_util::sync::CancellationToken;

use crate::process::Children;
use crate::{ProfileError, ProfileEvent, Subject};

/// How a run under callgrind ended without a profile.
#[derive(Debug, PartialEq)]
pub enum NotCounted {
    /// Cancelled: the process group was stopped.
    Cancelled,
    /// Something to tell the user, in one line and then detail.
    Failed(String),
}

/// The command: `valgrind --tool=callgrind … BENCH --bench --exact ID …`.
pub fn command(
    valgrind: &Path,
    executable: &Path,
    id: &str,
    seconds: f64,
    scratch: &Path,
) -> Command {
    let mut command = Command::new(valgrind);
    command
        .args([
            "--tool=callgrind",
            "--collect-atstart=no",
            "--compress-strings=no",
            "--compress-pos=no",
            // Each cost's instruction, whose inline chain names the lines it was inlined into.
            "--dump-instr=yes",
        ])
        .arg(format!(
            "--callgrind-out-file={}",
            scratch.join("callgrind.out").display()
        ))
        .arg(executable)
        .args(["--bench", "--exact", id, "--in-process", "--rounds", "1"])
        .arg("--time")
        .arg(format!("{seconds}"))
        .args(["--no-history", "--format", "json"])
        .env(PROFILE_REGION_ENV, "callgrind")
        .env(PROFILE_OPS_ENV, scratch.join("operations"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Runs `command` (from [`command`], or [`crate::perf::record_command`]: `program` names it in
/// what goes wrong) to its end, or until `cancel`; the operations the region held.
pub async fn count(
    command: Command,
    program: &str,
    scratch: &Path,
    children: &Children,
    cancel: &CancellationToken,
) -> Result<u64, NotCounted> {
    let (status, out, err) = run(command, program, children, cancel).await?;
    if let Some(failure) = case_failure(&out) {
        return Err(NotCounted::Failed(failure));
    }
    if !status.success() {
        return Err(NotCounted::Failed(format!(
            "the bench binary under {program} ended with {status}\n{}",
            last_lines(&err)
        )));
    }
    let told = std::fs::read_to_string(scratch.join("operations")).unwrap_or_default();
    let operations = operations(&told).map_err(NotCounted::Failed)?;
    if operations == 0 {
        return Err(NotCounted::Failed(
            "the benchmark's timed region held no operation: a benchmark that times itself \
             (`iter_custom`) has no region knotmeter can mark"
                .to_owned(),
        ));
    }
    Ok(operations)
}

/// Runs a profiler's reader (`perf script`) to its end, or until `cancel`: what it printed on
/// standard output, and on standard error (its warnings).
pub async fn capture(
    command: Command,
    program: &str,
    children: &Children,
    cancel: &CancellationToken,
) -> Result<(String, String), NotCounted> {
    let (status, out, err) = run(command, program, children, cancel).await?;
    if !status.success() {
        return Err(NotCounted::Failed(format!(
            "{program} ended with {status}\n{}",
            last_lines(&err)
        )));
    }
    Ok((out, err))
}

/// Runs `command` in a process group of its own: its status and what it printed, or
/// [`NotCounted::Cancelled`] once the group is stopped.
async fn run(
    command: Command,
    program: &str,
    children: &Children,
    cancel: &CancellationToken,
) -> Result<(std::process::ExitStatus, String, String), NotCounted> {
    let (mut child, group) = children
        .spawn(command)
        .await
        .map_err(|e| NotCounted::Failed(format!("cannot start {program}: {e}")))?;
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let (mut out, mut err) = (String::new(), String::new());
    let status = tokio::select! {
        _ = cancel.cancelled() => {
            group.signal(Signal::SIGTERM);
            if tokio::time::timeout(Duration::from_secs(2), child.wait()).await.is_err() {
                group.signal(Signal::SIGKILL);
            }
            return Err(NotCounted::Cancelled);
        }
        (status, _, _) = async {
            tokio::join!(
                child.wait(),
                stdout.read_to_string(&mut out),
                stderr.read_to_string(&mut err),
            )
        } => status,
    };
    let status =
        status.map_err(|e| NotCounted::Failed(format!("cannot wait for {program}: {e}")))?;
    Ok((status, out, err))
}

/// The last twelve lines of what a program said on stderr.
fn last_lines(err: &str) -> String {
    let tail: Vec<&str> = err.lines().rev().take(12).collect();
    let tail: Vec<&str> = tail.into_iter().rev().collect();
    tail.join("\n")
}

/// Profiles `subject` under callgrind (`valgrind` at `program`): the run, its output read,
/// the [`Profile`] with the workspace's lines charged through the build's inline chains.
pub(crate) async fn counted(
    program: &Path,
    subject: &Subject<'_>,
    children: &Children,
    cancel: &CancellationToken,
    events: &mut (dyn FnMut(ProfileEvent) + Send),
) -> Result<Profile, ProfileError> {
    let command = command(
        program,
        subject.executable,
        subject.id,
        subject.seconds,
        subject.scratch,
    );
    events(ProfileEvent::Counting(format!(
        "valgrind --tool=callgrind {} --exact {}",
        subject.executable.display(),
        subject.id
    )));
    let operations = count(command, "valgrind", subject.scratch, children, cancel).await?;
    let output = subject.scratch.join("callgrind.out");
    let text = std::fs::read_to_string(&output).map_err(|e| {
        ProfileError::Failed(format!(
            "callgrind wrote no profile to {}: {e}",
            output.display()
        ))
    })?;
    let parsed = crate::callgrind::parse(&text).map_err(|e| {
        ProfileError::Failed(format!(
            "callgrind's profile {} cannot be read: {e}",
            output.display()
        ))
    })?;
    Ok(crate::report::from_callgrind(
        subject.id,
        &parsed,
        operations,
        subject.root,
        &crate::report::Dwarf::of(subject.executable),
    ))
}

/// The operations the engine said the region held: the sum of the first field of each
/// `OPERATIONS BATCHES` line.
pub fn operations(told: &str) -> Result<u64, String> {
    told.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            line.split_whitespace()
                .next()
                .and_then(|n| n.parse::<u64>().ok())
                .ok_or_else(|| format!("the bench binary told the operations as {line:?}"))
        })
        .sum()
}

/// The case's failure, in the words every surface uses, when the bench binary's report has one.
fn case_failure(stdout: &str) -> Option<String> {
    let report: Report = serde_json::from_str(stdout).ok()?;
    report
        .failures
        .first()
        .map(knotmeter_format::text::failure_text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_operations_of_every_sampling_phase_add_up() {
        assert_eq!(operations("2203 1\n4406 2\n"), Ok(6609));
        assert_eq!(operations(""), Ok(0));
        assert!(operations("x 1\n").unwrap_err().contains("\"x 1\""));
    }
}
