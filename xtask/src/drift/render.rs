//! The markdown of `cargo xtask drift`'s section.

use std::fmt::Write as _;

use super::figures::Figures;
pub(super) use crate::docs::Sitting;

/// A log standard deviation as a percentage (`4.6%`), or `—` when there is none.
fn pct(sd: f64) -> String {
    if sd.is_finite() {
        format!("{:.2}%", sd * 100.0)
    } else {
        "—".to_owned()
    }
}

/// A signed log deviation as a percentage (`+4.60%`).
fn signed(deviation: f64) -> String {
    format!("{:+.2}%", deviation * 100.0)
}

/// A correlation (`0.84`), or `—`.
fn corr(r: f64) -> String {
    if r.is_finite() {
        format!("{r:.2}")
    } else {
        "—".to_owned()
    }
}

/// A time per operation with a unit that suits it.
fn time(ns: f64) -> String {
    if ns >= 1_000.0 {
        format!("{:.2} µs", ns / 1_000.0)
    } else {
        format!("{ns:.1} ns")
    }
}

/// The section between its markers (without them).
pub(super) fn section(sitting: &Sitting, figures: &Figures, probe: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}. {} fresh runs of `examples/calibration`'s bench binary \
         in a row (`calibration --bench --format json --no-history`, default settings), each \
         between two calls of the harness-free chain reference (`chain_reference`, a process \
         of its own). Each figure is a standard deviation of log estimates over the runs \
         (0.05: about 5%).\n",
        sitting.measured_with(&format!("cargo xtask drift --runs {}", sitting.runs)),
        sitting.runs,
    );
    let _ = writeln!(
        s,
        "What moved whole runs: the runs' common shift (each run's median, over the cases, of \
         each case's log estimate less its mean) had a standard deviation of **{}**; the \
         reference's, **{}**; they correlate at **{}**. The engine's probe of the machine \
         (measured in a slot of every round, what before/after comparisons are taken relative \
         to) moved by **{}** and correlates with the common shift at **{}**; taken as the \
         median of its rounds instead of their geometric mean, it moved by **{}** and \
         correlates at **{}**.\n",
        pct(figures.common_sd),
        pct(figures.reference_sd),
        corr(figures.common_with_reference),
        pct(figures.engine_probe_sd),
        corr(figures.common_with_engine_probe),
        pct(figures.engine_probe_median_sd),
        corr(figures.common_with_engine_probe_median),
    );
    s.push_str(
        "| case | median | moves by | less the reference | less the probe | less the engine's \
         probe | less the common shift of the other cases | correlation with the reference | \
         with the common shift |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    for c in &figures.cases {
        let _ = writeln!(
            s,
            "| {}{} | {} | {} | {} | {} | {} | {} | {} | {} |",
            c.name,
            if c.name == probe { " (the probe)" } else { "" },
            time(c.median_ns),
            pct(c.raw),
            pct(c.less_reference),
            pct(c.less_probe),
            pct(c.less_engine_probe),
            pct(c.less_common),
            corr(c.with_reference),
            corr(c.with_common),
        );
    }
    let medians = |pick: fn(&super::figures::CaseMovement) -> f64| {
        let values: Vec<f64> = figures
            .cases
            .iter()
            .filter(|c| c.name != probe)
            .map(pick)
            .collect();
        pct(crate::stats::median(&values))
    };
    let _ = writeln!(
        s,
        "| **median over the cases but the probe** | | {} | {} | {} | {} | {} | | |\n",
        medians(|c| c.raw),
        medians(|c| c.less_reference),
        medians(|c| c.less_probe),
        medians(|c| c.less_engine_probe),
        medians(|c| c.less_common),
    );
    s.push_str(
        "Each run's shift, as its log deviation from the mean over the runs, and the range of the \
         engine's probe's rounds in the run (the largest over the smallest, less one):\n\n\
         | run | common shift | reference | probe | engine's probe | the median of its rounds | \
         its rounds' range |\n|---|---|---|---|---|---|---|\n",
    );
    for (k, r) in figures.runs.iter().enumerate() {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} |",
            k + 1,
            signed(r.common),
            signed(r.reference),
            signed(r.probe),
            signed(r.engine_probe),
            signed(r.engine_probe_median),
            pct(r.engine_probe_rounds_range),
        );
    }
    s
}
