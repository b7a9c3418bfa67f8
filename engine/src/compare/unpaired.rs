//! The before/after ratio: this run's samples against a stored run's.
//!
//! The two runs are independent samples, so the ratio is the two-sample Hodges–Lehmann shift
//! of the log times (the median of all pairwise log-ratios) with its Moses interval,
//! exponentiated; the p-value is the Mann–Whitney test's. Both are rank-based: they need no
//! normality, and a few wild samples cannot move them.
//!
//! Two separate processes differ by more than their samples show: code layout, frequency,
//! what else ran. So the noise threshold of a before/after comparison is at least the case's
//! own run-to-run spread, estimated from its stored history ([`run_to_run_noise`]): from
//! results of the same code where enough are stored, since a change between commits is not
//! noise.

use std::collections::HashMap;

use knotmeter_history::StoredMedian;
use knotmeter_protocol::{Reproducibility, SpreadSource};

use super::{RatioEstimate, LEVEL};
use crate::stats;

/// Without enough stored runs to estimate it, the run-to-run noise is taken to be this: on the
/// shared 2-core machines we measure on, whole runs of unchanged code shift by 3–4% now and then
/// (docs/comparison.md), and criterion's users settle on 3–6% thresholds in CI.
pub(crate) const DEFAULT_RUN_TO_RUN_NOISE: f64 = 0.05;
/// Stored runs needed to estimate the run-to-run noise from history.
pub(crate) const MIN_RUNS_FOR_NOISE: usize = 5;
/// The noise estimate is this many times the 75th percentile of the absolute changes between
/// consecutive runs: robust to a real change now and then (up to a quarter of the steps), and
/// wide enough for the occasional jump a loaded machine makes.
const NOISE_MULTIPLE: f64 = 3.0;

/// `after` over `before`, both corrected per-operation samples; `None` without at least two
/// positive samples on each side.
pub(crate) fn unpaired_ratio(before: &[f64], after: &[f64]) -> Option<RatioEstimate> {
    let logs =
        |xs: &[f64]| -> Vec<f64> { xs.iter().filter(|x| **x > 0.0).map(|x| x.ln()).collect() };
    let (before, after) = (logs(before), logs(after));
    if before.len() < 2 || after.len() < 2 {
        return None;
    }
    let shift = stats::hodges_lehmann(&after, &before, LEVEL)?;
    Some(RatioEstimate {
        ratio: shift.estimate.exp(),
        low: shift.low.exp(),
        high: shift.high.exp(),
        p_value: stats::mann_whitney(&after, &before).map_or(1.0, |mw| mw.p_value),
    })
}

/// The relative change between runs that unchanged code shows on this machine, learnt from
/// a case's earlier comparable results (oldest first), and which of them it was learnt from;
/// `None` with fewer than [`MIN_RUNS_FOR_NOISE`] of them.
///
/// Only results of the same code say how far unchanged code moves: two runs of different
/// commits also differ by whatever changed between them. So once the earlier results hold
/// `MIN_RUNS_FOR_NOISE - 1` steps between consecutive results of one clean commit (known
/// commit, no uncommitted changes), the noise is learnt from those steps alone
/// ([`SpreadSource::SameCode`]). Until then, and whenever commits are not recorded, it is
/// learnt from every step between consecutive results ([`SpreadSource::AnyCode`]): a real
/// change counts as noise there, which makes the floor wider, never narrower.
///
/// Either way the noise is three times the 75th percentile of the absolute log-changes of
/// the steps, as a relative change.
pub(crate) fn run_to_run_noise(earlier: &[StoredMedian]) -> Option<(f64, SpreadSource)> {
    let positive: Vec<&StoredMedian> = earlier.iter().filter(|m| m.median_ns > 0.0).collect();
    if positive.len() < MIN_RUNS_FOR_NOISE {
        return None;
    }
    let same_code = same_code_steps(&positive);
    if same_code.len() >= MIN_RUNS_FOR_NOISE - 1 {
        return Some((noise_of(&same_code), SpreadSource::SameCode));
    }
    let any_code: Vec<f64> = positive.windows(2).map(|w| log_step(w[0], w[1])).collect();
    Some((noise_of(&any_code), SpreadSource::AnyCode))
}

/// The absolute log-changes between consecutive results of each clean commit.
fn same_code_steps(positive: &[&StoredMedian]) -> Vec<f64> {
    let mut last_of: HashMap<&str, &StoredMedian> = HashMap::new();
    let mut steps = Vec::new();
    for median in positive {
        let Some(commit) = median.clean_commit() else {
            continue;
        };
        if let Some(previous) = last_of.insert(commit, median) {
            steps.push(log_step(previous, median));
        }
    }
    steps
}

fn log_step(before: &StoredMedian, after: &StoredMedian) -> f64 {
    (after.median_ns / before.median_ns).ln().abs()
}

/// The standard deviation of one log step between runs that a learnt spread between runs
/// (three times the 75th percentile of the absolute log steps, as a relative change) implies,
/// were the steps normal: the 75th percentile of |N(0, σ)| is 1.1503 σ.
pub(crate) fn step_sd(spread: f64) -> f64 {
    (1.0 + spread.max(0.0)).ln() / NOISE_MULTIPLE / 1.150_349
}

/// Three times the 75th percentile of `steps` (absolute log-changes), as a relative change.
fn noise_of(steps: &[f64]) -> f64 {
    (NOISE_MULTIPLE * stats::quantile(&stats::sorted(steps), 0.75)).exp_m1()
}

/// What the history says about the reproducibility of a case whose earlier comparable results
/// are `earlier` (oldest first): the run-to-run noise once [`MIN_RUNS_FOR_NOISE`] runs are
/// stored (the same figure the verdicts use, [`run_to_run_noise`]), what it was learnt from,
/// and how many runs there are.
pub(crate) fn reproducibility(earlier: &[StoredMedian]) -> Reproducibility {
    let runs = earlier.iter().filter(|m| m.median_ns > 0.0).count();
    let noise = run_to_run_noise(earlier);
    Reproducibility {
        spread: noise.map(|(spread, _)| spread),
        runs: u32::try_from(runs).unwrap_or(u32::MAX),
        runs_needed: MIN_RUNS_FOR_NOISE as u32,
        learnt_from: noise.map(|(_, source)| source),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic samples around `center` with ±2% spread.
    fn samples(center: f64, seed: u64) -> Vec<f64> {
        let mut x = seed;
        (0..2000)
            .map(|_| {
                x = x
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                center * (1.0 + ((x >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 0.04)
            })
            .collect()
    }

    #[test]
    fn recovers_a_known_shift() {
        for shift in [1.0, 1.01, 1.05] {
            let r = unpaired_ratio(&samples(100.0, 1), &samples(100.0 * shift, 2)).unwrap();
            assert!(r.low <= shift && shift <= r.high, "{shift}: {r:?}");
            assert!((r.ratio / shift - 1.0).abs() < 0.003, "{shift}: {r:?}");
            if shift > 1.0 {
                assert!(r.p_value < 1e-6, "{shift}: {r:?}");
            }
        }
    }

    /// Earlier results whose commits were not recorded.
    fn unknown(medians: &[f64]) -> Vec<StoredMedian> {
        medians.iter().map(|m| at(None, None, *m)).collect()
    }

    fn at(commit: Option<&str>, dirty: Option<bool>, median_ns: f64) -> StoredMedian {
        StoredMedian {
            probe_ns_per_step: None,
            probe_build: String::new(),
            median_ns,
            git_commit: commit.map(str::to_owned),
            git_dirty: dirty,
        }
    }

    #[test]
    fn noise_comes_from_history_when_there_is_enough() {
        assert_eq!(
            run_to_run_noise(&unknown(&[100.0, 101.0, 100.0, 101.0])),
            None
        );
        let (noise, source) =
            run_to_run_noise(&unknown(&[100.0, 101.0, 100.0, 101.0, 100.0])).unwrap();
        assert!((noise - 0.0303).abs() < 0.001, "{noise}");
        assert_eq!(source, SpreadSource::AnyCode);
        // One real 10% step among small wobbles does not blow the noise up.
        let (noise, _) =
            run_to_run_noise(&unknown(&[100.0, 100.5, 100.0, 110.0, 110.5, 110.0, 110.4])).unwrap();
        assert!(noise < 0.02, "{noise}");
    }

    /// Two branches 10% apart, measured in turn: every step between consecutive results
    /// crosses the real change, so learnt from them the noise would be about 30%.
    fn alternating(dirty: Option<bool>) -> Vec<StoredMedian> {
        let wobble = [
            0.001, -0.002, 0.0, 0.002, -0.001, 0.003, -0.003, 0.001, 0.0, -0.002,
        ];
        (0..10)
            .flat_map(|i| {
                [
                    at(Some("b"), dirty, 110.0 * (1.0 + wobble[i])),
                    at(Some("a"), dirty, 100.0 * (1.0 + wobble[9 - i])),
                ]
            })
            .collect()
    }

    #[test]
    fn noise_is_learnt_from_runs_of_the_same_clean_commit_when_branches_alternate() {
        let (noise, source) = run_to_run_noise(&alternating(Some(false))).unwrap();
        assert_eq!(source, SpreadSource::SameCode);
        assert!(noise < 0.02, "{noise}");
        // Runs with uncommitted changes may each have measured other code: not the same code,
        // and neither is a commit whose working tree was not known to be clean.
        for dirty in [Some(true), None] {
            let (noise, source) = run_to_run_noise(&alternating(dirty)).unwrap();
            assert_eq!(source, SpreadSource::AnyCode, "{dirty:?}");
            assert!(noise > 0.25, "{dirty:?}: {noise}");
        }
    }

    #[test]
    fn unknown_commits_keep_the_estimate_from_every_consecutive_run() {
        let medians = [100.0, 101.0, 100.0, 110.0, 100.0, 101.0];
        let known: Vec<StoredMedian> = medians
            .iter()
            .map(|m| at(Some("a"), Some(false), *m))
            .collect();
        // The same medians, one commit, clean: the same steps, so the same figure.
        let (same, _) = run_to_run_noise(&known).unwrap();
        let (any, source) = run_to_run_noise(&unknown(&medians)).unwrap();
        assert_eq!(source, SpreadSource::AnyCode);
        assert_eq!(same, any);
        // Too few steps within one clean commit: every step, said so.
        let mut few = unknown(&medians);
        few[4] = at(Some("a"), Some(false), 100.0);
        few[5] = at(Some("a"), Some(false), 101.0);
        assert_eq!(run_to_run_noise(&few), Some((any, SpreadSource::AnyCode)));
    }

    #[test]
    fn reproducibility_is_the_verdicts_noise_once_enough_runs_are_stored() {
        let early = reproducibility(&unknown(&[100.0, 101.0, 100.0, 101.0]));
        assert_eq!(
            (
                early.spread,
                early.runs,
                early.runs_needed,
                early.learnt_from
            ),
            (None, 4, 5, None)
        );
        let medians = alternating(Some(false));
        let known = reproducibility(&medians);
        let (noise, source) = run_to_run_noise(&medians).unwrap();
        assert_eq!(
            (known.spread, known.learnt_from),
            (Some(noise), Some(source))
        );
        assert_eq!(known.runs, 20);
        assert_eq!(reproducibility(&[]).runs, 0);
    }

    /// The floor of a before/after verdict on a history of two branches measured in turn (10%
    /// apart, ±0.3% between runs of one branch): a real +3% change on one branch was called
    /// `same`, under a floor of about 30% learnt from the steps between the branches.
    #[test]
    fn alternating_branches_do_not_hide_a_small_real_change_behind_their_difference() {
        let floor = reproducibility(&alternating(Some(false))).spread.unwrap();
        let before = samples(100.0, 7);
        let after = samples(103.0, 8);
        let estimate = unpaired_ratio(&before, &after).unwrap();
        let pending = [super::super::Pending {
            machine_ratio: None,
            id: "q::a".into(),
            against: "run 20".into(),
            estimate,
            threshold: 0.01_f64.max(floor),
            kind: knotmeter_protocol::ComparisonKind::History,
        }];
        let verdict = super::super::finalize(&pending)[0].1.verdict;
        assert_eq!(
            verdict,
            knotmeter_protocol::Verdict::Slower,
            "a floor of {floor:.3} hid a +3% change"
        );
    }
}
