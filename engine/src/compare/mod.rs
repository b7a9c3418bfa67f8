//! Comparisons and the one verdict engine.
//!
//! Two kinds of comparison produce a ratio (this case's time over the baseline's) with a 95%
//! interval and a p-value:
//!
//! * **paired**, inside one run: a group member against its group's baseline, measured
//!   interleaved ([`paired_ratio`]);
//! * **before/after**, across runs: a case against its previous stored result on the same
//!   machine and profile, or against a named baseline ([`unpaired_ratio`]).
//!
//! Every p-value of a run is then corrected together with Benjamini–Hochberg, and [`verdict`]
//! turns each estimate into `faster`, `slower` or `same`. No other code decides a verdict:
//! the console, JSON, CSV, markdown, the daemon and the editor all show this one.

mod paired;
mod unpaired;

use knotmeter_protocol::{Comparison, ComparisonKind, Verdict};

pub(crate) use paired::paired_ratio;
pub(crate) use unpaired::{reproducibility, unpaired_ratio, DEFAULT_RUN_TO_RUN_NOISE};

use crate::stats;

/// Significance level of every comparison, after the Benjamini–Hochberg correction.
pub(crate) const ALPHA: f64 = 0.05;
/// Confidence level of every ratio interval.
pub(crate) const LEVEL: f64 = 0.95;
/// Changes are shown to 0.1%; the threshold is applied at that resolution, so a change that
/// prints as "+1.0%" is never called `same` under a 1% threshold.
const DISPLAY_RESOLUTION: f64 = 0.0005;

/// A ratio of times (case / baseline) with its interval and uncorrected p-value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RatioEstimate {
    /// Point estimate of the ratio.
    pub(crate) ratio: f64,
    /// Lower bound of the 95% interval.
    pub(crate) low: f64,
    /// Upper bound of the 95% interval.
    pub(crate) high: f64,
    /// Two-sided p-value of "no difference", before correction.
    pub(crate) p_value: f64,
}

/// A comparison waiting for the run's multiple-testing correction.
#[derive(Debug, Clone)]
pub(crate) struct Pending {
    /// The case compared.
    pub(crate) id: String,
    /// What it was compared against: the baseline case's id or the history run.
    pub(crate) against: String,
    /// The estimate.
    pub(crate) estimate: RatioEstimate,
    /// Relative change below which a difference is called noise (0.01 = 1%).
    pub(crate) threshold: f64,
    /// What is compared.
    pub(crate) kind: ComparisonKind,
}

/// The verdict: `slower` (or `faster`) when the corrected p-value is below [`ALPHA`], the
/// interval lies wholly above (below) 1, and it reaches past the noise threshold; `same`
/// otherwise.
///
/// Requiring the interval's far end, not the point estimate, to pass the threshold is what
/// lets a true change of exactly the threshold's size be detected: half of its point
/// estimates fall short of it. A change that is significant but whose whole interval sits
/// inside the threshold (say +0.2% ± 0.1%) is real but negligible, and reads `same`. The
/// threshold is applied at the 0.1% resolution changes are printed with.
pub(crate) fn verdict(estimate: &RatioEstimate, p_adjusted: f64, threshold: f64) -> Verdict {
    let threshold = (threshold - DISPLAY_RESOLUTION).max(0.0);
    // A NaN p-value is no evidence of anything.
    if p_adjusted.is_nan() || p_adjusted >= ALPHA {
        return Verdict::Same;
    }
    if estimate.low > 1.0 && estimate.high > 1.0 + threshold {
        Verdict::Slower
    } else if estimate.high < 1.0 && estimate.low < 1.0 / (1.0 + threshold) {
        Verdict::Faster
    } else {
        Verdict::Same
    }
}

/// Corrects every pending comparison of a run together (Benjamini–Hochberg) and decides
/// their verdicts. The result is in the input's order.
pub(crate) fn finalize(pending: &[Pending]) -> Vec<(String, Comparison)> {
    let p: Vec<f64> = pending.iter().map(|c| c.estimate.p_value).collect();
    let adjusted = stats::benjamini_hochberg(&p);
    pending
        .iter()
        .zip(adjusted)
        .map(|(c, p_adjusted)| {
            let comparison = Comparison {
                against: c.against.clone(),
                ratio: c.estimate.ratio,
                low: c.estimate.low,
                high: c.estimate.high,
                p_value: p_adjusted,
                verdict: verdict(&c.estimate, p_adjusted, c.threshold),
                kind: Some(c.kind),
            };
            (c.id.clone(), comparison)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn estimate(ratio: f64, low: f64, high: f64) -> RatioEstimate {
        RatioEstimate {
            ratio,
            low,
            high,
            p_value: 0.001,
        }
    }

    #[test]
    fn verdict_needs_significance_and_a_change_past_the_threshold() {
        let t = 0.01;
        assert_eq!(
            verdict(&estimate(1.05, 1.04, 1.06), 0.001, t),
            Verdict::Slower
        );
        assert_eq!(
            verdict(&estimate(0.95, 0.94, 0.96), 0.001, t),
            Verdict::Faster
        );
        // A true 1% change: the interval reaches past 1% though the estimate may not.
        assert_eq!(
            verdict(&estimate(1.009, 1.004, 1.014), 0.001, t),
            Verdict::Slower
        );
        // Significant but negligible.
        assert_eq!(
            verdict(&estimate(1.002, 1.001, 1.003), 0.001, t),
            Verdict::Same
        );
        // Large but not significant.
        assert_eq!(verdict(&estimate(1.05, 0.98, 1.12), 0.2, t), Verdict::Same);
        // An interval straddling 1 is never a verdict, whatever the p-value says.
        assert_eq!(
            verdict(&estimate(1.01, 0.999, 1.03), 0.01, t),
            Verdict::Same
        );
        assert_eq!(
            verdict(&estimate(1.05, 1.04, 1.06), f64::NAN, t),
            Verdict::Same
        );
    }

    #[test]
    fn finalize_corrects_p_values_across_the_run() {
        let pending: Vec<Pending> = [0.01, 0.04, 0.03, 0.005]
            .iter()
            .enumerate()
            .map(|(i, &p)| Pending {
                id: format!("c{i}"),
                against: "base".into(),
                estimate: RatioEstimate {
                    ratio: 1.1,
                    low: 1.05,
                    high: 1.15,
                    p_value: p,
                },
                threshold: 0.01,
                kind: ComparisonKind::Group,
            })
            .collect();
        let done = finalize(&pending);
        let adjusted: Vec<f64> = done.iter().map(|(_, c)| c.p_value).collect();
        for (got, want) in adjusted.iter().zip([0.02, 0.04, 0.04, 0.02]) {
            assert!((got - want).abs() < 1e-12, "{adjusted:?}");
        }
        assert!(done.iter().all(|(_, c)| c.verdict == Verdict::Slower));
        assert_eq!(done[1].0, "c1");
    }

    /// `n` samples around `center` with ±`spread` uniform noise, deterministic per `seed`.
    fn noisy(center: f64, spread: f64, n: usize, seed: u64) -> Vec<f64> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                center * (1.0 + ((x >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 2.0 * spread)
            })
            .collect()
    }

    fn decide(estimate: RatioEstimate) -> Verdict {
        let pending = [Pending {
            id: "c".into(),
            against: "b".into(),
            estimate,
            threshold: 0.01,
            kind: ComparisonKind::History,
        }];
        finalize(&pending)[0].1.verdict
    }

    #[test]
    fn unpaired_verdicts_on_known_shifts() {
        for (shift, expected) in [
            (1.0, Verdict::Same),
            (1.01, Verdict::Slower),
            (1.05, Verdict::Slower),
            (0.95, Verdict::Faster),
        ] {
            let before = noisy(100.0, 0.02, 3000, 1);
            let after = noisy(100.0 * shift, 0.02, 3000, 2);
            let estimate = unpaired_ratio(&before, &after).unwrap();
            assert_eq!(decide(estimate), expected, "shift {shift}: {estimate:?}");
        }
    }

    #[test]
    fn paired_verdicts_on_known_shifts_despite_shared_drift() {
        use crate::measure::Measurement;
        for (shift, expected) in [
            (1.0, Verdict::Same),
            (1.01, Verdict::Slower),
            (1.05, Verdict::Slower),
        ] {
            // Both sides drift together by ±20% over the run; the pairing cancels it.
            let drift: Vec<f64> = (0..2000)
                .map(|i| 1.0 + 0.2 * ((i as f64) / 150.0).sin())
                .collect();
            let side = |scale: f64, seed: u64| Measurement {
                workload_ns: noisy(100.0 * scale, 0.01, 2000, seed)
                    .iter()
                    .zip(&drift)
                    .map(|(w, d)| w * d + 1.0)
                    .collect(),
                baseline_ns: vec![1.0; 2000],
                ..Measurement::default()
            };
            let estimate = paired_ratio(&side(1.0, 3), &side(shift, 4)).unwrap();
            assert!(
                estimate.low <= shift * 1.002 && shift * 0.998 <= estimate.high,
                "{shift}: {estimate:?}"
            );
            assert_eq!(decide(estimate), expected, "shift {shift}: {estimate:?}");
        }
    }
}
