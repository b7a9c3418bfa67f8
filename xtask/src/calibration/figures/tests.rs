//! The figures from made-up runs whose answers can be counted by hand.

use super::*;
use crate::calibration::report::Comparison;
use crate::calibration::trials::Trial;

/// A case `c::NAME` with `median` and an interval of ± `half` around it.
fn case(name: &str, median: f64, half: f64) -> Case {
    Case {
        id: format!("c::{name}"),
        group: None,
        median,
        interval: (median - half, median + half),
        comparison: None,
        rounds: vec![median; 10],
        widened: false,
        spread: None,
        workload: Vec::new(),
        baseline_ns: Vec::new(),
    }
}

fn compared(mut c: Case, kind: &str, ratio: f64, half: f64, verdict: &str) -> Case {
    c.comparison = Some(Comparison {
        against: if kind == "history" {
            "run 1"
        } else {
            "c::base"
        }
        .into(),
        kind: Some(kind.into()),
        ratio,
        low: ratio - half,
        high: ratio + half,
        verdict: verdict.into(),
    });
    c
}

fn member(ratio: f64, half: f64, verdict: &str) -> Case {
    let mut c = compared(case("same_b", 100.0, 1.0), "group", ratio, half, verdict);
    c.group = Some("same_code".into());
    c
}

fn run(cases: Vec<Case>) -> Run {
    Run { cases, wall_s: 2.0 }
}

#[test]
fn a_cases_spread_counts_pairs_and_marks_both_targets() {
    // 100 ± 5 holds 104 and 96; 104 ± 1 holds neither; 96 ± 5 holds 100 only.
    let runs: Vec<Run> = [(100.0, 5.0), (104.0, 1.0), (96.0, 5.0)]
        .into_iter()
        .map(|(m, h)| run(vec![case("a", m, h)]))
        .collect();
    let [a] = &cases(&runs)[..] else { panic!() };
    assert_eq!((a.label.as_str(), a.centre), ("a", 100.0));
    assert_eq!(a.coverage, Count { hits: 3, of: 6 });
    assert_eq!(a.coverage_met(), Some(false));
    // Half-widths 5%, 0.96%, 5.2%: the median 5%; half-range 4%: 5% ≤ 2 × 4%.
    assert!((a.half_width - 0.05).abs() < 1e-12 && (a.half_range - 0.04).abs() < 1e-12);
    assert_eq!(a.width_met(), Some(true));
    assert_eq!(a.rounds, (10, 10));
}

#[test]
fn ratios_come_from_group_comparisons_only() {
    let runs = vec![
        run(vec![case("base", 100.0, 1.0), member(1.000, 0.002, "same")]),
        run(vec![case("base", 100.0, 1.0), member(1.001, 0.002, "same")]),
        // A before/after comparison of a member is not its ratio to the baseline.
        run(vec![compared(
            case("same_b", 100.0, 1.0),
            "history",
            1.3,
            0.01,
            "slower",
        )]),
    ];
    let [r] = &ratios(&runs)[..] else { panic!() };
    assert_eq!(r.label, "same_b (`same_code`)");
    assert_eq!(r.coverage, Count { hits: 2, of: 2 });
    assert_eq!(r.coverage_met(), Some(true));
    let [v] = &group_verdicts(&runs)[..] else {
        panic!()
    };
    assert_eq!(v.hits, Count { hits: 2, of: 2 });
    assert_eq!(v.want, Some(("same", 0.95)));
    assert_eq!(v.met(), Some(true));
}

#[test]
fn group_verdicts_are_held_against_the_share_their_group_needs() {
    let mut runs: Vec<Run> = (0..19)
        .map(|_| run(vec![member(1.0, 0.001, "same")]))
        .collect();
    runs.push(run(vec![member(1.01, 0.001, "slower")]));
    let [v] = &group_verdicts(&runs)[..] else {
        panic!()
    };
    // 19 of 20 is 95%: met; the other verdict is listed.
    assert_eq!(v.hits, Count { hits: 19, of: 20 });
    assert_eq!(v.met(), Some(true));
    assert_eq!(v.counts, vec![("same".into(), 19), ("slower".into(), 1)]);
    runs.push(run(vec![member(1.01, 0.001, "slower")]));
    assert_eq!(group_verdicts(&runs)[0].met(), Some(false));
}

#[test]
fn only_widened_intervals_hold_in_the_history_coverage_and_the_last_spread_is_kept() {
    let widened_case = |m: f64, h: f64, spread: Option<f64>| {
        let mut c = case("a", m, h);
        c.widened = spread.is_some();
        c.spread = spread;
        c
    };
    let runs = vec![
        run(vec![widened_case(100.0, 0.1, None)]),
        run(vec![widened_case(103.0, 0.1, None)]),
        run(vec![widened_case(101.0, 3.0, Some(0.03))]),
    ];
    let [w] = &widened(&runs)[..] else { panic!() };
    assert_eq!(w.widened, Count { hits: 1, of: 3 });
    // Run 2's 98–104 holds 100 and 103.
    assert_eq!(w.coverage, Count { hits: 2, of: 2 });
    assert_eq!(w.all.coverage, Count { hits: 2, of: 6 });
    assert_eq!(w.learnt, Some(0.03));
    assert_eq!(w.coverage_met(), Some(true));
}

#[test]
fn before_after_splits_the_verdicts_by_whether_the_spread_was_known() {
    let step = |ratio: f64, verdict: &str, known: bool| {
        let mut c = compared(case("a", 100.0, 1.0), "history", ratio, 0.01, verdict);
        c.spread = known.then_some(0.05);
        c
    };
    let runs = vec![
        run(vec![case("a", 100.0, 1.0)]),
        run(vec![step(1.08, "slower", false)]),
        run(vec![step(0.99, "same", false)]),
        run(vec![step(1.02, "same", true)]),
        run(vec![step(0.97, "faster", true)]),
    ];
    let [s] = &before_after(&runs)[..] else {
        panic!()
    };
    assert_eq!(s.not_same, Count { hits: 2, of: 4 });
    assert_eq!(s.unknown, Count { hits: 1, of: 2 });
    assert_eq!(s.known, Count { hits: 1, of: 2 });
    assert_eq!(s.ratios, (0.97, 1.08));
    assert_eq!(s.not_same.at_most(NOT_SAME), Some(false));
}

#[test]
fn trials_count_slower_and_measure_the_change_from_the_medians() {
    let trial = |before: f64, after: f64, verdict: &str| Trial {
        before_ns: before,
        after_ns: after,
        verdict: verdict.into(),
    };
    let all = [Trials {
        case: "fnv1a_4k".into(),
        trials: vec![
            trial(100.0, 121.0, "slower"),
            trial(100.0, 100.0, "same"),
            trial(100.0, 110.0, "slower"),
        ],
    }];
    let [t] = &trials(&all)[..] else { panic!() };
    assert_eq!(t.slower, Count { hits: 2, of: 3 });
    assert_eq!(t.others, vec![("same".into(), 1)]);
    // The cube root of 1.21 × 1.0 × 1.1 = 1.331 is 1.1.
    assert!((t.ratio.0 - 1.1).abs() < 1e-12, "{:?}", t.ratio);
    assert_eq!((t.ratio.1, t.ratio.2), (1.0, 1.21));
    assert_eq!(t.met(), Some(false));
    assert!(t.change.contains("4506"));
}

#[test]
fn the_cost_is_per_case_and_every_run_must_keep_to_the_budget() {
    let runs = vec![
        run(vec![case("a", 1.0, 0.1), case("b", 1.0, 0.1)]),
        Run {
            cases: vec![case("a", 1.0, 0.1)],
            wall_s: 0.9,
        },
    ];
    let cost = Cost::of(&runs, COST_DEFAULT_S);
    assert_eq!(cost.per_case_s, vec![1.0, 0.9]);
    assert_eq!(cost.median_max(), (0.95, 1.0));
    assert_eq!(cost.met(), Some(true));
    assert_eq!(Cost::of(&runs, 0.95).met(), Some(false));
    assert_eq!(Cost::of(&[], 1.0).met(), None);
}
