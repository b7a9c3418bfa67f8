//! Sample manifests and results shared by the integration tests.

#![allow(dead_code)] // Each test file uses a different part.

use std::path::PathBuf;

use knotmeter_protocol::{
    Allocations, BenchResult, Comparison, Estimate, Manifest, Overhead, Quantiles, RawSamples,
    Rounds, TimerInfo, Verdict, Warning,
};
use tempfile::TempDir;

pub mod comparisons;

/// A fresh temporary directory and the history path inside it (not created yet).
pub fn temp_history() -> (TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("create a temporary directory");
    let path = dir.path().join("knotmeter").join("history.db");
    (dir, path)
}

/// A release-build manifest on the given CPU.
pub fn manifest_on(cpu: &str) -> Manifest {
    Manifest {
        knotmeter_version: "0.1.0".to_owned(),
        rustc: "rustc 1.95.0 (59807616e 2026-04-14)".to_owned(),
        profile: "release".to_owned(),
        opt_level: "3".to_owned(),
        debug_assertions: false,
        target: "x86_64-unknown-linux-gnu".to_owned(),
        cpu: cpu.to_owned(),
        cores: 8,
        timer: TimerInfo {
            kind: "instant".to_owned(),
            precision_ns: 20.0,
            read_cost_ns: 17.25,
        },
        git_commit: Some("0123456789abcdef0123456789abcdef01234567".to_owned()),
        git_dirty: Some(false),
        timestamp: 1_760_000_000,
        seed: 0x5eed,
        budget_ms: 1000,
        target_precision: 0.01,
        measure: Default::default(),
        warnings: vec![Warning::new(
            "frequency_scaling",
            "set the governor to performance",
        )],
    }
}

/// The manifest of the default test machine.
pub fn manifest() -> Manifest {
    manifest_on("AMD EPYC 7763 64-Core Processor")
}

/// A plain result of `id` with the given median and `n` raw samples of each kind.
pub fn result_with_samples(id: &str, median_ns: f64, n: usize) -> BenchResult {
    BenchResult {
        id: id.to_owned(),
        name: id.rsplit("::").next().unwrap_or(id).to_owned(),
        args: None,
        group: None,
        baseline: false,
        file: "benches/quickstart.rs".to_owned(),
        line: 12,
        measure: Default::default(),
        cache: None,
        estimate: Estimate {
            median_ns,
            low_ns: median_ns * 0.99,
            high_ns: median_ns * 1.01,
            mean_ns: median_ns * 1.002,
        },
        quantiles: Quantiles {
            min_ns: median_ns * 0.9,
            p5_ns: median_ns * 0.95,
            q1_ns: median_ns * 0.98,
            q3_ns: median_ns * 1.02,
            p95_ns: median_ns * 1.1,
            max_ns: median_ns * 1.5,
            std_dev_ns: median_ns * 0.031_7,
            outliers: 3,
        },
        precision: Some(0.010_3),
        overhead: Overhead {
            per_op_ns: 0.731,
            drift: Some(-0.000_12),
            capped: 0,
        },
        cold_ns: median_ns * 7.3,
        ops_per_sample: 1024,
        samples: n as u64,
        wall_ns: 3.1e9,
        partial: false,
        warnings: Vec::new(),
        comparison: None,
        reproducibility: None,
        // Kept as measured, so that before/after comparisons read both runs' rounds.
        rounds: Some(Rounds {
            medians_ns: vec![median_ns * 0.99, median_ns, median_ns * 1.01],
            processes: 3,
            widened: false,
            machine_sd: None,
        }),
        allocations: None,
        raw: RawSamples {
            workload_ns: (0..n).map(|i| median_ns + i as f64 * 0.1).collect(),
            baseline_ns: (0..n).map(|i| 0.7 + i as f64 * 0.001).collect(),
        },
        stored_at: None,
        throughput: None,
    }
}

/// `result` as a lookup returns it: `stored_at` set (checked to be about now), raw samples
/// left to the caller.
pub fn without_stored_at(mut result: BenchResult) -> BenchResult {
    let stored_at = result
        .stored_at
        .take()
        .expect("a stored result has stored_at");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    assert!(
        stored_at <= now && now - stored_at < 600,
        "stored_at {stored_at} is about now ({now})"
    );
    result
}

/// The files in `dir`, sorted by name.
pub fn files_in(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A plain result of `id` with the given median and 100 raw samples of each kind.
pub fn result(id: &str, median_ns: f64) -> BenchResult {
    result_with_samples(id, median_ns, 100)
}

/// A result that uses every optional field: args, group, warnings and a comparison.
pub fn rich_result(id: &str, median_ns: f64, verdict: Verdict) -> BenchResult {
    let mut result = result(id, median_ns);
    result.args = Some("1000".to_owned());
    result.group = Some("parsers".to_owned());
    result.baseline = true;
    result.partial = true;
    result.warnings = vec![Warning::new(
        "optimized_away",
        "use black_box on the result",
    )];
    result.comparison = Some(Comparison {
        machine: None,
        against: "run 1".to_owned(),
        ratio: 0.83,
        low: 0.8,
        high: 0.86,
        p_value: 0.001_2,
        verdict,
        kind: None,
    });
    result.allocations = Some(Allocations {
        per_op: 2.5,
        bytes_per_op: 96.0,
    });
    result
}

/// The arguments that make this test binary, run again as a child, run only the test `name`
/// of the module at `module_path` (the caller's `module_path!()`). libtest names a test by its
/// module path without the crate (`crash::writer_records_until_told_to_stop` in the merged
/// binary), and a name that matches nothing would run nothing and exit 0: built here, the name
/// follows the file wherever it is compiled.
pub fn only_test(module_path: &str, name: &str) -> [String; 3] {
    let test = match module_path.split_once("::") {
        Some((_crate, module)) => format!("{module}::{name}"),
        None => name.to_owned(),
    };
    ["--exact".to_owned(), test, "--nocapture".to_owned()]
}
