//! Descriptive statistics: sorting, median, quantiles, mean and standard
//! deviation.
//!
//! Functions named on `sorted` expect their input sorted ascending (use
//! [`sorted`]); they do not check it. Empty input yields NaN for location
//! statistics (there is no sane number to report) and 0 for the spread.

/// Copy of `xs` sorted ascending with [`f64::total_cmp`] (a total order, so
/// it never panics; NaNs, which callers should filter out beforehand, end up
/// at the ends).
pub fn sorted(xs: &[f64]) -> Vec<f64> {
    let mut v = xs.to_vec();
    v.sort_unstable_by(f64::total_cmp);
    v
}

/// Sample median of ascending-sorted data: the middle value, or the mean of
/// the two middle values for even n (equal to type-7 [`quantile`] at 0.5).
/// NaN for empty input.
pub fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => sorted[n / 2],
        _ => sorted[n / 2 - 1] + (sorted[n / 2] - sorted[n / 2 - 1]) / 2.0,
    }
}

/// Sample quantile of ascending-sorted data by Hyndman & Fan's (1996)
/// definition 7, R's default `quantile(type = 7)`: with h = (n − 1)·q,
/// x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]) (0-based). `q` is clamped to
/// [0, 1]; NaN for empty input or NaN `q`.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() || q.is_nan() {
        return f64::NAN;
    }
    let q = q.clamp(0.0, 1.0);
    let h = (sorted.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    let frac = h - lo as f64;
    if frac == 0.0 {
        sorted[lo]
    } else {
        sorted[lo] + frac * (sorted[hi] - sorted[lo])
    }
}

/// Arithmetic mean; NaN for empty input.
pub fn mean(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// Sample standard deviation with Bessel's correction (divisor n − 1),
/// computed in two passes (mean first, then squared deviations) to avoid the
/// cancellation of the one-pass Σx² formula. 0 for n < 2.
pub fn std_dev(xs: &[f64]) -> f64 {
    if xs.len() < 2 {
        return 0.0;
    }
    let m = mean(xs);
    let ss: f64 = xs.iter().map(|x| (x - m) * (x - m)).sum();
    (ss / (xs.len() - 1) as f64).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorting_is_ascending_and_total() {
        assert_eq!(sorted(&[3.0, -1.0, 2.0, 0.5]), vec![-1.0, 0.5, 2.0, 3.0]);
        let with_nan = sorted(&[1.0, f64::NAN, 0.0]);
        assert_eq!(&with_nan[..2], &[0.0, 1.0]);
        assert!(with_nan[2].is_nan());
    }

    #[test]
    fn median_matches_r() {
        // R: median(c(1, 2, 3, 4, 10)) = 3; median(c(1, 2.5, 3, 7)) = 2.75
        assert_eq!(median(&[1.0, 2.0, 3.0, 4.0, 10.0]), 3.0);
        assert_eq!(median(&[1.0, 2.5, 3.0, 7.0]), 2.75);
        assert_eq!(median(&[42.0]), 42.0);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn quantile_matches_r_type7() {
        let x = [1.0, 2.0, 3.0, 4.0, 10.0];
        // R: quantile(c(1,2,3,4,10), c(0, .25, .5, .9, 1))
        //    -> 1, 2, 3, 7.6, 10
        assert_eq!(quantile(&x, 0.0), 1.0);
        assert_eq!(quantile(&x, 0.25), 2.0);
        assert_eq!(quantile(&x, 0.5), 3.0);
        assert!((quantile(&x, 0.9) - 7.6).abs() < 1e-12);
        assert_eq!(quantile(&x, 1.0), 10.0);
        // R: quantile(c(1, 2.5, 3, 7), c(.1, .75)) -> 1.45, 4
        let y = [1.0, 2.5, 3.0, 7.0];
        assert!((quantile(&y, 0.1) - 1.45).abs() < 1e-12);
        assert!((quantile(&y, 0.75) - 4.0).abs() < 1e-12);
        assert_eq!(quantile(&y, 0.5), median(&y));
    }

    #[test]
    fn quantile_degenerate_inputs() {
        assert!(quantile(&[], 0.5).is_nan());
        assert!(quantile(&[1.0, 2.0], f64::NAN).is_nan());
        assert_eq!(quantile(&[5.0], 0.3), 5.0);
        assert_eq!(quantile(&[1.0, 2.0], -1.0), 1.0);
        assert_eq!(quantile(&[1.0, 2.0], 3.0), 2.0);
    }

    #[test]
    fn mean_and_sd_match_r() {
        // R: sd(c(2,4,4,4,5,5,7,9)) = 2.13808993529939
        let x = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
        assert_eq!(mean(&x), 5.0);
        assert!((std_dev(&x) - 2.138_089_935_299_395).abs() < 1e-12);
        assert!(mean(&[]).is_nan());
        assert_eq!(std_dev(&[3.0]), 0.0);
        assert_eq!(std_dev(&[]), 0.0);
        // Large offset, tiny spread: two-pass keeps precision.
        let y = [1e9 + 1.0, 1e9 + 2.0, 1e9 + 3.0];
        assert!((std_dev(&y) - 1.0).abs() < 1e-9);
    }
}
