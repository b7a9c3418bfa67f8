//! Distribution-free confidence interval for the median from order
//! statistics (Thompson 1936; Hollander, Wolfe & Chicken, "Nonparametric
//! Statistical Methods", 3rd ed., §3.6; Conover, "Practical Nonparametric
//! Statistics", §3.2).
//!
//! For a continuous distribution the number of observations below the true
//! median is Binomial(n, 1/2), so [x₍ₖ₎, x₍ₙ₊₁₋ₖ₎] covers the median with
//! probability 1 − 2·P(B ≤ k − 1). We pick the largest k whose coverage is
//! still at least the requested level (a conservative interval).

use super::normal::{sanitize_level, z_for_level};

/// Up to this sample size the binomial tail is summed exactly; beyond it the
/// normal approximation with continuity correction is used (it picks the
/// same rank as the exact rule, or one rank wider, for n ≳ 1000).
const EXACT_MAX_N: usize = 1000;

/// A confidence interval for the median.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MedianCi {
    /// Lower bound: the order statistic x₍ₖ₎.
    pub low: f64,
    /// Upper bound: the order statistic x₍ₙ₊₁₋ₖ₎.
    pub high: f64,
    /// Confidence level: the requested level when the interval attains it
    /// (exact coverage is then ≥ level), otherwise — for tiny samples where
    /// even [min, max] falls short — the actual coverage 1 − 2^(1−n) of
    /// [min, max]. 0 for empty input.
    pub level: f64,
}

/// Distribution-free CI for the median of ascending-sorted data at
/// confidence `level` (e.g. 0.95), from the binomial(n, 1/2) distribution of
/// order statistics (Hollander, Wolfe & Chicken §3.6). For n ≤ 1000 the
/// binomial tail is summed exactly, each term evaluated in log space
/// (log C(n,i) − n·ln 2) so nothing overflows; for larger n the rank is
/// k = ⌊n/2 + 1/2 − z·√n/2⌋ (normal approximation with continuity
/// correction). When even [min, max] does not reach `level` (n small),
/// returns [min, max] with its achieved level. `level` is clamped to [0, 1]
/// (NaN → 0.95). Empty input gives NaN bounds and level 0.
pub fn median_ci(sorted: &[f64], level: f64) -> MedianCi {
    let n = sorted.len();
    if n == 0 {
        return MedianCi {
            low: f64::NAN,
            high: f64::NAN,
            level: 0.0,
        };
    }
    let level = sanitize_level(level);
    let k = if n <= EXACT_MAX_N {
        exact_rank(n, level)
    } else {
        normal_rank(n, level)
    };
    match k {
        Some(k) => MedianCi {
            low: sorted[k - 1],
            high: sorted[n - k],
            level,
        },
        None => MedianCi {
            low: sorted[0],
            high: sorted[n - 1],
            level: min_max_coverage(n),
        },
    }
}

/// Coverage 1 − 2·(1/2)ⁿ of [min, max] as a median interval.
fn min_max_coverage(n: usize) -> f64 {
    let n = i32::try_from(n).unwrap_or(i32::MAX);
    (1.0 - 2.0 * 0.5f64.powi(n)).max(0.0)
}

/// Largest 1-based rank k ≤ (n+1)/2 with P(B ≤ k−1) ≤ (1−level)/2 for
/// B ~ Binomial(n, 1/2), by exact summation; None when even k = 1 fails.
fn exact_rank(n: usize, level: f64) -> Option<usize> {
    let half_alpha = (1.0 - level) / 2.0;
    // Tiny tolerance so rounding in the log-space terms cannot flip a tie.
    let limit = half_alpha * (1.0 + 1e-10);
    let nf = n as f64;
    let ln_half_n = -nf * std::f64::consts::LN_2;
    let mut log_choose = 0.0; // ln C(n, 0)
    let mut cdf = 0.0;
    let mut k = 0;
    for i in 0..=n / 2 {
        if i > 0 {
            log_choose += (nf - i as f64 + 1.0).ln() - (i as f64).ln();
        }
        cdf += (log_choose + ln_half_n).exp();
        if cdf <= limit {
            k = i + 1;
        } else {
            break;
        }
    }
    (k > 0).then_some(k)
}

/// Rank from the normal approximation with continuity correction:
/// k = ⌊n/2 + 1/2 − z·√n/2⌋, clamped to [1, (n+1)/2]; None when k < 1
/// would be needed (level so close to 1 that only [min, max] remains, and
/// that is reported with its own coverage).
fn normal_rank(n: usize, level: f64) -> Option<usize> {
    let nf = n as f64;
    let z = z_for_level(level);
    let k = (nf / 2.0 + 0.5 - z * nf.sqrt() / 2.0).floor();
    if k.is_nan() || k < 1.0 {
        return None;
    }
    // k ≤ n/2 + 1/2 so the cast cannot exceed n.
    Some((k as usize).min(n.div_ceil(2)))
}

/// Relative half-width of an interval around `median`:
/// (high − low) / 2 / |median|. +∞ when the median is 0 and the width is
/// positive; 0 when both are 0. NaN only if an input is NaN.
pub fn relative_half_width(ci: &MedianCi, median: f64) -> f64 {
    let half = (ci.high - ci.low) / 2.0;
    if median == 0.0 {
        if half > 0.0 {
            f64::INFINITY
        } else if half == 0.0 {
            0.0
        } else {
            f64::NAN
        }
    } else {
        half / median.abs()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::{median, sorted};
    use crate::testutil::SplitMix64;

    fn one_to(n: usize) -> Vec<f64> {
        (1..=n).map(|i| i as f64).collect()
    }

    #[test]
    fn exact_ranks_match_binomial_tables() {
        // n = 10: P(B ≤ 1) = 11/1024 ≤ 0.025 < P(B ≤ 2) = 56/1024 → k = 2.
        let ci = median_ci(&one_to(10), 0.95);
        assert_eq!((ci.low, ci.high, ci.level), (2.0, 9.0, 0.95));
        // n = 25: k = 8 (P(B ≤ 7) = 0.02164); n = 37: k = 13.
        let ci = median_ci(&one_to(25), 0.95);
        assert_eq!((ci.low, ci.high), (8.0, 18.0));
        let ci = median_ci(&one_to(37), 0.95);
        assert_eq!((ci.low, ci.high), (13.0, 25.0));
        // n = 1000 (still exact): k = 469.
        let ci = median_ci(&one_to(1000), 0.95);
        assert_eq!((ci.low, ci.high), (469.0, 532.0));
        // 99% for n = 20: P(B ≤ 3) = 0.00129 ≤ 0.005 < P(B ≤ 4) → k = 4.
        let ci = median_ci(&one_to(20), 0.99);
        assert_eq!((ci.low, ci.high), (4.0, 17.0));
    }

    #[test]
    fn normal_branch_is_close_to_exact() {
        // Exact rank at n = 1001 is 470; the approximation may be 1 wider.
        let ci = median_ci(&one_to(1001), 0.95);
        assert_eq!((ci.low, ci.high), (469.0, 533.0));
        // n = 2000: exact rank 956.
        let ci = median_ci(&one_to(2000), 0.95);
        assert_eq!((ci.low, ci.high), (956.0, 1045.0));
    }

    #[test]
    fn tiny_samples_return_min_max_with_achieved_level() {
        // n = 5: [min, max] covers with 1 − 2/32 = 0.9375 < 0.95.
        let ci = median_ci(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.95);
        assert_eq!((ci.low, ci.high), (1.0, 5.0));
        assert!((ci.level - 0.9375).abs() < 1e-15);
        let ci = median_ci(&[7.0], 0.95);
        assert_eq!((ci.low, ci.high, ci.level), (7.0, 7.0, 0.0));
        let ci = median_ci(&[], 0.95);
        assert!(ci.low.is_nan() && ci.high.is_nan() && ci.level == 0.0);
        // Level 1 is unreachable: widest interval, honest level.
        let ci = median_ci(&one_to(3000), 1.0);
        assert_eq!((ci.low, ci.high), (1.0, 3000.0));
        assert!(ci.level > 0.999_999 && ci.level <= 1.0);
    }

    #[test]
    fn level_zero_collapses_to_the_median() {
        let ci = median_ci(&one_to(11), 0.0);
        assert_eq!((ci.low, ci.high), (6.0, 6.0));
        let ci = median_ci(&one_to(10), 0.0);
        assert_eq!((ci.low, ci.high), (5.0, 6.0));
    }

    fn coverage(n: usize, sims: usize, seed: u64) -> f64 {
        let mut rng = SplitMix64::new(seed);
        let mut hits = 0;
        for _ in 0..sims {
            let x = sorted(&rng.uniforms(n));
            let ci = median_ci(&x, 0.95);
            if ci.low <= 0.5 && 0.5 <= ci.high {
                hits += 1;
            }
        }
        f64::from(hits) / sims as f64
    }

    #[test]
    fn coverage_is_nominal_exact_branch() {
        // Exact coverage for n = 37 is 0.9530.
        let c = coverage(37, 2000, 0x5EED);
        assert!((0.93..=0.97).contains(&c), "coverage {c}");
    }

    #[test]
    fn coverage_is_nominal_normal_branch() {
        // Coverage for n = 1500 with rank 712 is 0.9532.
        let c = coverage(1500, 2000, 0xC0FFEE);
        assert!((0.93..=0.97).contains(&c), "coverage {c}");
    }

    #[test]
    fn relative_half_width_cases() {
        let ci = MedianCi {
            low: 9.0,
            high: 11.0,
            level: 0.95,
        };
        assert_eq!(relative_half_width(&ci, 10.0), 0.1);
        assert_eq!(relative_half_width(&ci, -10.0), 0.1);
        assert_eq!(relative_half_width(&ci, 0.0), f64::INFINITY);
        let point = MedianCi {
            low: 0.0,
            high: 0.0,
            level: 0.95,
        };
        assert_eq!(relative_half_width(&point, 0.0), 0.0);
        // Interval from data: 1..=10 at 95% is [2, 9] around median 5.5.
        let x = one_to(10);
        let ci = median_ci(&x, 0.95);
        assert!((relative_half_width(&ci, median(&x)) - 3.5 / 5.5).abs() < 1e-15);
    }
}
