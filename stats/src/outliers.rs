//! Outlier detection with Tukey's fences (J. W. Tukey, "Exploratory Data
//! Analysis", 1977): values outside [Q1 − 1.5·IQR, Q3 + 1.5·IQR], with the
//! quartiles taken as Hyndman–Fan type-7 quantiles (R's default). This is
//! also the default outlier rule of BenchmarkDotNet's `OutlierMode`.

use super::summary::quantile;

/// Tukey's multiplier for the "inner" fences.
const TUKEY_K: f64 = 1.5;

/// Tukey fences and the number of observations beyond each.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tukey {
    /// Q1 − 1.5·IQR (NaN for empty input).
    pub low_fence: f64,
    /// Q3 + 1.5·IQR (NaN for empty input).
    pub high_fence: f64,
    /// Number of observations strictly below `low_fence`.
    pub low: u64,
    /// Number of observations strictly above `high_fence`.
    pub high: u64,
}

/// Tukey's fences (k = 1.5) on the type-7 quartiles of ascending-sorted
/// data, with counts of the observations strictly outside them (found by
/// binary search, O(log n)). Empty input gives NaN fences and zero counts.
pub fn tukey(sorted: &[f64]) -> Tukey {
    let q1 = quantile(sorted, 0.25);
    let q3 = quantile(sorted, 0.75);
    let iqr = q3 - q1;
    let low_fence = q1 - TUKEY_K * iqr;
    let high_fence = q3 + TUKEY_K * iqr;
    if sorted.is_empty() {
        return Tukey {
            low_fence,
            high_fence,
            low: 0,
            high: 0,
        };
    }
    let below = sorted.partition_point(|&x| x < low_fence);
    let not_above = sorted.partition_point(|&x| x <= high_fence);
    Tukey {
        low_fence,
        high_fence,
        low: below as u64,
        high: (sorted.len() - not_above) as u64,
    }
}

/// The sub-slice of ascending-sorted data inside the Tukey fences
/// (inclusive), i.e. the sample with outliers removed, as BenchmarkDotNet
/// does before computing its mValue. Empty input gives an empty slice.
pub fn without_outliers(sorted: &[f64]) -> &[f64] {
    let t = tukey(sorted);
    let start = t.low as usize;
    let end = sorted.len() - t.high as usize;
    &sorted[start..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_match_hand_computation() {
        // Type-7 quartiles of 1..=10 are 3.25 and 7.75; IQR 4.5;
        // fences −3.5 and 14.5. R: quantile(1:10, c(.25, .75)).
        let mut x: Vec<f64> = (1..=10).map(f64::from).collect();
        let t = tukey(&x);
        assert_eq!(
            (t.low_fence, t.high_fence, t.low, t.high),
            (-3.5, 14.5, 0, 0)
        );
        // Add two high outliers and one low one (quartiles move).
        x.extend([40.0, 50.0]);
        x.insert(0, -30.0);
        let t = tukey(&x);
        // n = 13: Q1 = x[3] = 3, Q3 = x[9] = 9, IQR 6 → fences −6, 18.
        assert_eq!((t.low_fence, t.high_fence), (-6.0, 18.0));
        assert_eq!((t.low, t.high), (1, 2));
        assert_eq!(without_outliers(&x), &x[1..11]);
    }

    #[test]
    fn values_on_the_fence_are_not_outliers() {
        // 0,0,0,0,1: Q1 = Q3 = 0 → fences 0, 0; only 1 is outside.
        let x = [0.0, 0.0, 0.0, 0.0, 1.0];
        let t = tukey(&x);
        assert_eq!((t.low, t.high), (0, 1));
        assert_eq!(without_outliers(&x), &[0.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn empty_and_constant_inputs() {
        let t = tukey(&[]);
        assert!(t.low_fence.is_nan() && t.high_fence.is_nan());
        assert_eq!((t.low, t.high), (0, 0));
        assert!(without_outliers(&[]).is_empty());
        let t = tukey(&[2.0; 7]);
        assert_eq!((t.low_fence, t.high_fence, t.low, t.high), (2.0, 2.0, 0, 0));
    }
}
