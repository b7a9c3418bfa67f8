//! The calibration's figures, computed from one scenario's runs, each with the target issue 20
//! sets for it: how often a run's interval holds the other runs' estimates, how wide it is
//! against how far the estimates move, and how often the verdicts are right.

use super::report::{by_case, short, Case, Run};
use super::stats::{
    coverage, coverage_of, geometric_mean, half_range, median_half_width, min_max, not_same, tally,
    Count,
};
use super::trials::{self, Trials};
use crate::stats::median;

/// A rerun's estimate lies inside another run's 95% interval in at least this share of pairs
/// (a calibrated interval gives about 83%: two estimates of equal precision).
pub(super) const COVERAGE: f64 = 0.80;
/// An interval's median half-width is at most this many times half the range of the runs'
/// estimates.
pub(super) const WIDTH_OVER_RANGE: f64 = 2.0;
/// At most this share of before/after verdicts on unchanged code are not `same`.
pub(super) const NOT_SAME: f64 = 0.05;
/// A +10% change is `slower` in at least this share of trials (9 of 10).
pub(super) const PLUS10_SLOWER: f64 = 0.9;
/// The verdict each calibration group's member should get, and in what share of runs at least.
pub(super) const GROUPS: [(&str, &str, f64); 2] =
    [("same_code", "same", 0.95), ("plus5", "slower", 0.90)];
/// The documented budget per case by default, in seconds.
pub(super) const COST_DEFAULT_S: f64 = 1.0;
/// The documented budget per case with `--quick`, in seconds.
pub(super) const COST_QUICK_S: f64 = 0.15;

/// A case's estimates, or a group member's ratios, across runs, against each run's interval.
pub(super) struct Spread {
    /// The case's name, or the member's with its group.
    pub(super) label: String,
    /// The median of the estimates.
    pub(super) centre: f64,
    /// Ordered pairs (i ≠ j) in which run j's estimate lies in run i's interval.
    pub(super) coverage: Count,
    /// The median over runs of the interval's half-width, relative to its estimate.
    pub(super) half_width: f64,
    /// Half the range of the estimates, relative to their median.
    pub(super) half_range: f64,
    /// The fewest and most rounds a run measured the case in (a result without rounds had one).
    pub(super) rounds: (usize, usize),
}

impl Spread {
    /// The figures of `points` (one per run) and their `intervals`.
    fn of(label: String, points: &[f64], intervals: &[(f64, f64)], rounds: &[usize]) -> Self {
        let rounds = rounds
            .iter()
            .fold((usize::MAX, 0), |(lo, hi), &r| (lo.min(r), hi.max(r)));
        Self {
            label,
            centre: median(points),
            coverage: coverage(points, intervals),
            half_width: median_half_width(points, intervals),
            half_range: half_range(points),
            rounds,
        }
    }

    /// Whether the coverage reaches [`COVERAGE`]; None with fewer than two runs.
    pub(super) fn coverage_met(&self) -> Option<bool> {
        self.coverage.at_least(COVERAGE)
    }

    /// Whether the half-width is at most [`WIDTH_OVER_RANGE`] half-ranges; None when either is
    /// not a number.
    pub(super) fn width_met(&self) -> Option<bool> {
        (self.half_width.is_finite() && self.half_range.is_finite())
            .then_some(self.half_width <= WIDTH_OVER_RANGE * self.half_range)
    }
}

/// Each case's estimates and intervals across `runs`.
pub(super) fn cases(runs: &[Run]) -> Vec<Spread> {
    by_case(runs)
        .into_iter()
        .map(|(id, cases)| {
            let points: Vec<f64> = cases.iter().map(|c| c.median).collect();
            let intervals: Vec<(f64, f64)> = cases.iter().map(|c| c.interval).collect();
            let rounds: Vec<usize> = cases.iter().map(|c| c.rounds.len().max(1)).collect();
            Spread::of(short(id).to_owned(), &points, &intervals, &rounds)
        })
        .collect()
}

/// Each group member's ratio to its baseline and the ratio's interval across `runs`.
pub(super) fn ratios(runs: &[Run]) -> Vec<Spread> {
    members(runs)
        .into_iter()
        .map(|(label, cases)| {
            let compared: Vec<_> = cases.iter().filter_map(|c| group_comparison(c)).collect();
            let points: Vec<f64> = compared.iter().map(|c| c.ratio).collect();
            let intervals: Vec<(f64, f64)> = compared.iter().map(|c| (c.low, c.high)).collect();
            let rounds: Vec<usize> = cases.iter().map(|c| c.rounds.len().max(1)).collect();
            Spread::of(label, &points, &intervals, &rounds)
        })
        .collect()
}

/// The group members among `runs`' cases, labelled `same_b (`same_code`)`, each with its
/// results that carry a group comparison.
fn members<'r>(runs: impl IntoIterator<Item = &'r Run>) -> Vec<(String, Vec<&'r Case>)> {
    by_case(runs)
        .into_iter()
        .filter_map(|(id, cases)| {
            let cases: Vec<&Case> = cases
                .into_iter()
                .filter(|c| group_comparison(c).is_some())
                .collect();
            let group = cases.first()?.group.as_deref()?;
            Some((format!("{} (`{group}`)", short(id)), cases))
        })
        .collect()
}

/// `case`'s comparison with its group's baseline, if it has one.
fn group_comparison(case: &Case) -> Option<&super::report::Comparison> {
    case.comparison.as_ref().filter(|c| c.is_group())
}

/// A case's intervals as a history shows them: widened to the learnt spread once it is known.
pub(super) struct Widened {
    /// Every run's interval against the other runs.
    pub(super) all: Spread,
    /// Runs whose interval was widened, of all runs.
    pub(super) widened: Count,
    /// The widened intervals alone against every other run's estimate.
    pub(super) coverage: Count,
    /// The spread between runs the history had learnt by the last run.
    pub(super) learnt: Option<f64>,
}

impl Widened {
    /// Whether the widened intervals' coverage reaches [`COVERAGE`]; None without any.
    pub(super) fn coverage_met(&self) -> Option<bool> {
        self.coverage.at_least(COVERAGE)
    }
}

/// Each case's intervals across `runs`, measured in order against one history.
pub(super) fn widened(runs: &[Run]) -> Vec<Widened> {
    let all = cases(runs);
    by_case(runs)
        .into_iter()
        .zip(all)
        .map(|((_, cases), all)| {
            let points: Vec<f64> = cases.iter().map(|c| c.median).collect();
            let intervals: Vec<(f64, f64)> = cases.iter().map(|c| c.interval).collect();
            let holders: Vec<bool> = cases.iter().map(|c| c.widened).collect();
            Widened {
                all,
                widened: Count {
                    hits: holders.iter().filter(|w| **w).count(),
                    of: holders.len(),
                },
                coverage: coverage_of(&points, &intervals, &holders),
                learnt: cases.last().and_then(|c| c.spread),
            }
        })
        .collect()
}

/// One case's before/after verdicts on unchanged code.
pub(super) struct Steps {
    /// The benchmark's name.
    pub(super) case: String,
    /// Verdicts not `same`, of all the case's before/after comparisons.
    pub(super) not_same: Count,
    /// The same while the spread between runs was not known yet.
    pub(super) unknown: Count,
    /// The same once the history knew the spread (and widened the comparison to it).
    pub(super) known: Count,
    /// The smallest and largest ratio.
    pub(super) ratios: (f64, f64),
}

/// Each case's before/after verdicts in `runs` (measured in order against one fresh history:
/// the first has nothing to be compared with).
pub(super) fn before_after(runs: &[Run]) -> Vec<Steps> {
    by_case(runs)
        .into_iter()
        .filter_map(|(id, cases)| {
            let compared: Vec<(&Case, &super::report::Comparison)> = cases
                .into_iter()
                .filter_map(|c| Some((c, c.comparison.as_ref().filter(|k| k.is_history())?)))
                .collect();
            if compared.is_empty() {
                return None;
            }
            let verdicts = |known: Option<bool>| -> Vec<&str> {
                compared
                    .iter()
                    .filter(|(c, _)| known.is_none_or(|k| c.spread.is_some() == k))
                    .map(|(_, k)| k.verdict.as_str())
                    .collect()
            };
            let ratios: Vec<f64> = compared.iter().map(|(_, k)| k.ratio).collect();
            Some(Steps {
                case: short(id).to_owned(),
                not_same: not_same(&verdicts(None)),
                unknown: not_same(&verdicts(Some(false))),
                known: not_same(&verdicts(Some(true))),
                ratios: min_max(&ratios),
            })
        })
        .collect()
}

/// A group member's verdicts against its baseline.
pub(super) struct GroupVerdicts {
    /// The member's name with its group.
    pub(super) label: String,
    /// The verdict it should get, and in what share of runs at least; None for groups the
    /// calibration does not know.
    pub(super) want: Option<(&'static str, f64)>,
    /// Runs with the wanted verdict, of all its compared runs (None: nothing is wanted).
    pub(super) hits: Count,
    /// Every verdict with its count, in order of first appearance.
    pub(super) counts: Vec<(String, usize)>,
}

impl GroupVerdicts {
    /// Whether the wanted verdict came often enough; None without a target or runs.
    pub(super) fn met(&self) -> Option<bool> {
        let (_, share) = self.want?;
        self.hits.at_least(share)
    }
}

/// Each group member's verdicts over every run of `runs`.
pub(super) fn group_verdicts<'r>(runs: impl IntoIterator<Item = &'r Run>) -> Vec<GroupVerdicts> {
    members(runs)
        .into_iter()
        .map(|(label, cases)| {
            let group = cases.first().and_then(|c| c.group.as_deref()).unwrap_or("");
            let verdicts: Vec<&str> = cases
                .iter()
                .filter_map(|c| group_comparison(c).map(|k| k.verdict.as_str()))
                .collect();
            let want = GROUPS
                .iter()
                .find(|(g, _, _)| *g == group)
                .map(|&(_, v, share)| (v, share));
            let mut counts: Vec<(String, usize)> = Vec::new();
            for v in &verdicts {
                match counts.iter_mut().find(|(name, _)| name == v) {
                    Some((_, n)) => *n += 1,
                    None => counts.push(((*v).to_owned(), 1)),
                }
            }
            GroupVerdicts {
                label,
                want,
                hits: want.map_or_else(Count::default, |(v, _)| tally(&verdicts, v)),
                counts,
            }
        })
        .collect()
}

/// One case's +10% trials, summarised.
pub(super) struct TrialFigures {
    /// The benchmark's name.
    pub(super) case: String,
    /// What the change is.
    pub(super) change: &'static str,
    /// `slower` verdicts of all trials.
    pub(super) slower: Count,
    /// The other verdicts with their counts.
    pub(super) others: Vec<(String, usize)>,
    /// The measured ratio, changed over unchanged: the geometric mean over trials, and the
    /// smallest and largest.
    pub(super) ratio: (f64, f64, f64),
}

impl TrialFigures {
    /// Whether the change was `slower` often enough; None without trials.
    pub(super) fn met(&self) -> Option<bool> {
        self.slower.at_least(PLUS10_SLOWER)
    }
}

/// The figures of each case's trials.
pub(super) fn trials(all: &[Trials]) -> Vec<TrialFigures> {
    all.iter()
        .map(|t| {
            let verdicts: Vec<&str> = t.trials.iter().map(|t| t.verdict.as_str()).collect();
            let ratios: Vec<f64> = t.trials.iter().map(|t| t.after_ns / t.before_ns).collect();
            let (lo, hi) = min_max(&ratios);
            let mut others: Vec<(String, usize)> = Vec::new();
            for v in verdicts.iter().filter(|v| **v != "slower") {
                match others.iter_mut().find(|(name, _)| name == v) {
                    Some((_, n)) => *n += 1,
                    None => others.push(((*v).to_owned(), 1)),
                }
            }
            TrialFigures {
                case: t.case.clone(),
                change: trials::change(&t.case).unwrap_or("(not a known change)"),
                slower: tally(&verdicts, "slower"),
                others,
                ratio: (geometric_mean(&ratios), lo, hi),
            }
        })
        .collect()
}

/// The wall time per case of a set of runs, against its budget.
pub(super) struct Cost {
    /// Each run's wall time over its cases, in seconds.
    pub(super) per_case_s: Vec<f64>,
    /// The documented budget per case, in seconds.
    pub(super) budget_s: f64,
}

impl Cost {
    /// The cost of `runs` against `budget_s`.
    pub(super) fn of(runs: &[Run], budget_s: f64) -> Self {
        Self {
            per_case_s: runs.iter().map(Run::per_case_s).collect(),
            budget_s,
        }
    }

    /// The median and the largest cost per case over the runs.
    pub(super) fn median_max(&self) -> (f64, f64) {
        (median(&self.per_case_s), min_max(&self.per_case_s).1)
    }

    /// Whether every run kept within the budget; None without runs.
    pub(super) fn met(&self) -> Option<bool> {
        (!self.per_case_s.is_empty()).then(|| self.median_max().1 <= self.budget_s)
    }
}

#[cfg(test)]
mod tests;
