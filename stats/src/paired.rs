//! One-sample (paired-design) location inference for per-pair log-ratios
//! dᵢ = ln(aᵢ/bᵢ): the one-sample Hodges–Lehmann estimate with the
//! Wilcoxon signed-rank confidence interval, and the Wilcoxon signed-rank
//! test (Wilcoxon 1945; Hodges & Lehmann 1963; Tukey's Walsh-average
//! interval; Hollander, Wolfe & Chicken, 3rd ed., §3.1–3.3).
//!
//! Results are on the scale of the input: for log-ratios, `exp(estimate)`
//! is the typical ratio a/b and `exp(low)..exp(high)` its interval.
//! Walsh-average order statistics are selected exactly by
//! [`super::select`] in O(64·n) time and O(n) memory, so no thinning is
//! needed even at 20,000 pairs (≈ 2·10⁸ Walsh averages).

use super::hodges_lehmann::{moses_rank, Shift};
use super::normal::{normal_cdf, z_for_level};
use super::ranks::{tie_groups, tie_term};
use super::select::{kth_walsh, median_walsh};
use super::summary::sorted;

/// One-sample Hodges–Lehmann location estimate (the pseudo-median: median
/// of the n(n+1)/2 Walsh averages (xᵢ + xⱼ)/2, i ≤ j) with the
/// distribution-free Wilcoxon signed-rank interval [W₍C₎, W₍M+1−C₎],
/// M = n(n+1)/2, C = ⌊M/2 − z·√(n(n+1)(2n+1)/24)⌋ (normal approximation,
/// Hollander & Wolfe's large-sample formula, no tie correction; at least
/// 1, i.e. the range of the data when `level` is unattainable). `level` is
/// clamped to [0, 1] (NaN → 0.95). None if `xs` is empty or contains a
/// non-finite value.
pub fn one_sample_location(xs: &[f64], level: f64) -> Option<Shift> {
    if xs.is_empty() || !xs.iter().all(|v| v.is_finite()) {
        return None;
    }
    let x = sorted(xs);
    let nf = x.len() as f64;
    let total = x.len() as u64 * (x.len() as u64 + 1) / 2;
    let sigma = (nf * (nf + 1.0) * (2.0 * nf + 1.0) / 24.0).sqrt();
    let c = moses_rank(total, z_for_level(level), sigma);
    Some(Shift {
        estimate: median_walsh(&x),
        low: kth_walsh(&x, c),
        high: kth_walsh(&x, total + 1 - c),
    })
}

/// Two-sided p-value of the Wilcoxon signed-rank test of location 0,
/// computed as R's `wilcox.test(x, exact = FALSE, correct = TRUE)`: zeros
/// are dropped (Wilcoxon's zero treatment; n counts non-zero values), |x|
/// gets midranks, V = Σ ranks of positive values,
/// σ² = n(n+1)(2n+1)/24 − Σ(t³ − t)/48 (tie correction), z = (V − n(n+1)/4
/// ∓ ½)/σ (continuity correction), p = 2·Φ(−|z|). Normal approximation
/// only; fine for the n ≥ 20 the engine uses. None if no non-zero values
/// remain, the variance is zero, or an input is non-finite.
pub fn wilcoxon_signed_rank_p(xs: &[f64]) -> Option<f64> {
    if !xs.iter().all(|v| v.is_finite()) {
        return None;
    }
    let mut by_abs: Vec<f64> = xs.iter().copied().filter(|&v| v != 0.0).collect();
    if by_abs.is_empty() {
        return None;
    }
    by_abs.sort_unstable_by(|p, q| p.abs().total_cmp(&q.abs()));
    let abs: Vec<f64> = by_abs.iter().map(|v| v.abs()).collect();
    let mut v_plus = 0.0;
    for (start, end, midrank) in tie_groups(&abs) {
        let positives = by_abs[start..end].iter().filter(|&&v| v > 0.0).count();
        v_plus += midrank * positives as f64;
    }
    let n = abs.len() as f64;
    let variance = n * (n + 1.0) * (2.0 * n + 1.0) / 24.0 - tie_term(&abs) / 48.0;
    if variance.is_nan() || variance <= 0.0 {
        return None;
    }
    let centred = v_plus - n * (n + 1.0) / 4.0;
    let correction = if centred > 0.0 {
        0.5
    } else if centred < 0.0 {
        -0.5
    } else {
        0.0
    };
    let z = (centred - correction) / variance.sqrt();
    Some((2.0 * normal_cdf(-z.abs())).min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::SplitMix64;

    /// Hollander & Wolfe's depression data (R's ?wilcox.test): x − y.
    #[allow(clippy::approx_constant)] // 3.14 is a measurement, not π
    fn depression() -> Vec<f64> {
        let x = [1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30];
        let y = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29];
        x.iter().zip(y).map(|(a, b)| a - b).collect()
    }

    #[test]
    fn signed_rank_p_matches_r() {
        // V = 40, n = 9: z = 17/√71.25; reference p by R's formula (mpmath).
        let p = wilcoxon_signed_rank_p(&depression()).unwrap();
        assert!((p - 0.044_010_984_012_951_41).abs() < 1e-12, "{p}");
    }

    #[test]
    fn signed_rank_p_with_ties_and_zeros() {
        // Zeros dropped → n = 9; |x| ties {1,1,1}, {2,2,2,2}; V = 37.5;
        // σ² = 9·10·19/24 − (24 + 60)/48; z = (37.5 − 22.5 − 0.5)/σ.
        let x = [0.0, 0.0, 1.0, 1.0, -1.0, 2.0, 2.0, 2.0, 3.0, -2.0, 4.0];
        let p = wilcoxon_signed_rank_p(&x).unwrap();
        assert!((p - 0.081_981_230_742_620_51).abs() < 1e-12, "{p}");
        // Sign flip gives the same two-sided p.
        let neg: Vec<f64> = x.iter().map(|v| -v).collect();
        assert!((wilcoxon_signed_rank_p(&neg).unwrap() - p).abs() < 1e-15);
    }

    #[test]
    fn signed_rank_degenerate_inputs() {
        assert!(wilcoxon_signed_rank_p(&[]).is_none());
        assert!(wilcoxon_signed_rank_p(&[0.0, 0.0]).is_none());
        assert!(wilcoxon_signed_rank_p(&[1.0, f64::NAN]).is_none());
        // n = 1: V = 1, centred 0.5, z = 0 → p = 1.
        assert_eq!(wilcoxon_signed_rank_p(&[3.0]), Some(1.0));
    }

    #[test]
    fn location_matches_brute_force_walsh() {
        let d = depression();
        let mut w = Vec::new();
        for i in 0..d.len() {
            for j in i..d.len() {
                w.push((d[i] + d[j]) * 0.5);
            }
        }
        w.sort_by(f64::total_cmp);
        // M = 45; C = ⌊22.5 − 1.96·√71.25⌋ = 5.
        let s = one_sample_location(&d, 0.95).unwrap();
        assert_eq!(s.estimate, w[22]);
        assert_eq!((s.low, s.high), (w[4], w[40]));
        // Hand-checked (Python): pseudo-median 0.46, interval −0.035..0.806.
        assert!((s.estimate - 0.46).abs() < 1e-9);
        assert!((s.low + 0.035).abs() < 1e-9 && (s.high - 0.806).abs() < 1e-9);
    }

    #[test]
    fn location_recovers_log_ratio_at_scale() {
        let mut rng = SplitMix64::new(17);
        let d: Vec<f64> = rng.normals(20_000).iter().map(|v| 0.1 + 0.05 * v).collect();
        let s = one_sample_location(&d, 0.95).unwrap();
        assert!((s.estimate - 0.1).abs() < 0.002, "{s:?}");
        assert!(
            s.low < 0.1 && 0.1 < s.high && s.high - s.low < 0.005,
            "{s:?}"
        );
        assert!(wilcoxon_signed_rank_p(&d).unwrap() < 1e-100);
    }

    #[test]
    fn location_degenerate_inputs() {
        assert!(one_sample_location(&[], 0.95).is_none());
        assert!(one_sample_location(&[f64::INFINITY], 0.95).is_none());
        let s = one_sample_location(&[2.0], 0.95).unwrap();
        assert_eq!((s.estimate, s.low, s.high), (2.0, 2.0, 2.0));
        let s = one_sample_location(&[1.0, 5.0, 3.0], 1.0).unwrap();
        assert_eq!((s.low, s.high), (1.0, 5.0));
    }
}
