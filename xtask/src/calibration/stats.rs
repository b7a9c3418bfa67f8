//! The calibration's statistics: how often one run's interval holds another run's estimate or
//! ratio (a count of pairs), how far estimates move between runs against how wide each run
//! says it is, how many verdicts are what they should be, and the experiment's blocks.

use crate::stats::median;

/// How many of some number of things were hits: pairs covered, verdicts as expected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Count {
    /// The hits.
    pub(super) hits: usize,
    /// All that were counted.
    pub(super) of: usize,
}

impl Count {
    /// `hits / of`; None when nothing was counted.
    pub(super) fn share(self) -> Option<f64> {
        (self.of > 0).then(|| self.hits as f64 / self.of as f64)
    }

    /// Whether the share is at least `target`; None when nothing was counted.
    pub(super) fn at_least(self, target: f64) -> Option<bool> {
        self.share().map(|s| s >= target)
    }

    /// Whether the share is at most `target`; None when nothing was counted.
    pub(super) fn at_most(self, target: f64) -> Option<bool> {
        self.share().map(|s| s <= target)
    }
}

impl std::ops::Add for Count {
    type Output = Self;

    fn add(self, other: Self) -> Self {
        Self {
            hits: self.hits + other.hits,
            of: self.of + other.of,
        }
    }
}

impl std::iter::Sum for Count {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::default(), |a, b| a + b)
    }
}

/// The ordered pairs of runs `(i, j)`, `i != j`, in which run `j`'s `points[j]` lies inside run
/// `i`'s interval `intervals[i]` (bounds included), of all such pairs. `points` and
/// `intervals` are index-aligned, one entry per run; a point or a ratio alike.
pub(super) fn coverage(points: &[f64], intervals: &[(f64, f64)]) -> Count {
    let all = vec![true; intervals.len()];
    coverage_of(points, intervals, &all)
}

/// [`coverage`] with only the runs marked in `holders` as the holding side `i` (the runs whose
/// interval is in question: those widened by the history); every other run is a point `j`.
pub(super) fn coverage_of(points: &[f64], intervals: &[(f64, f64)], holders: &[bool]) -> Count {
    let n = points.len().min(intervals.len()).min(holders.len());
    let mut count = Count::default();
    for (i, &(low, high)) in intervals[..n].iter().enumerate() {
        if !holders[i] {
            continue;
        }
        for (j, &p) in points[..n].iter().enumerate() {
            if j != i {
                count.of += 1;
                count.hits += usize::from(low <= p && p <= high);
            }
        }
    }
    count
}

/// How many of `verdicts` are `want`.
pub(super) fn tally(verdicts: &[&str], want: &str) -> Count {
    Count {
        hits: verdicts.iter().filter(|v| **v == want).count(),
        of: verdicts.len(),
    }
}

/// How many of `verdicts` are not `same`.
pub(super) fn not_same(verdicts: &[&str]) -> Count {
    Count {
        hits: verdicts.iter().filter(|v| **v != "same").count(),
        of: verdicts.len(),
    }
}

/// The geometric mean of positive `values` (a typical ratio); NaN when there are none.
pub(super) fn geometric_mean(values: &[f64]) -> f64 {
    let logs: Vec<f64> = values
        .iter()
        .filter(|v| **v > 0.0)
        .map(|v| v.ln())
        .collect();
    if logs.is_empty() {
        return f64::NAN;
    }
    (logs.iter().sum::<f64>() / logs.len() as f64).exp()
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
pub(super) fn min_max(values: &[f64]) -> (f64, f64) {
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
        assert_eq!(coverage(&points, &intervals), Count { hits: 3, of: 6 });
        // An interval always holds its own point; that pair must not count.
        let own_only = [(9.9, 10.1), (10.9, 11.1), (11.9, 12.1)];
        assert_eq!(coverage(&points, &own_only).share(), Some(0.0));
        let wide = [(0.0, 100.0); 3];
        assert_eq!(coverage(&points, &wide).share(), Some(1.0));
        assert_eq!(coverage(&[1.0], &[(0.0, 2.0)]).share(), None);
    }

    #[test]
    fn coverage_of_ratios_is_the_same_count_over_ratios_and_their_intervals() {
        // Three runs' group ratios: 1.000 [0.998, 1.002], 1.003 [1.001, 1.005], 0.999
        // [0.990, 1.010]: run 0 holds run 2; run 1 holds neither; run 2 holds both.
        let ratios = [1.000, 1.003, 0.999];
        let intervals = [(0.998, 1.002), (1.001, 1.005), (0.990, 1.010)];
        assert_eq!(coverage(&ratios, &intervals), Count { hits: 3, of: 6 });
    }

    #[test]
    fn only_the_marked_runs_hold_but_every_run_is_a_point() {
        let points = [10.0, 11.0, 12.0];
        let intervals = [(10.5, 12.0), (9.0, 10.5), (9.0, 13.0)];
        // Run 2 alone holds: runs 0 and 1 are both inside.
        let widened = [false, false, true];
        assert_eq!(
            coverage_of(&points, &intervals, &widened),
            Count { hits: 2, of: 2 }
        );
        assert_eq!(coverage_of(&points, &intervals, &[false; 3]).share(), None);
    }

    #[test]
    fn verdicts_are_tallied_and_counts_add_up() {
        let verdicts = ["same", "slower", "same", "faster"];
        assert_eq!(tally(&verdicts, "same"), Count { hits: 2, of: 4 });
        assert_eq!(not_same(&verdicts), Count { hits: 2, of: 4 });
        assert_eq!(tally(&[], "slower").share(), None);
        let total: Count = [Count { hits: 1, of: 9 }, Count { hits: 0, of: 9 }]
            .into_iter()
            .sum();
        assert_eq!(total, Count { hits: 1, of: 18 });
        assert_eq!(total.at_most(0.05), Some(false));
        assert_eq!(Count { hits: 9, of: 10 }.at_least(0.9), Some(true));
        assert_eq!(Count::default().at_least(0.9), None);
    }

    #[test]
    fn the_geometric_mean_of_ratios_is_symmetric_in_logs() {
        assert!(close(geometric_mean(&[1.1, 1.0 / 1.1]), 1.0));
        assert!(close(geometric_mean(&[2.0, 8.0]), 4.0));
        assert!(geometric_mean(&[]).is_nan());
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
