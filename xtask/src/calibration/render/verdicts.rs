//! The verdict tables: before/after on unchanged code, the +10% change, the groups; and the
//! cost of a run.

use std::fmt::Write as _;

use super::{met, share};
use crate::calibration::figures::{self, Cost, COST_DEFAULT_S, COST_QUICK_S, NOT_SAME};
use crate::calibration::scenario::Measured;
use crate::calibration::stats::Count;
use crate::calibration::targets::count;

/// The before/after verdicts of the runs with a history.
pub(super) fn before_after(s: &mut String, m: &Measured) {
    let steps = figures::before_after(&m.history);
    let total: Count = steps.iter().map(|c| c.not_same).sum();
    let unknown: Count = steps.iter().map(|c| c.unknown).sum();
    let known: Count = steps.iter().map(|c| c.known).sum();
    let _ = writeln!(
        s,
        "#### Before/after on unchanged code\n\nThe same {} runs, each compared with the run \
         before it (`comparison.kind` `history`): **{}** of the verdicts from the second run on \
         are not `same` (target at most {:.0}%: {}); {} while the spread between runs was not \
         known yet, {} once it was (the comparison widened to it).\n",
        m.history.len(),
        count(total),
        NOT_SAME * 100.0,
        met(total.at_most(NOT_SAME)),
        count(unknown),
        count(known),
    );
    let _ = writeln!(
        s,
        "| case | compared | not `same` | spread not known | spread known | ratios (min – max) |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|");
    for c in &steps {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} of {} | {} of {} | {:.4} – {:.4} |",
            c.case,
            c.not_same.of,
            c.not_same.hits,
            c.unknown.hits,
            c.unknown.of,
            c.known.hits,
            c.known.of,
            c.ratios.0,
            c.ratios.1
        );
    }
    s.push('\n');
}

/// The +10% change trials.
pub(super) fn trials(s: &mut String, m: &Measured) {
    if m.trials.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "#### A +10% change\n\nEach trial on a fresh history: the case alone \
         (`--exact calibration::CASE`), then again with its work about 10% larger \
         (`KNOTMETER_CALIBRATION_PLUS10=CASE`); the second run's before/after verdict should be \
         `slower` (target: in at least 9 of 10 trials). The measured ratio is the changed run's \
         median over the unchanged one's: the geometric mean over the trials, and the range.\n"
    );
    let _ = writeln!(
        s,
        "| case | change | `slower` | other verdicts | measured ratio | min – max | ≥ 90% |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|");
    for t in figures::trials(&m.trials) {
        let others: Vec<String> = t.others.iter().map(|(v, n)| format!("{n} {v}")).collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {:.3} | {:.3} – {:.3} | {} |",
            t.case,
            t.change,
            count(t.slower),
            if others.is_empty() {
                "—".into()
            } else {
                others.join(", ")
            },
            t.ratio.0,
            t.ratio.1,
            t.ratio.2,
            met(t.met()),
        );
    }
    s.push('\n');
}

/// The group members' verdicts over every run of the scenario, fresh and with a history.
pub(super) fn groups(s: &mut String, m: &Measured) {
    let _ = writeln!(
        s,
        "#### Group verdicts\n\nEvery run of the scenario, fresh and with a history ({} runs): \
         `same_code` should read `same` (target: at least 95% of runs), `plus5` `slower` (at \
         least 90%).\n",
        m.fresh.len() + m.history.len()
    );
    let _ = writeln!(s, "| member | verdicts | wanted | share | target |");
    let _ = writeln!(s, "|---|---|---|---|---|");
    for g in figures::group_verdicts(m.fresh.iter().chain(&m.history)) {
        let counts: Vec<String> = g.counts.iter().map(|(v, n)| format!("{n} {v}")).collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} |",
            g.label,
            counts.join(", "),
            g.want.map_or("—".into(), |(v, t)| format!(
                "`{v}` in ≥ {:.0}%",
                t * 100.0
            )),
            share(g.hits.share()),
            met(g.met()),
        );
    }
    s.push('\n');
}

/// The wall time of a run per case, by default and with `--quick`.
pub(super) fn cost(s: &mut String, m: &Measured, quick: bool) {
    let _ = writeln!(
        s,
        "#### Cost\n\nEach run's wall time (the bench binary's process, from its start to its \
         exit) divided by its cases, over the scenario's runs.\n"
    );
    let _ = writeln!(
        s,
        "| runs | median per case | at most | budget | within it |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|");
    let mut line = |label: &str, cost: &Cost| {
        let (median, max) = cost.median_max();
        let _ = writeln!(
            s,
            "| {label} | {median:.3} s | {max:.3} s | {} s | {} |",
            cost.budget_s,
            met(cost.met())
        );
    };
    if quick {
        line(
            &format!("{} fresh runs, `--quick`", m.fresh.len()),
            &Cost::of(&m.fresh, COST_QUICK_S),
        );
    } else {
        line(
            &format!("{} fresh runs, default flags", m.fresh.len()),
            &Cost::of(&m.fresh, COST_DEFAULT_S),
        );
        line(
            &format!("{} runs with `--quick`", m.quick.len()),
            &Cost::of(&m.quick, COST_QUICK_S),
        );
    }
    s.push('\n');
}
