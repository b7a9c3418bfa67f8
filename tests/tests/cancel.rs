//! Graceful cancellation: the engine stops at a sample boundary, reports the case in progress
//! as partial, skips the rest, and says the run was cancelled.

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdout, Command, Stdio};

/// Runs `plain` and `sized/10` with a budget so long (each round's slot is a tenth of it)
/// that the first case of the first round is still sampling when the test cancels, however
/// slow the machine.
fn spawn(extra: &[&str]) -> (Child, std::io::Lines<BufReader<ChildStdout>>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fixture"))
        .arg("--no-history")
        .args([
            "--bench", "--format", "jsonl", "--time", "600", "--exact", "plain", "sized/10",
        ])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = BufReader::new(child.stdout.take().unwrap()).lines();
    (child, lines)
}

/// Reads events until one with the given `event` name, returning every event read.
fn read_until(
    lines: &mut impl Iterator<Item = std::io::Result<String>>,
    event: &str,
) -> Vec<serde_json::Value> {
    let mut seen = Vec::new();
    for line in lines {
        let value: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        let done = value["event"] == event;
        seen.push(value);
        if done {
            return seen;
        }
    }
    panic!("the stream ended before `{event}`: {seen:#?}");
}

/// What the run had done when the test cancelled it.
struct BeforeCancel {
    /// The case whose samples were being taken.
    in_progress: String,
    /// Every case started so far.
    started: usize,
}

/// Reads events until a `progress` event with at least one sample (the first `progress`
/// comes right after the cold call, before any sample). The cases' order is shuffled in every
/// round, so either may come first; and a fast case can reach its slot's sample limit before
/// it reports a sampled `progress`, so the other case may have started too.
fn read_until_sampled(lines: &mut impl Iterator<Item = std::io::Result<String>>) -> BeforeCancel {
    let mut started = 0;
    loop {
        let events = read_until(lines, "progress");
        started += events
            .iter()
            .filter(|e| e["event"] == "case_started")
            .count();
        let last = events.last().unwrap();
        if last["samples"].as_u64().unwrap() > 0 {
            return BeforeCancel {
                in_progress: last["id"].as_str().unwrap().to_owned(),
                started,
            };
        }
    }
}

fn assert_cancelled_gracefully(
    mut child: Child,
    mut lines: impl Iterator<Item = std::io::Result<String>>,
    status: i32,
    before: &BeforeCancel,
) {
    let in_progress = before.in_progress.as_str();
    let rest = read_until(&mut lines, "run_finished");
    let finished = rest
        .iter()
        .find(|e| e["event"] == "case_finished" && e["result"]["id"] == in_progress)
        .expect("the case in progress is reported");
    assert!(
        rest.iter()
            .filter(|e| e["event"] == "case_finished")
            .all(|e| e["result"]["partial"] == true),
        "every case reported is partial: {rest:#?}"
    );
    assert!(finished["result"]["samples"].as_u64().unwrap() >= 1);
    assert!(finished["result"]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w["code"] == "partial"));
    assert!(
        !rest.iter().any(|e| e["event"] == "case_started"),
        "no case starts after the cancel: {rest:#?}"
    );
    let summary = rest.last().unwrap();
    assert_eq!(summary["cancelled"], true);
    // Every started case is cut short in the first of its ten rounds: partial, not passed
    // (the case in progress once counted as passed).
    assert_eq!(
        (&summary["passed"], &summary["partial"], &summary["failed"]),
        (
            &serde_json::json!(0),
            &serde_json::json!(before.started),
            &serde_json::json!(0)
        ),
        "{summary}"
    );
    assert_eq!(child.wait().unwrap().code(), Some(status));
}

#[test]
fn closing_stdin_cancels_with_stdin_cancel() {
    let (mut child, mut lines) = spawn(&["--stdin-cancel"]);
    let before = read_until_sampled(&mut lines);
    drop(child.stdin.take());
    assert_cancelled_gracefully(child, lines, 130, &before);
}

/// SIGTERM once exited 130, the status of SIGINT.
#[test]
fn sigterm_cancels_and_exits_143() {
    let (child, mut lines) = spawn(&[]);
    let before = read_until_sampled(&mut lines);
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    assert_cancelled_gracefully(child, lines, 143, &before);
}

#[test]
fn sigint_cancels_and_exits_130() {
    let (child, mut lines) = spawn(&[]);
    let before = read_until_sampled(&mut lines);
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    assert_cancelled_gracefully(child, lines, 130, &before);
}
