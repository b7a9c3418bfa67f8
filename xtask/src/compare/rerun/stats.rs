//! The figures of one harness on one case over its runs: where the estimates lie, how wide each
//! run says its estimate is, and how often a run's interval holds another run's estimate.
//!
//! The same definitions as the calibration's (`xtask/src/calibration/stats.rs`), for intervals
//! that a harness may not report.

use super::parse::Reported;
use crate::stats::median;

/// One harness's runs of one case, summarised.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Summary {
    /// The median of the runs' central estimates, in nanoseconds.
    pub(super) median_ns: f64,
    /// The median over runs of the interval's half-width relative to its own estimate; `None`:
    /// no run reported an interval.
    pub(super) half_width: Option<f64>,
    /// Ordered pairs of runs (i ≠ j) in which run j's estimate lies inside run i's interval,
    /// and all pairs whose run i reported an interval.
    pub(super) coverage: Option<(usize, usize)>,
    /// Half the range of the estimates, relative to their median.
    pub(super) half_range: f64,
}

impl Summary {
    /// How many half-widths the estimates' half-range is.
    pub(super) fn range_over_width(&self) -> Option<f64> {
        self.half_width.map(|width| self.half_range / width)
    }
}

/// The summary of `runs`, one report per run.
pub(super) fn summarise(runs: &[Reported]) -> Summary {
    let estimates: Vec<f64> = runs.iter().map(|r| r.ns).collect();
    let widths: Vec<f64> = runs
        .iter()
        .filter(|r| r.ns > 0.0)
        .filter_map(|r| r.interval.map(|(low, high)| (high - low) / 2.0 / r.ns))
        .collect();
    Summary {
        median_ns: median(&estimates),
        half_width: (!widths.is_empty()).then(|| median(&widths)),
        coverage: coverage(runs),
        half_range: half_range(&estimates),
    }
}

/// Ordered pairs of runs (i ≠ j) in which run j's estimate lies inside run i's interval (bounds
/// included), and all pairs whose run i has an interval; `None` when no run has one or there
/// are fewer than two runs.
pub(super) fn coverage(runs: &[Reported]) -> Option<(usize, usize)> {
    let (mut inside, mut pairs) = (0, 0);
    for (i, run) in runs.iter().enumerate() {
        let Some((low, high)) = run.interval else {
            continue;
        };
        for (j, other) in runs.iter().enumerate() {
            if i != j {
                pairs += 1;
                inside += usize::from(low <= other.ns && other.ns <= high);
            }
        }
    }
    (pairs > 0).then_some((inside, pairs))
}

/// Half the range of `values`, relative to their median: `(max − min) / 2 / median`.
pub(super) fn half_range(values: &[f64]) -> f64 {
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (max - min) / 2.0 / median(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(ns: f64, interval: Option<(f64, f64)>) -> Reported {
        Reported { ns, interval }
    }

    #[test]
    fn coverage_counts_ordered_pairs_without_the_run_itself() {
        // Run 0's interval holds runs 1 and 2; run 1's holds run 0 only; run 2's holds none.
        let runs = [
            run(10.0, Some((10.5, 12.0))),
            run(11.0, Some((9.0, 10.5))),
            run(12.0, Some((12.5, 13.0))),
        ];
        assert_eq!(coverage(&runs), Some((3, 6)));
        // An interval always holds its own estimate: that pair must not count.
        let own_only = [run(10.0, Some((9.9, 10.1))), run(11.0, Some((10.9, 11.1)))];
        assert_eq!(coverage(&own_only), Some((0, 2)));
        // Bounds count as inside.
        let edges = [run(10.0, Some((9.0, 11.0))), run(11.0, Some((10.0, 12.0)))];
        assert_eq!(coverage(&edges), Some((2, 2)));
    }

    #[test]
    fn only_runs_with_an_interval_count_as_the_holding_side() {
        let runs = [
            run(10.0, Some((0.0, 100.0))),
            run(11.0, None),
            run(12.0, None),
        ];
        assert_eq!(coverage(&runs), Some((2, 2)));
        assert_eq!(coverage(&[run(10.0, None), run(11.0, None)]), None);
        assert_eq!(coverage(&[run(10.0, Some((0.0, 100.0)))]), None);
    }

    #[test]
    fn summary_of_widths_ranges_and_their_ratio() {
        // Half-widths 1%, 5% and 2% of each run's own estimate: the median is 2%.
        let runs = [
            run(100.0, Some((99.0, 101.0))),
            run(200.0, Some((190.0, 210.0))),
            run(50.0, Some((49.0, 51.0))),
        ];
        let summary = summarise(&runs);
        assert_eq!(summary.median_ns, 100.0);
        assert!((summary.half_width.unwrap() - 0.02).abs() < 1e-12);
        // (200 − 50) / 2 / 100.
        assert!((summary.half_range - 0.75).abs() < 1e-12);
        assert!((summary.range_over_width().unwrap() - 37.5).abs() < 1e-9);
        let bare = summarise(&[run(9.0, None), run(10.0, None), run(12.0, None)]);
        assert!((bare.half_range - 0.15).abs() < 1e-12);
        assert_eq!((bare.half_width, bare.coverage), (None, None));
        assert_eq!(bare.range_over_width(), None);
    }
}
