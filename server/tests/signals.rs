//! No orphan, whatever the signal: `knotmeter run` and `knotmeter serve` stopped by SIGKILL,
//! SIGTERM or SIGINT while a real bench binary hangs in a case (the `basic` fixture's
//! `faults::hangs`), then no process they started may survive. Every process a test starts
//! carries a unique marker in its environment (inherited by cargo and the bench binary), and
//! `/proc` is searched for it. A loop kills at random moments (build, list, run).

use crate::common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::{fixture, Client, Fixture, Marker};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use serde_json::json;

const BUILD: Duration = Duration::from_secs(300);
/// How long the killed processes' children may take to go (the kernel delivers the
/// parent-death signal at once; this is slack for a loaded machine).
const GONE: Duration = Duration::from_secs(5);

fn signal(child: &Child, signal: Signal) {
    kill(Pid::from_raw(child.id() as i32), signal).unwrap();
}

/// `knotmeter run` on the hanging case, with its standard error read line by line.
struct Run {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Run {
    fn start(fx: &Fixture, marker: &Marker) -> Self {
        let mut command = Command::new(common::knotmeter());
        command
            .args(["run", ".", "basic::faults::hangs", "--case-timeout", "600"])
            .current_dir(fx.root())
            .env("KNOTMETER_HISTORY", fx.path("history.db"))
            .env_remove("CARGO_TARGET_DIR")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        marker.mark(&mut command);
        let mut child = command.spawn().unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Self {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Waits until a line contains `text`.
    fn wait_for(&mut self, text: &str, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        while !self.seen.iter().any(|l| l.contains(text)) {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => self.seen.push(line),
                Err(_) => panic!("no line with {text:?} within {timeout:?}: {:#?}", self.seen),
            }
        }
    }

    /// Waits for the process to end; its status code (None if killed by a signal) and how
    /// long it took.
    fn end(&mut self, timeout: Duration) -> (Option<i32>, Duration) {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                self.seen.extend(remaining(&self.lines));
                return (status.code(), started.elapsed());
            }
            assert!(
                started.elapsed() < timeout,
                "knotmeter run did not end: {:#?}",
                self.seen
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// The lines still to come from a process that has ended: read until its standard error
/// closes (its reader thread then ends), at most 10 s. What was in the pipe when the process
/// ended may not have reached the channel yet: taking only what is there lost the last line
/// on a loaded machine.
fn remaining(lines: &mpsc::Receiver<String>) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut rest = Vec::new();
    while let Ok(line) = lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        rest.push(line);
    }
    rest
}

/// Builds the fixture once and waits until the hanging case runs.
fn hanging_run(fx: &Fixture, marker: &Marker) -> Run {
    let mut run = Run::start(fx, marker);
    run.wait_for("basic::faults::hangs ...", BUILD);
    let bench_running = marker
        .alive()
        .iter()
        .any(|p| p.cmdline.contains("--stdin-cancel"));
    assert!(bench_running, "the bench binary runs");
    run
}

fn assert_no_survivor(marker: &Marker) {
    let survivors = marker.survivors_after(GONE);
    marker.kill_all();
    assert!(
        survivors.is_empty(),
        "processes outlived knotmeter: {survivors:#?}"
    );
}

#[test]
fn knotmeter_run_killed_by_sigkill_leaves_no_process_behind() {
    let fx = fixture("basic");
    let marker = Marker::new();
    let mut run = hanging_run(&fx, &marker);
    signal(&run.child, Signal::SIGKILL);
    run.end(GONE);
    assert_no_survivor(&marker);
}

/// SIGTERM (what `timeout` sends): cancel gracefully, kill the hung binary after the grace
/// period, exit 143; a result stays honest (the hung case is skipped, not passed).
#[test]
fn knotmeter_run_stopped_by_sigterm_exits_143_and_leaves_no_process_behind() {
    let fx = fixture("basic");
    let marker = Marker::new();
    let mut run = hanging_run(&fx, &marker);
    signal(&run.child, Signal::SIGTERM);
    let (code, took) = run.end(Duration::from_secs(30));
    assert_eq!(code, Some(143), "{:#?}", run.seen);
    assert!(took < Duration::from_secs(15), "{took:?}");
    let text = run.seen.join("\n");
    assert!(text.contains("SIGTERM: cancelling"), "{text}");
    assert!(text.contains("basic::faults::hangs skipped"), "{text}");
    assert!(text.contains("interrupted by SIGTERM"), "{text}");
    assert_no_survivor(&marker);
}

/// Ctrl-C exits 130 (it exited 0); a second Ctrl-C ends at once, without waiting for the
/// grace period.
#[test]
fn knotmeter_run_interrupted_twice_stops_at_once_with_130() {
    let fx = fixture("basic");
    let marker = Marker::new();
    let mut run = hanging_run(&fx, &marker);
    signal(&run.child, Signal::SIGINT);
    run.wait_for("SIGINT: cancelling", Duration::from_secs(10));
    signal(&run.child, Signal::SIGINT);
    let (code, took) = run.end(Duration::from_secs(10));
    assert_eq!(code, Some(130), "{:#?}", run.seen);
    assert!(
        took < Duration::from_secs(1),
        "a second signal stops at once: {took:?}"
    );
    assert!(run
        .seen
        .join("\n")
        .contains("SIGINT again: stopped at once"));
    assert_no_survivor(&marker);
}

/// Ctrl-C while a slow case samples: the engine stops at a sample boundary and reports a
/// partial result, which is `skipped` with its figures, never `passed`; the run exits 130 (it
/// exited 0).
#[test]
fn a_cancelled_run_reports_the_partial_case_as_skipped_and_exits_130() {
    let fx = fixture("basic");
    let marker = Marker::new();
    let mut command = Command::new(common::knotmeter());
    command
        .args([
            "run",
            ".",
            "basic::faults::slow",
            "--time",
            "60",
            "--format",
            "json",
        ])
        .current_dir(fx.root())
        .env("KNOTMETER_HISTORY", fx.path("history.db"))
        .env_remove("CARGO_TARGET_DIR")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    marker.mark(&mut command);
    let mut child = command.spawn().unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut seen: Vec<String> = Vec::new();
    let deadline = Instant::now() + BUILD;
    while !seen.iter().any(|l| l.contains("basic::faults::slow ...")) {
        seen.push(
            lines
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                .expect("the case starts"),
        );
    }
    // Past the cold call, tuning and warm-up: it is taking samples.
    std::thread::sleep(Duration::from_millis(1500));
    signal(&child, Signal::SIGINT);
    let out = child.wait_with_output().unwrap();
    seen.extend(remaining(&lines));
    let stderr = seen.join("\n");
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let item = &doc["items"][0];
    assert_eq!(item["state"], "skipped", "{doc}");
    assert_eq!(item["result"]["partial"], true, "{doc}");
    // The closing line counts the cut-short case as partial, as every surface does.
    let closing = stderr
        .lines()
        .find(|l| l.ends_with("; interrupted by SIGINT"))
        .unwrap_or_else(|| panic!("no closing line in\n{stderr}"));
    assert!(closing.starts_with("knotmeter: 1 partial in "), "{closing}");
    assert_no_survivor(&marker);
}

/// `knotmeter serve` with a run of the hanging case in progress.
fn hanging_serve(fx: &Fixture, marker: &Marker) -> Client {
    let mut client = Client::spawn_with(&fx.root(), |c| {
        c.env("KNOTMETER_HISTORY", fx.path("history.db"))
            .env_remove("CARGO_TARGET_DIR");
        marker.mark(c);
    });
    client.initialize(&fx.root(), json!({"caseTimeoutSecs": 600}));
    let run = client.request(
        "knotmeter/run",
        json!({"include": ["basic::faults::hangs"]}),
    );
    let run_id = run["result"]["runId"].as_i64().unwrap();
    client.notification("knotmeter/runState", BUILD, |p| {
        p["runId"] == run_id && p["state"] == "started"
    });
    client
}

#[test]
fn knotmeter_serve_killed_by_sigkill_leaves_no_process_behind() {
    let fx = fixture("basic");
    let marker = Marker::new();
    let mut client = hanging_serve(&fx, &marker);
    assert!(!marker.alive().is_empty());
    kill(Pid::from_raw(client.pid() as i32), Signal::SIGKILL).unwrap();
    client.wait_for_exit(GONE);
    assert_no_survivor(&marker);
}

#[test]
fn knotmeter_serve_stopped_by_sigterm_exits_143_and_leaves_no_process_behind() {
    let fx = fixture("basic");
    let marker = Marker::new();
    let mut client = hanging_serve(&fx, &marker);
    kill(Pid::from_raw(client.pid() as i32), Signal::SIGTERM).unwrap();
    let status = client.wait_for_exit(Duration::from_secs(20));
    assert_eq!(status.code(), Some(143), "{status:?}");
    // The run was wound down and said so before the daemon went.
    client.notification("knotmeter/runEnd", Duration::from_secs(1), |_| true);
    assert_no_survivor(&marker);
}

/// A small xorshift generator: random moments, reproducible from the printed seed.
struct Random(u64);

impl Random {
    fn from_clock() -> Self {
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64
            | 1;
        eprintln!("random seed {seed}");
        Self(seed)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// SIGKILL or SIGTERM at a random moment of `knotmeter run` and of `knotmeter serve`: while
/// cargo checks the build, while the binary lists, while the case hangs. Nothing survives.
#[test]
fn killed_at_random_moments_nothing_survives() {
    let fx = fixture("basic");
    // Build once, so that the loop's moments fall on the daemon's own phases.
    let warm = Marker::new();
    let mut run = hanging_run(&fx, &warm);
    signal(&run.child, Signal::SIGKILL);
    run.end(GONE);
    assert_no_survivor(&warm);
    let mut random = Random::from_clock();
    for round in 0..6 {
        let marker = Marker::new();
        let delay = Duration::from_millis(random.below(2_500));
        let how = if random.below(2) == 0 {
            Signal::SIGKILL
        } else {
            Signal::SIGTERM
        };
        if round % 2 == 0 {
            let mut run = Run::start(&fx, &marker);
            std::thread::sleep(delay);
            signal(&run.child, how);
            run.end(Duration::from_secs(30));
        } else {
            let mut client = Client::spawn_with(&fx.root(), |c| {
                c.env("KNOTMETER_HISTORY", fx.path("history.db"))
                    .env_remove("CARGO_TARGET_DIR");
                marker.mark(c);
            });
            client.initialize(&fx.root(), json!({"caseTimeoutSecs": 600}));
            client.send_request(
                "knotmeter/run",
                json!({"include": ["basic::faults::hangs"]}),
            );
            std::thread::sleep(delay);
            kill(Pid::from_raw(client.pid() as i32), how).unwrap();
            client.wait_for_exit(Duration::from_secs(30));
        }
        let survivors = marker.survivors_after(GONE);
        marker.kill_all();
        assert!(
            survivors.is_empty(),
            "round {round}: {how} after {delay:?}: {survivors:#?}"
        );
    }
}
