//! The paired ratio: per-round log-ratios of a member and its group's baseline.
//!
//! Each round timed the baseline and the member back to back with the same operation count.
//! The per-round ratio of their overhead-corrected times cancels whatever disturbed that
//! round; the location of the log-ratios (one-sample Hodges–Lehmann, the median of Walsh
//! averages) with its Wilcoxon signed-rank interval, exponentiated, is the ratio and its
//! interval, and the signed-rank test gives the p-value.

use super::{RatioEstimate, LEVEL};
use crate::analysis::corrected;
use crate::measure::Measurement;
use crate::stats;

/// A pair's ratio interval must be this many times narrower than the precision target, so
/// that a difference of the target's size is resolved, not merely bracketed: in one stretch
/// ([`pair_is_precise`]) and over rounds (`rounds`).
pub(crate) const PAIRED_PRECISION_DIVISOR: f64 = 4.0;

/// The stop rule of a pair measured in one stretch: whether its samples so far give a ratio
/// whose interval's half-width is within [`PAIRED_PRECISION_DIVISOR`]th of `target_precision`.
pub(crate) fn pair_is_precise(
    base: &Measurement,
    member: &Measurement,
    target_precision: f64,
) -> bool {
    paired_ratio(base, member)
        .is_some_and(|r| (r.high - r.low) / 2.0 <= target_precision / PAIRED_PRECISION_DIVISOR)
}

/// The member's time over the baseline's, from index-aligned paired samples; `None` when
/// fewer than two rounds have positive times on both sides.
pub(crate) fn paired_ratio(base: &Measurement, member: &Measurement) -> Option<RatioEstimate> {
    let base = corrected(&base.workload_ns, &base.baseline_ns).samples;
    let member = corrected(&member.workload_ns, &member.baseline_ns).samples;
    let logs: Vec<f64> = base
        .iter()
        .zip(&member)
        .filter(|(b, m)| **b > 0.0 && **m > 0.0)
        .map(|(b, m)| (m / b).ln())
        .collect();
    if logs.len() < 2 {
        return None;
    }
    let shift = stats::one_sample_location(&logs, LEVEL)?;
    Some(RatioEstimate {
        ratio: shift.estimate.exp(),
        low: shift.low.exp(),
        high: shift.high.exp(),
        p_value: stats::wilcoxon_signed_rank_p(&logs).unwrap_or(1.0),
    })
}

/// One round's log-ratio of `member` to `base`, for a ratio taken across rounds: the paired
/// estimate over the round's samples, or, when the round had room for one positive pair only
/// (a slot's short share of the budget on a loaded machine), that pair's log-ratio. Across
/// rounds it is one observation like any other, and the interval comes from the rounds; a
/// round dropped for having one pair left a loaded `--quick` comparison with no round at all.
pub(crate) fn round_log_ratio(base: &Measurement, member: &Measurement) -> Option<f64> {
    if let Some(estimate) = paired_ratio(base, member) {
        return Some(estimate.ratio.ln());
    }
    let base = corrected(&base.workload_ns, &base.baseline_ns).samples;
    let member = corrected(&member.workload_ns, &member.baseline_ns).samples;
    let mut positive = base
        .iter()
        .zip(&member)
        .filter(|(b, m)| **b > 0.0 && **m > 0.0);
    let (b, m) = positive.next()?;
    Some((m / b).ln())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(workload_ns: &[f64]) -> Measurement {
        Measurement {
            workload_ns: workload_ns.to_vec(),
            baseline_ns: vec![1.0; workload_ns.len()],
            ..Measurement::default()
        }
    }

    /// A round with one pair gives that pair's ratio; with several, the paired estimate; with
    /// no positive pair, nothing.
    #[test]
    fn a_round_with_one_pair_still_gives_its_ratio() {
        let one = round_log_ratio(&side(&[101.0]), &side(&[111.0])).expect("one pair is a ratio");
        assert!((one - 1.1f64.ln()).abs() < 1e-12, "{one}");
        let many = round_log_ratio(&side(&[101.0, 101.0, 101.0]), &side(&[121.0, 121.0, 121.0]));
        let paired = paired_ratio(&side(&[101.0; 3]), &side(&[121.0; 3])).unwrap();
        assert_eq!(many, Some(paired.ratio.ln()));
        assert_eq!(round_log_ratio(&side(&[0.5]), &side(&[111.0])), None);
        assert_eq!(round_log_ratio(&side(&[]), &side(&[])), None);
    }
}
