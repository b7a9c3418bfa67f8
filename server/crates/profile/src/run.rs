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

use std::collections::VecDeque;

use knotmeter_format::text::failure_text;
use knotmeter_protocol::{Event, Profile, PROFILE_OPS_ENV, PROFILE_REGION_ENV};
use knotmeter_server_runs::runs::{LineReader, MAX_LINE_BYTES};
use nix::sys::signal::Signal;
use tokio::io::AsyncReadExt;
use tokio::process::{ChildStderr, ChildStdout, Command};
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
        ));
    bench(&mut command, executable, id, seconds, scratch, "callgrind");
    command
}

/// The bench binary's part of a profiler's command (its own arguments after the profiler's):
/// the one case `id`, measured in its own process in one round for `seconds`, nothing stored,
/// its events streamed one a line (`--format jsonl`: the progress the profile shows); the
/// region marked for the profiler (`region`, the value of [`PROFILE_REGION_ENV`]) and the
/// operations it held told in `scratch/operations`.
pub(crate) fn bench(
    command: &mut Command,
    executable: &Path,
    id: &str,
    seconds: f64,
    scratch: &Path,
    region: &str,
) {
    command
        .arg(executable)
        .args(["--bench", "--exact", id, "--in-process", "--rounds", "1"])
        .arg("--time")
        .arg(format!("{seconds}"))
        .args(["--no-history", "--format", "jsonl"])
        .env(PROFILE_REGION_ENV, region)
        .env(PROFILE_OPS_ENV, scratch.join("operations"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
}

/// Runs `command` (from [`command`], or [`crate::perf::record_command`]: `program` names it in
/// what goes wrong) to its end, or until `cancel`, passing on the case's progress as it comes;
/// the operations the region held.
pub async fn count(
    command: Command,
    program: &str,
    scratch: &Path,
    children: &Children,
    cancel: &CancellationToken,
    events: &mut (dyn FnMut(ProfileEvent) + Send),
) -> Result<u64, NotCounted> {
    let mut failure = None;
    let (status, err) = run(
        command,
        program,
        children,
        cancel,
        TAIL_LINES,
        |stdout| async {
            let mut lines = LineReader::with_limit(stdout, MAX_LINE_BYTES);
            while let Some(line) = lines.next_line().await {
                match serde_json::from_str::<Event>(&line) {
                    Ok(Event::Progress { fraction, .. }) => {
                        events(ProfileEvent::Progress(fraction))
                    }
                    Ok(Event::CaseFailed(case)) => failure = Some(failure_text(&case)),
                    _ => {}
                }
            }
        },
    )
    .await?;
    if let Some(failure) = failure {
        return Err(NotCounted::Failed(failure));
    }
    if !status.success() {
        return Err(NotCounted::Failed(format!(
            "the bench binary under {program} ended with {status}\n{err}"
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
    // The case's run is whole, whether or not it needed all of its budget.
    events(ProfileEvent::Progress(1.0));
    Ok(operations)
}

/// Runs a profiler's reader (`perf script`) to its end, or until `cancel`: what it printed on
/// standard output, and the last lines it printed on standard error (its warnings).
pub async fn capture(
    command: Command,
    program: &str,
    children: &Children,
    cancel: &CancellationToken,
) -> Result<(String, String), NotCounted> {
    let mut out = String::new();
    let into = &mut out;
    let reading = |mut stdout: ChildStdout| async move {
        let _ = stdout.read_to_string(into).await;
    };
    // perf's warnings, the lost samples' first among them, may run to a few dozen lines.
    let (status, err) = run(command, program, children, cancel, READER_LINES, reading).await?;
    if !status.success() {
        return Err(NotCounted::Failed(format!(
            "{program} ended with {status}\n{err}"
        )));
    }
    Ok((out, err))
}

/// How long, after the program exited, what it and its processes wrote is still read: data
/// already in a pipe takes milliseconds, and a process the benchmark started outside its
/// process group may hold the pipes open for ever.
const DRAIN_AFTER_EXIT: Duration = Duration::from_secs(1);

/// Runs `command` in a process group of its own, its standard output read by `read` and the
/// last `keep` lines of its standard error kept, until it exits: its status and that
/// tail; or [`NotCounted::Cancelled`] once the group is stopped. What the program left running
/// in its group (a process the benchmark started) is killed once it exits, and the pipes are
/// read for at most [`DRAIN_AFTER_EXIT`] more: a process that left the group cannot keep the
/// profile waiting on them.
async fn run<F>(
    command: Command,
    program: &str,
    children: &Children,
    cancel: &CancellationToken,
    keep: usize,
    read: impl FnOnce(ChildStdout) -> F,
) -> Result<(std::process::ExitStatus, String), NotCounted>
where
    F: std::future::Future<Output = ()>,
{
    let (mut child, group) = children
        .spawn(command)
        .await
        .map_err(|e| NotCounted::Failed(format!("cannot start {program}: {e}")))?;
    let stdout = child.stdout.take().expect("piped");
    let stderr = child.stderr.take().expect("piped");
    let mut kept = VecDeque::new();
    let mut reading = Box::pin(async {
        tokio::join!(read(stdout), tail(stderr, keep, &mut kept));
    });
    let mut read_all = false;
    let status = loop {
        tokio::select! {
            _ = cancel.cancelled() => {
                group.signal(Signal::SIGTERM);
                if tokio::time::timeout(Duration::from_secs(2), child.wait()).await.is_err() {
                    group.signal(Signal::SIGKILL);
                }
                return Err(NotCounted::Cancelled);
            }
            status = child.wait() => break status,
            () = &mut reading, if !read_all => read_all = true,
        }
    };
    group.kill_leftovers();
    if !read_all {
        let _ = tokio::time::timeout(DRAIN_AFTER_EXIT, &mut reading).await;
    }
    drop(reading);
    let status =
        status.map_err(|e| NotCounted::Failed(format!("cannot wait for {program}: {e}")))?;
    Ok((status, Vec::from(kept).join("\n")))
}

/// How many of the last lines a profiled program printed on standard error are kept, to say
/// why it failed: a benchmark that prints without end costs no memory.
const TAIL_LINES: usize = 12;

/// How many of the last lines of a profiler's reader (`perf script`) are kept: its warnings.
const READER_LINES: usize = 500;

/// Keeps the last `keep` lines of `stderr` in `kept`, until its end.
async fn tail(stderr: ChildStderr, keep: usize, kept: &mut VecDeque<String>) {
    let mut lines = LineReader::with_limit(stderr, MAX_LINE_BYTES);
    while let Some(line) = lines.next_line().await {
        kept.push_back(line);
        if kept.len() > keep {
            kept.pop_front();
        }
    }
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
    let operations = count(
        command,
        "valgrind",
        subject.scratch,
        children,
        cancel,
        events,
    )
    .await?;
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
