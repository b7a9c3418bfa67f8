//! Issue 20's targets for one scenario, each met, not met or not measured, with the figure
//! that decides it: the summary the report ends with.

use super::figures::{self, Cost, Spread, COST_DEFAULT_S, COST_QUICK_S, NOT_SAME};
use super::scenario::Measured;
use super::stats::Count;

/// One target of one scenario.
pub(super) struct Target {
    /// The target, as the summary's row names it.
    pub(super) what: String,
    /// The figure that decides it, or why it was not measured (`fewer than two runs`).
    pub(super) figure: String,
    /// Met, not met, or not measured (None).
    pub(super) met: Option<bool>,
}

/// Every target of `m`; `quick`: every run was `--quick`, so the default cost is not measured.
pub(super) fn of(m: &Measured, quick: bool) -> Vec<Target> {
    let (cases, ratios) = (figures::cases(&m.fresh), figures::ratios(&m.fresh));
    let coverage = |s: &Spread| (s.coverage_met(), s.coverage.share().unwrap_or(f64::NAN));
    let both: Vec<&Spread> = cases.iter().chain(&ratios).collect();
    let mut targets = vec![
        every(
            "a rerun inside another run's interval in ≥ 80% of pairs, every case (fresh)",
            &cases.iter().collect::<Vec<_>>(),
            coverage,
            pct0,
        ),
        every(
            "the same for every group ratio (fresh)",
            &ratios.iter().collect::<Vec<_>>(),
            coverage,
            pct0,
        ),
        every(
            "half-width ≤ 2 × half-range, every case and group ratio (fresh)",
            &both,
            |s| (s.width_met(), s.half_range / s.half_width),
            |r| format!("half-width {:.1}× the half-range", 1.0 / r),
        ),
    ];
    targets.push(widened(m));
    let steps: Count = figures::before_after(&m.history)
        .iter()
        .map(|s| s.not_same)
        .sum();
    targets.push(Target {
        what: "before/after on unchanged code: ≤ 5% not `same`".into(),
        figure: count(steps),
        met: steps.at_most(NOT_SAME),
    });
    for t in figures::trials(&m.trials) {
        targets.push(Target {
            what: format!("+10% `{}`: `slower` in ≥ 90% of trials", t.case),
            figure: format!("{} (measured ratio {:.3})", count(t.slower), t.ratio.0),
            met: t.met(),
        });
    }
    for g in figures::group_verdicts(m.fresh.iter().chain(&m.history)) {
        if let Some((verdict, share)) = g.want {
            targets.push(Target {
                what: format!(
                    "{}: `{verdict}` in ≥ {:.0}% of runs",
                    g.label,
                    share * 100.0
                ),
                figure: count(g.hits),
                met: g.met(),
            });
        }
    }
    let default = "cost: ≤ 1 s per case by default";
    targets.push(if quick {
        not_measured(default, "every run was `--quick`")
    } else {
        cost(default, &Cost::of(&m.fresh, COST_DEFAULT_S))
    });
    let quick_runs = if quick { &m.fresh } else { &m.quick };
    targets.push(cost(
        "cost: ≤ 0.15 s per case with `--quick`",
        &Cost::of(quick_runs, COST_QUICK_S),
    ));
    targets
}

/// The coverage of the intervals a history widened, every case.
fn widened(m: &Measured) -> Target {
    let what = "with a history: widened intervals in ≥ 80% of pairs, every case";
    let widened: Vec<Spread> = figures::widened(&m.history)
        .into_iter()
        .filter(|w| w.coverage.of > 0)
        .map(|w| Spread {
            coverage: w.coverage,
            ..w.all
        })
        .collect();
    if widened.is_empty() {
        return not_measured(what, "no interval was widened (fewer than 6 runs)");
    }
    every(
        what,
        &widened.iter().collect::<Vec<_>>(),
        |s| (s.coverage_met(), s.coverage.share().unwrap_or(f64::NAN)),
        pct0,
    )
}

/// A target every one of `spreads` must meet: `judge` says whether one does and its score
/// (lower is worse); the figure counts those that do and names the worst, shown by `shown`.
fn every(
    what: &str,
    spreads: &[&Spread],
    judge: impl Fn(&Spread) -> (Option<bool>, f64),
    shown: fn(f64) -> String,
) -> Target {
    let judged: Vec<(&Spread, bool, f64)> = spreads
        .iter()
        .filter_map(|s| {
            let (met, score) = judge(s);
            Some((*s, met?, score))
        })
        .collect();
    let Some(worst) = judged.iter().min_by(|a, b| a.2.total_cmp(&b.2)) else {
        return not_measured(what, "fewer than two runs");
    };
    let met = judged.iter().filter(|(_, m, _)| *m).count();
    Target {
        what: what.to_owned(),
        figure: format!(
            "{met} of {}; the worst: {} {}",
            judged.len(),
            worst.0.label,
            shown(worst.2)
        ),
        met: Some(met == judged.len()),
    }
}

/// A cost target.
fn cost(what: &str, cost: &Cost) -> Target {
    let (median, max) = cost.median_max();
    Target {
        what: what.to_owned(),
        figure: match cost.met() {
            None => "no runs".into(),
            Some(_) => format!("median {median:.3} s, at most {max:.3} s"),
        },
        met: cost.met(),
    }
}

/// A target that was not measured, and why.
fn not_measured(what: &str, why: &str) -> Target {
    Target {
        what: what.to_owned(),
        figure: why.to_owned(),
        met: None,
    }
}

/// `3 of 99 (3.0%)`.
pub(super) fn count(c: Count) -> String {
    match c.share() {
        Some(share) => format!("{} of {} ({:.1}%)", c.hits, c.of, share * 100.0),
        None => "none".into(),
    }
}

/// A fraction as a whole percentage.
fn pct0(fraction: f64) -> String {
    format!("{:.0}%", fraction * 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spread(label: &str, hits: usize) -> Spread {
        Spread {
            label: label.into(),
            centre: 1.0,
            coverage: Count { hits, of: 90 },
            half_width: 0.01,
            half_range: 0.02,
            rounds: (10, 10),
        }
    }

    #[test]
    fn every_spread_must_meet_and_the_worst_is_named() {
        let (a, b) = (spread("a", 80), spread("b", 71));
        let judge = |s: &Spread| (s.coverage_met(), s.coverage.share().unwrap());
        let t = every("coverage", &[&a, &b], judge, pct0);
        assert_eq!(t.met, Some(false));
        assert_eq!(t.figure, "1 of 2; the worst: b 79%");
        let t = every("coverage", &[&a], judge, pct0);
        assert_eq!(t.met, Some(true));
        assert_eq!(every("coverage", &[], judge, pct0).met, None);
    }

    #[test]
    fn counts_read_with_their_share() {
        assert_eq!(count(Count { hits: 3, of: 99 }), "3 of 99 (3.0%)");
        assert_eq!(count(Count::default()), "none");
    }
}
