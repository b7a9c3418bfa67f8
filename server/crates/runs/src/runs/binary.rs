//! One bench binary as a process: spawned with `--bench --format jsonl --stdin-cancel
//! --exact <ids>`, followed line by line, watched for silence ([`super::hang`]), cancelled
//! gracefully, and started again for the remaining ids after a crash or a hang.

use std::collections::HashSet;
use std::ops::ControlFlow;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use knotmeter_format::text::failure_text;
use knotmeter_protocol::editor::{ItemState, RunMode, SourceLocation};
use knotmeter_protocol::{BenchResult, CaseFailure, Event as BenchEvent, FailureKind, Manifest};
use nix::sys::signal::Signal;
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::{Child, Command};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::hang::Silence;
use super::outflow::{Outflow, MAX_LINE_BYTES};
use super::printed::Printing;
use super::{JobEvent, Problem, RunOptions, Tracker};
use crate::discovery::TargetRef;
use crate::process::{Children, Group};
use knotmeter_format::layout;

/// Exit status of a bench binary that refused its command line (clap's usage status).
const USAGE: i32 = 2;

/// How long, after the bench binary exited, what it and its processes wrote is still read.
/// Data already in a pipe takes milliseconds; a process it started that left its process
/// group may hold the pipes open for ever (before, the run waited for them, and after 120 s
/// took the binary for hung).
const DRAIN_AFTER_EXIT: Duration = Duration::from_secs(1);

/// Lines of standard error kept to explain how a process ended.
const STDERR_TAIL: usize = 20;

/// How often the follower checks whether the bench binary exited while its output keeps it
/// busy (otherwise it notices at once).
const EXIT_LOOK: Duration = Duration::from_millis(100);

/// Said when the pipes were still open [`DRAIN_AFTER_EXIT`] after the bench binary exited.
const HELD_OPEN: &str = "knotmeter: the bench binary exited, but a process it started outside \
    its process group still holds its standard output or error open; what it writes there is \
    no longer read";

/// What to start.
pub(super) struct Launch<'a> {
    pub(super) target: &'a TargetRef,
    pub(super) exe: &'a Path,
    pub(super) dir: &'a Path,
    pub(super) history: &'a Path,
    pub(super) mode: RunMode,
    pub(super) options: &'a RunOptions,
}

impl Launch<'_> {
    fn command(&self, ids: &[String]) -> Command {
        let mut command = Command::new(self.exe);
        command.args(["--bench", "--format", "jsonl", "--stdin-cancel"]);
        let time = match self.mode {
            RunMode::Quick => {
                command.arg("--quick");
                self.options.quick_time
            }
            RunMode::Full => self.options.full_time,
        };
        if let Some(time) = time {
            command.arg("--time").arg(time.to_string());
        }
        command
            .args(&self.options.bench_args)
            .arg("--exact")
            .args(ids)
            .current_dir(self.dir)
            .env(knotmeter_history::HISTORY_ENV, self.history)
            // The engine takes a case for hung by the same rule this daemon uses, and before a
            // case's first step reports it waits as long as this daemon would.
            .env(
                knotmeter_protocol::CASE_TIMEOUT_ENV,
                self.options.silence_limit.as_secs_f64().to_string(),
            )
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }
}

/// How one process of a bench binary ended.
#[derive(Default)]
struct Ended {
    /// The case in progress when the process ended, if any.
    current: Option<String>,
    /// Why it was killed for falling silent, if it was.
    hung: Option<String>,
    /// At least one item reached a final state.
    progressed: bool,
    /// The `run_started` event arrived.
    started: bool,
    /// The `run_finished` event arrived.
    finished: bool,
    status: Option<ExitStatus>,
    stderr_tail: Vec<String>,
}

impl Ended {
    /// Keeps `text`, a line the binary printed, among the last ones, which explain a crash.
    fn keep_tail(&mut self, text: &str) {
        self.stderr_tail.push(text.to_owned());
        if self.stderr_tail.len() > STDERR_TAIL {
            self.stderr_tail.remove(0);
        }
    }

    /// `why`, followed by the last lines the binary printed, if it printed any.
    fn with_tail(&self, why: String) -> String {
        let tail = self.stderr_tail.join("\n");
        if tail.is_empty() {
            why
        } else {
            format!("{why}\n{tail}")
        }
    }

    /// The case in progress reached its final state: none is in progress now.
    fn case_over(&mut self) {
        self.current = None;
        self.progressed = true;
    }
}

/// Runs `ids` in `launch.exe`, in as many processes as crashes and hangs require.
pub(super) async fn run(
    tracker: &mut Tracker<'_>,
    launch: Launch<'_>,
    ids: Vec<String>,
    children: &Children,
    cancel: &CancellationToken,
) {
    let mut remaining = ids;
    while !remaining.is_empty() && !cancel.is_cancelled() {
        let ended = match follow(
            tracker,
            launch.command(&remaining),
            &remaining,
            &launch,
            children,
            cancel,
        )
        .await
        {
            Ok(ended) => ended,
            Err(message) => {
                tracker.settle_all(&remaining, ItemState::Errored, &message);
                return;
            }
        };
        let cancelled = cancel.is_cancelled();
        if process_ended(tracker, launch.target, &ended, &mut remaining, cancelled).is_break() {
            return;
        }
        tracker.output(
            None,
            format!(
                "restarting the bench binary for the {} remaining item(s)",
                remaining.len()
            ),
        );
    }
}

/// Accounts for one process of the bench binary that ended as `ended` (`cancelled`: the job
/// was): the faults it shows are said and the items it leaves are settled, and `remaining`
/// keeps the items still to run. Continue: a fresh process runs them; break: the target is
/// done.
fn process_ended(
    tracker: &mut Tracker<'_>,
    target: &TargetRef,
    ended: &Ended,
    remaining: &mut Vec<String>,
    cancelled: bool,
) -> ControlFlow<()> {
    if let Some(current) = &ended.current {
        if !cancelled {
            interrupted_case(tracker, target, ended, current);
        }
    } else if let (Some(why), false) = (&ended.hung, cancelled) {
        tracker.problem(fault(true, target, None, why.clone()));
        tracker.settle_all(remaining, ItemState::Errored, why);
        return ControlFlow::Break(());
    }
    remaining.retain(|id| !tracker.finals.contains(id));
    let code = ended.status.and_then(|s| s.code());
    if ended.finished && !cancelled && code.is_some_and(|c| c != 0) {
        tracker.problem(Problem::FailedExit {
            target: target.clone(),
            code: code.unwrap_or_default(),
        });
    }
    if remaining.is_empty() || cancelled {
        return ControlFlow::Break(());
    }
    if ended.finished || (ended.current.is_none() && ended.status.is_some_and(|s| s.success())) {
        tracker.settle_all(
            remaining,
            ItemState::Skipped,
            "the bench binary did not run it",
        );
        return ControlFlow::Break(());
    }
    if ended.current.is_none() && !ended.progressed {
        if !ended.started && code == Some(USAGE) {
            refused(tracker, target, ended, remaining);
        } else {
            ended_before_running(tracker, target, ended, remaining);
        }
        return ControlFlow::Break(());
    }
    ControlFlow::Continue(())
}

/// The process ended during case `current`, not by a cancel: it hung or crashed. Said once;
/// the case is errored with why and the binary's last lines.
fn interrupted_case(tracker: &mut Tracker<'_>, target: &TargetRef, ended: &Ended, current: &str) {
    let why = match &ended.hung {
        Some(why) => why.clone(),
        None => format!(
            "the bench binary {} during this case",
            describe(ended.status)
        ),
    };
    let hung = ended.hung.is_some();
    tracker.problem(fault(hung, target, Some(current.to_owned()), why.clone()));
    tracker.state(
        current,
        ItemState::Errored,
        None,
        Some(ended.with_tail(why)),
    );
}

/// The binary refused its command line before its run started (a bad flag or an unknown
/// baseline): the same flags go to every binary, so the job stops here and `remaining` is
/// skipped. The binary's own words went out as `Printed` lines.
fn refused(tracker: &mut Tracker<'_>, target: &TargetRef, ended: &Ended, remaining: &[String]) {
    let first = ended
        .stderr_tail
        .iter()
        .find(|l| !l.trim().is_empty())
        .map_or("", |l| l.trim());
    // Also a comparison group without exactly one baseline: the first line says.
    let why = format!("the bench binary refused to run: {first}");
    tracker.problem(Problem::Refused {
        target: target.clone(),
        message: why.clone(),
    });
    tracker.stopped = Some("a bench binary refused its command line".into());
    tracker.settle_all(remaining, ItemState::Skipped, &ended.with_tail(why));
}

/// The process ended before any item reached a final state, outside any case: a crash, said
/// once; `remaining` is errored.
fn ended_before_running(
    tracker: &mut Tracker<'_>,
    target: &TargetRef,
    ended: &Ended,
    remaining: &[String],
) {
    // The first line is what editors show inline: after what happened, the binary's own
    // first words of why.
    let first = ended.stderr_tail.iter().find(|l| !l.trim().is_empty());
    let why = match first {
        Some(first) => format!(
            "the bench binary {} before running anything: {}",
            describe(ended.status),
            first.trim()
        ),
        None => format!(
            "the bench binary {} before running anything",
            describe(ended.status)
        ),
    };
    tracker.problem(Problem::Crashed {
        target: target.clone(),
        case: None,
        message: why.clone(),
    });
    tracker.settle_all(remaining, ItemState::Errored, &ended.with_tail(why));
}

/// A hang (`hung`) or a crash of `target`, during `case` if one was in progress.
fn fault(hung: bool, target: &TargetRef, case: Option<String>, message: String) -> Problem {
    let target = target.clone();
    if hung {
        Problem::Hung {
            target,
            case,
            message,
        }
    } else {
        Problem::Crashed {
            target,
            case,
            message,
        }
    }
}

/// How a process ended, in words: `was killed by signal SIGABRT`, `exited with status 3`.
pub fn describe(status: Option<ExitStatus>) -> String {
    use std::os::unix::process::ExitStatusExt;
    match status {
        Some(status) => match (status.code(), status.signal()) {
            (_, Some(signal)) => match Signal::try_from(signal) {
                Ok(signal) => format!("was killed by signal {signal}"),
                Err(_) => format!("was killed by signal {signal}"),
            },
            (Some(code), _) => format!("exited with status {code}"),
            _ => "ended".into(),
        },
        None => "could not be waited for".into(),
    }
}

/// Starts one process and follows it to its end: the end of the bench binary itself, not of
/// the pipes, which a process it started may hold open for ever (`sleep 400` in a set-up).
async fn follow(
    tracker: &mut Tracker<'_>,
    command: Command,
    ids: &[String],
    launch: &Launch<'_>,
    children: &Children,
    cancel: &CancellationToken,
) -> Result<Ended, String> {
    let (mut child, group) = children.spawn(command).await.map_err(|e| {
        format!(
            "cannot start the bench binary {}: {e}",
            launch.exe.display()
        )
    })?;
    let mut stdin = child.stdin.take();
    let mut stdout = LineReader::new(child.stdout.take().expect("piped"));
    let mut stderr = LineReader::with_limit(child.stderr.take().expect("piped"), MAX_LINE_BYTES);
    let wanted: HashSet<&str> = ids.iter().map(String::as_str).collect();
    let mut ended = Ended::default();
    let mut silence = Silence::new(launch.options.silence_limit, Instant::now());
    let mut kill_at: Option<Instant> = None;
    let (mut out_open, mut err_open) = (true, true);
    let mut printing = Printing::default();
    let mut flow = Outflow::default();
    let mut cancelling = false;
    // When the bench binary itself exited, and when to look again if it has.
    let mut exited: Option<Instant> = None;
    let mut look_again = Instant::now();
    while out_open || err_open {
        let now = Instant::now();
        flow.send_due(tracker, now);
        // Under a flood of output the reads are always ready and `child.wait()` below may
        // never be polled: look now and then.
        if exited.is_none() && now >= look_again {
            look_again = now + EXIT_LOOK;
            if let Ok(Some(status)) = child.try_wait() {
                exited = Some(bench_exited(&mut ended, Ok(status), &group));
            }
        }
        if exited.is_some_and(|at| now >= at + DRAIN_AFTER_EXIT) {
            tracker.output(None, HELD_OPEN.to_owned());
            break;
        }
        let far = now + Duration::from_secs(86_400);
        let drained_at = exited.map_or(far, |at| at + DRAIN_AFTER_EXIT);
        tokio::select! {
            biased;
            line = stdout.next_line(), if out_open => match line {
                Some(line) => {
                    if let Some(text) = bench_line(tracker, launch.target, &line, &wanted, &mut ended, &mut silence) {
                        flow.push(ended.current.clone(), text, Instant::now());
                    }
                }
                None => out_open = false,
            },
            line = stderr.next_line(), if err_open => match line {
                Some(line) => {
                    if let Some((case, text)) = printing.line(&line, ended.current.as_deref()) {
                        ended.keep_tail(&text);
                        flow.push(case, text, Instant::now());
                    }
                }
                None => err_open = false,
            },
            status = child.wait(), if exited.is_none() => {
                exited = Some(bench_exited(&mut ended, status, &group));
            }
            _ = cancel.cancelled(), if !cancelling => {
                cancelling = true;
                // Graceful: the engine stops at the next sample boundary on SIGTERM or when
                // its standard input closes, and reports what it measured.
                drop(stdin.take());
                group.signal(Signal::SIGTERM);
                kill_at = Some(Instant::now() + launch.options.cancel_grace);
            }
            _ = tokio::time::sleep_until(kill_at.unwrap_or(far)), if kill_at.is_some() => {
                group.signal(Signal::SIGKILL);
                kill_at = None;
            }
            _ = tokio::time::sleep_until(silence.deadline()), if !cancelling && ended.hung.is_none() && exited.is_none() => {
                ended.hung = Some(silence.explain(Instant::now()));
                group.signal(Signal::SIGKILL);
            }
            _ = tokio::time::sleep_until(drained_at), if exited.is_some() => {}
            _ = tokio::time::sleep_until(flow.wake_at().unwrap_or(far)), if flow.wake_at().is_some() => {}
        }
    }
    flow.finish(tracker);
    if ended.status.is_none() {
        ended.status = reap(&mut child, &group).await;
    }
    drop(group);
    Ok(ended)
}

/// The exit status of a bench binary whose pipes have closed: it gets 5 s to exit, then its
/// group is killed.
async fn reap(child: &mut Child, group: &Group) -> Option<ExitStatus> {
    match tokio::time::timeout(Duration::from_secs(5), child.wait()).await {
        Ok(Ok(status)) => Some(status),
        _ => {
            group.signal(Signal::SIGKILL);
            child.wait().await.ok()
        }
    }
}

/// The bench binary exited (`status`): the run is over. Processes it started and left in its
/// process group are ended now, as they would be when `group` drops at the end of the run,
/// so the pipes they hold close; what is already in the pipes is still read, for at most
/// [`DRAIN_AFTER_EXIT`]. Returns when it exited.
fn bench_exited(ended: &mut Ended, status: std::io::Result<ExitStatus>, group: &Group) -> Instant {
    ended.status = status.ok();
    if group.kill_leftovers() {
        tracing::info!(
            "the bench binary exited, leaving processes it started running; they were ended \
             with its process group"
        );
    }
    Instant::now()
}

/// One line of the bench binary's standard output; what is to be shown as printed by the
/// case in progress when it is not an event.
fn bench_line(
    tracker: &mut Tracker<'_>,
    target: &TargetRef,
    line: &str,
    wanted: &HashSet<&str>,
    ended: &mut Ended,
    silence: &mut Silence,
) -> Option<String> {
    let event = match parse_event(line) {
        Ok(event) => event,
        Err(printed) => return Some(printed),
    };
    let now = Instant::now();
    silence.heard(now);
    match event {
        BenchEvent::RunStarted { manifest, .. } => {
            ended.started = true;
            run_started(tracker, manifest);
        }
        BenchEvent::CaseStarted { id } => {
            if wanted.contains(id.as_str()) {
                tracker.state(&id, ItemState::Started, None, None);
            }
            ended.current = Some(id);
            silence.case_started(now);
        }
        BenchEvent::Progress {
            id,
            fraction,
            longest_step_ns,
            ..
        } => {
            silence.progress(longest_step_ns, now);
            (tracker.sink)(JobEvent::Progress { id, fraction });
        }
        BenchEvent::CaseFinished { result } => {
            case_finished(tracker, result);
            ended.case_over();
            silence.case_ended(now);
        }
        BenchEvent::CaseFailed(failure) => {
            case_failed(tracker, target, ended, failure);
            ended.case_over();
            silence.case_ended(now);
        }
        BenchEvent::BenchFinished(summary) => {
            tracker.output(Some(&summary.id), layout::bench_text(&summary));
            (tracker.sink)(JobEvent::Summary(summary));
        }
        BenchEvent::CaseCompared { id, comparison } => {
            tracker.output(Some(&id), layout::compared_text(&id, &comparison));
            (tracker.sink)(JobEvent::Comparison { id, comparison });
        }
        BenchEvent::RunFinished(_) => ended.finished = true,
    }
    None
}

/// `line` as an event; when it is none, the text to show as printed: the line itself (the
/// benchmark printed to stdout), or a note when it looks like an event but cannot be read.
fn parse_event(line: &str) -> Result<BenchEvent, String> {
    match serde_json::from_str::<BenchEvent>(line) {
        Ok(event) => Ok(event),
        Err(e) if line.trim_start().starts_with('{') => Err(format!(
            "knotmeter: the bench binary wrote an unreadable event ({e}): {line}"
        )),
        Err(_) => Err(line.to_owned()),
    }
}

/// `run_started`: the manifest's line and its warnings for the output, then the manifest.
fn run_started(tracker: &mut Tracker<'_>, manifest: Box<Manifest>) {
    tracker.output(None, layout::manifest_line(&manifest));
    for warning in &manifest.warnings {
        tracker.output(None, format!("warning: {}", warning.message));
    }
    (tracker.sink)(JobEvent::Manifest(manifest));
}

/// `case_finished`: its table for the output, then the item passed (skipped when a cancel
/// left the result partial).
fn case_finished(tracker: &mut Tracker<'_>, result: Box<BenchResult>) {
    let id = result.id.clone();
    // The benchmark's analysis comes after its last case: it is told with it.
    tracker.output(Some(&id), layout::result_text(&result, None));
    let (state, message) = if result.partial {
        (
            ItemState::Skipped,
            Some(format!(
                "cancelled after {} samples: the result is partial",
                result.samples
            )),
        )
    } else {
        (ItemState::Passed, None)
    };
    tracker.state(&id, state, Some(result), message);
}

/// `case_failed`: why, for the output and as the item's final state, in the words the
/// terminal uses (`knotmeter_format::text::failure_text`).
fn case_failed(tracker: &mut Tracker<'_>, target: &TargetRef, ended: &Ended, failure: CaseFailure) {
    let (state, message) = match failure.kind {
        FailureKind::Panic | FailureKind::Misuse => (ItemState::Failed, failure_text(&failure)),
        FailureKind::Cancelled => (ItemState::Skipped, failure_text(&failure)),
        // The bench binary measured the case in a worker process, which died or hung: the
        // same faults as this binary's own crash or hang, and the run went on.
        FailureKind::Crashed | FailureKind::Hung => {
            let hung = failure.kind == FailureKind::Hung;
            let case = Some(failure.id.clone());
            tracker.problem(fault(hung, target, case, failure.message.clone()));
            (ItemState::Errored, ended.with_tail(failure.message.clone()))
        }
    };
    tracker.output(Some(&failure.id), message.clone());
    let location = failure.location.as_deref().and_then(SourceLocation::parse);
    tracker.state_at(&failure.id, state, None, Some(message), location);
}

/// Reads lines of any bytes (invalid UTF-8 is replaced, never an error), each cut at a limit
/// if one is set: the rest of a longer line is skipped as it is read, never held.
pub struct LineReader<R> {
    reader: BufReader<R>,
    buffer: Vec<u8>,
    /// The most bytes of a line kept.
    limit: usize,
    /// Bytes of the current line skipped past `limit`.
    cut: usize,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    /// Lines of `reader`, whole however long.
    pub fn new(reader: R) -> Self {
        Self::with_limit(reader, usize::MAX)
    }

    /// Lines of `reader`, each cut after `limit` bytes with a note of how much was dropped.
    pub fn with_limit(reader: R, limit: usize) -> Self {
        Self {
            reader: BufReader::new(reader),
            buffer: Vec::new(),
            limit,
            cut: 0,
        }
    }

    /// The next line without its line break, or `None` at the end. Cancel-safe: a partial
    /// line stays in the buffer.
    pub async fn next_line(&mut self) -> Option<String> {
        loop {
            let available = self.reader.fill_buf().await.ok()?;
            if available.is_empty() {
                return (!self.buffer.is_empty() || self.cut > 0).then(|| self.take_line());
            }
            let end = available.iter().position(|&b| b == b'\n');
            let used = end.map_or(available.len(), |at| at + 1);
            let room = self.limit.saturating_sub(self.buffer.len());
            let kept = used.min(room);
            self.buffer.extend_from_slice(&available[..kept]);
            // The line break itself is not text that was dropped.
            self.cut += used - kept - usize::from(end.is_some() && kept < used);
            self.reader.consume(used);
            if end.is_some() {
                return Some(self.take_line());
            }
        }
    }

    /// The line gathered so far, with a note when it was cut.
    fn take_line(&mut self) -> String {
        let mut line = String::from_utf8_lossy(&self.buffer)
            .trim_end_matches(['\n', '\r'])
            .to_owned();
        if self.cut > 0 {
            line.push_str(&format!(
                " … ({} bytes of this line dropped: a line is kept up to {} KiB)",
                knotmeter_format::units::group_digits(self.cut as u64),
                self.limit / 1024
            ));
        }
        self.buffer.clear();
        self.cut = 0;
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line past the limit is cut and says how much of it was dropped; the lines around it
    /// are whole, and a last line without a break is still a line.
    #[tokio::test]
    async fn a_line_past_the_limit_is_cut_and_says_so() {
        let input = format!("short\n{}\nafter\nend", "y".repeat(10_000));
        let mut reader = LineReader::with_limit(input.as_bytes(), 1024);
        assert_eq!(reader.next_line().await.as_deref(), Some("short"));
        let long = reader.next_line().await.unwrap();
        assert!(long.starts_with(&"y".repeat(1024)), "{long}");
        assert!(
            long.ends_with(" … (8 976 bytes of this line dropped: a line is kept up to 1 KiB)"),
            "{}",
            &long[1024..]
        );
        assert_eq!(reader.next_line().await.as_deref(), Some("after"));
        assert_eq!(reader.next_line().await.as_deref(), Some("end"));
        assert_eq!(reader.next_line().await, None);
    }
}
