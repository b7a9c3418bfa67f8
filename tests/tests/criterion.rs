//! criterion's API on knotmeter (knotmeter-criterion) as a bench binary, from the consumer's
//! side: faults a criterion suite can have give clear errors and lose nothing else, and
//! criterion benchmarks take the engine's filters and test mode. The fixture is
//! `src/bin/criterion_faults.rs`; every run has its own history file.

use std::process::{Command, Output};

use serde_json::Value;

/// Runs the fixture with `fault` (empty for none) and `args`, with its own history.
fn run(fault: &str, args: &[&str]) -> Output {
    let history = tempfile::tempdir().unwrap();
    Command::new(env!("CARGO_BIN_EXE_criterion_faults"))
        .args(args)
        .env("KNOTMETER_FIXTURE_FAULT", fault)
        .env("KNOTMETER_HISTORY", history.path().join("history.db"))
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn two_criterion_benchmarks_with_one_id_are_a_clear_error_before_anything_runs() {
    let out = run("duplicate", &["--bench", "--format", "json"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("two benchmarks have the id `criterion_faults::twice`")
            && stderr.contains("tests/src/bin/criterion_faults.rs:"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "nothing was measured or reported");
}

#[test]
fn a_compared_group_whose_baseline_is_misnamed_is_a_clear_error_before_anything_runs() {
    let out = run("misnamed_baseline", &["--bench", "--format", "json"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("comparison group `sorts` has no baseline: its members (stable (")
            && stderr.contains("unstable (tests/src/bin/criterion_faults.rs:")
            && stderr.contains("`knotmeter_compare_against` must name one of them"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "nothing was measured or reported");
}

#[test]
fn a_group_function_that_panics_while_listing_is_a_clear_error() {
    let out = run("listing_panic", &["--list"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("panicked while its benchmarks were listed (boom while setting up)"),
        "{stderr}"
    );
}

#[test]
fn a_benchmark_whose_name_changes_between_listing_and_measuring_fails_and_says_why() {
    let out = run("moving_name", &["--bench", "--quick", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let failure = &report["failures"][0];
    assert_eq!(failure["id"], "criterion_faults::moving 0", "{report}");
    assert!(
        failure["message"]
            .as_str()
            .unwrap()
            .contains("ids must come out the same every time"),
        "{failure}"
    );
}

#[test]
fn criterion_benchmarks_take_filters_run_once_in_test_mode_and_fail_alone() {
    // Test mode (no --bench, as under `cargo test --benches`): each runs once.
    let out = run("", &[]);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("test sized/work/10 ... ok"), "{stdout}");
    assert!(
        stdout.contains("test no_timing_call ... FAILED"),
        "{stdout}"
    );
    assert!(stdout.contains("test ticks ... FAILED"), "{stdout}");
    assert!(stdout.contains("3 passed; 2 failed"), "{stdout}");

    let out = run(
        "",
        &[
            "--bench",
            "--quick",
            "--format",
            "json",
            "--exact",
            "sized/work/1000",
            "ticks",
        ],
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = report["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{report}");
    let work = &results[0];
    assert_eq!(work["id"], "criterion_faults::sized/work/1000");
    assert_eq!(work["throughput"]["unit"], "elements");
    assert_eq!(work["throughput"]["per_operation"], 1000);
    // A custom measurement is not reported in nanoseconds: the benchmark fails and says why.
    let failure = &report["failures"][0];
    assert_eq!(failure["id"], "criterion_faults::ticks");
    let message = failure["message"].as_str().unwrap();
    assert!(message.contains("measures wall time only"), "{message}");
    assert_eq!(out.status.code(), Some(1));
}

/// Regression: each case's replay index was its place in its own group, so the first case of
/// the second `criterion_group!` replayed the first group's first closure and measured that.
#[test]
fn a_case_of_the_second_group_measures_its_own_closure_not_the_first_groups() {
    let out = run("", &["--exact", "ticks"]);
    let stdout = text(&out.stdout);
    // `ticks` (second group, under a custom measurement) fails as only it can; `plain` (the
    // first group's first case) would pass.
    assert!(stdout.contains("test ticks ... FAILED"), "{stdout}");
    assert!(stdout.contains("measures wall time only"), "{stdout}");
}

/// CI scripts written for criterion pass `--noplot`; it was an unknown flag (status 2).
#[test]
fn criterions_noplot_flag_is_accepted_and_changes_nothing() {
    let out = run("", &["--bench", "--quick", "--noplot", "--exact", "plain"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("plain"), "{}", text(&out.stdout));
}
