//! Worker processes: each round of a run is measured in a fresh process of this bench binary.
//!
//! A worker is this very executable (`/proc/self/exe` on Linux, so a binary rebuilt on disk
//! in the middle of a run is not picked up: the workers run the code the run started with)
//! started in driven mode with `--round-worker`, which hands it the coordinator's clock
//! calibration and process id. It answers `measure` commands, one slot at a time, on its
//! standard output; what the benchmarks print goes to the standard error it shares with the
//! coordinator. It dies with the coordinator (a parent-death signal) and stops at its next
//! sample boundary when its standard input says `cancel` or closes. As its input closes, it
//! says which of its threads panicked after its last slot (`stray_panics`): those would
//! otherwise end with it, unseen by the run they fail.
//!
//! Each worker starts with a layout of its own: an environment variable of a random length
//! (`KNOTMETER_LAYOUT_PAD`, 0 to 4 080 bytes in steps of 16) moves where its stack begins, and a
//! random first allocation (its size in `KNOTMETER_HEAP_OFFSET`, likewise) moves where its heap
//! allocations fall against cache lines and pages (`knotmeter compare` draws one for each of
//! its processes the same way). Where a process's stack and data lie moves
//! a figure by a few percent (Mytkowicz et al., "Producing wrong data without doing anything
//! obviously wrong", ASPLOS 2009), and every process of one run would otherwise share one
//! layout (the same arguments, the same environment, the same allocations): the run would carry
//! one draw of it in all its rounds, and a rerun another. Drawn afresh for every round, layout
//! is part of the variation between rounds, which the interval shows (Curtsinger and Berger's
//! Stabilizer does the same at a finer grain).
//!
//! The coordinator follows each slot: it relays the worker's progress, says something at least
//! once a second while it waits (so that a consumer watching for silence hears that the run is
//! alive, see [`HEARTBEAT`]), and itself tells a hung benchmark from a slow one by the rule the
//! daemon uses (nothing for ten times the longest step so far, and at least ten seconds; before
//! the first step, the limit in `KNOTMETER_CASE_TIMEOUT` if set). A worker that dies or hangs
//! costs the case it was measuring, never the run: the next slot starts a new worker.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use knotmeter_protocol::{
    DrivenCommand, DrivenEvent, SlotPlan, CASE_TIMEOUT_ENV, HARNESS_THREAD_PREFIX,
};

use super::{Lost, LostKind, SlotResult};
use crate::cancel;
use crate::measure::schedule::SplitMix64;
use crate::measure::{Progress, Timer};

/// While waiting on a worker, the coordinator repeats its last progress at least this often.
pub(super) const HEARTBEAT: Duration = Duration::from_secs(1);
/// A step is taken for hung after this many times the longest step so far without a word ...
const STEP_FACTOR: u32 = 10;
/// ... and never sooner than this.
const FLOOR: Duration = Duration::from_secs(10);
/// How long a worker may take to start, or to stop once its input closed.
const START_AND_STOP: Duration = Duration::from_secs(30);

/// One line of a worker's standard output, or its end.
type Line = Option<String>;

/// A live worker process.
struct Worker {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Line>,
}

/// Starts workers on demand, one per round, and measures slots in them.
pub(super) struct Workers {
    timer: Timer,
    /// Draws each worker's layout.
    layout: SplitMix64,
    worker: Option<Worker>,
    /// Processes started so far.
    pub(super) started: u32,
    /// The silence allowed before a first step reports, if limited.
    case_timeout: Option<Duration>,
}

impl Workers {
    /// No worker yet; `timer` is the coordinator's calibrated clock, handed to each worker, and
    /// `seed` draws each worker's layout.
    pub(super) fn new(timer: Timer, seed: u64) -> Self {
        let case_timeout = std::env::var(CASE_TIMEOUT_ENV)
            .ok()
            .and_then(|s| s.trim().parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s > 0.0)
            .map(Duration::from_secs_f64);
        Workers {
            timer,
            layout: SplitMix64::new(seed ^ 0x6c61_796f_7574),
            worker: None,
            started: 0,
            case_timeout,
        }
    }

    /// Measures `plan` in this round's worker, starting one if needed; returns how the slot
    /// ended and how long it took (the worker's start not included). `Err` when no worker
    /// could be started at all (the caller measures in its own process instead).
    pub(super) fn measure(
        &mut self,
        plan: &SlotPlan,
        mark_output: bool,
        progress: &mut dyn FnMut(&str, &Progress),
    ) -> Result<(SlotResult, Duration), String> {
        if self.worker.is_none() {
            self.worker = Some(self.start()?);
            self.started += 1;
        }
        let worker = self.worker.as_mut().expect("started above");
        let started = Instant::now();
        let result = follow(worker, plan, mark_output, self.case_timeout, progress);
        let took = started.elapsed();
        if let SlotResult::Lost(_) = result {
            if let Some(worker) = self.worker.take() {
                stop(worker, Duration::ZERO);
            }
        }
        Ok((result, took))
    }

    /// Ends the round: the worker is told to stop (its input closes) and waited for, so that
    /// no two rounds' processes ever run at once; returns the panics of threads it had after
    /// its last slot, which it says as it ends (`stray_panics`).
    pub(super) fn end_round(&mut self) -> Vec<String> {
        self.worker
            .take()
            .map_or_else(Vec::new, |worker| stop(worker, START_AND_STOP))
    }

    /// Starts a worker, with a layout of its own, and waits for its `ready`.
    fn start(&mut self) -> Result<Worker, String> {
        let (stack_pad, heap_offset) = knotmeter_protocol::layout(self.layout.next());
        let mut command = Command::new(own_executable());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            if let Some(arg0) = std::env::args_os().next() {
                command.arg0(arg0);
            }
        }
        command
            .args(["--bench", "--driven", "--timer", self.timer.kind().name()])
            .arg("--round-worker")
            .arg(worker_spec(&self.timer))
            .env(knotmeter_protocol::LAYOUT_PAD_ENV, "x".repeat(stack_pad))
            .env(knotmeter_protocol::HEAP_OFFSET_ENV, heap_offset.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = command
            .spawn()
            .map_err(|e| format!("cannot start a worker process of this bench binary: {e}"))?;
        let stdout = child.stdout.take().expect("piped");
        let (sender, lines) = mpsc::channel();
        std::thread::Builder::new()
            .name(format!("{HARNESS_THREAD_PREFIX}worker-out"))
            .spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    match line {
                        Ok(line) => {
                            if sender.send(Some(line)).is_err() {
                                return;
                            }
                        }
                        Err(_) => break,
                    }
                }
                let _ = sender.send(None);
            })
            .map_err(|e| format!("cannot start a thread to read a worker: {e}"))?;
        let mut worker = Worker {
            stdin: child.stdin.take(),
            child,
            lines,
        };
        let deadline = Instant::now() + START_AND_STOP;
        loop {
            let wait = deadline.saturating_duration_since(Instant::now());
            match worker.lines.recv_timeout(wait) {
                Ok(Some(line)) => match serde_json::from_str::<DrivenEvent>(&line) {
                    Ok(DrivenEvent::Ready { .. }) => return Ok(worker),
                    _ => continue,
                },
                Ok(None) | Err(RecvTimeoutError::Disconnected) => {
                    let status = worker.child.wait().ok();
                    return Err(format!(
                        "a worker process of this bench binary {} before it was ready",
                        describe(status)
                    ));
                }
                Err(RecvTimeoutError::Timeout) => {
                    stop(worker, Duration::ZERO);
                    return Err(format!(
                        "a worker process of this bench binary was not ready within {} s",
                        START_AND_STOP.as_secs()
                    ));
                }
            }
        }
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        self.end_round();
    }
}

/// The executable to start workers from: this process's own image.
fn own_executable() -> std::path::PathBuf {
    let proc_self = std::path::Path::new("/proc/self/exe");
    if proc_self.exists() {
        proc_self.to_path_buf()
    } else {
        std::env::current_exe().unwrap_or_else(|_| proc_self.to_path_buf())
    }
}

/// `--round-worker`'s value: the coordinator's process id and its clock calibration.
fn worker_spec(timer: &Timer) -> String {
    format!(
        "{},{},{},{}",
        std::process::id(),
        timer.ns_per_tick(),
        timer.precision_ns,
        timer.read_cost_ns
    )
}

/// Sends `plan` to `worker` and follows it to its `measured` answer, or to the worker's end.
fn follow(
    worker: &mut Worker,
    plan: &SlotPlan,
    mark_output: bool,
    case_timeout: Option<Duration>,
    progress: &mut dyn FnMut(&str, &Progress),
) -> SlotResult {
    let id = plan.ids.last().cloned().unwrap_or_default();
    let mut slot = plan.clone();
    slot.mark_output = mark_output;
    if let Err(e) = send(
        worker,
        &DrivenCommand::Measure {
            slot: Box::new(slot),
        },
    ) {
        return lost(
            worker,
            LostKind::Crashed,
            &format!("could not be given the case ({e})"),
        );
    }
    let mut following = Following::new();
    loop {
        if let Some(end) = following.overdue(worker, &id, case_timeout) {
            return end;
        }
        if following.last_said.elapsed() >= HEARTBEAT {
            progress(&id, &following.last_progress);
            following.last_said = Instant::now();
        }
        match worker.lines.recv_timeout(Duration::from_millis(100)) {
            Ok(Some(line)) => {
                if let Some(end) = following.line(worker, &line, progress) {
                    return end;
                }
            }
            Ok(None) | Err(RecvTimeoutError::Disconnected) => return ended(worker),
            Err(RecvTimeoutError::Timeout) => {}
        }
    }
}

/// What following a slot keeps between the worker's lines: when it was last heard and when
/// progress was last passed on, its longest step so far (which sets how long a silence is a
/// hang), its last progress, and the cancel's deadline once a cancel was sent.
struct Following {
    last_heard: Instant,
    last_said: Instant,
    longest_step: Option<Duration>,
    last_progress: Progress,
    cancel_deadline: Option<Instant>,
}

impl Following {
    fn new() -> Following {
        Following {
            last_heard: Instant::now(),
            last_said: Instant::now(),
            longest_step: None,
            last_progress: Progress {
                samples: 0,
                fraction: 0.0,
                longest_step_ns: 0.0,
            },
            cancel_deadline: None,
        }
    }

    /// Passes a cancel on to the worker once; the slot's end (the worker killed) when the
    /// cancel's grace ran out, or when the worker has been silent longer than its steps allow
    /// (before its first step, `case_timeout`).
    fn overdue(
        &mut self,
        worker: &mut Worker,
        id: &str,
        case_timeout: Option<Duration>,
    ) -> Option<SlotResult> {
        if self.cancel_deadline.is_none() && cancel::requested() {
            let _ = send(worker, &DrivenCommand::Cancel);
            self.cancel_deadline = Some(Instant::now() + cancel::GRACE);
        }
        let allowed = match self.longest_step {
            Some(step) => (step * STEP_FACTOR).max(FLOOR),
            None => case_timeout.unwrap_or(Duration::MAX),
        };
        let now = Instant::now();
        if self.cancel_deadline.is_some_and(|deadline| now >= deadline) {
            eprintln!(
                "knotmeter: `{id}` did not reach a sample boundary within {} s of the cancel; \
                 the process measuring it was ended",
                cancel::GRACE.as_secs()
            );
            return Some(lost(
                worker,
                LostKind::Cancelled,
                "did not stop within the grace period after the cancel",
            ));
        }
        if now.duration_since(self.last_heard) < allowed {
            return None;
        }
        let why = knotmeter_format::text::hung_text(
            now.duration_since(self.last_heard).as_secs_f64(),
            self.longest_step.map(|s| s.as_secs_f64()),
            STEP_FACTOR,
            FLOOR.as_secs_f64(),
            "the process measuring it",
        );
        let _ = worker.child.kill();
        let _ = worker.child.wait();
        Some(SlotResult::Lost(Lost {
            kind: LostKind::Hung,
            message: why,
        }))
    }

    /// One line from the worker: progress is passed on; the slot's end when it is the answer
    /// or a refusal.
    fn line(
        &mut self,
        worker: &mut Worker,
        line: &str,
        progress: &mut dyn FnMut(&str, &Progress),
    ) -> Option<SlotResult> {
        self.last_heard = Instant::now();
        match serde_json::from_str::<DrivenEvent>(line) {
            Ok(DrivenEvent::Measured(outcome)) => Some(SlotResult::Measured(*outcome)),
            Ok(DrivenEvent::Progress {
                id,
                samples,
                fraction,
                longest_step_ns,
            }) => {
                let step = Duration::from_secs_f64((longest_step_ns / 1e9).clamp(0.0, 1e6));
                self.longest_step = Some(self.longest_step.map_or(step, |l| l.max(step)));
                self.last_progress = Progress {
                    samples,
                    fraction,
                    longest_step_ns,
                };
                progress(&id, &self.last_progress);
                self.last_said = Instant::now();
                None
            }
            Ok(DrivenEvent::Error { message }) => Some(lost(
                worker,
                LostKind::Crashed,
                &format!("refused the case: {message}"),
            )),
            _ => None,
        }
    }
}

/// The slot's end when its worker's output ended: the worker is reaped, and the case lost as
/// cancelled (a cancel was asked for) or crashed, with how the worker ended.
fn ended(worker: &mut Worker) -> SlotResult {
    let status = worker.child.wait().ok();
    let kind = if cancel::requested() {
        LostKind::Cancelled
    } else {
        LostKind::Crashed
    };
    SlotResult::Lost(Lost {
        kind,
        message: format!(
            "the process measuring it {} during this case",
            describe(status)
        ),
    })
}

/// The slot's end when its worker is lost: the worker is killed.
fn lost(worker: &mut Worker, kind: LostKind, why: &str) -> SlotResult {
    let _ = worker.child.kill();
    let _ = worker.child.wait();
    SlotResult::Lost(Lost {
        kind,
        message: format!("the process measuring it {why}"),
    })
}

/// Writes one command line to the worker.
fn send(worker: &mut Worker, command: &DrivenCommand) -> std::io::Result<()> {
    let stdin = worker
        .stdin
        .as_mut()
        .ok_or_else(|| std::io::Error::other("its input is closed"))?;
    let mut line = serde_json::to_vec(command).map_err(std::io::Error::other)?;
    line.push(b'\n');
    stdin.write_all(&line)?;
    stdin.flush()
}

/// Closes the worker's input and waits up to `grace` for it to end, then kills it; returns the
/// stray panics it said it had as it ended.
fn stop(mut worker: Worker, grace: Duration) -> Vec<String> {
    drop(worker.stdin.take());
    let deadline = Instant::now() + grace;
    loop {
        match worker.child.try_wait() {
            Ok(Some(_)) | Err(_) => return last_words(&worker.lines, deadline),
            Ok(None) if Instant::now() >= deadline => {
                let _ = worker.child.kill();
                let _ = worker.child.wait();
                return Vec::new();
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
        }
    }
}

/// The stray panics in what an ended worker wrote last, read up to the end of its output
/// (which comes as soon as the reading thread has passed on every line: no other process
/// holds the pipe, the descriptor is close-on-exec) or `deadline`.
fn last_words(lines: &Receiver<Line>, deadline: Instant) -> Vec<String> {
    let mut stray = Vec::new();
    while let Ok(Some(line)) =
        lines.recv_timeout(deadline.saturating_duration_since(Instant::now()))
    {
        if let Ok(DrivenEvent::StrayPanics { panics }) = serde_json::from_str(&line) {
            stray.extend(panics);
        }
    }
    stray
}

/// How a process ended, in words: `was killed by signal SIGABRT`, `exited with status 3`.
pub(crate) fn describe(status: Option<ExitStatus>) -> String {
    let Some(status) = status else {
        return "could not be waited for".to_owned();
    };
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("was killed by signal {}", signal_name(signal));
        }
    }
    match status.code() {
        Some(code) => format!("exited with status {code}"),
        None => "ended".to_owned(),
    }
}

/// The name of a signal a process commonly dies of, or its number.
fn signal_name(signal: i32) -> String {
    let name = match signal {
        1 => "SIGHUP",
        2 => "SIGINT",
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        24 => "SIGXCPU",
        31 => "SIGSYS",
        _ => return format!("{signal}"),
    };
    name.to_owned()
}
