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
//! Counts (`--measure instructions`) are compared by [`count_ratio`], either kind: a ratio
//! of counts, decided with the threshold as the only floor.
//!
//! Every p-value of a run is then corrected together with Benjamini–Hochberg, and [`verdict`]
//! turns each estimate into `faster`, `slower` or `same`. No other code decides a verdict:
//! the console, JSON, CSV, markdown, the daemon and the editor all show this one.

mod counts;
mod paired;
pub(crate) mod rounds;
mod unpaired;

use knotmeter_protocol::{Comparison, ComparisonKind, Verdict};

pub(crate) use counts::{count_noise, count_ratio};
pub(crate) use paired::{pair_is_precise, paired_ratio, round_log_ratio, PAIRED_PRECISION_DIVISOR};
pub(crate) use unpaired::{reproducibility, step_sd, unpaired_ratio, DEFAULT_RUN_TO_RUN_NOISE};

use crate::stats;

/// Significance level of every comparison, after the Benjamini–Hochberg correction.
pub(crate) const ALPHA: f64 = 0.05;
/// Confidence level of every ratio interval.
pub(crate) const LEVEL: f64 = 0.95;

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
    /// A before/after estimate's machine's probe ratio, when it is relative to it.
    pub(crate) machine_ratio: Option<f64>,
}

/// The verdict: `slower` (or `faster`) when the corrected p-value is below [`ALPHA`] and the
/// whole interval lies past the noise threshold: its near end above 1 + threshold (below
/// 1 / (1 + threshold)); `same` otherwise.
///
/// Holding the interval's near end against the threshold is what keeps noise from making
/// verdicts: a wider interval (a noisier comparison) reaches less far past the threshold, so it
/// is never more likely to be called a change. The rule that held the far end instead called
/// +0.9% [0.4, 1.4] `slower` under a 1% threshold, and the noisier the comparison, the further
/// its far end reached. A change that is significant but not clearly past the threshold (+0.2%
/// [0.1, 0.3] under 0.5%) is real but not shown to matter, and reads `same`.
pub(crate) fn verdict(estimate: &RatioEstimate, p_adjusted: f64, threshold: f64) -> Verdict {
    let threshold = threshold.max(0.0);
    // A NaN p-value is no evidence of anything.
    if p_adjusted.is_nan() || p_adjusted >= ALPHA {
        return Verdict::Same;
    }
    if estimate.low > 1.0 + threshold {
        Verdict::Slower
    } else if estimate.high < 1.0 / (1.0 + threshold) {
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
                machine: c.machine_ratio,
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
    fn verdict_needs_significance_and_the_whole_interval_past_the_threshold() {
        let t = 0.01;
        assert_eq!(
            verdict(&estimate(1.05, 1.04, 1.06), 0.001, t),
            Verdict::Slower
        );
        assert_eq!(
            verdict(&estimate(0.95, 0.94, 0.96), 0.001, t),
            Verdict::Faster
        );
        // Significant, but the interval reaches inside the threshold: not shown to matter.
        assert_eq!(
            verdict(&estimate(1.009, 1.004, 1.014), 0.001, t),
            Verdict::Same
        );
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

    /// The rule the verdict replaced held the far end of the interval against the threshold:
    /// +0.9% [0.4, 1.4] read `slower` under 1%, and a wider interval around the same change
    /// reached past the threshold more easily. A noisier comparison must never be more likely
    /// to say `slower`.
    #[test]
    fn a_noisier_comparison_of_the_same_change_is_never_more_likely_slower() {
        let t = 0.01;
        assert_eq!(
            verdict(&estimate(1.009, 1.004, 1.014), 0.001, t),
            Verdict::Same
        );
        for change in [1.0, 1.005, 1.009, 1.02, 1.05] {
            let mut previous = Verdict::Slower;
            for half in [0.001, 0.005, 0.01, 0.03, 0.1] {
                let v = verdict(&estimate(change, change - half, change + half), 0.001, t);
                assert!(
                    !(v == Verdict::Slower && previous != Verdict::Slower),
                    "{change} ± {half}: a wider interval said slower where a narrower did not"
                );
                previous = v;
            }
        }
    }

    #[test]
    fn finalize_corrects_p_values_across_the_run() {
        let pending: Vec<Pending> = [0.01, 0.04, 0.03, 0.005]
            .iter()
            .enumerate()
            .map(|(i, &p)| Pending {
                machine_ratio: None,
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
            machine_ratio: None,
            id: "c".into(),
            against: "b".into(),
            estimate,
            threshold: crate::cli::DEFAULT_NOISE_PERCENT / 100.0,
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
