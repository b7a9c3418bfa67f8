//! The before/after ratio: this run's samples against a stored run's.
//!
//! The two runs are independent samples, so the ratio is the two-sample Hodges–Lehmann shift
//! of the log times (the median of all pairwise log-ratios) with its Moses interval,
//! exponentiated; the p-value is the Mann–Whitney test's. Both are rank-based: they need no
//! normality, and a few wild samples cannot move them.
//!
//! Two separate processes differ by more than their samples show: code layout, frequency,
//! what else ran. So the noise threshold of a before/after comparison is at least the case's
//! own run-to-run spread, estimated from its stored history ([`run_to_run_noise`]).

use knotmeter_protocol::Reproducibility;

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

/// The relative change between runs that unchanged code shows on this machine: three times
/// the 75th percentile of the absolute log-changes between consecutive stored medians (oldest
/// first), or [`DEFAULT_RUN_TO_RUN_NOISE`] with fewer than five stored runs.
pub(crate) fn run_to_run_noise(medians_oldest_first: &[f64]) -> f64 {
    let positive: Vec<f64> = medians_oldest_first
        .iter()
        .copied()
        .filter(|m| *m > 0.0)
        .collect();
    if positive.len() < MIN_RUNS_FOR_NOISE {
        return DEFAULT_RUN_TO_RUN_NOISE;
    }
    let changes: Vec<f64> = positive
        .windows(2)
        .map(|w| (w[1] / w[0]).ln().abs())
        .collect();
    (NOISE_MULTIPLE * stats::quantile(&stats::sorted(&changes), 0.75)).exp_m1()
}

/// What the history says about the reproducibility of a case whose earlier comparable medians
/// are `medians_oldest_first`: the run-to-run noise once [`MIN_RUNS_FOR_NOISE`] runs are
/// stored (the same figure [`run_to_run_noise`] gives the verdicts), and how many there are.
pub(crate) fn reproducibility(medians_oldest_first: &[f64]) -> Reproducibility {
    let runs = medians_oldest_first.iter().filter(|m| **m > 0.0).count();
    Reproducibility {
        spread: (runs >= MIN_RUNS_FOR_NOISE).then(|| run_to_run_noise(medians_oldest_first)),
        runs: u32::try_from(runs).unwrap_or(u32::MAX),
        runs_needed: MIN_RUNS_FOR_NOISE as u32,
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

    #[test]
    fn noise_comes_from_history_when_there_is_enough() {
        assert_eq!(
            run_to_run_noise(&[100.0, 101.0, 100.0, 101.0]),
            DEFAULT_RUN_TO_RUN_NOISE
        );
        let noise = run_to_run_noise(&[100.0, 101.0, 100.0, 101.0, 100.0]);
        assert!((noise - 0.0303).abs() < 0.001, "{noise}");
        // One real 10% step among small wobbles does not blow the noise up.
        let noise = run_to_run_noise(&[100.0, 100.5, 100.0, 110.0, 110.5, 110.0, 110.4]);
        assert!(noise < 0.02, "{noise}");
    }

    #[test]
    fn reproducibility_is_the_verdicts_noise_once_enough_runs_are_stored() {
        let early = reproducibility(&[100.0, 101.0, 100.0, 101.0]);
        assert_eq!((early.spread, early.runs, early.runs_needed), (None, 4, 5));
        let medians = [100.0, 101.0, 100.0, 101.0, 100.0];
        let known = reproducibility(&medians);
        assert_eq!(known.spread, Some(run_to_run_noise(&medians)));
        assert_eq!(known.runs, 5);
        assert_eq!(reproducibility(&[]).runs, 0);
    }
}
