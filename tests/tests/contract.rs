//! The machine-readable contract, checked from the consumer's side: these `Deserialize`
//! types are written from `docs/json-format.md`, not imported from the protocol crate, so a
//! renamed or missing field fails here even if every internal type changed with it.

use std::process::Command;

use serde::Deserialize;

/// The most raw samples of each kind a JSON result holds (docs/json-format.md, `raw`).
const RAW_SAMPLES_AT_MOST: u64 = 10_000;

#[derive(Debug, Deserialize)]
struct Report {
    version: u32,
    manifest: Manifest,
    results: Vec<Result>,
    failures: Vec<Failure>,
}

#[derive(Debug, Deserialize)]
struct Manifest {
    knotmeter_version: String,
    rustc: String,
    profile: String,
    opt_level: String,
    debug_assertions: bool,
    target: String,
    cpu: String,
    cores: u32,
    timer: Timer,
    git_commit: Option<String>,
    warnings: Vec<Warning>,
}

#[derive(Debug, Deserialize)]
struct Timer {
    kind: String,
    precision_ns: f64,
    read_cost_ns: f64,
}

#[derive(Debug, Deserialize)]
struct Result {
    id: String,
    name: String,
    args: Option<String>,
    group: Option<String>,
    baseline: bool,
    estimate: Estimate,
    overhead: Overhead,
    cold_ns: f64,
    ops_per_sample: u64,
    samples: u64,
    warnings: Vec<Warning>,
    comparison: Option<Comparison>,
    raw: Raw,
}

#[derive(Debug, Deserialize)]
struct Comparison {
    against: String,
    ratio: f64,
    low: f64,
    high: f64,
    p_value: f64,
    verdict: String,
}

#[derive(Debug, Deserialize)]
struct Estimate {
    median_ns: f64,
    low_ns: f64,
    high_ns: f64,
    mean_ns: f64,
}

#[derive(Debug, Deserialize)]
struct Overhead {
    per_op_ns: f64,
    drift: Option<f64>,
    capped: u64,
}

#[derive(Debug, Deserialize)]
struct Raw {
    workload_ns: Vec<f64>,
    baseline_ns: Vec<f64>,
}

#[derive(Debug, Deserialize)]
struct Warning {
    code: String,
    message: String,
}

#[derive(Debug, Deserialize)]
struct Failure {
    id: String,
    kind: String,
    message: String,
    location: Option<String>,
}

/// Runs the fixture with its history in `history` (a file in a fresh temporary directory).
fn fixture_with_history(history: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_fixture"))
        .args(args)
        .env("KNOTMETER_HISTORY", history)
        .output()
        .expect("the fixture bench binary runs")
}

fn fixture(args: &[&str]) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    fixture_with_history(&dir.path().join("history.db"), args)
}

fn assert_comparison_is_well_formed(c: &Comparison) {
    assert!(c.low <= c.ratio && c.ratio <= c.high, "{c:?}");
    assert!(c.ratio > 0.0 && (0.0..=1.0).contains(&c.p_value), "{c:?}");
    assert!(
        ["faster", "slower", "same"].contains(&c.verdict.as_str()),
        "{c:?}"
    );
}

#[test]
fn json_report_has_every_documented_field() {
    let out = fixture(&[
        "--bench", "--format", "json", "--time", "0.05", "--skip", "failing",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Report =
        serde_json::from_slice(&out.stdout).expect("stdout is one Report document");
    assert_eq!(report.version, 1);
    assert!(report.failures.is_empty());

    let m = &report.manifest;
    assert!(
        !m.knotmeter_version.is_empty() && m.rustc.starts_with("rustc "),
        "{m:?}"
    );
    assert!(
        !m.profile.is_empty() && !m.opt_level.is_empty() && m.target.contains('-'),
        "{m:?}"
    );
    assert!(!m.cpu.is_empty() && m.cores >= 1, "{m:?}");
    assert_eq!(m.timer.kind, "instant");
    assert!(
        m.timer.precision_ns > 0.0 && m.timer.read_cost_ns > 0.0,
        "{m:?}"
    );
    // The fixture is built by `cargo test` with debug assertions: the manifest must say so.
    assert!(m.debug_assertions);
    assert!(m
        .warnings
        .iter()
        .any(|w| w.code == "debug_build" && !w.message.is_empty()));
    let _ = &m.git_commit;

    let ids: Vec<&str> = report.results.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "fixture::plain",
            "fixture::sized/10",
            "fixture::sized/1000",
            "fixture::explicit",
            "fixture::pair_a",
            "fixture::pair_b",
            "fixture::awaited",
        ]
    );
    for r in &report.results {
        let e = &r.estimate;
        assert!(e.low_ns <= e.median_ns && e.median_ns <= e.high_ns, "{r:?}");
        assert!(
            e.median_ns > 0.0 && e.mean_ns > 0.0,
            "{}: real work measured as {e:?}",
            r.id
        );
        assert!(
            r.overhead.per_op_ns > 0.0 && r.overhead.drift.is_some_and(f64::is_finite),
            "{r:?}"
        );
        assert!(r.overhead.capped <= r.samples);
        assert!(
            r.cold_ns > 0.0 && r.ops_per_sample >= 1 && r.samples >= 5,
            "{r:?}"
        );
        // docs/json-format.md: every sample, or at most 10 000 of them, evenly spaced.
        let raw = r.samples.min(RAW_SAMPLES_AT_MOST);
        assert_eq!(r.raw.workload_ns.len() as u64, raw, "{} samples", r.samples);
        assert_eq!(r.raw.baseline_ns.len() as u64, raw, "{} samples", r.samples);
        if let Some(c) = &r.comparison {
            assert_comparison_is_well_formed(c);
        }
        for w in &r.warnings {
            assert!(!w.code.is_empty() && !w.message.is_empty());
        }
    }
    let sized = &report.results[2];
    assert_eq!(
        (sized.name.as_str(), sized.args.as_deref()),
        ("sized", Some("1000"))
    );
    assert!(
        sized.estimate.median_ns > report.results[1].estimate.median_ns * 10.0,
        "cost grows with n"
    );
    let pair_a = &report.results[4];
    assert_eq!(
        (pair_a.group.as_deref(), pair_a.baseline),
        (Some("pair"), true)
    );
    assert_eq!(report.results[0].args, None);
    // In a fresh history, only the group member has a comparison: against its baseline.
    let compared: Vec<(&str, &str)> = report
        .results
        .iter()
        .filter_map(|r| Some((r.id.as_str(), r.comparison.as_ref()?.against.as_str())))
        .collect();
    assert_eq!(compared, [("fixture::pair_b", "fixture::pair_a")]);
}

#[test]
fn second_run_is_compared_with_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let history = dir.path().join("history.db");
    let args = [
        "--bench",
        "--format",
        "json",
        "--quick",
        "--exact",
        "plain",
        "sized/1000",
    ];
    let first = fixture_with_history(&history, &args);
    assert!(first.status.success());
    let second = fixture_with_history(&history, &args);
    assert!(
        second.status.success(),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    let report: Report = serde_json::from_slice(&second.stdout).unwrap();
    assert_eq!(report.results.len(), 2);
    for r in &report.results {
        let c = r
            .comparison
            .as_ref()
            .unwrap_or_else(|| panic!("{} was not compared with the stored run", r.id));
        assert_comparison_is_well_formed(c);
        assert_eq!(c.against, "run 1");
    }
}

#[test]
fn jsonl_streams_events_in_order() {
    let out = fixture(&[
        "--bench",
        "--format",
        "jsonl",
        "--quick",
        "--exact",
        "fixture::plain",
        "failing::panics",
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a failed case makes the exit status 1"
    );
    let events: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).expect("every line is one JSON object"))
        .collect();
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.first(), Some(&"run_started"));
    assert_eq!(kinds.last(), Some(&"run_finished"));
    let finished = events
        .iter()
        .find(|e| e["event"] == "case_finished")
        .expect("a case_finished event");
    let result: Result =
        serde_json::from_value(finished["result"].clone()).expect("the same result object as json");
    assert_eq!(result.id, "fixture::plain");
    let failed = events
        .iter()
        .find(|e| e["event"] == "case_failed")
        .expect("a case_failed event");
    let failure: Failure = serde_json::from_value(failed.clone()).unwrap();
    assert_eq!(
        (failure.id.as_str(), failure.kind.as_str()),
        ("fixture::failing::panics", "panic")
    );
    assert_eq!(failure.message, "the fixture panics on purpose");
    assert!(failure.location.unwrap().contains("fixture.rs:"));
    let started = &events[0];
    assert_eq!(started["cases"].as_array().unwrap().len(), 2);
    let summary = events.last().unwrap();
    assert_eq!(
        (summary["passed"].as_u64(), summary["failed"].as_u64()),
        (Some(1), Some(1))
    );
}
