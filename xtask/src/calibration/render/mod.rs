//! The calibration's report, in markdown: where, when and how it was measured, each scenario's
//! tables, and the targets met or not.

mod intervals;
mod moves;
mod verdicts;

use std::fmt::Write as _;

use super::reference;
use super::scenario::Measured;
use super::targets::{self, Target};
use super::Context;

/// The whole report.
pub(super) fn report(context: &Context, measured: &[Measured]) -> String {
    let mut s = String::new();
    intro(&mut s, context, measured);
    for m in measured {
        let _ = writeln!(
            s,
            "### {}: {}\n",
            capitalised(m.scenario.name()),
            m.scenario.described()
        );
        intervals::fresh(&mut s, m);
        intervals::with_history(&mut s, m);
        verdicts::before_after(&mut s, m);
        verdicts::trials(&mut s, m);
        verdicts::groups(&mut s, m);
        verdicts::cost(&mut s, m, context.quick);
        if let Some(e) = &m.experiment {
            moves::table(&mut s, e);
        }
    }
    summary(&mut s, context, measured);
    s
}

/// The heading; where, when and how the report was measured; how to read its tables.
fn intro(s: &mut String, c: &Context, measured: &[Measured]) {
    let _ = writeln!(s, "## Calibration run\n");
    let cases = measured
        .first()
        .and_then(|m| m.fresh.first())
        .map_or(0, |r| r.cases.len());
    let _ = writeln!(
        s,
        "`{}` at commit `{}`, {}; {} CPUs (`nproc`). {} runs per measurement of \
         `examples/calibration`'s bench binary ({cases} cases), {} trials per +10% change, in \
         each scenario. Load averages (1, 5 and 15 minutes):\n",
        c.command, c.commit, c.date, c.nproc, c.runs, c.trials
    );
    let _ = writeln!(
        s,
        "| scenario | meanwhile | at the start | at the end | the busy thread's CPU time |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|");
    for m in measured {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} |",
            m.scenario.name(),
            m.scenario.described(),
            m.load.0,
            m.load.1,
            m.busy.map_or("—".into(), |b| format!(
                "{b:.2} of the scenario's wall time"
            )),
        );
    }
    let _ = writeln!(
        s,
        "\nThe commands, run in turn (`calibration` is the bench binary cargo built; a history \
         file is fresh under the target directory, one per scenario and one per trial, and \
         removed after it):\n"
    );
    for (what, command) in &c.commands {
        let _ = writeln!(s, "- {what}: `{command}`");
    }
    if let Some(e) = measured.iter().find_map(|m| m.experiment.as_ref()) {
        for command in &e.commands {
            let _ = writeln!(s, "- what moves the numbers: `{command}`");
        }
    }
    let _ = writeln!(
        s,
        "\nIn each scenario the fresh runs, the runs with a history and the quick runs take \
         turns run by run; the +10% trials follow, the cases taking turns, then the \
         experiment. **Coverage**: the share of ordered pairs of runs (i ≠ j) in which run j's \
         estimate lies inside run i's 95% interval; a calibrated interval gives about 83% (two \
         estimates of equal precision), the target is 80% for every case. **Half-width**: the \
         median over runs of the interval's half-width, relative to its estimate. \
         **Half-range**: half the range of the runs' estimates, relative to their median; the \
         target is a half-width of at most 2 half-ranges (no wider than it must be). \
         **Rounds**: the fewest and most rounds a run measured the case in.\n"
    );
    reference(s, c, cases);
}

/// What exactly calibrated intervals would show over as many runs: how far the per-case
/// figures can stray by chance alone.
fn reference(s: &mut String, c: &Context, cases: usize) {
    let rounds = if c.quick { 5 } else { 10 };
    let r = reference::calibrated(c.runs, rounds);
    let _ = writeln!(
        s,
        "How far these figures stray by chance: intervals that are exactly calibrated (each \
         run's estimate the mean of {rounds} normal rounds, its interval Student's t over them; \
         simulated) show a coverage over {} runs between {} and {} in 90% of cases (median \
         {}), at least 80% in {} of cases, so in all of {cases} cases at once with a chance of \
         about {} (were the cases independent); a half-width of at most 2 half-ranges in {} of \
         cases. A case marked **not met** by a small margin is not yet evidence against the \
         interval; the coverage pooled over every case, which the tables give too, strays far \
         less.\n",
        c.runs,
        share(Some(r.coverage.0)),
        share(Some(r.coverage.2)),
        share(Some(r.coverage.1)),
        share(Some(r.coverage_met)),
        share(Some(
            r.coverage_met
                .powi(i32::try_from(cases).unwrap_or(i32::MAX))
        )),
        share(Some(r.width_met)),
    );
}

/// Each target's outcome in each scenario.
fn summary(s: &mut String, context: &Context, measured: &[Measured]) {
    let _ = writeln!(s, "### Targets\n");
    let per_scenario: Vec<Vec<Target>> = measured
        .iter()
        .map(|m| targets::of(m, context.quick))
        .collect();
    let names: Vec<&str> = measured.iter().map(|m| m.scenario.name()).collect();
    let _ = writeln!(s, "| target | {} |", names.join(" | "));
    let _ = writeln!(s, "|---|{}", "---|".repeat(names.len()));
    let rows = per_scenario.first().map_or(0, Vec::len);
    for row in 0..rows {
        let what = &per_scenario[0][row].what;
        let cells: Vec<String> = per_scenario
            .iter()
            .map(|targets| {
                targets
                    .get(row)
                    .filter(|t| t.what == *what)
                    .map_or_else(|| "—".into(), |t| format!("{}: {}", met(t.met), t.figure))
            })
            .collect();
        let _ = writeln!(s, "| {what} | {} |", cells.join(" | "));
    }
}

/// `met`, `**not met**` or `not measured`.
pub(super) fn met(met: Option<bool>) -> &'static str {
    match met {
        Some(true) => "met",
        Some(false) => "**not met**",
        None => "not measured",
    }
}

/// `quiet` → `Quiet`.
fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// A fraction as a percentage with two decimals (`1.23%`).
pub(super) fn pct(fraction: f64) -> String {
    format!("{:.2}%", fraction * 100.0)
}

/// A share as a whole percentage, or `—` when nothing was counted.
pub(super) fn share(share: Option<f64>) -> String {
    share.map_or("—".into(), |s| format!("{:.0}%", s * 100.0))
}

/// Nanoseconds in the unit that reads best.
pub(super) fn duration(ns: f64) -> String {
    match ns.abs() {
        n if n >= 1e6 => format!("{:.2} ms", ns / 1e6),
        n if n >= 1e3 => format!("{:.2} µs", ns / 1e3),
        _ => format!("{ns:.2} ns"),
    }
}

/// `a – b`, or `a` when both are the same.
pub(super) fn range(lo: usize, hi: usize) -> String {
    if lo == hi {
        lo.to_string()
    } else {
        format!("{lo}–{hi}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_read_short() {
        assert_eq!(duration(1234.0), "1.23 µs");
        assert_eq!(duration(12.345), "12.35 ns");
        assert_eq!(pct(0.0123), "1.23%");
        assert_eq!(share(Some(0.834)), "83%");
        assert_eq!(share(None), "—");
        assert_eq!((range(8, 10), range(10, 10)), ("8–10".into(), "10".into()));
        assert_eq!(capitalised("busy"), "Busy");
        assert_eq!(met(Some(false)), "**not met**");
    }
}
