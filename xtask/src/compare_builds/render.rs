//! The tables of `docs/compare.md`, from what `cargo xtask compare-builds` measured.

use std::fmt::Write as _;

use knotmeter_protocol::Verdict;

use super::{cases, expected, Run, Scenario, Settings};
use crate::compare_builds::fixture::CHANGED;

fn word(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Slower => "slower",
        Verdict::Faster => "faster",
        Verdict::Same => "same",
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    values.retain(|v| v.is_finite());
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn percent(ratio: f64) -> String {
    if ratio.is_finite() {
        format!("{:+.1}%", (ratio - 1.0) * 100.0)
    } else {
        "—".into()
    }
}

/// `18/20`: runs whose verdict for `case` was `want`.
fn right(runs: &[Run], case: &str, want: Verdict) -> String {
    if runs.is_empty() {
        return "—".into();
    }
    let n = runs
        .iter()
        .filter(|r| r.answers.get(case).and_then(|a| a.verdict) == Some(want))
        .count();
    format!("{n}/{}", runs.len())
}

/// The median change and the median interval of `case` over `runs`.
fn change(runs: &[Run], case: &str) -> String {
    let get = |f: fn(&super::Answer) -> f64| {
        median(
            runs.iter()
                .filter_map(|r| r.answers.get(case))
                .map(f)
                .collect(),
        )
    };
    let (ratio, low, high) = (get(|a| a.ratio), get(|a| a.low), get(|a| a.high));
    if !ratio.is_finite() {
        return "—".into();
    }
    format!(
        "{} [{:.1}, {:.1}]",
        percent(ratio),
        (low - 1.0) * 100.0,
        (high - 1.0) * 100.0
    )
}

fn true_change(case: &str) -> String {
    CHANGED
        .iter()
        .find(|(name, _, _)| *name == case)
        .map_or("0 (same code)".to_owned(), |(_, base, head)| {
            format!("{:+.0}%", (*head as f64 / *base as f64 - 1.0) * 100.0)
        })
}

/// False verdicts over every case of `runs` (anything but `same`), and the number of verdicts.
fn false_verdicts(runs: &[Run]) -> (usize, usize) {
    let answers: Vec<Option<Verdict>> = runs
        .iter()
        .flat_map(|r| r.answers.values().map(|a| a.verdict))
        .collect();
    let wrong = answers
        .iter()
        .filter(|v| v.is_some_and(|v| v != Verdict::Same))
        .count();
    (wrong, answers.len())
}

/// The generated section.
pub(crate) fn section(scenarios: &[Scenario], settings: &Settings, total_s: f64) -> String {
    let mut out = String::new();
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let _ = writeln!(
        out,
        "Measured with `cargo xtask compare-builds{}` on {cores} cores shared with other work, \
         {} runs per figure, in {:.0} minutes. Load averages are the machine's at the start and \
         end of each scenario.\n",
        settings
            .time
            .map_or(String::new(), |t| format!(" --time {t}")),
        settings.runs,
        total_s / 60.0
    );
    if settings.before_after {
        let _ = writeln!(
            out,
            "Before/after through the history: the base's bench binary with `--save-baseline \
             base`, then the head's with `--baseline base`, each run in a copy of a history that \
             holds {} runs of the base alone, so its run-to-run noise estimate (the floor of a \
             before/after verdict) is learned from unchanged code.\n",
            super::LEARNING_RUNS
        );
    }
    for s in scenarios {
        let _ = writeln!(
            out,
            "### {} (load average {} → {})\n",
            s.name, s.load.0, s.load.1
        );
        let _ = writeln!(
            out,
            "| case | true change | right verdict | `knotmeter compare`: right | median change [interval] | before/after through the history: right | median change | in-binary groups: right | median change |"
        );
        let _ = writeln!(out, "|---|---|---|---:|---|---:|---|---:|---|");
        for case in cases() {
            let want = expected(case);
            let _ = writeln!(
                out,
                "| `{case}` | {} | {} | {} | {} | {} | {} | {} | {} |",
                true_change(case),
                word(want),
                right(&s.ab, case, want),
                change(&s.ab, case),
                right(&s.before_after, case, want),
                change(&s.before_after, case),
                right(&s.grouped, case, want),
                change(&s.grouped, case),
            );
        }
        let (wrong, total) = false_verdicts(&s.aa);
        let same_cases: Vec<Run> =
            s.ab.iter()
                .map(|r| Run {
                    answers: r
                        .answers
                        .iter()
                        .filter(|(case, _)| expected(case) == Verdict::Same)
                        .map(|(k, v)| (k.clone(), *v))
                        .collect(),
                    measuring_s: r.measuring_s,
                })
                .collect();
        let (wrong_ab, total_ab) = false_verdicts(&same_cases);
        let _ = writeln!(
            out,
            "\nIdentical code on both sides: **{wrong} false verdicts of {total}** ({:.1}%) in \
             the A/A comparison (`--head HEAD~1 HEAD~2`: the same code built twice, every case), \
             and {wrong_ab} of {total_ab} on the three unchanged cases of the A/B comparison.",
            100.0 * wrong as f64 / total.max(1) as f64
        );
        let compare_s = median(s.ab.iter().map(|r| r.measuring_s).collect());
        let group_s = median(s.grouped.iter().map(|r| r.measuring_s).collect());
        let pair_s = median(
            s.ab.iter()
                .flat_map(|r| r.answers.values().map(|a| a.wall_s))
                .filter(|w| *w > 0.0)
                .collect(),
        );
        let group_pair_s = median(
            s.grouped
                .iter()
                .flat_map(|r| r.answers.values().map(|a| a.wall_s))
                .collect(),
        );
        let _ = writeln!(
            out,
            "\nTime (medians): `knotmeter compare` measured the six cases in **{compare_s:.1} s** \
             (from the start of measuring to the report: both processes, every pair, the \
             verdicts; builds excluded), the in-binary groups in **{group_s:.1} s**: **{:.2}×**. \
             A pair took {pair_s:.2} s across two builds and {group_pair_s:.2} s in one binary \
             (the budget is 2 s per pair).\n",
            compare_s / group_s
        );
    }
    out
}
