//! One bench binary as a process: spawned with `--bench --format jsonl --stdin-cancel
//! --exact <ids>`, followed line by line, watched for silence ([`super::hang`]), cancelled
//! gracefully, and started again for the remaining ids after a crash or a hang.

use std::collections::HashSet;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use knotmeter_protocol::editor::{ItemState, RunMode};
use knotmeter_protocol::{Event as BenchEvent, FailureKind};
use nix::sys::signal::Signal;
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::Command;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::hang::Silence;
use super::printed::Printing;
use super::process::Children;
use super::{JobEvent, Problem, RunOptions, Tracker};
use crate::discovery::TargetRef;
use crate::format;

/// Exit status of a bench binary that refused its command line (clap's usage status).
const USAGE: i32 = 2;

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

/// Runs `ids` in `launch.exe`, in as many processes as crashes and hangs require.
pub(super) async fn run(
    tracker: &mut Tracker<'_>,
    launch: Launch<'_>,
    ids: Vec<String>,
    children: &Children,
    cancel: &CancellationToken,
) {
    let target = launch.target;
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
                for id in &remaining {
                    tracker.state(id, ItemState::Errored, None, Some(message.clone()));
                }
                return;
            }
        };
        let cancelled = cancel.is_cancelled();
        let tail = ended.stderr_tail.join("\n");
        let with_tail = |why: String| {
            if tail.is_empty() {
                why
            } else {
                format!("{why}\n{tail}")
            }
        };
        if let Some(current) = &ended.current {
            if !cancelled {
                let (why, problem) = match &ended.hung {
                    Some(why) => (
                        why.clone(),
                        Problem::Hung {
                            target: target.clone(),
                            case: Some(current.clone()),
                            message: why.clone(),
                        },
                    ),
                    None => {
                        let why = format!(
                            "the bench binary {} during this case",
                            describe(ended.status)
                        );
                        (
                            why.clone(),
                            Problem::Crashed {
                                target: target.clone(),
                                case: Some(current.clone()),
                                message: why,
                            },
                        )
                    }
                };
                tracker.problem(problem);
                tracker.state(current, ItemState::Errored, None, Some(with_tail(why)));
            }
        } else if let (Some(why), false) = (&ended.hung, cancelled) {
            tracker.problem(Problem::Hung {
                target: target.clone(),
                case: None,
                message: why.clone(),
            });
            for id in &remaining {
                tracker.state(id, ItemState::Errored, None, Some(why.clone()));
            }
            return;
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
            return;
        }
        if ended.finished || (ended.current.is_none() && ended.status.is_some_and(|s| s.success()))
        {
            for id in &remaining {
                tracker.state(
                    id,
                    ItemState::Skipped,
                    None,
                    Some("the bench binary did not run it".into()),
                );
            }
            return;
        }
        if ended.current.is_none() && !ended.progressed {
            if !ended.started && code == Some(USAGE) {
                // A bad flag or an unknown baseline: the same flags go to every binary, so
                // the job stops here. The binary's own words went out as `Printed` lines.
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
                for id in &remaining {
                    tracker.state(id, ItemState::Skipped, None, Some(with_tail(why.clone())));
                }
                return;
            }
            // The first line is what editors show inline: after what happened, the binary's
            // own first words of why.
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
            for id in &remaining {
                tracker.state(id, ItemState::Errored, None, Some(with_tail(why.clone())));
            }
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

/// How a process ended, in words: `was killed by signal SIGABRT`, `exited with status 3`.
pub(crate) fn describe(status: Option<ExitStatus>) -> String {
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

/// Starts one process and follows it to its end.
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
    let mut stderr = LineReader::new(child.stderr.take().expect("piped"));
    let wanted: HashSet<&str> = ids.iter().map(String::as_str).collect();
    let mut ended = Ended {
        current: None,
        hung: None,
        progressed: false,
        started: false,
        finished: false,
        status: None,
        stderr_tail: Vec::new(),
    };
    let mut silence = Silence::new(launch.options.silence_limit, Instant::now());
    let mut kill_at: Option<Instant> = None;
    let (mut out_open, mut err_open) = (true, true);
    let mut printing = Printing::default();
    let mut cancelling = false;
    while out_open || err_open {
        let kill_deadline = kill_at.unwrap_or_else(|| Instant::now() + Duration::from_secs(86_400));
        tokio::select! {
            biased;
            line = stdout.next_line(), if out_open => match line {
                Some(line) => bench_line(tracker, launch.target, &line, &wanted, &mut ended, &mut silence),
                None => out_open = false,
            },
            line = stderr.next_line(), if err_open => match line {
                Some(line) => {
                    if let Some((case, text)) = printing.line(&line, ended.current.as_deref()) {
                        tracker.printed(case.as_deref(), text.clone());
                        ended.stderr_tail.push(text);
                        if ended.stderr_tail.len() > 20 {
                            ended.stderr_tail.remove(0);
                        }
                    }
                }
                None => err_open = false,
            },
            _ = cancel.cancelled(), if !cancelling => {
                cancelling = true;
                // Graceful: the engine stops at the next sample boundary on SIGTERM or when
                // its standard input closes, and reports what it measured.
                drop(stdin.take());
                group.signal(Signal::SIGTERM);
                kill_at = Some(Instant::now() + launch.options.cancel_grace);
            }
            _ = tokio::time::sleep_until(kill_deadline), if kill_at.is_some() => {
                group.signal(Signal::SIGKILL);
                kill_at = None;
            }
            _ = tokio::time::sleep_until(silence.deadline()), if !cancelling && ended.hung.is_none() => {
                ended.hung = Some(silence.explain(Instant::now()));
                group.signal(Signal::SIGKILL);
            }
        }
    }
    ended.status = match tokio::time::timeout(Duration::from_secs(5), child.wait()).await {
        Ok(Ok(status)) => Some(status),
        _ => {
            group.signal(Signal::SIGKILL);
            child.wait().await.ok()
        }
    };
    drop(group);
    Ok(ended)
}

/// One line of the bench binary's standard output.
fn bench_line(
    tracker: &mut Tracker<'_>,
    target: &TargetRef,
    line: &str,
    wanted: &HashSet<&str>,
    ended: &mut Ended,
    silence: &mut Silence,
) {
    let event = match serde_json::from_str::<BenchEvent>(line) {
        Ok(event) => event,
        Err(e) if line.trim_start().starts_with('{') => {
            tracker.printed(
                ended.current.as_deref(),
                format!("knotmeter: the bench binary wrote an unreadable event ({e}): {line}"),
            );
            return;
        }
        // The benchmark printed to stdout itself.
        Err(_) => {
            tracker.printed(ended.current.as_deref(), line.to_owned());
            return;
        }
    };
    let now = Instant::now();
    silence.heard(now);
    match event {
        BenchEvent::RunStarted { manifest, .. } => {
            ended.started = true;
            tracker.output(None, format::manifest_line(&manifest));
            for warning in &manifest.warnings {
                tracker.output(None, format!("warning: {}", warning.message));
            }
            (tracker.sink)(JobEvent::Manifest(manifest));
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
            let id = result.id.clone();
            // The benchmark's analysis comes after its last case: it is told with it.
            tracker.output(Some(&id), format::result_text(&result, None));
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
            ended.current = None;
            ended.progressed = true;
            silence.case_ended(now);
        }
        BenchEvent::CaseFailed(failure) => {
            let location = failure
                .location
                .as_deref()
                .map_or(String::new(), |l| format!(" at {l}"));
            let (state, message) = match failure.kind {
                FailureKind::Panic => (
                    ItemState::Failed,
                    format!("panicked{location}: {}", failure.message),
                ),
                FailureKind::Misuse => {
                    (ItemState::Failed, format!("{}{location}", failure.message))
                }
                FailureKind::Cancelled => (ItemState::Skipped, "cancelled".to_owned()),
                // The bench binary measured the case in a worker process, which died or hung:
                // the same faults as this binary's own crash or hang, and the run went on.
                FailureKind::Crashed | FailureKind::Hung => {
                    let target = target.clone();
                    let problem = if failure.kind == FailureKind::Hung {
                        Problem::Hung {
                            target,
                            case: Some(failure.id.clone()),
                            message: failure.message.clone(),
                        }
                    } else {
                        Problem::Crashed {
                            target,
                            case: Some(failure.id.clone()),
                            message: failure.message.clone(),
                        }
                    };
                    tracker.problem(problem);
                    let tail = ended.stderr_tail.join("\n");
                    let message = if tail.is_empty() {
                        failure.message.clone()
                    } else {
                        format!("{}\n{tail}", failure.message)
                    };
                    (ItemState::Errored, message)
                }
            };
            tracker.output(Some(&failure.id), message.clone());
            tracker.state(&failure.id, state, None, Some(message));
            ended.current = None;
            ended.progressed = true;
            silence.case_ended(now);
        }
        BenchEvent::BenchFinished(summary) => {
            tracker.output(Some(&summary.id), format::bench_text(&summary));
            (tracker.sink)(JobEvent::Summary(summary));
        }
        BenchEvent::CaseCompared { id, comparison } => {
            tracker.output(Some(&id), format::compared_text(&id, &comparison));
            (tracker.sink)(JobEvent::Compared { id, comparison });
        }
        BenchEvent::RunFinished(_) => ended.finished = true,
    }
}

/// Reads lines of any bytes (invalid UTF-8 is replaced, never an error).
pub(crate) struct LineReader<R> {
    reader: BufReader<R>,
    buffer: Vec<u8>,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    /// Lines of `reader`.
    pub(crate) fn new(reader: R) -> Self {
        Self {
            reader: BufReader::new(reader),
            buffer: Vec::new(),
        }
    }

    /// The next line without its line break, or `None` at the end. Cancel-safe: a partial
    /// line stays in the buffer.
    pub(crate) async fn next_line(&mut self) -> Option<String> {
        match self.reader.read_until(b'\n', &mut self.buffer).await {
            Ok(0) if self.buffer.is_empty() => None,
            Ok(_) => {
                let line = String::from_utf8_lossy(&self.buffer)
                    .trim_end_matches(['\n', '\r'])
                    .to_owned();
                self.buffer.clear();
                Some(line)
            }
            Err(_) => None,
        }
    }
}
