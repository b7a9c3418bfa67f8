//! The shared presentation fixtures (`tests/fixtures/cases.json`) rendered by [`shown`] and
//! compared with the checked-in `tests/fixtures/shown.json`, the file the engine's reporters,
//! the daemon's surfaces and the VS Code extension are tested against too.
//! `UPDATE_EXPECT=1 cargo test -p knotmeter-format` rewrites it.

use std::collections::BTreeMap;
use std::path::PathBuf;

use knotmeter_format::profile::cost_text;
use knotmeter_format::profile_compared::signed_cost_text;
use knotmeter_format::text::{mode_label, EMPTY_ESTIMATE};
use knotmeter_format::units::format_duration_ns;
use knotmeter_format::{shown, Tally};
use knotmeter_protocol::{BenchResult, BenchSummary, Outcome, Shown};
use serde::Deserialize;

/// One fixture: a result, and the analysis of its benchmark where it has one.
#[derive(Deserialize)]
struct Case {
    name: String,
    result: BenchResult,
    bench: Option<BenchSummary>,
}

#[derive(Deserialize)]
struct Cases {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Units {
    durations: Vec<(f64, String)>,
    modes: Vec<(Option<u64>, String)>,
    costs: Vec<(f64, String, String)>,
    signed_costs: Vec<(f64, String, String)>,
}

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(fixtures().join("cases.json")).unwrap();
    serde_json::from_str::<Cases>(&text).unwrap().cases
}

fn rendered() -> BTreeMap<String, Shown> {
    cases()
        .iter()
        .map(|case| (case.name.clone(), shown(&case.result, case.bench.as_ref())))
        .collect()
}

#[test]
fn the_shared_fixtures_render_as_checked_in() {
    let path = fixtures().join("shown.json");
    let fresh = format!("{}\n", serde_json::to_string_pretty(&rendered()).unwrap());
    if std::env::var_os("UPDATE_EXPECT").is_some_and(|v| !v.is_empty()) {
        std::fs::write(&path, &fresh).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "tests/fixtures/shown.json is stale: rerun with UPDATE_EXPECT=1 and review the diff\n{fresh}"
    );
}

#[test]
fn durations_modes_and_costs_read_as_the_shared_table_says() {
    let text = std::fs::read_to_string(fixtures().join("units.json")).unwrap();
    let units: Units = serde_json::from_str(&text).unwrap();
    for (ns, expected) in units.durations {
        assert_eq!(format_duration_ns(ns), expected, "{ns} ns");
    }
    for (budget, expected) in units.modes {
        assert_eq!(mode_label(budget), expected, "{budget:?} ms");
    }
    for (per_op, unit, expected) in units.costs {
        assert_eq!(cost_text(per_op, &unit), expected, "{per_op} {unit}");
    }
    for (change, unit, expected) in units.signed_costs {
        assert_eq!(signed_cost_text(change, &unit), expected, "{change} {unit}");
    }
}

#[test]
fn a_body_optimised_away_never_shows_a_number() {
    let all = rendered();
    let empty = &all["optimized_away"];
    assert_eq!(empty.figure, EMPTY_ESTIMATE);
    assert_eq!(empty.headline, EMPTY_ESTIMATE);
    assert_eq!(empty.outcome, Outcome::Warned);
    assert!(!empty.line.contains("ns"), "{}", empty.line);
    assert!(!empty.detail.contains("median"), "{}", empty.detail);
}

#[test]
fn warnings_fail_notes_do_not_and_each_has_its_mark() {
    let all = rendered();
    for name in ["flat_scaling_case", "high_noise", "optimized_away"] {
        assert_eq!(all[name].outcome, Outcome::Warned, "{name}");
    }
    assert_eq!(all["partial"].outcome, Outcome::Partial);
    let notes = &all["info_notes_only"];
    assert_eq!(notes.outcome, Outcome::Passed);
    // Its notes (detail-only ones) are marked ℹ in the details, and nothing warns.
    assert_eq!(
        notes.detail.lines().filter(|l| l.starts_with("ℹ ")).count(),
        3,
        "{}",
        notes.detail
    );
    assert!(!notes.detail.contains('⚠'), "{}", notes.detail);
    assert!(!notes.line.contains('⚠'), "{}", notes.line);
    let flat = &all["flat_scaling_case"];
    assert!(flat
        .notes
        .iter()
        .any(|n| n.bench && n.code == "flat_scaling"));
    assert!(flat.line.contains("⚠ flat_scaling"), "{}", flat.line);
}

#[test]
fn verdicts_say_what_they_are_against() {
    let all = rendered();
    let verdict = |name: &str| all[name].verdict.clone().unwrap_or_default();
    assert_eq!(
        verdict("group_member_slower"),
        "1.0% slower than sort_stable"
    );
    assert_eq!(verdict("faster_than_history"), "3.1% faster than run 7");
    assert_eq!(
        verdict("group_member_twice_as_fast"),
        "2.49× faster than sort_stable"
    );
    assert_eq!(
        verdict("args_case_with_named_baseline"),
        "5.0% faster than baseline main"
    );
    assert!(all["group_baseline"].verdict.is_none());
}

#[test]
fn a_member_is_never_said_to_have_nothing_to_compare_against() {
    // Its comparison arrives at the end of the run; before that (and on a first run) nothing
    // may claim there was nothing to compare it with.
    let member = cases()
        .into_iter()
        .find(|c| c.name == "group_member_slower")
        .unwrap();
    let mut result = member.result;
    result.comparison = None;
    result.reproducibility = Some(knotmeter_protocol::Reproducibility {
        spread: None,
        runs: 0,
        runs_needed: 5,
        learnt_from: None,
    });
    let detail = shown(&result, None).detail;
    assert!(!detail.contains("compare"), "{detail}");
    let first = &rendered()["first_run"];
    assert!(first
        .detail
        .contains("no earlier run on this machine in this mode to compare against"));
}

#[test]
fn the_headline_interval_is_the_rounds_never_one_process_samples() {
    let all = rendered();
    assert_eq!(all["faster_than_history"].headline, "12.3 ns ±1.8%");
    // Known from the first run: the rounds give it, not the history.
    assert_eq!(all["first_run"].headline, "1.54 µs ±1.8%");
    assert_eq!(all["no_history"].headline, "1.39 µs ±1.8%");
    // One round, or a result measured in one stretch: no ± beside the figure, whose interval
    // covered one process; the details say so.
    assert_eq!(all["one_round"].headline, "812 ns");
    assert_eq!(all["stored_by_an_older_engine"].headline, "1.54 µs");
    assert!(all["stored_by_an_older_engine"]
        .detail
        .contains("it covers that process alone, and a rerun may land outside it"));
    for shown in all.values() {
        assert!(!shown.line.contains("not known"), "{}", shown.line);
        assert!(!shown.line.contains("±0.4%"), "{}", shown.line);
    }
    // What the ± means: one sentence of the details.
    assert!(all["first_run"].detail.contains(
        "±1.8%: the 95% interval of the estimate, [1.51 µs, 1.56 µs], over 10 rounds, each in a \
         fresh process: where a rerun on this machine should land"
    ));
    // Widened to the spread between runs the history learnt, it says so.
    assert!(all["faster_than_history"].detail.contains(
        "±1.8%: the 95% interval of the estimate, [12.1 ns, 12.5 ns], over 10 rounds, each in a \
         fresh process, widened to how far whole runs of it move on this machine (learnt from \
         the history): where a rerun on this machine should land"
    ));
    // With the machine's move learnt from the history's probes, it says how far it moves.
    let mut learnt = cases()
        .into_iter()
        .find(|case| case.name == "first_run")
        .unwrap()
        .result;
    learnt.rounds.as_mut().unwrap().machine_sd = Some(0.0213);
    assert!(shown(&learnt, None).detail.contains(
        "±1.8%: the 95% interval of the estimate, [1.51 µs, 1.56 µs], over 10 rounds, each in a \
         fresh process, with how far this machine's speed moves between runs (2.1%, learnt from \
         the history): where a rerun on this machine should land"
    ));
    // The history's spread stays in the details, once known.
    assert!(all["faster_than_history"]
        .detail
        .contains("between stored runs on this machine: ±1.5%"));
    assert!(!all["first_run"].detail.contains("between stored runs"));
}

#[test]
fn notes_that_fire_on_nearly_every_case_are_in_the_details_only() {
    let all = rendered();
    let notes = &all["info_notes_only"];
    assert!(notes.notes.is_empty(), "{:?}", notes.notes);
    assert_eq!(notes.line, "143 ns ±2.4%");
    for code in ["outliers", "multimodal", "wide_interval"] {
        assert!(notes.detail.contains(&format!("ℹ {code}: ")), "{code}");
    }
}

#[test]
fn a_result_read_back_from_the_history_says_when_it_was_stored() {
    let case = cases()
        .into_iter()
        .find(|c| c.name == "faster_than_history")
        .unwrap();
    let mut result = case.result;
    assert!(!shown(&result, None).line.contains("stored"));
    result.stored_at = Some(1_764_531_720);
    let stored = shown(&result, None);
    assert!(
        stored.line.ends_with(" · stored 2025-11-30 19:42 UTC"),
        "{}",
        stored.line
    );
}

#[test]
fn outcomes_are_tallied_apart() {
    let mut tally = Tally::default();
    for shown in rendered().values() {
        tally.measured(shown.outcome);
    }
    assert_eq!(tally.text(), "10 passed, 5 warned, 1 partial");
}

#[test]
fn a_declared_throughput_replaces_operations_per_second_in_the_details() {
    let mut result = cases().remove(0).result;
    let plain = shown(&result, None).detail;
    assert!(plain.contains(" ops/s"), "{plain}");
    // criterion's `Throughput::Bytes(1024)` at 1 µs per operation: 1 KiB per µs.
    result.estimate.median_ns = 1000.0;
    result.throughput = Some(knotmeter_protocol::Throughput::at(
        knotmeter_protocol::ThroughputUnit::Bytes,
        1024,
        1000.0,
        990.0,
        1010.0,
    ));
    let detail = shown(&result, None).detail;
    assert!(detail.contains("; 977 MiB/s"), "{detail}");
    assert!(!detail.contains("ops/s"), "{detail}");
}

#[test]
fn an_interval_wider_than_its_estimate_is_shown_as_the_range_it_is() {
    // Two rounds of a `--quick` run under load once stored `800 ns ±40998%`: a ± that says
    // nothing a reader can use. Every surface shows the interval itself instead.
    let all = rendered();
    let wide = &all["wide_interval"];
    assert_eq!(wide.spread, "[0.40 ns, 329 µs]");
    assert!(
        wide.headline.starts_with("800 ns [0.40 ns, 329 µs]"),
        "{}",
        wide.headline
    );
    for (surface, text) in [
        ("headline", &wide.headline),
        ("line", &wide.line),
        ("detail", &wide.detail),
    ] {
        assert!(!text.contains("±4"), "{surface}: {text}");
    }
    assert!(
        wide.detail.contains("too wide for a ± to mean anything"),
        "{}",
        wide.detail
    );
    // The engine warns of such an interval: never a tick beside a figure nobody knows.
    assert_eq!(wide.outcome, Outcome::Warned);
    assert!(wide.line.contains("⚠ imprecise"), "{}", wide.line);
}
