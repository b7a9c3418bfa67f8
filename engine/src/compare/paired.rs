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
