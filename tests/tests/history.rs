//! The engine and its history store, end to end: every run is recorded, and a damaged store
//! is moved aside (never overwritten) with a message, while the run goes on.

use std::process::{Command, Output};

fn run(history: &std::path::Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fixture"))
        .args(["--bench", "--quick", "--format", "json", "--exact", "plain"])
        .args(extra)
        .env("KNOTMETER_HISTORY", history)
        .output()
        .unwrap()
}

#[test]
fn corrupt_history_is_moved_aside_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let history = dir.path().join("history.db");
    let garbage = b"this is not a SQLite database, but someone's data all the same".repeat(100);
    std::fs::write(&history, &garbage).unwrap();

    let out = run(&history, &[]);
    assert!(
        out.status.success(),
        "the run goes on: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("moved") || err.contains("aside"),
        "the user is told: {err}"
    );
    let moved: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .contains(".corrupt-")
        })
        .collect();
    assert_eq!(moved.len(), 1, "{moved:?}");
    assert_eq!(
        std::fs::read(&moved[0]).unwrap(),
        garbage,
        "the old file's bytes are intact"
    );
    assert!(
        err.contains(&moved[0].file_name().unwrap().to_string_lossy().to_string()),
        "the message names the new place: {err}"
    );

    // The fresh store works: a second run is compared with the first.
    let second = run(&history, &[]);
    let report: serde_json::Value = serde_json::from_slice(&second.stdout).unwrap();
    assert_eq!(report["results"][0]["comparison"]["against"], "run 1");
}

#[test]
fn no_history_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let history = dir.path().join("history.db");
    assert!(run(&history, &["--no-history"]).status.success());
    assert!(!history.exists());
}

#[test]
fn named_baseline_is_compared_against() {
    let dir = tempfile::tempdir().unwrap();
    let history = dir.path().join("history.db");
    assert!(run(&history, &["--save-baseline", "main"]).status.success());
    assert!(run(&history, &[]).status.success());
    let out = run(&history, &["--baseline", "main"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        report["results"][0]["comparison"]["against"],
        "baseline main"
    );
}
