//! The experiment's table: each case's spread of medians under each arm.

use std::fmt::Write as _;

use super::{duration, pct};
use crate::calibration::experiment::{Experiment, BLOCKS, CASES};
use crate::calibration::stats::{cv, max_over_min};
use crate::stats::median;

/// What moves the numbers.
pub(super) fn table(s: &mut String, e: &Experiment) {
    let _ = writeln!(s, "#### What moves the numbers\n");
    let _ = writeln!(
        s,
        "The medians of {} cases (the median column: of the first arm), each cell `max/min − 1` \
         (coefficient of variation) of one arm's medians. A process measures the listed cases \
         in one round in one worker process (`--rounds 1`), so its median is that process's \
         alone; the arms take turns round by round. The blocks are {BLOCKS} consecutive blocks \
         of one long process's raw samples (`--rounds 1 --time 2 --precision 0.000001`), each \
         sample less the median of the empty body's, in time order.\n",
        CASES.len(),
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
    s.push('\n');
}
