//! For tests of `knotmeter history`: the command on a history file of the test's own, and a
//! manifest for results written straight into a history.

use std::path::Path;
use std::process::Output;

use knotmeter_protocol::Manifest;
use serde_json::json;

/// `knotmeter ARGS` in `dir`, on the history file `history`.
pub fn knotmeter_on(dir: &Path, history: &Path, args: &[&str]) -> Output {
    super::command_in(super::knotmeter(), dir)
        .args(args)
        .env("KNOTMETER_HISTORY", history)
        .output()
        .unwrap()
}

/// A manifest of a run with budget `budget_ms`, started at `timestamp`.
pub fn manifest(budget_ms: u64, timestamp: u64) -> Manifest {
    serde_json::from_value(json!({
        "knotmeter_version": "0.1.0", "rustc": "rustc", "profile": "release", "opt_level": "3",
        "debug_assertions": false, "target": "x86_64-unknown-linux-gnu", "cpu": "test cpu",
        "cores": 2, "timer": {"kind": "instant", "precision_ns": 20.0, "read_cost_ns": 20.0},
        "git_commit": "0123456789abcdef", "timestamp": timestamp, "seed": 1,
        "budget_ms": budget_ms, "target_precision": 0.01, "warnings": []
    }))
    .unwrap()
}
