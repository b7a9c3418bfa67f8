//! `--measure instructions`: each case counted under Valgrind's callgrind. The same build
//! counts the same, a change of work is a change of count, the gate and the groups compare
//! counts, and counts never meet times in the history. Needs `valgrind` on PATH (`.ci/run`
//! installs Debian's).

use std::process::Output;

use serde_json::Value;

use crate::history_support::TempHistory;

/// Steps of the midway fixture's chain: the baseline's, and 1% more work.
const WORK: &str = "2000";
const ONE_PERCENT_MORE: &str = "2020";

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `midway --bench --quick --measure instructions --exact first ARGS` with `steps` of work.
fn counted(h: &TempHistory, steps: &str, args: &[&str]) -> Output {
    let mut all = vec!["--measure", "instructions", "--exact", "first"];
    all.extend_from_slice(args);
    h.midway(&all, &[("KNOTMETER_FIXTURE_WORK", steps)])
}

fn first_result(report: &Value) -> &Value {
    report["results"]
        .as_array()
        .and_then(|r| r.iter().find(|r| r["id"] == "midway::first"))
        .unwrap_or_else(|| panic!("no result of midway::first in {report}"))
}

#[test]
fn the_same_build_counts_the_same_exactly() {
    let h = TempHistory::new();
    let mut estimates = Vec::new();
    for _ in 0..2 {
        let out = counted(&h, WORK, &["--format", "json", "--no-history"]);
        assert!(out.status.success(), "{}", stderr(&out));
        let report = h.json(&out);
        assert_eq!(report["manifest"]["measure"], "instructions", "{report}");
        let result = first_result(&report);
        assert_eq!(result["measure"], "instructions");
        let estimate = &result["estimate"];
        let median = estimate["median_ns"].as_f64().unwrap();
        assert_eq!(estimate["low_ns"], estimate["high_ns"], "{estimate}");
        assert_eq!(
            estimate["low_ns"].as_f64(),
            Some(median),
            "exact: {estimate}"
        );
        // The chain's 2000 steps, a few instructions each: thousands per operation, and the
        // harness's loop counted apart.
        assert!(median > 2000.0, "{median}");
        assert!(result["overhead"]["per_op_ns"].as_f64().unwrap() > 0.0);
        assert!(result["rounds"].is_null() && result["throughput"].is_null());
        estimates.push(median);
    }
    assert_eq!(estimates[0], estimates[1], "two processes, one count");
}

#[test]
fn one_percent_more_work_is_slower_and_fails_the_gate_and_the_same_passes() {
    let h = TempHistory::new();
    let out = counted(&h, WORK, &["--save-baseline", "main"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let gate = [
        "--baseline",
        "main",
        "--fail-on-regression",
        "0.5",
        "--format",
        "json",
    ];
    let out = counted(&h, ONE_PERCENT_MORE, &gate);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let comparison = first_result(&h.json(&out))["comparison"].clone();
    assert_eq!(comparison["verdict"], "slower", "{comparison}");
    let ratio = comparison["ratio"].as_f64().unwrap();
    assert!((1.005..1.015).contains(&ratio), "{comparison}");
    assert_eq!(comparison["low"], comparison["high"], "{comparison}");
    assert!(
        stderr(&out).contains("regression: midway::first"),
        "{}",
        stderr(&out)
    );

    let out = counted(&h, WORK, &gate);
    assert!(out.status.success(), "{}", stderr(&out));
    let comparison = first_result(&h.json(&out))["comparison"].clone();
    assert_eq!(comparison["verdict"], "same", "{comparison}");
    assert_eq!(comparison["ratio"], 1.0, "{comparison}");
}

#[test]
fn counts_are_never_compared_with_times() {
    let h = TempHistory::new();
    let timed = h.midway(&["--exact", "first"], &[("KNOTMETER_FIXTURE_WORK", WORK)]);
    assert!(timed.status.success(), "{}", stderr(&timed));
    let out = counted(&h, WORK, &["--format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let result = first_result(&h.json(&out)).clone();
    assert!(
        result["comparison"].is_null(),
        "a count against a time: {result}"
    );
    // The next count meets the count.
    let out = counted(&h, WORK, &["--format", "json"]);
    let report = h.json(&out);
    assert_eq!(first_result(&report)["comparison"]["verdict"], "same");
    // And the next time meets the time, not the counts stored since.
    let timed = h.midway(
        &["--exact", "first", "--format", "json"],
        &[("KNOTMETER_FIXTURE_WORK", WORK)],
    );
    let report = h.json(&timed);
    let against = first_result(&report)["comparison"]["against"].clone();
    assert_eq!(against, "run 1", "{report}");
}

#[test]
fn a_group_member_is_compared_with_its_baseline_by_count() {
    let h = TempHistory::new();
    let out = h.fixture(&[
        "--measure",
        "instructions",
        "--no-history",
        "--exact",
        "pair_a",
        "pair_b",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = h.json(&out);
    let member = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "fixture::pair_b")
        .unwrap_or_else(|| panic!("{report}"));
    let comparison = &member["comparison"];
    assert_eq!(comparison["kind"], "group", "{comparison}");
    assert_eq!(comparison["against"], "fixture::pair_a");
    // pair_b folds 44 values, pair_a 40: 10% more work, counted.
    assert_eq!(comparison["verdict"], "slower", "{comparison}");
    let ratio = comparison["ratio"].as_f64().unwrap();
    assert!((1.05..1.15).contains(&ratio), "{comparison}");
}

#[test]
fn without_valgrind_the_count_fails_at_once_naming_the_package() {
    let h = TempHistory::new();
    let out = h
        .midway_command(&["--measure", "instructions"], &[])
        .env("PATH", "/nonexistent-knotmeter-dir")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("apt install valgrind"), "{err}");
    // Time still works without it.
    let out = h
        .midway_command(&["--exact", "first", "--no-history"], &[])
        .env("PATH", "/nonexistent-knotmeter-dir")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

/// criterion's `iter_custom` times itself: counted, its whole routine is the count, with no
/// empty body to subtract (said). It failed with "callgrind dumped no count" before. This one
/// only reports 10 ns per iteration and runs nothing: its count per operation is nothing, and
/// the count says so where the time took the routine's word.
#[test]
fn a_criterion_benchmark_that_times_itself_is_counted_whole() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_criterion_accuracy"))
        .args([
            "--bench",
            "--measure",
            "instructions",
            "--no-history",
            "--format",
            "json",
            "--exact",
            "custom_10ns",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let result = &report["results"][0];
    assert_eq!(result["measure"], "instructions", "{report}");
    assert_eq!(result["estimate"]["median_ns"], 0.0, "{result}");
    let codes: Vec<&str> = result["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w["code"].as_str())
        .collect();
    assert_eq!(codes, ["self_timed", "optimized_away"], "{result}");
}

/// `--cache-sim`: every access is served somewhere, so the hits are at least the instructions
/// (each fetched once), and the cycles follow gungraun's formula; without it, no cache figures.
#[test]
fn the_cache_simulation_gives_hits_and_estimated_cycles_per_operation() {
    let h = TempHistory::new();
    let out = counted(
        &h,
        WORK,
        &["--cache-sim", "--format", "json", "--no-history"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let report = h.json(&out);
    let result = first_result(&report);
    let instructions = result["estimate"]["median_ns"].as_f64().unwrap();
    let cache = &result["cache"];
    let hit = |name: &str| cache[name].as_f64().unwrap_or_else(|| panic!("{cache}"));
    let hits = hit("l1_hits") + hit("ll_hits") + hit("ram_hits");
    assert!(
        hits >= instructions,
        "{hits} accesses for {instructions} instructions: {cache}"
    );
    let cycles = hit("l1_hits") + 5.0 * hit("ll_hits") + 35.0 * hit("ram_hits");
    assert!((hit("estimated_cycles") - cycles).abs() < 1e-6, "{cache}");
    let out = counted(&h, WORK, &["--format", "json", "--no-history"]);
    assert!(first_result(&h.json(&out)).get("cache").is_none());
}
