//! The calibration's statistics: how often one run's interval holds another run's estimate,
//! and how far estimates move between runs, against how wide each run says it is.

use crate::stats::median;

/// The share of ordered pairs of runs `(i, j)`, `i != j`, in which run `j`'s `points[j]` lies
/// inside run `i`'s interval `intervals[i]` (bounds included). `points` and `intervals` are
/// index-aligned, one entry per run; None with fewer than two runs.
pub(super) fn coverage(points: &[f64], intervals: &[(f64, f64)]) -> Option<f64> {
    let n = points.len().min(intervals.len());
    if n < 2 {
        return None;
    }
    let mut inside = 0usize;
    for (i, &(low, high)) in intervals[..n].iter().enumerate() {
        inside += points[..n]
            .iter()
            .enumerate()
            .filter(|&(j, &p)| j != i && low <= p && p <= high)
            .count();
    }
    Some(inside as f64 / (n * (n - 1)) as f64)
}

/// The median over runs of each interval's half-width relative to its own estimate:
/// `(high − low) / 2 / estimate`. Runs whose estimate is not positive are left out.
pub(super) fn median_half_width(points: &[f64], intervals: &[(f64, f64)]) -> f64 {
    let widths: Vec<f64> = points
        .iter()
        .zip(intervals)
        .filter(|(&p, _)| p > 0.0)
        .map(|(&p, &(low, high))| (high - low) / 2.0 / p)
        .collect();
    median(&widths)
}

/// Half the range of `values`, relative to their median: `(max − min) / 2 / median`.
pub(super) fn half_range(values: &[f64]) -> f64 {
    let (min, max) = min_max(values);
    (max - min) / 2.0 / median(values)
}

/// `max / min − 1`: how much larger the largest value is than the smallest.
pub(super) fn max_over_min(values: &[f64]) -> f64 {
    let (min, max) = min_max(values);
    max / min - 1.0
}

/// The coefficient of variation: the sample standard deviation (n − 1) over the mean; NaN
/// with fewer than two values.
pub(super) fn cv(values: &[f64]) -> f64 {
    if values.len() < 2 {
        return f64::NAN;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    var.sqrt() / mean
}

/// The medians of `blocks` consecutive blocks of `workload`, each sample less the median of
/// `baseline` (the harness's overhead, as the engine subtracts it). The blocks are as equal as
/// the count allows (the first ones one sample longer); empty when there are fewer samples
/// than blocks.
pub(super) fn block_medians(workload: &[f64], baseline: &[f64], blocks: usize) -> Vec<f64> {
    if blocks == 0 || workload.len() < blocks {
        return Vec::new();
    }
    let overhead = if baseline.is_empty() {
        0.0
    } else {
        median(baseline)
    };
    let corrected: Vec<f64> = workload.iter().map(|w| w - overhead).collect();
    let (base, extra) = (corrected.len() / blocks, corrected.len() % blocks);
    let mut start = 0;
    (0..blocks)
        .map(|b| {
            let len = base + usize::from(b < extra);
            let block = &corrected[start..start + len];
            start += len;
            median(block)
        })
        .collect()
}

/// The smallest and largest of `values` ((+∞, −∞) when empty).
fn min_max(values: &[f64]) -> (f64, f64) {
    values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn coverage_counts_ordered_pairs_without_the_run_itself() {
        // Run 0's interval holds runs 1 and 2; run 1's holds run 0 only; run 2's holds none.
        let points = [10.0, 11.0, 12.0];
        let intervals = [(10.5, 12.0), (9.0, 10.5), (12.5, 13.0)];
        assert!(close(coverage(&points, &intervals).unwrap(), 3.0 / 6.0));
        // An interval always holds its own point; that pair must not count.
        let own_only = [(9.9, 10.1), (10.9, 11.1), (11.9, 12.1)];
        assert_eq!(coverage(&points, &own_only), Some(0.0));
        let wide = [(0.0, 100.0); 3];
        assert_eq!(coverage(&points, &wide), Some(1.0));
        assert_eq!(coverage(&[1.0], &[(0.0, 2.0)]), None);
    }

    #[test]
    fn half_widths_are_relative_to_each_runs_estimate_and_summarised_by_the_median() {
        let points = [100.0, 200.0, 50.0];
        let intervals = [(99.0, 101.0), (190.0, 210.0), (49.0, 51.0)];
        // 1%, 5% and 2%: the median is 2%.
        assert!(close(median_half_width(&points, &intervals), 0.02));
    }

    #[test]
    fn half_range_max_over_min_and_cv() {
        let values = [9.0, 10.0, 12.0];
        assert!(close(half_range(&values), 0.15));
        assert!(close(max_over_min(&values), 12.0 / 9.0 - 1.0));
        assert!(close(max_over_min(&[5.0, 5.0]), 0.0));
        // mean 10, sample variance (1 + 0 + 1) / 2 = 1.
        assert!(close(cv(&[9.0, 10.0, 11.0]), 0.1));
        assert!(cv(&[1.0]).is_nan());
    }

    #[test]
    fn blocks_keep_time_order_and_subtract_the_baselines_median() {
        let workload: Vec<f64> = (1..=10).map(f64::from).collect();
        let baseline = [0.5, 1.0, 100.0];
        // Blocks [1..4], [5..7], [8..10], each less 1.0.
        assert_eq!(block_medians(&workload, &baseline, 3), vec![1.5, 5.0, 8.0]);
        assert!(block_medians(&workload, &baseline, 11).is_empty());
        assert_eq!(block_medians(&[4.0, 6.0], &[], 1), vec![5.0]);
    }
}
