//! The history at scale: 10 000 and 100 000 stored results, 1 000 cases per run (10 and 100
//! runs, the first saved as the baseline `main`). What a run of 1 000 cases asks of it for
//! each case (the previous result, the baseline's, the medians the noise floor is learnt
//! from), what `knotmeter history` and the editor read (the latest runs, one case's points,
//! every case's latest result), and what opening it for writing costs when the file is
//! unchanged since the last writer checked it, against when it changed (`quick_check`).
//!
//! `cargo bench -p knotmeter-tests --bench history_scale`; figures in docs/history.md and
//! docs/performance.md. The histories are made before the first case (about 3 KB a result).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use knotmeter::{bench, black_box, Bencher};
use knotmeter_history::{machine_key, History, RunId};
use knotmeter_protocol::{BenchResult, Manifest};

const CASES_PER_RUN: u64 = 1_000;

fn manifest(run: u64) -> Manifest {
    serde_json::from_value(serde_json::json!({
        "knotmeter_version": "0.1.0", "rustc": "rustc 1.95.0", "profile": "release",
        "opt_level": "3", "debug_assertions": false, "target": "x86_64-unknown-linux-gnu",
        "cpu": "bench cpu", "cores": 2,
        "timer": {"kind": "instant", "precision_ns": 20.0, "read_cost_ns": 20.0},
        "git_commit": "0123456789abcdef0123456789abcdef01234567", "git_dirty": false,
        "timestamp": 1_760_000_000 + run,
        "seed": 1, "budget_ms": 1000, "target_precision": 0.01, "warnings": []
    }))
    .unwrap()
}

/// A result as a 1 s run stores it (4 000 raw samples, compacted by the store).
fn result(case: u64, run: u64) -> BenchResult {
    let n = 4_000;
    let shift = (run % 7) as f64 * 0.1;
    let workload: Vec<f64> = (0..n)
        .map(|i| 1234.567 + shift + (i * 7919 % 1000) as f64 * 0.013)
        .collect();
    let baseline: Vec<f64> = (0..n).map(|i| 0.731 + (i % 97) as f64 * 0.0001).collect();
    serde_json::from_value(serde_json::json!({
        "id": format!("bench::case_{case}"), "name": "case", "args": null, "group": null,
        "baseline": false, "file": "benches/bench.rs", "line": 12,
        "estimate": {"median_ns": 1240.1 + shift, "low_ns": 1239.0, "high_ns": 1241.2,
                     "mean_ns": 1240.5},
        "quantiles": {"min_ns": 1234.6, "p5_ns": 1235.0, "q1_ns": 1237.0, "q3_ns": 1243.0,
                      "p95_ns": 1246.0, "max_ns": 1247.5, "std_dev_ns": 3.7, "outliers": 12},
        "precision": 0.0009, "overhead": {"per_op_ns": 0.731, "drift": 0.0001, "capped": 0},
        "cold_ns": 5123.0, "ops_per_sample": 512, "samples": n, "wall_ns": 1.1e9,
        "partial": false, "warnings": [], "comparison": null, "allocations": null,
        "raw": {"workload_ns": workload, "baseline_ns": baseline}
    }))
    .unwrap()
}

/// The runs a history of `results` results holds: all of them when measuring (`--bench`, which
/// `cargo bench` and `knotmeter` pass), a fiftieth (at least one) when `cargo test` runs each
/// bench once to check that it works: in the unoptimised test profile, making the 100 000
/// results took five and a half minutes of CI.
fn runs_of(results: u64) -> u64 {
    let runs = results / CASES_PER_RUN;
    if std::env::args().any(|arg| arg == "--bench") {
        runs
    } else {
        (runs / 50).max(1)
    }
}

/// A history of `results` results, 1 000 cases a run (made once per size; fewer when only
/// checked, [`runs_of`]).
fn history_of(results: u64) -> PathBuf {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    let dir = DIR.get_or_init(|| tempfile::tempdir().unwrap());
    let path = dir.path().join(format!("history-{results}.db"));
    if !path.exists() {
        let mut history = History::open(&path).unwrap();
        for run in 0..runs_of(results) {
            let batch: Vec<BenchResult> = (0..CASES_PER_RUN).map(|c| result(c, run)).collect();
            let baseline = (run == 0).then_some("main");
            history
                .record_run(&manifest(run), &batch, baseline)
                .unwrap();
        }
    }
    path
}

fn stamp_of(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push("-checked");
    PathBuf::from(name)
}

/// The id of the case a lookup bench reads next: 389 cases on from `case` (which it advances),
/// so that consecutive lookups read different cases.
fn next_case(case: &mut u64) -> String {
    *case = (*case + 389) % CASES_PER_RUN;
    format!("bench::case_{case}")
}

/// What the engine looks up for one case of a run against this history: its previous
/// result, its result in the baseline `main`, and its last 20 medians (the noise floor).
#[bench(args = [10_000, 100_000])]
fn lookups_of_one_case(b: &mut Bencher, results: u64) {
    let history = History::open_read_only(&history_of(results)).unwrap();
    let key = machine_key(&manifest(0));
    let mut case = 0;
    b.iter(|| {
        let id = next_case(&mut case);
        let before = Some(RunId(i64::MAX));
        (
            history.previous(&id, &key, before).unwrap(),
            history.baseline("main", &id, &key, before).unwrap(),
            history.medians(&id, &key, before, 20).unwrap(),
        )
    });
}

/// The noise floor's lookup alone: one case's last 20 medians, each with its run's commit and
/// whether its working tree had uncommitted changes (read from the run's manifest).
#[bench(args = [10_000, 100_000])]
fn medians_of_one_case(b: &mut Bencher, results: u64) {
    let history = History::open_read_only(&history_of(results)).unwrap();
    let key = machine_key(&manifest(0));
    let mut case = 0;
    b.iter(|| {
        let id = next_case(&mut case);
        history
            .medians(&id, &key, Some(RunId(i64::MAX)), 20)
            .unwrap()
    });
}

/// `knotmeter history`: the latest 20 runs with their counts.
#[bench(args = [10_000, 100_000])]
fn latest_runs(b: &mut Bencher, results: u64) {
    let history = History::open_read_only(&history_of(results)).unwrap();
    b.iter(|| history.runs(20).unwrap());
}

/// `knotmeter history ID` and the editor's chart: one case's last 100 results.
#[bench(args = [10_000, 100_000])]
fn points_of_one_case(b: &mut Bencher, results: u64) {
    let history = History::open_read_only(&history_of(results)).unwrap();
    b.iter(|| history.points(black_box("bench::case_500"), 100).unwrap());
}

/// The daemon at start and `knotmeter history export`: every case's latest result (1 000
/// results read and parsed).
#[bench(args = [10_000, 100_000])]
fn latest_result_of_every_case(b: &mut Bencher, results: u64) {
    let history = History::open_read_only(&history_of(results)).unwrap();
    b.iter(|| history.latest_results().unwrap());
}

/// Opening for writing a file unchanged since the last writer checked it and closed it
/// cleanly: no `quick_check` (the stamp matches).
#[bench(args = [10_000, 100_000])]
fn open_for_writing_unchanged(b: &mut Bencher, results: u64) {
    let path = history_of(results);
    drop(History::open(&path).unwrap());
    b.iter(|| History::open(&path).unwrap());
}

/// Opening for writing a file changed since its last check (here: its stamp removed), as
/// after a copy or a crash: `quick_check` reads every page.
#[bench(args = [10_000, 100_000])]
fn open_for_writing_changed(b: &mut Bencher, results: u64) {
    let path = history_of(results);
    let stamp = stamp_of(&path);
    b.with_inputs(|| {
        let _ = std::fs::remove_file(&stamp);
    })
    .run(|()| History::open(&path).unwrap());
}

/// Opening for reading, as the daemon and `knotmeter history` do.
#[bench(args = [10_000, 100_000])]
fn open_for_reading(b: &mut Bencher, results: u64) {
    let path = history_of(results);
    b.iter(|| History::open_read_only(&path).unwrap());
}

knotmeter::main!();
