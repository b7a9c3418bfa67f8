//! What the history store costs a run: one case's write between two cases, against a whole run
//! written in one transaction; and opening a history for writing (recognition, WAL; the file
//! is unchanged since the last writer checked it, so no `quick_check`) against opening it for
//! reading, as the file grows. `history_scale` measures 100 000 results and `quick_check`.
//!
//! `cargo bench -p knotmeter-tests --bench history_store`; figures in docs/history.md.

use std::path::PathBuf;
use std::sync::OnceLock;

use knotmeter::{bench, Bencher};
use knotmeter_history::{History, RunId};
use knotmeter_protocol::{BenchResult, Manifest};

/// A realistic manifest and result (1 s of sampling: thousands of raw samples each).
fn manifest() -> Manifest {
    serde_json::from_value(serde_json::json!({
        "knotmeter_version": "0.1.0", "rustc": "rustc 1.95.0", "profile": "release",
        "opt_level": "3", "debug_assertions": false, "target": "x86_64-unknown-linux-gnu",
        "cpu": "bench cpu", "cores": 2,
        "timer": {"kind": "instant", "precision_ns": 20.0, "read_cost_ns": 20.0},
        "git_commit": "0123456789abcdef0123456789abcdef01234567", "timestamp": 1_760_000_000u64,
        "seed": 1, "budget_ms": 1000, "target_precision": 0.01, "warnings": []
    }))
    .unwrap()
}

fn result(id: u64) -> BenchResult {
    let n = 4_000;
    let workload: Vec<f64> = (0..n)
        .map(|i| 1234.567 + (i * 7919 % 1000) as f64 * 0.013)
        .collect();
    let baseline: Vec<f64> = (0..n).map(|i| 0.731 + (i % 97) as f64 * 0.0001).collect();
    serde_json::from_value(serde_json::json!({
        "id": format!("bench::case_{id}"), "name": "case", "args": null, "group": null,
        "baseline": false, "file": "benches/bench.rs", "line": 12,
        "estimate": {"median_ns": 1240.1, "low_ns": 1239.0, "high_ns": 1241.2, "mean_ns": 1240.5},
        "quantiles": {"min_ns": 1234.6, "p5_ns": 1235.0, "q1_ns": 1237.0, "q3_ns": 1243.0,
                      "p95_ns": 1246.0, "max_ns": 1247.5, "std_dev_ns": 3.7, "outliers": 12},
        "precision": 0.0009, "overhead": {"per_op_ns": 0.731, "drift": 0.0001, "capped": 0},
        "cold_ns": 5123.0, "ops_per_sample": 512, "samples": n, "wall_ns": 1.1e9,
        "partial": false, "warnings": [], "comparison": null, "allocations": null,
        "raw": {"workload_ns": workload, "baseline_ns": baseline}
    }))
    .unwrap()
}

/// A history of its own with one open run.
fn open_run() -> (tempfile::TempDir, History, RunId) {
    let dir = tempfile::tempdir().unwrap();
    let mut history = History::open(&dir.path().join("history.db")).unwrap();
    let run = history.begin_run(&manifest(), None).unwrap();
    (dir, history, run)
}

/// One case's result, stored between two cases (serialised, one short transaction).
#[bench]
fn record_one_case(b: &mut Bencher) {
    let (_dir, mut history, run) = open_run();
    let mut next = 0;
    b.with_inputs(|| {
        next += 1;
        result(next)
    })
    .run(|r| history.record_result(run, &r).unwrap());
}

/// The same result as a whole run of one case, in one transaction (begin, result, end).
#[bench]
fn record_whole_run_of_one_case(b: &mut Bencher) {
    let (_dir, mut history, _) = open_run();
    let manifest = manifest();
    b.with_inputs(|| result(1))
        .run(|r| history.record_run(&manifest, &[r], None).unwrap());
}

/// The results a history file of `results` holds: all of them when measuring (`--bench`, which
/// `cargo bench` and `knotmeter` pass), a hundredth (at least one) when `cargo test` runs each
/// bench once to check that it works: in the unoptimised test profile, making the 10 000 took
/// 40 s.
fn stored(results: u64) -> u64 {
    if std::env::args().any(|arg| arg == "--bench") {
        results
    } else {
        (results / 100).max(1)
    }
}

/// A history file holding `results` results (made once per size; fewer when only checked,
/// [`stored`]).
fn history_of(results: u64) -> PathBuf {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    let dir = DIR.get_or_init(|| tempfile::tempdir().unwrap());
    let path = dir.path().join(format!("history-{results}.db"));
    if !path.exists() {
        let mut history = History::open(&path).unwrap();
        let manifest = manifest();
        for chunk in (0..stored(results)).collect::<Vec<_>>().chunks(50) {
            let batch: Vec<BenchResult> = chunk.iter().map(|&i| result(i)).collect();
            history.record_run(&manifest, &batch, None).unwrap();
        }
    }
    path
}

/// Opening for writing, as a bench binary does before its first case: recognition from the
/// header, WAL mode; `PRAGMA quick_check` only when the file changed since the last writer
/// checked it (after the first iteration, it did not).
#[bench(args = [100, 1_000, 10_000])]
fn open_for_writing(b: &mut Bencher, results: u64) {
    let path = history_of(results);
    b.iter(|| History::open(&path).unwrap());
}

/// Opening for reading, as the daemon does (no `quick_check`).
#[bench(args = [100, 1_000, 10_000])]
fn open_for_reading(b: &mut Bencher, results: u64) {
    let path = history_of(results);
    b.iter(|| History::open_read_only(&path).unwrap());
}

knotmeter::main!();
