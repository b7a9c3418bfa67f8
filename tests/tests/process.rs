//! The bench binary as a process (issue 10 §2, §5, §6, §7): signals, a parent that goes away,
//! a benchmark slower than its budget, panics in threads, a crash in the middle of a run.
//! The fixture is `src/bin/faults.rs`; every run has its own history file.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, ChildStdout, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The fixture with `args`, its own history, and standard output and error piped.
fn faults(args: &[&str]) -> (Command, tempfile::TempDir) {
    let history = tempfile::tempdir().unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_faults"));
    command
        .args(args)
        .env("KNOTMETER_HISTORY", history.path().join("history.db"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    (command, history)
}

/// Reads events until `event` about case `id` (any case when `None`).
fn read_until(lines: &mut impl Iterator<Item = std::io::Result<String>>, event: &str, id: &str) {
    for line in lines {
        let value: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if value["event"] == event && value["id"] == id {
            return;
        }
    }
    panic!("the stream ended before `{event}` of {id}");
}

/// Waits up to `limit` for `child` to end; kills it and fails the test if it does not.
fn wait_for(child: &mut Child, limit: Duration, why: &str) -> ExitStatus {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{why}: still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn signal(child: &Child, name: &str) {
    let status = Command::new("kill")
        .args([&format!("-{name}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Starts `faults::stuck` under `extra` flags and waits until the case has started.
fn start_stuck(
    extra: &[&str],
) -> (
    Child,
    std::io::Lines<BufReader<ChildStdout>>,
    tempfile::TempDir,
) {
    let (mut command, history) =
        faults(&["--bench", "--format", "jsonl", "--exact", "faults::stuck"]);
    command.args(extra).stdin(Stdio::piped());
    let mut child = command.spawn().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    read_until(&mut lines, "case_started", "faults::stuck");
    (child, lines, history)
}

/// The child processes of `pid`, from `/proc`.
fn children(pid: u32) -> Vec<u32> {
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

/// Whether process `pid` still runs (a zombie does not: it has ended).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| stat.rsplit(')').next().map(|rest| rest.trim().to_owned()))
        .is_some_and(|rest| !rest.starts_with('Z'))
}

/// Each round runs in a worker process of the bench binary: one whose bench binary is killed
/// outright must not go on measuring a stuck benchmark with nobody to read it.
#[test]
fn a_worker_dies_with_its_bench_binary_killed_outright() {
    let (mut child, _lines, _history) = start_stuck(&[]);
    let started = Instant::now();
    let worker = loop {
        if let Some(&worker) = children(child.id()).first() {
            break worker;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "no worker process"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(alive(worker));
    signal(&child, "KILL");
    let _ = child.wait();
    let killed = Instant::now();
    while alive(worker) {
        assert!(
            killed.elapsed() < Duration::from_secs(5),
            "the worker {worker} outlived its bench binary"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The second SIGTERM on a stuck benchmark was ignored: the process spun on.
#[test]
fn a_second_signal_ends_a_stuck_benchmark_at_once() {
    use std::os::unix::process::ExitStatusExt;
    for (first, second, number) in [("TERM", "TERM", 15), ("INT", "INT", 2), ("INT", "TERM", 15)] {
        let (mut child, _lines, _history) = start_stuck(&[]);
        signal(&child, first);
        std::thread::sleep(Duration::from_millis(300));
        assert!(
            child.try_wait().unwrap().is_none(),
            "SIG{first} once is a graceful cancel: it waits for a sample boundary"
        );
        signal(&child, second);
        let status = wait_for(&mut child, Duration::from_secs(10), "the second signal");
        assert_eq!(
            status.signal(),
            Some(number),
            "SIG{first} then SIG{second}: {status:?}"
        );
    }
}

/// With `--stdin-cancel`, a closed standard input cancelled the run, but a benchmark that
/// never reached a sample boundary kept the process spinning after its parent was gone.
#[test]
fn closed_stdin_ends_a_stuck_benchmark_by_itself() {
    let (mut child, _lines, _history) = start_stuck(&["--stdin-cancel"]);
    let mut stderr = child.stderr.take().unwrap();
    drop(child.stdin.take());
    let status = wait_for(&mut child, Duration::from_secs(15), "the watchdog");
    assert_eq!(status.code(), Some(130));
    let mut text = String::new();
    stderr.read_to_string(&mut text).unwrap();
    assert!(
        text.contains("did not reach a sample boundary within 2 s of the cancel"),
        "{text}"
    );
}

/// A 30 s benchmark took 210 s under `--quick`: five samples whatever the budget, and
/// progress at 100% from the first sample.
#[test]
fn a_benchmark_slower_than_its_budget_takes_one_sample_and_says_so() {
    let (mut command, _history) = faults(&[
        "--bench",
        "--format",
        "jsonl",
        "--time",
        "0.1",
        "--exact",
        "faults::slow",
    ]);
    let out = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // The cold call and one sample; nothing else calls the 300 ms body.
    assert_eq!(stderr.matches("slow: call").count(), 2, "{stderr}");
    let events: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let result = &events
        .iter()
        .find(|e| e["event"] == "case_finished")
        .expect("a result")["result"];
    assert_eq!(result["samples"], 1);
    assert_eq!(result["precision"], Value::Null);
    assert!(
        result["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["code"] == "imprecise"),
        "{result:#}"
    );
    let progress: Vec<&Value> = events.iter().filter(|e| e["event"] == "progress").collect();
    assert!(!progress.is_empty(), "heard from after the cold call");
    assert_eq!(progress[0]["samples"], 0);
    assert!(
        progress[0]["longest_step_ns"].as_f64().unwrap() >= 3e8,
        "{:?}",
        progress[0]
    );
    for pair in progress.windows(2) {
        assert!(pair[0]["fraction"].as_f64() <= pair[1]["fraction"].as_f64());
    }
    assert!(progress
        .iter()
        .all(|p| p["fraction"].as_f64().unwrap() < 1.0));
}

/// A panic in a thread the benchmark spawned vanished, and the case passed.
#[test]
fn a_panic_in_a_thread_of_the_benchmark_is_printed_and_fails_the_case() {
    let (mut command, _history) = faults(&[
        "--bench",
        "--quick",
        "--format",
        "json",
        "--exact",
        "faults::thread_panics",
        "faults::quick",
    ]);
    let out = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("thread 'helper'") && stderr.contains("the helper thread gives up"),
        "printed where the user sees it: {stderr}"
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let failure = &report["failures"][0];
    assert_eq!(failure["id"], "faults::thread_panics");
    assert_eq!(failure["kind"], "panic");
    let message = failure["message"].as_str().unwrap();
    assert!(
        message.contains("thread 'helper' panicked")
            && message.contains("the helper thread gives up"),
        "{message}"
    );
    assert!(failure["location"].as_str().unwrap().contains("faults.rs"));
    assert_eq!(
        report["results"][0]["id"], "faults::quick",
        "the run goes on"
    );
}

/// A thread the benchmark spawned and never joined panicked while the case sampled: the panic
/// was printed and the case passed (issue 21, item 3). The hook recorded the panic only after
/// the default hook had printed it, and with `RUST_BACKTRACE` set, printing the backtrace
/// outlasted the case (and the run): no check found it. In worker processes and in this one.
#[test]
fn a_panic_in_a_thread_left_running_fails_the_case() {
    for mode in [None, Some("--in-process")] {
        let (report, _) = failed_quick_run_with_backtraces(
            mode,
            &["faults::detached_thread_panics", "faults::quick"],
        );
        let failure = &report["failures"][0];
        assert_eq!(failure["id"], "faults::detached_thread_panics", "{mode:?}");
        assert_eq!(failure["kind"], "panic");
        let message = failure["message"].as_str().unwrap();
        assert!(
            message.starts_with("a thread of this benchmark panicked: thread 'detached' panicked")
                && message.contains("the detached thread gives up"),
            "{mode:?}: {message}"
        );
        assert_eq!(report["results"][0]["id"], "faults::quick", "{mode:?}");
    }
}

/// A thread left running panicked as its case's function returned, in the last slot of each
/// worker (the only case of the run): the run passed (issue 21, item 3). However the timing
/// falls, the run now fails: the case, when the panic comes before its slot is checked; or the
/// run, naming the case, when it comes after (at the next slot, at the end of the run, or as
/// the worker ends: it says so before it exits).
#[test]
fn a_panic_in_a_thread_after_its_case_fails_the_run() {
    for mode in [None, Some("--in-process")] {
        let (report, stderr) =
            failed_quick_run_with_backtraces(mode, &["faults::thread_panics_after_its_case"]);
        let failed_case = report["failures"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("the thread left running gives up"));
        let failed_run = stderr.lines().any(|line| {
            line.starts_with("knotmeter: thread 'left-running' panicked")
                && line.contains(
                    "between cases, probably left running by \
                     `faults::thread_panics_after_its_case`",
                )
                && line.ends_with("; the run fails")
        });
        assert!(failed_case || failed_run, "{mode:?}: {report}\n{stderr}");
    }
}

/// A `--quick` JSON run of `ids` (`mode`: `--in-process`, or worker processes) with
/// `RUST_BACKTRACE=1`, which makes a panic slow to print; it must fail (status 1). Returns its
/// report and standard error.
fn failed_quick_run_with_backtraces(mode: Option<&str>, ids: &[&str]) -> (Value, String) {
    let mut args = vec!["--bench", "--quick", "--format", "json"];
    args.extend(mode);
    args.push("--exact");
    args.extend(ids);
    let (mut command, _history) = faults(&args);
    let out = command.env("RUST_BACKTRACE", "1").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{mode:?}: {stderr}");
    (serde_json::from_slice(&out.stdout).unwrap(), stderr)
}

/// The pretty table printed a row only when a case ended, so after a crash the last line
/// named the case before the one that crashed. Each round now runs in a worker process: the
/// crash costs the case that crashed, which says so in its row, and the run goes on.
#[test]
fn pretty_output_names_the_case_that_crashed() {
    let (mut command, _history) = faults(&[
        "--bench",
        "--quick",
        "--exact",
        "faults::quick",
        "faults::aborts",
    ]);
    let out: Output = command.output().unwrap();
    assert_eq!(out.status.code(), Some(1), "a case failed");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.lines().any(|l| l.starts_with("aborts")
            && l.contains(
                "FAILED: crashed: the process measuring it was killed by signal SIGABRT"
            )),
        "{stdout}"
    );
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("quick ") && l.contains(" ns")),
        "{stdout}"
    );
    assert!(
        stdout
            .lines()
            .last()
            .unwrap_or_default()
            .contains("1 failed"),
        "the run ended with its totals:\n{stdout}"
    );
}
