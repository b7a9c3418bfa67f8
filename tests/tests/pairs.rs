//! Paired comparison groups on real code with known differences.

mod support;

use support::{json_report, result};

/// Runs of the A/A and A/B pairs taken by the test below.
const RUNS: usize = 5;

/// Identical code reads `same`, and 5% more work `slower`, at the rates a calibrated engine
/// meets: every run's ratio comes from rounds in fresh processes, its interval from the
/// variation between them, and a verdict needs the whole interval past the threshold, so a
/// false verdict on identical code is rare (docs/calibration.md measures how rare). The test
/// once measured the A/A pair again when it was not `same` and judged only the second try;
/// it now judges every run.
#[test]
fn a_a_is_same_and_five_percent_more_work_is_slower() {
    let reports: Vec<serde_json::Value> = (0..RUNS)
        .map(|_| {
            json_report(
                env!("CARGO_BIN_EXE_pairs"),
                &["--time", "0.3", "aa_", "ab5_"],
            )
        })
        .collect();
    let verdicts = |id: &str| -> Vec<String> {
        reports
            .iter()
            .map(|r| {
                let c = &result(r, id)["comparison"];
                format!("{} {}", c["verdict"].as_str().unwrap_or("none"), c["ratio"])
            })
            .collect()
    };
    let same = verdicts("pairs::aa_same");
    // At most one of five: a calibrated engine's false verdicts on identical code are far
    // rarer than one in five, and an engine that makes identical code differ fails.
    assert!(
        same.iter().filter(|v| v.starts_with("same ")).count() >= RUNS - 1,
        "A/A: {same:?}"
    );
    let slower = verdicts("pairs::ab5_plus_5pct");
    assert!(
        slower.iter().filter(|v| v.starts_with("slower ")).count() >= RUNS - 1,
        "+5%: {slower:?}"
    );
    let report = &reports[0];
    assert_eq!(
        result(report, "pairs::aa_same")["comparison"]["against"],
        "pairs::aa_base"
    );
    let plus5 = &result(report, "pairs::ab5_plus_5pct")["comparison"];
    assert_eq!(plus5["against"], "pairs::ab5_base");
    let ratio = plus5["ratio"].as_f64().unwrap();
    assert!(
        (1.02..1.08).contains(&ratio),
        "a 5% longer chain measured as {ratio}"
    );
    // Baselines are reported too, without a comparison of their own in a fresh history.
    assert!(result(report, "pairs::ab5_base")["comparison"].is_null());
}

#[test]
fn a_regression_beyond_the_limit_fails_the_run() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pairs"))
        .args([
            "--bench",
            "--no-history",
            "--time",
            "0.3",
            "--fail-on-regression",
            "3",
            "ab5_",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("regression: pairs::ab5_plus_5pct"), "{err}");
    let ok = std::process::Command::new(env!("CARGO_BIN_EXE_pairs"))
        .args([
            "--bench",
            "--no-history",
            "--time",
            "0.3",
            "--fail-on-regression",
            "20",
            "ab5_",
        ])
        .output()
        .unwrap();
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
}
