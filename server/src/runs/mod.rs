//! Running benchmarks: one job builds the targets it needs, lists each bench binary, then
//! runs it with `--bench --format jsonl --stdin-cancel --exact <ids>` and turns each line
//! into an item state as soon as it arrives.
//!
//! The session runs one job at a time (parallel benchmarks disturb each other); this module
//! runs one job. What can go wrong and what the items become:
//!
//! | what happens | the item in progress | the other items |
//! |---|---|---|
//! | a panic in the benchmark (`case_failed`, kind `panic`) | `failed`, with message and location | run on |
//! | the binary dies of a signal or exits during a case | `errored`, with the signal or status | run on in a new process |
//! | a case outlives the per-case timeout (a hang) | `errored`; the group is killed | run on in a new process |
//! | a compile error | `errored` with the rendered message | same |
//! | cancel | the engine stops at the next sample boundary and reports what it measured (`skipped`, with the partial result); after the grace period the group is killed | `skipped` |
//! | a line that is not an event | reported as output | unaffected |

pub mod process;

use std::collections::HashSet;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use knotmeter_protocol::editor::{ItemState, RunMode};
use knotmeter_protocol::{
    BenchResult, BenchSummary, Comparison, Event as BenchEvent, FailureKind, ListDocument,
    ListEntry,
};
use nix::sys::signal::Signal;
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::Command;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::cargo_build::{self, BuildEvent, CompilerError};
use crate::discovery::{TargetRef, Workspace};
use crate::format;
use process::Children;

/// One run: which leaf ids of which targets, how long to measure.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// The run's id.
    pub run_id: u32,
    /// Quick or full.
    pub mode: RunMode,
    /// Leaf ids grouped by bench target, in run order.
    pub targets: Vec<(TargetRef, Vec<String>)>,
}

impl Job {
    /// Every leaf id of the job.
    pub fn ids(&self) -> impl Iterator<Item = &String> {
        self.targets.iter().flat_map(|(_, ids)| ids)
    }
}

/// How runs are carried out.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOptions {
    /// A case running longer than this is stopped and `errored`.
    pub case_timeout: Duration,
    /// The engine's `--time` for quick runs (default: its `--quick` budget).
    pub quick_time: Option<f64>,
    /// The engine's `--time` for full runs (default: its own).
    pub full_time: Option<f64>,
    /// How long a cancelled bench binary may take before its group is killed.
    pub cancel_grace: Duration,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            case_timeout: Duration::from_secs(120),
            quick_time: None,
            full_time: None,
            cancel_grace: Duration::from_secs(2),
        }
    }
}

/// What a job reports, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum JobEvent {
    /// Build output and progress.
    Build(BuildEvent),
    /// The build ended; these are all its compiler errors (none: clear earlier ones).
    Built {
        /// The compiler errors.
        errors: Vec<CompilerError>,
    },
    /// A bench binary's `--list --format json`, to reconcile discovery with.
    Listed(TargetRef, Vec<ListEntry>),
    /// An item changed state.
    State {
        /// The leaf id.
        id: String,
        /// The new state.
        state: ItemState,
        /// The measurement, if any.
        result: Option<Box<BenchResult>>,
        /// Why, for failures, errors and skips.
        message: Option<String>,
    },
    /// Text for the run's output.
    Output {
        /// The item it is about, if any.
        id: Option<String>,
        /// The text (without a trailing line break).
        text: String,
    },
    /// All cases of a benchmark finished: its scaling analysis.
    Summary(BenchSummary),
    /// A passed case's comparison, computed at the end of the run: its result gains it.
    Compared {
        /// The leaf id.
        id: String,
        /// The comparison with its verdict.
        comparison: Comparison,
    },
    /// Measurement progress of a case.
    Progress {
        /// The leaf id.
        id: String,
        /// Fraction of its time budget spent.
        fraction: f64,
    },
    /// The job is over: every item has reached a final state.
    Finished,
}

/// Where a job's events go.
pub type Sink = Box<dyn FnMut(JobEvent) + Send>;

/// Carries out `job`: build, list, run; every item reaches a final state, then
/// [`JobEvent::Finished`].
pub async fn execute(
    job: Job,
    workspace: Workspace,
    options: RunOptions,
    children: Children,
    cancel: CancellationToken,
    mut sink: Sink,
) {
    let mut tracker = Tracker {
        finals: HashSet::new(),
        sink: &mut sink,
    };
    let ids: Vec<String> = job.ids().cloned().collect();
    for id in &ids {
        tracker.state(id, ItemState::Building, None, None);
    }
    // The engine records each run in the history store; name the file the daemon reads, so
    // both agree whatever the layout of the target directory.
    let history = knotmeter_history::resolve_path(Some(&workspace.target_dir));
    let targets: Vec<TargetRef> = job.targets.iter().map(|(t, _)| t.clone()).collect();
    let outcome = {
        let sink = &mut *tracker.sink;
        let mut events = |event| sink(JobEvent::Build(event));
        cargo_build::build(&workspace, &targets, &children, &cancel, &mut events).await
    };
    (tracker.sink)(JobEvent::Built {
        errors: outcome.errors.clone(),
    });
    for (target, ids) in &job.targets {
        if cancel.is_cancelled() {
            break;
        }
        let Some(exe) = outcome.executables.get(target) else {
            let message = build_failure(&outcome, target);
            for id in ids {
                tracker.state(id, ItemState::Errored, None, Some(message.clone()));
            }
            continue;
        };
        let dir = workspace
            .packages
            .iter()
            .find(|p| p.name == target.package)
            .map_or_else(|| workspace.root.clone(), |p| p.dir().to_path_buf());
        let present = match list(exe, &dir, &children).await {
            Ok(doc) => {
                let listed: HashSet<&str> = doc
                    .cases
                    .iter()
                    .flat_map(|c| [c.id.as_str(), c.bench_id.as_str()])
                    .collect();
                let (present, absent): (Vec<String>, Vec<String>) = ids
                    .iter()
                    .cloned()
                    .partition(|id| listed.contains(id.as_str()));
                for id in absent {
                    tracker.state(
                        &id,
                        ItemState::Skipped,
                        None,
                        Some(
                            "the built bench binary has no such benchmark (a `#[cfg]` may leave \
                             it out, or the source changed since the build)"
                                .into(),
                        ),
                    );
                }
                (tracker.sink)(JobEvent::Listed(target.clone(), doc.cases));
                present
            }
            Err(message) => {
                (tracker.sink)(JobEvent::Output {
                    id: None,
                    text: message,
                });
                ids.clone()
            }
        };
        run_binary(
            &mut tracker,
            exe,
            &dir,
            &history,
            present,
            job.mode,
            &options,
            &children,
            &cancel,
        )
        .await;
    }
    let message = if cancel.is_cancelled() {
        "cancelled"
    } else {
        "not run"
    };
    for id in &ids {
        if !tracker.finals.contains(id) {
            tracker.state(id, ItemState::Skipped, None, Some(message.into()));
        }
    }
    sink(JobEvent::Finished);
}

/// Sends states and remembers which items are final.
struct Tracker<'a> {
    finals: HashSet<String>,
    sink: &'a mut Sink,
}

impl Tracker<'_> {
    fn state(
        &mut self,
        id: &str,
        state: ItemState,
        result: Option<Box<BenchResult>>,
        message: Option<String>,
    ) {
        if self.finals.contains(id) {
            return;
        }
        if state.is_final() {
            self.finals.insert(id.to_owned());
        }
        (self.sink)(JobEvent::State {
            id: id.to_owned(),
            state,
            result,
            message,
        });
    }

    fn output(&mut self, id: Option<&str>, text: String) {
        (self.sink)(JobEvent::Output {
            id: id.map(str::to_owned),
            text,
        });
    }
}

/// Why `target` has no executable.
fn build_failure(outcome: &cargo_build::BuildOutcome, target: &TargetRef) -> String {
    let errors: Vec<&str> = outcome
        .errors
        .iter()
        .filter(|e| e.package == target.package)
        .map(|e| e.rendered.trim_end())
        .collect();
    if !errors.is_empty() {
        return format!("the build failed:\n{}", errors.join("\n"));
    }
    if let Some(failure) = &outcome.failure {
        return failure.clone();
    }
    if !outcome.errors.is_empty() {
        let all: Vec<&str> = outcome
            .errors
            .iter()
            .map(|e| e.rendered.trim_end())
            .collect();
        return format!("the build failed:\n{}", all.join("\n"));
    }
    format!(
        "cargo produced no executable for the bench target `{}` of `{}`",
        target.target, target.package
    )
}

/// `exe --list --format json`.
async fn list(exe: &Path, dir: &Path, children: &Children) -> Result<ListDocument, String> {
    let mut command = Command::new(exe);
    command
        .args(["--list", "--format", "json"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let (child, _group) = children
        .spawn(&mut command)
        .map_err(|e| format!("cannot start the bench binary {}: {e}", exe.display()))?;
    let output = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output())
        .await
        .map_err(|_| format!("{} --list did not answer within 30 s", exe.display()))?
        .map_err(|e| format!("{} --list failed: {e}", exe.display()))?;
    serde_json::from_slice(&output.stdout).map_err(|e| {
        format!(
            "{} --list --format json printed something unreadable ({e}); running the requested ids anyway",
            exe.display()
        )
    })
}

/// How one process of a bench binary ended.
struct Spawned {
    /// The case in progress when the process ended, if any.
    current: Option<String>,
    /// The process was killed because a case (or the start) took too long.
    timed_out: bool,
    /// At least one item reached a final state.
    progressed: bool,
    /// The `run_finished` event arrived.
    finished: bool,
    /// A case started or ended since the timeout clock was last set.
    new_case: bool,
    status: Option<ExitStatus>,
    stderr_tail: Vec<String>,
}

#[allow(clippy::too_many_arguments)]
async fn run_binary(
    tracker: &mut Tracker<'_>,
    exe: &Path,
    dir: &Path,
    history: &Path,
    ids: Vec<String>,
    mode: RunMode,
    options: &RunOptions,
    children: &Children,
    cancel: &CancellationToken,
) {
    let mut remaining = ids;
    while !remaining.is_empty() && !cancel.is_cancelled() {
        let mut command = Command::new(exe);
        command.args(["--bench", "--format", "jsonl", "--stdin-cancel"]);
        let time = match mode {
            RunMode::Quick => {
                command.arg("--quick");
                options.quick_time
            }
            RunMode::Full => options.full_time,
        };
        if let Some(time) = time {
            command.arg("--time").arg(time.to_string());
        }
        command
            .arg("--exact")
            .args(&remaining)
            .current_dir(dir)
            .env(knotmeter_history::HISTORY_ENV, history)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let ended =
            match spawn_and_follow(tracker, &mut command, &remaining, options, children, cancel)
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
        let tail = ended.stderr_tail.join("\n");
        if let Some(current) = &ended.current {
            if !cancel.is_cancelled() {
                let why = if ended.timed_out {
                    format!(
                        "did not finish within {} s (a hang?); the bench binary was killed",
                        options.case_timeout.as_secs_f64()
                    )
                } else {
                    format!(
                        "the bench binary {} during this case",
                        describe(ended.status)
                    )
                };
                let message = if tail.is_empty() {
                    why
                } else {
                    format!("{why}\n{tail}")
                };
                tracker.state(current, ItemState::Errored, None, Some(message));
            }
        } else if ended.timed_out && !cancel.is_cancelled() {
            let message = format!(
                "the bench binary did not start a case within {} s; it was killed",
                options.case_timeout.as_secs_f64()
            );
            for id in &remaining {
                tracker.state(id, ItemState::Errored, None, Some(message.clone()));
            }
            return;
        }
        remaining.retain(|id| !tracker.finals.contains(id));
        if remaining.is_empty() || cancel.is_cancelled() {
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
            let message = format!(
                "the bench binary {} before running anything{}",
                describe(ended.status),
                if tail.is_empty() {
                    String::new()
                } else {
                    format!(":\n{tail}")
                }
            );
            for id in &remaining {
                tracker.state(id, ItemState::Errored, None, Some(message.clone()));
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

fn describe(status: Option<ExitStatus>) -> String {
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

async fn spawn_and_follow(
    tracker: &mut Tracker<'_>,
    command: &mut Command,
    ids: &[String],
    options: &RunOptions,
    children: &Children,
    cancel: &CancellationToken,
) -> Result<Spawned, String> {
    let program = command.as_std().get_program().to_owned();
    let (mut child, group) = children.spawn(command).map_err(|e| {
        format!(
            "cannot start the bench binary {}: {e}",
            Path::new(&program).display()
        )
    })?;
    let mut stdin = child.stdin.take();
    let mut stdout = LineReader::new(child.stdout.take().expect("piped"));
    let mut stderr = LineReader::new(child.stderr.take().expect("piped"));
    let wanted: HashSet<&str> = ids.iter().map(String::as_str).collect();
    let mut ended = Spawned {
        current: None,
        timed_out: false,
        progressed: false,
        finished: false,
        new_case: false,
        status: None,
        stderr_tail: Vec::new(),
    };
    let mut deadline = Instant::now() + options.case_timeout;
    let mut kill_at: Option<Instant> = None;
    let (mut out_open, mut err_open) = (true, true);
    let mut cancelling = false;
    while out_open || err_open {
        let kill_deadline = kill_at.unwrap_or_else(|| Instant::now() + Duration::from_secs(86_400));
        tokio::select! {
            biased;
            line = stdout.next_line(), if out_open => match line {
                Some(line) => bench_line(tracker, &line, &wanted, &mut ended),
                None => out_open = false,
            },
            line = stderr.next_line(), if err_open => match line {
                Some(line) => {
                    tracker.output(ended.current.as_deref(), line.clone());
                    ended.stderr_tail.push(line);
                    if ended.stderr_tail.len() > 20 {
                        ended.stderr_tail.remove(0);
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
                kill_at = Some(Instant::now() + options.cancel_grace);
            }
            _ = tokio::time::sleep_until(kill_deadline), if kill_at.is_some() => {
                group.signal(Signal::SIGKILL);
                kill_at = None;
            }
            _ = tokio::time::sleep_until(deadline), if !cancelling && !ended.timed_out => {
                ended.timed_out = true;
                group.signal(Signal::SIGKILL);
            }
        }
        // The per-case clock restarts when a case starts or ends.
        if std::mem::take(&mut ended.new_case) {
            deadline = Instant::now() + options.case_timeout;
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
fn bench_line(tracker: &mut Tracker<'_>, line: &str, wanted: &HashSet<&str>, ended: &mut Spawned) {
    let event = match serde_json::from_str::<BenchEvent>(line) {
        Ok(event) => event,
        Err(e) if line.trim_start().starts_with('{') => {
            tracker.output(
                ended.current.as_deref(),
                format!("knotmeter: the bench binary wrote an unreadable event ({e}): {line}"),
            );
            return;
        }
        // The benchmark printed to stdout itself.
        Err(_) => {
            tracker.output(ended.current.as_deref(), line.to_owned());
            return;
        }
    };
    match event {
        BenchEvent::RunStarted { manifest, .. } => {
            tracker.output(None, format::manifest_line(&manifest));
            for warning in &manifest.warnings {
                tracker.output(None, format!("warning: {}", warning.message));
            }
        }
        BenchEvent::CaseStarted { id } => {
            if wanted.contains(id.as_str()) {
                tracker.state(&id, ItemState::Started, None, None);
            }
            ended.current = Some(id);
            ended.new_case = true;
        }
        BenchEvent::Progress { id, fraction, .. } => {
            (tracker.sink)(JobEvent::Progress { id, fraction });
        }
        BenchEvent::CaseFinished { result } => {
            let id = result.id.clone();
            tracker.output(Some(&id), format::result_text(&result));
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
            ended.new_case = true;
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
            };
            tracker.output(Some(&failure.id), message.clone());
            tracker.state(&failure.id, state, None, Some(message));
            ended.current = None;
            ended.progressed = true;
            ended.new_case = true;
        }
        BenchEvent::BenchFinished(summary) => {
            let mut text = format!("{}: scaling", summary.id);
            if let Some(fit) = &summary.complexity {
                text.push_str(&format!(
                    " {}{}",
                    fit.best,
                    if fit.distinguishable {
                        ""
                    } else {
                        " (not clearly better than the runner-up)"
                    }
                ));
            }
            for warning in &summary.warnings {
                text.push_str(&format!(
                    "\n  warning [{}]: {}",
                    warning.code, warning.message
                ));
            }
            tracker.output(Some(&summary.id), text);
            (tracker.sink)(JobEvent::Summary(summary));
        }
        BenchEvent::CaseCompared { id, comparison } => {
            (tracker.sink)(JobEvent::Compared { id, comparison });
        }
        BenchEvent::RunFinished(_) => ended.finished = true,
    }
}

/// Reads lines of any bytes (invalid UTF-8 is replaced, never an error).
struct LineReader<R> {
    reader: BufReader<R>,
    buffer: Vec<u8>,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    fn new(reader: R) -> Self {
        Self {
            reader: BufReader::new(reader),
            buffer: Vec::new(),
        }
    }

    /// The next line without its line break, or `None` at the end. Cancel-safe: a partial
    /// line stays in the buffer.
    async fn next_line(&mut self) -> Option<String> {
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
