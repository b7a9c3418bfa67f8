//! The calibration's report, in markdown.

use std::fmt::Write as _;

use super::experiment::{Experiment, BLOCKS, CASES};
use super::run::{by_case, Case, Run};
use super::stats::{coverage, cv, half_range, max_over_min, median_half_width};
use super::Context;
use crate::stats::median;

/// The verdict a member of each calibration group should get, by group name.
const EXPECTED: [(&str, &str); 2] = [("same_code", "same"), ("plus5", "slower")];

/// The whole report: context, intervals, group ratios, before/after, the experiment.
pub(super) fn report(
    context: &Context,
    repeated: &[Run],
    before_after: &[Run],
    experiment: &Experiment,
) -> String {
    let mut s = String::new();
    intro(&mut s, context, repeated);
    intervals(&mut s, repeated);
    groups(&mut s, repeated);
    history(&mut s, before_after);
    moves(&mut s, context, experiment);
    s
}

/// The heading and where, when and how the report was measured.
fn intro(s: &mut String, c: &Context, repeated: &[Run]) {
    let _ = writeln!(s, "## Calibration run\n");
    let _ = writeln!(
        s,
        "`{}` at commit `{}`, {}; {} CPUs (`nproc`), load average {} at the start and {} at \
         the end (1, 5, 15 minutes). {} fresh processes of `examples/calibration`'s bench binary \
         per measurement ({} cases each), `--bench --format json`.",
        c.command,
        c.commit,
        c.date,
        c.nproc,
        c.load.0,
        c.load.1,
        c.runs,
        repeated.first().map_or(0, Vec::len),
    );
    let _ = writeln!(
        s,
        "{}\n",
        if c.processes {
            "The binary's `--help` lists `--processes`: runs use the engine's default, the \
             experiment passes `--processes 1`."
        } else {
            "The binary's `--help` lists no `--processes` flag: every run measures in one process."
        }
    );
}

/// Each case's median interval against the other runs' medians.
fn intervals(s: &mut String, repeated: &[Run]) {
    let _ = writeln!(s, "### Each run's interval against the other runs\n");
    let _ = writeln!(
        s,
        "{} runs with `--no-history`. Coverage: the share of ordered pairs of runs (i ≠ j) in \
         which run j's median lies inside run i's 95% interval; if an interval said where a \
         rerun lands, about 83% would (two estimates of equal precision). Half-width: the median \
         over runs of the interval's half-width, relative to its median. Half-range: half the \
         range of the {} medians, relative to their median.\n",
        repeated.len(),
        repeated.len()
    );
    let _ = writeln!(
        s,
        "| case | median | coverage | half-width | half-range | half-range / half-width |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|");
    for (id, cases) in by_case(repeated) {
        let medians: Vec<f64> = cases.iter().map(|c| c.median).collect();
        let intervals: Vec<(f64, f64)> = cases.iter().map(|c| c.interval).collect();
        row(
            s,
            short(id),
            &duration(median(&medians)),
            &medians,
            &intervals,
        );
    }
    s.push('\n');
}

/// One row of coverage, half-width, half-range and their ratio, after `label` and `centre`.
fn row(s: &mut String, label: &str, centre: &str, points: &[f64], intervals: &[(f64, f64)]) {
    let width = median_half_width(points, intervals);
    let range = half_range(points);
    let _ = writeln!(
        s,
        "| {label} | {centre} | {} | ±{} | ±{} | {:.1}× |",
        coverage(points, intervals).map_or("—".into(), |c| format!("{:.0}%", c * 100.0)),
        pct(width),
        pct(range),
        range / width
    );
}

/// Each group member's ratio to its baseline: its interval against the other runs' ratios,
/// and the verdicts.
fn groups(s: &mut String, repeated: &[Run]) {
    let _ = writeln!(s, "### Group ratios\n");
    let _ = writeln!(
        s,
        "The same figures for each member's ratio to its group's baseline (paired in one run), \
         and its verdicts: `same_code` is the same work in two functions, `plus5` 5% more work \
         (`chain(1050)` against `chain(1000)`).\n"
    );
    let _ = writeln!(
        s,
        "| member | ratio | coverage | half-width | half-range | half-range / half-width | verdicts |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|");
    for (id, cases) in by_case(repeated) {
        let compared: Vec<&Case> = cases
            .iter()
            .copied()
            .filter(|c| c.group.is_some() && !c.baseline)
            .filter(|c| c.comparison.as_ref().is_some_and(|k| !k.is_history()))
            .collect();
        let Some(group) = compared.first().and_then(|c| c.group.as_deref()) else {
            continue;
        };
        let comparisons: Vec<_> = compared
            .iter()
            .filter_map(|c| c.comparison.as_ref())
            .collect();
        let ratios: Vec<f64> = comparisons.iter().map(|c| c.ratio).collect();
        let intervals: Vec<(f64, f64)> = comparisons.iter().map(|c| (c.low, c.high)).collect();
        let label = format!("{} (`{group}`)", short(id));
        let mut line = String::new();
        row(
            &mut line,
            &label,
            &format!("{:.4}", median(&ratios)),
            &ratios,
            &intervals,
        );
        let verdicts: Vec<&str> = comparisons.iter().map(|c| c.verdict.as_str()).collect();
        let cell = verdict_cell(&verdicts, expected(group));
        let _ = writeln!(s, "{} {cell} |", line.trim_end());
    }
    s.push('\n');
}

/// The verdict a member of `group` should get, if the calibration knows it.
fn expected(group: &str) -> Option<&'static str> {
    EXPECTED.iter().find(|(g, _)| *g == group).map(|(_, v)| *v)
}

/// `` `same` in 9 of 10 (90%); also 1 slower ``, or the counts alone without an expectation.
fn verdict_cell(verdicts: &[&str], expected: Option<&str>) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for v in verdicts {
        match counts.iter_mut().find(|(name, _)| name == v) {
            Some((_, n)) => *n += 1,
            None => counts.push((v, 1)),
        }
    }
    let list = |counts: &[(&str, usize)]| {
        counts
            .iter()
            .map(|(v, n)| format!("{n} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match expected {
        Some(want) => {
            let hits = counts
                .iter()
                .find(|(v, _)| *v == want)
                .map_or(0, |(_, n)| *n);
            let others: Vec<(&str, usize)> =
                counts.into_iter().filter(|(v, _)| *v != want).collect();
            format!(
                "`{want}` in {hits} of {} ({:.0}%){}",
                verdicts.len(),
                100.0 * hits as f64 / verdicts.len().max(1) as f64,
                if others.is_empty() {
                    String::new()
                } else {
                    format!("; also {}", list(&others))
                }
            )
        }
        None => list(&counts),
    }
}

/// Before/after verdicts of runs of unchanged code against one history.
fn history(s: &mut String, before_after: &[Run]) {
    let later = &before_after[1.min(before_after.len())..];
    let per_case: Vec<(&str, Vec<&Case>)> = by_case(later)
        .into_iter()
        .map(|(id, cases)| {
            let compared = cases
                .into_iter()
                .filter(|c| c.comparison.as_ref().is_some_and(|k| k.is_history()))
                .collect();
            (id, compared)
        })
        .filter(|(_, cases): &(&str, Vec<&Case>)| !cases.is_empty())
        .collect();
    let total: usize = per_case.iter().map(|(_, c)| c.len()).sum();
    let changed: usize = per_case.iter().map(|(_, c)| not_same(c)).sum();
    let _ = writeln!(s, "### Before/after on unchanged code\n");
    let _ = writeln!(
        s,
        "{} runs against one fresh history (`KNOTMETER_HISTORY`, a file under the target \
         directory), each compared with the run before it: **{changed} of {total}** \
         before/after verdicts from the second run on are not `same`.\n",
        before_after.len()
    );
    let _ = writeln!(s, "| case | compared | not `same` | ratios (min – max) |");
    let _ = writeln!(s, "|---|---|---|---|");
    for (id, cases) in &per_case {
        let ratios: Vec<f64> = cases
            .iter()
            .filter_map(|c| c.comparison.as_ref().map(|k| k.ratio))
            .collect();
        let (lo, hi) = ratios
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &r| {
                (a.min(r), b.max(r))
            });
        let _ = writeln!(
            s,
            "| {} | {} | {} | {lo:.4} – {hi:.4} |",
            short(id),
            cases.len(),
            not_same(cases)
        );
    }
    s.push('\n');
}

/// How many of `cases`' comparisons are not `same`.
fn not_same(cases: &[&Case]) -> usize {
    cases
        .iter()
        .filter(|c| c.comparison.as_ref().is_some_and(|k| k.verdict != "same"))
        .count()
}

/// The experiment's table: each case's spread of medians under each arm.
fn moves(s: &mut String, context: &Context, e: &Experiment) {
    let _ = writeln!(s, "### What moves the numbers\n");
    let _ = writeln!(
        s,
        "The medians of {} cases (the median column: of the first arm), each cell `max/min − 1` \
         (coefficient of variation) of one arm's medians. Fresh \
         processes measure the listed cases only, {}; the arms take turns round by round. The \
         blocks are {BLOCKS} consecutive blocks of one long process's raw samples (`{}`), each \
         sample less the median of the empty body's, in time order.\n",
        CASES.len(),
        if context.processes {
            "with `--processes 1`"
        } else {
            "each in one process (no `--processes` flag)"
        },
        e.long_settings
    );
    let header: Vec<&str> = e.arms.iter().map(|a| a.label.as_str()).collect();
    let _ = writeln!(s, "| case | median | {} |", header.join(" | "));
    let _ = writeln!(s, "|---|---|{}", "---|".repeat(header.len()));
    for (i, case) in CASES.iter().enumerate() {
        let cells: Vec<String> = e
            .arms
            .iter()
            .map(|a| match &a.medians[i] {
                m if m.len() < 2 => "—".into(),
                m => format!("{} ({})", pct(max_over_min(m)), pct(cv(m))),
            })
            .collect();
        let centre = e.arms.first().map_or(f64::NAN, |a| median(&a.medians[i]));
        let _ = writeln!(
            s,
            "| {case} | {} | {} |",
            duration(centre),
            cells.join(" | ")
        );
    }
    for note in &e.skipped {
        let _ = writeln!(s, "\nLeft out: {note}.");
    }
}

/// The id without its target segment (`sort_stable` for `calibration::sort_stable`).
fn short(id: &str) -> &str {
    id.split_once("::").map_or(id, |(_, rest)| rest)
}

/// A fraction as a percentage with two decimals (`1.23%`).
fn pct(fraction: f64) -> String {
    format!("{:.2}%", fraction * 100.0)
}

/// Nanoseconds in the unit that reads best.
fn duration(ns: f64) -> String {
    match ns.abs() {
        n if n >= 1e6 => format!("{:.2} ms", ns / 1e6),
        n if n >= 1e3 => format!("{:.2} µs", ns / 1e3),
        _ => format!("{ns:.2} ns"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_are_counted_against_the_expected_one() {
        assert_eq!(
            verdict_cell(&["same", "slower", "same"], Some("same")),
            "`same` in 2 of 3 (67%); also 1 slower"
        );
        assert_eq!(
            verdict_cell(&["slower"; 4], Some("slower")),
            "`slower` in 4 of 4 (100%)"
        );
        assert_eq!(verdict_cell(&["faster", "faster"], None), "2 faster");
        assert_eq!(expected("plus5"), Some("slower"));
        assert_eq!(expected("sort"), None);
    }

    #[test]
    fn ids_durations_and_percentages_read_short() {
        assert_eq!(short("calibration::sort_stable"), "sort_stable");
        assert_eq!(duration(1234.0), "1.23 µs");
        assert_eq!(duration(12.345), "12.35 ns");
        assert_eq!(pct(0.0123), "1.23%");
    }
}
