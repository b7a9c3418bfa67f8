//! The ratio of two counts (`--measure instructions`): a count is not a sample of a noisy
//! speed, so nothing here is statistical.
//!
//! Each side is a case's corrected counts per operation, one per repetition of the count
//! schedule (`crate::count`): all equal for a deterministic body. The ratio is the medians'
//! ratio; its interval runs from the smallest to the largest ratio any two repetitions give
//! (`min(after) / max(before)` to `max(after) / min(before)`): of width zero when both sides
//! are exact. The two sides differ when their ranges do not overlap, and then `p_value` is 0;
//! when they overlap it is 1 (every verdict reads `same`). The noise threshold is then the only
//! floor: a change is a change, called `slower` or `faster` once the whole interval lies past
//! it, by the one verdict rule ([`super::verdict`]).
//!
//! That holds for exact counts. A body whose count moves (`not_deterministic`: where the
//! allocator puts memory, a hash map's seed) moves between processes by more than its
//! repetitions in one process show: the quickstart's `parse_csv_64` read 21 094 to 21 897
//! instructions per operation over seven runs, each run's own range ±0.1% to ±3.2%. Two such
//! counts taken in two processes (before/after, two builds) are held to a noise floor as times
//! are ([`count_noise`]), so that unchanged code reads `same`.

use super::{RatioEstimate, DEFAULT_RUN_TO_RUN_NOISE};
use crate::stats;

/// `after` over `before`, both corrected counts per operation; `None` when either side is
/// empty or counts no work (a ratio of nothing).
pub(crate) fn count_ratio(before: &[f64], after: &[f64]) -> Option<RatioEstimate> {
    let range = |xs: &[f64]| -> Option<(f64, f64, f64)> {
        let sorted = stats::sorted(xs);
        let (low, high) = (*sorted.first()?, *sorted.last()?);
        (low > 0.0).then(|| (low, stats::median(&sorted), high))
    };
    let (before_low, before_median, before_high) = range(before)?;
    let (after_low, after_median, after_high) = range(after)?;
    let low = after_low / before_high;
    let high = after_high / before_low;
    let apart = low > 1.0 || high < 1.0;
    Some(RatioEstimate {
        ratio: after_median / before_median,
        low,
        high,
        p_value: if apart { 0.0 } else { 1.0 },
    })
}

/// The noise floor of two counts taken in two processes: none when both are exact (every
/// repetition equal: the count does not move); otherwise how far the case's counts moved
/// between stored runs (`spread`, once the history knows it), or, until then, the default
/// run-to-run noise of a time.
pub(crate) fn count_noise(before: &[f64], after: &[f64], spread: Option<f64>) -> f64 {
    let exact = |xs: &[f64]| xs.windows(2).all(|w| w[0] == w[1]);
    if exact(before) && exact(after) {
        0.0
    } else {
        spread.unwrap_or(DEFAULT_RUN_TO_RUN_NOISE)
    }
}

#[cfg(test)]
mod tests {
    use knotmeter_protocol::Verdict;

    use super::*;
    use crate::compare::verdict;

    fn decided(before: &[f64], after: &[f64], threshold: f64) -> Verdict {
        let estimate = count_ratio(before, after).unwrap();
        verdict(&estimate, estimate.p_value, threshold)
    }

    #[test]
    fn exact_counts_give_an_exact_ratio() {
        let estimate = count_ratio(&[5_515.0; 5], &[5_570.0; 5]).unwrap();
        assert_eq!(estimate.low, estimate.high);
        assert!((estimate.ratio - 5_570.0 / 5_515.0).abs() < 1e-12);
        assert_eq!(estimate.p_value, 0.0);
    }

    #[test]
    fn the_threshold_is_the_only_floor() {
        // +1% work: a change past a 0.5% threshold, inside a 2% one.
        assert_eq!(
            decided(&[10_015.0; 5], &[10_115.0; 5], 0.005),
            Verdict::Slower
        );
        assert_eq!(decided(&[10_015.0; 5], &[10_115.0; 5], 0.02), Verdict::Same);
        assert_eq!(
            decided(&[10_115.0; 5], &[10_015.0; 5], 0.005),
            Verdict::Faster
        );
        assert_eq!(decided(&[5_515.0; 5], &[5_515.0; 5], 0.0), Verdict::Same);
    }

    #[test]
    fn counts_whose_ranges_overlap_are_the_same() {
        let before = [20_945.0, 21_100.0, 21_300.0, 21_500.0, 21_673.0];
        let after = [21_032.0, 21_100.0, 21_200.0, 21_250.0, 21_279.0];
        let estimate = count_ratio(&before, &after).unwrap();
        assert_eq!(estimate.p_value, 1.0);
        assert!(estimate.low < 1.0 && estimate.high > 1.0, "{estimate:?}");
        assert_eq!(decided(&before, &after, 0.0), Verdict::Same);
    }

    /// Seven runs of the quickstart's `parse_csv_64` read 21 094 to 21 897 instructions per
    /// operation, one with a range of ±0.1%: against another run's count that was `slower`
    /// (+2%, ranges apart) for code nobody touched, until a count that moves got a floor.
    #[test]
    fn a_count_that_moves_is_held_to_a_noise_floor_between_processes() {
        let before = [21_212.0, 21_230.0, 21_233.0, 21_240.0, 21_254.0];
        let after = [21_464.9, 21_600.0, 21_673.0, 21_700.0, 21_771.7];
        let estimate = count_ratio(&before, &after).unwrap();
        let floor = count_noise(&before, &after, None);
        assert_eq!(verdict(&estimate, estimate.p_value, 0.005), Verdict::Slower);
        assert_eq!(
            verdict(&estimate, estimate.p_value, 0.005_f64.max(floor)),
            Verdict::Same
        );
        // Learnt from the history: its spread, not the default.
        assert_eq!(count_noise(&before, &after, Some(0.04)), 0.04);
        // Exact counts have none: 1% more work is a change.
        assert_eq!(count_noise(&[5_515.0; 5], &[5_570.0; 5], Some(0.04)), 0.0);
    }

    #[test]
    fn no_work_has_no_ratio() {
        assert!(count_ratio(&[0.0; 5], &[10.0; 5]).is_none());
        assert!(count_ratio(&[], &[10.0; 5]).is_none());
    }
}
