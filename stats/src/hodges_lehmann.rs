//! Two-sample Hodges–Lehmann shift estimate with the Moses
//! distribution-free confidence interval (Hodges & Lehmann 1963; Moses
//! 1965; Hollander, Wolfe & Chicken, 3rd ed., §4.2–4.3).
//!
//! The estimate of the shift Δ in "a ≈ b + Δ" is the median of all n·m
//! differences aᵢ − bⱼ. The interval is [D₍C₎, D₍nm+1−C₎] over the ordered
//! differences, with C = ⌊nm/2 − z·√(nm(n+m+1)/12)⌋ from the normal
//! approximation to the Mann–Whitney null distribution (no tie correction,
//! as in Hollander & Wolfe's large-sample formula; flooring makes it
//! slightly conservative). This can differ by one rank from R's
//! `wilcox.test(conf.int = TRUE)`, which inverts the corrected statistic
//! numerically.
//!
//! All order statistics are selected exactly with [`super::select`]
//! (bisection over f64 keys with O(n + m) two-pointer counting), so there is
//! no thinning and no n·m memory: 20,000 × 20,000 samples take a few
//! million comparisons.

use super::normal::z_for_level;
use super::select::{kth_difference, median_difference};
use super::summary::sorted;

/// A location-shift estimate with its confidence interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shift {
    /// Point estimate (Hodges–Lehmann).
    pub estimate: f64,
    /// Lower confidence bound.
    pub low: f64,
    /// Upper confidence bound.
    pub high: f64,
}

/// Hodges–Lehmann estimate of the shift a − b (median of all pairwise
/// differences) with the Moses confidence interval at `level` (clamped to
/// [0, 1], NaN → 0.95; a level too high for the sample gives the full range
/// [min(a) − max(b), max(a) − min(b)]). Exact selection, O(64·(n + m)) time
/// after an O(n log n + m log m) sort, O(n + m) memory. Returns None if
/// either side is empty or contains a non-finite value.
pub fn hodges_lehmann(a: &[f64], b: &[f64], level: f64) -> Option<Shift> {
    if a.is_empty() || b.is_empty() || !a.iter().chain(b).all(|v| v.is_finite()) {
        return None;
    }
    let (a, b) = (sorted(a), sorted(b));
    let (n, m) = (a.len() as f64, b.len() as f64);
    let total = a.len() as u64 * b.len() as u64;
    let z = z_for_level(level);
    let sigma = (n * m * (n + m + 1.0) / 12.0).sqrt();
    let c = moses_rank(total, z, sigma);
    Some(Shift {
        estimate: median_difference(&a, &b),
        low: kth_difference(&a, &b, c),
        high: kth_difference(&a, &b, total + 1 - c),
    })
}

/// Lower rank C = ⌊total/2 − z·σ⌋ of a distribution-free interval for a
/// Walsh-type statistic, clamped to [1, ⌈total/2⌉] (an infinite or NaN z
/// gives 1, the widest interval). Shared with the one-sample version.
pub fn moses_rank(total: u64, z: f64, sigma: f64) -> u64 {
    let c = (total as f64 / 2.0 - z * sigma).floor();
    if c.is_nan() || c < 1.0 {
        return 1;
    }
    (c as u64).clamp(1, total.div_ceil(2).max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::SplitMix64;

    #[test]
    fn moses_rank_matches_tables() {
        // n = m = 10, 95%: ⌊50 − 1.96·√175⌋ = 24 (Hollander & Wolfe table
        // value C_α = 24 for α = 0.05).
        let sigma = (100.0f64 * 21.0 / 12.0).sqrt();
        assert_eq!(moses_rank(100, z_for_level(0.95), sigma), 24);
        assert_eq!(moses_rank(100, f64::INFINITY, sigma), 1);
        assert_eq!(moses_rank(100, 0.0, sigma), 50);
        assert_eq!(moses_rank(1, 0.0, 0.5), 1);
    }

    #[test]
    fn matches_brute_force_order_statistics() {
        let mut rng = SplitMix64::new(21);
        let a = rng.normals(10);
        let b: Vec<f64> = rng.normals(10).iter().map(|v| v + 1.0).collect();
        let mut d: Vec<f64> = a
            .iter()
            .flat_map(|x| b.iter().map(move |y| x - y))
            .collect();
        d.sort_by(f64::total_cmp);
        let s = hodges_lehmann(&a, &b, 0.95).unwrap();
        assert_eq!(s.estimate, d[49] + (d[50] - d[49]) / 2.0);
        assert_eq!((s.low, s.high), (d[23], d[76]));
    }

    #[test]
    fn recovers_shift_of_shifted_copy() {
        let mut rng = SplitMix64::new(8);
        let a = rng.normals(301);
        let b: Vec<f64> = a.iter().map(|v| v + 5.0).collect();
        let s = hodges_lehmann(&a, &b, 0.95).unwrap();
        assert!((s.estimate + 5.0).abs() < 1e-12, "{s:?}");
        assert!(s.low < -5.0 && -5.0 < s.high);
        let s = hodges_lehmann(&b, &a, 0.95).unwrap();
        assert!((s.estimate - 5.0).abs() < 1e-12, "{s:?}");
    }

    #[test]
    fn recovers_shift_of_independent_samples_at_scale() {
        let mut rng = SplitMix64::new(13);
        let a: Vec<f64> = rng.normals(20_000).iter().map(|v| 3.0 + v).collect();
        let b = rng.normals(15_000);
        let s = hodges_lehmann(&a, &b, 0.95).unwrap();
        // Standard error of the shift ≈ √(π/3·(1/n + 1/m)) ≈ 0.016.
        assert!((s.estimate - 3.0).abs() < 0.06, "{s:?}");
        assert!(s.low < 3.0 && 3.0 < s.high, "{s:?}");
        assert!(s.high - s.low < 0.1, "{s:?}");
    }

    #[test]
    fn degenerate_inputs() {
        assert!(hodges_lehmann(&[], &[1.0], 0.95).is_none());
        assert!(hodges_lehmann(&[1.0, f64::NAN], &[1.0], 0.95).is_none());
        assert!(hodges_lehmann(&[1.0], &[f64::INFINITY], 0.95).is_none());
        let s = hodges_lehmann(&[3.0], &[1.0], 0.95).unwrap();
        assert_eq!((s.estimate, s.low, s.high), (2.0, 2.0, 2.0));
        let s = hodges_lehmann(&[1.0, 2.0, 3.0], &[0.0, 10.0], 1.0).unwrap();
        assert_eq!((s.low, s.high), (-9.0, 3.0));
        let s = hodges_lehmann(&[4.0; 30], &[4.0; 30], 0.95).unwrap();
        assert_eq!((s.estimate, s.low, s.high), (0.0, 0.0, 0.0));
    }
}
