//! The interval tables: each case's estimate and each group member's ratio across the fresh
//! runs, and the intervals as a history shows them.

use std::fmt::Write as _;

use super::{duration, met, pct, range, share};
use crate::calibration::figures::{self, Spread};
use crate::calibration::scenario::Measured;
use crate::calibration::stats::Count;
use crate::calibration::targets::count;

/// The fresh runs' cases and group ratios.
pub(super) fn fresh(s: &mut String, m: &Measured) {
    let _ = writeln!(
        s,
        "#### Intervals, fresh runs\n\n{} runs with `--no-history`, each case's estimate \
         (`estimate.median_ns`, the geometric mean of its round medians) against every other \
         run's 95% interval (`estimate.low_ns`, `estimate.high_ns`).\n",
        m.fresh.len()
    );
    header(s, "case", "median");
    let cases = figures::cases(&m.fresh);
    for spread in &cases {
        row(s, spread, &duration(spread.centre));
    }
    pooled(s, &cases, "cases");
    let _ = writeln!(
        s,
        "\nGroup ratios: each member's ratio to its group's baseline (`comparison.ratio`, \
         paired round by round) and its interval (`comparison.low`, `comparison.high`) in the \
         same runs. `same_code` is the same work at two addresses, `plus5` 5% more work \
         (`chain(1050)` against `chain(1000)`).\n"
    );
    header(s, "member", "ratio");
    let ratios = figures::ratios(&m.fresh);
    for spread in &ratios {
        row(s, spread, &format!("{:.4}", spread.centre));
    }
    pooled(s, &ratios, "group ratios");
    s.push('\n');
}

/// The coverage pooled over every row of a table.
fn pooled(s: &mut String, spreads: &[Spread], what: &str) {
    let all: Count = spreads.iter().map(|s| s.coverage).sum();
    let _ = writeln!(s, "\nPooled over every one of the {what}: {}.", count(all));
}

/// The columns of an interval table, after `what` and `centre`.
fn header(s: &mut String, what: &str, centre: &str) {
    let _ = writeln!(
        s,
        "| {what} | {centre} | rounds | coverage | ≥ 80% | half-width | half-range | \
         half-range / half-width | half-width ≤ 2 × half-range |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|");
}

/// One row of an interval table.
fn row(s: &mut String, spread: &Spread, centre: &str) {
    let _ = writeln!(
        s,
        "| {} | {centre} | {} | {} | {} | ±{} | ±{} | {:.2}× | {} |",
        spread.label,
        range(spread.rounds.0, spread.rounds.1),
        share(spread.coverage.share()),
        met(spread.coverage_met()),
        pct(spread.half_width),
        pct(spread.half_range),
        spread.half_range / spread.half_width,
        met(spread.width_met()),
    );
}

/// The runs with a history: every interval, and the widened ones alone.
pub(super) fn with_history(s: &mut String, m: &Measured) {
    let _ = writeln!(
        s,
        "#### Intervals with a history\n\n{} runs against one fresh history \
         (`KNOTMETER_HISTORY`), as users with a history see them: once five earlier runs of a \
         case are stored, its interval is widened to the spread between runs the history learnt \
         (`rounds.widened`), so from the sixth run on. Coverage of every run's interval, and of \
         the widened intervals alone (each against every other run's estimate).\n",
        m.history.len()
    );
    let _ = writeln!(
        s,
        "| case | median | rounds | coverage | widened runs | coverage of the widened | \
         ≥ 80% | half-width | half-range | learnt spread (last run) |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|");
    for w in figures::widened(&m.history) {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} of {} | {} | {} | ±{} | ±{} | {} |",
            w.all.label,
            duration(w.all.centre),
            range(w.all.rounds.0, w.all.rounds.1),
            share(w.all.coverage.share()),
            w.widened.hits,
            w.widened.of,
            share(w.coverage.share()),
            met(w.coverage_met()),
            pct(w.all.half_width),
            pct(w.all.half_range),
            w.learnt
                .map_or("not known".into(), |l| format!("±{}", pct(l))),
        );
    }
    s.push('\n');
}
