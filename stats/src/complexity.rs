//! Empirical complexity classes for scaling benchmarks: fits
//! time = intercept + coefficient·g(n) for each candidate g by weighted
//! least squares and ranks the candidates by AICc (Akaike's information
//! criterion with the Hurvich & Tsai 1989 small-sample correction; model
//! selection as in Burnham & Anderson, "Model Selection and Multimodel
//! Inference", 2nd ed., 2002, §2.4–2.6).
//!
//! The reported class is the simplest of those the data cannot tell apart: every class
//! within the criterion's margin of the best-fitting one is a candidate, and the simplest
//! candidate is reported (parsimony, Burnham & Anderson §2.6). Reporting the lowest criterion
//! instead makes the class of a noisy benchmark flip between reruns: with four or five points
//! a model with a slope fits the noise a little better by chance, and which one wins changes
//! from run to run.
//!
//! Likelihood: residuals are Gaussian with variance σ²/wᵢ, so with the
//! maximum-likelihood σ̂² = RSS_w/N the log-likelihood is, up to a constant
//! shared by all models, −N/2·ln(RSS_w/N). Hence
//! AIC = N·ln(RSS_w/N) + 2k and AICc = AIC + 2k(k+1)/(N − k − 1), with k the
//! number of regression parameters plus one for σ² (2 for O(1), 3 for the
//! others) and N the number of points.

/// A candidate complexity class g(n).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Complexity {
    /// g(n) = 1: intercept only.
    Constant,
    /// g(n) = ln n.
    Log,
    /// g(n) = n.
    Linear,
    /// g(n) = n·ln n.
    NLogN,
    /// g(n) = n².
    Quadratic,
    /// g(n) = n³.
    Cubic,
    /// g(n) = 2ⁿ (overflows to +∞ for n ≥ 1024: the model is then unfit).
    Exponential,
}

impl Complexity {
    /// Every candidate, simplest first (also the final tie-break order).
    pub const ALL: [Complexity; 7] = [
        Complexity::Constant,
        Complexity::Log,
        Complexity::Linear,
        Complexity::NLogN,
        Complexity::Quadratic,
        Complexity::Cubic,
        Complexity::Exponential,
    ];

    /// Big-O label for reports, e.g. "O(n log n)".
    pub fn label(self) -> &'static str {
        match self {
            Complexity::Constant => "O(1)",
            Complexity::Log => "O(log n)",
            Complexity::Linear => "O(n)",
            Complexity::NLogN => "O(n log n)",
            Complexity::Quadratic => "O(n²)",
            Complexity::Cubic => "O(n³)",
            Complexity::Exponential => "O(2ⁿ)",
        }
    }

    /// The basis function g(n) (natural log; the base only rescales the
    /// coefficient). May be non-finite (ln 0, 2¹⁰²⁴); callers check.
    pub fn basis(self, n: f64) -> f64 {
        match self {
            Complexity::Constant => 1.0,
            Complexity::Log => n.ln(),
            Complexity::Linear => n,
            Complexity::NLogN => n * n.ln(),
            Complexity::Quadratic => n * n,
            Complexity::Cubic => n * n * n,
            Complexity::Exponential => n.exp2(),
        }
    }

    /// AICc parameter count k: regression parameters plus σ².
    fn parameters(self) -> f64 {
        match self {
            Complexity::Constant => 2.0,
            _ => 3.0,
        }
    }
}

/// One fitted model time ≈ intercept + coefficient·g(n).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fit {
    /// The model's g.
    pub complexity: Complexity,
    /// Slope on g(n), ≥ 0 (0 when the unconstrained slope was negative and
    /// the intercept-only fit was used; 0 for O(1) and for unfit models).
    pub coefficient: f64,
    /// Intercept (0 for unfit models).
    pub intercept: f64,
    /// Weighted residual sum of squares Σ wᵢ·rᵢ², weights rescaled to mean
    /// 1 (the plain RSS for equal weights); +∞ marks a model that could not
    /// be fitted because g(n) was not finite for some point.
    pub rss: f64,
    /// AICc (lower is better); +∞ when undefined (N − k − 1 ≤ 0) or unfit.
    /// Never NaN.
    pub aicc: f64,
}

impl Fit {
    /// Whether the model could be fitted at all (finite g(n) everywhere).
    pub fn is_fitted(&self) -> bool {
        self.rss.is_finite()
    }
}

/// All candidate fits ranked by AICc, with the class reported and its closest rival.
#[derive(Debug, Clone, PartialEq)]
pub struct ComplexityReport {
    /// The reported model: the simplest of the `candidates`.
    pub best: Fit,
    /// The best-ranked fitted model other than `best`, if any.
    pub runner_up: Option<Fit>,
    /// Whether `best` is the only candidate, i.e. every other model's AICc is at
    /// least 2 above the lowest ("considerably less" support, Burnham & Anderson
    /// 2002, §2.6: Δ ≤ 2 means substantial support for both). When some model's
    /// AICc is undefined (too few points), the ranking uses plain AIC and the
    /// margin is 10. With three points it is false whenever another model could
    /// be fitted.
    pub distinguishable: bool,
    /// The classes within the margin of the lowest criterion, simplest first: the
    /// ones the data cannot tell apart.
    pub candidates: Vec<Complexity>,
    /// Every model: `best` first, then ascending AICc (or AIC when any AICc is
    /// undefined), ties broken by simplicity; unfit models last.
    pub fits: Vec<Fit>,
}

/// Minimum AICc gap for the best model to be called distinguishable.
const DISTINGUISHABLE_DELTA: f64 = 2.0;

/// Minimum plain-AIC gap for distinguishable when AICc is undefined for some model (too few
/// points): Burnham & Anderson's "essentially no support" for the runner-up.
const DECISIVE_DELTA: f64 = 10.0;
/// The fewest points whose models are ranked by AICc: there its correction for a slope (k = 3)
/// is 2·3·4/(6−3−1) = 12 against the constant's 4, no longer larger than the evidence it weighs.
const MIN_POINTS_FOR_AICC: f64 = 6.0;

/// Relative floor on the RSS (times Σ wᵢtᵢ²) so an exact fit gives a large
/// negative, not −∞, log-likelihood and two exact fits cannot produce NaN.
const RSS_FLOOR: f64 = 1e-20;

/// Fits every [`Complexity`] to `points` = (n, time, weight) by weighted
/// least squares, with weight = 1/variance of the time estimate (only
/// relative weights matter). The slope is constrained to be ≥ 0: when the
/// unconstrained slope is negative the intercept-only fit is used for that
/// model (still counted with k = 3, so O(1) beats it). Models whose g(n) is
/// not finite for some point (2ⁿ for n ≥ 1024, ln 0) are unfit: rss = aicc
/// = +∞, never best or runner-up. Points with non-finite n or time, or with
/// weight not finite and positive, are ignored. Returns None when fewer
/// than 3 distinct n values remain.
pub fn fit_complexity(points: &[(f64, f64, f64)]) -> Option<ComplexityReport> {
    let pts: Vec<(f64, f64, f64)> = points
        .iter()
        .copied()
        .filter(|&(n, t, w)| n.is_finite() && t.is_finite() && w.is_finite() && w > 0.0)
        .collect();
    let mut ns: Vec<f64> = pts.iter().map(|p| p.0).collect();
    ns.sort_unstable_by(f64::total_cmp);
    ns.dedup();
    if ns.len() < 3 {
        return None;
    }
    let mean_w = pts.iter().map(|p| p.2).sum::<f64>() / pts.len() as f64;
    let pts: Vec<(f64, f64, f64)> = pts.iter().map(|&(n, t, w)| (n, t, w / mean_w)).collect();
    let floor = RSS_FLOOR * pts.iter().map(|p| p.2 * p.1 * p.1).sum::<f64>() + f64::MIN_POSITIVE;

    let mut fits: Vec<Fit> = Complexity::ALL
        .iter()
        .map(|&c| fit_one(c, &pts, floor))
        .collect();
    let n = pts.len() as f64;
    // AICc is undefined for a model with N − k − 1 ≤ 0 (three or four points and a slope).
    // Ranking a finite AICc above an undefined one would always crown O(1), the only model
    // defined there (Sailfish's infinite-AICc bug), so with any undefined AICc every model is
    // ranked by plain AIC instead, and only a decisive margin counts as distinguishable.
    //
    // With five points AICc is defined but overcorrects: its small-sample term charges a
    // model with a slope 2·3·4/(5−3−1) = 24 against the constant's 6, so a constant whose RSS
    // was 55 times a line's tied with it, and the simplest of the tie, O(1), was reported for a
    // chain that grew a hundredfold (`analysis::scaling`'s
    // `chain_scattered_between_cases_was_called_o_1_by_the_five_point_aicc`). So AICc ranks
    // from [`MIN_POINTS_FOR_AICC`] points on; five are ranked by plain AIC.
    let aicc_defined = fits
        .iter()
        .filter(|f| f.is_fitted())
        .all(|f| f.aicc.is_finite());
    let use_aicc = aicc_defined && n >= MIN_POINTS_FOR_AICC;
    let criterion = |f: &Fit| if use_aicc { f.aicc } else { aic(f, n, floor) };
    // Where AICc is undefined (four points or fewer) only a decisive AIC margin counts; at five,
    // where it is defined but not used, the usual one.
    let delta = if aicc_defined {
        DISTINGUISHABLE_DELTA
    } else {
        DECISIVE_DELTA
    };
    fits.sort_by(|a, b| {
        criterion(a)
            .total_cmp(&criterion(b))
            .then(rank_of(a.complexity).cmp(&rank_of(b.complexity)))
    });
    let lowest = criterion(&fits[0]);
    let mut candidates: Vec<Fit> = fits
        .iter()
        .filter(|f| f.is_fitted() && criterion(f).is_finite() && criterion(f) - lowest < delta)
        .copied()
        .collect();
    if candidates.is_empty() {
        candidates.push(fits[0]);
    }
    candidates.sort_by_key(|f| rank_of(f.complexity));
    let best = candidates[0];
    let position = fits
        .iter()
        .position(|f| f.complexity == best.complexity)
        .unwrap_or(0);
    let reported = fits.remove(position);
    fits.insert(0, reported);
    let runner_up = fits.get(1).copied().filter(Fit::is_fitted);
    // Three points say too little to call two classes apart, whatever the criterion.
    let distinguishable = candidates.len() == 1
        && criterion(&best).is_finite()
        && (runner_up.is_none() || pts.len() > 3);
    Some(ComplexityReport {
        best,
        runner_up,
        distinguishable,
        candidates: candidates.iter().map(|f| f.complexity).collect(),
        fits,
    })
}

/// Position of `c` in [`Complexity::ALL`] (simplicity order).
fn rank_of(c: Complexity) -> usize {
    Complexity::ALL
        .iter()
        .position(|&x| x == c)
        .unwrap_or(usize::MAX)
}

/// Plain AIC = N·ln(max(RSS, floor)/N) + 2k; +∞ for unfit models.
fn aic(fit: &Fit, n: f64, floor: f64) -> f64 {
    if !fit.is_fitted() {
        return f64::INFINITY;
    }
    let v = n * (fit.rss.max(floor) / n).ln() + 2.0 * fit.complexity.parameters();
    if v.is_nan() {
        f64::INFINITY
    } else {
        v
    }
}

/// AICc from AIC; +∞ when N − k − 1 ≤ 0 or the result is not a number.
fn aicc(fit: &Fit, n: f64, floor: f64) -> f64 {
    let k = fit.complexity.parameters();
    let denom = n - k - 1.0;
    let v = aic(fit, n, floor) + 2.0 * k * (k + 1.0) / denom;
    if denom <= 0.0 || v.is_nan() {
        f64::INFINITY
    } else {
        v
    }
}

/// Weighted least-squares fit of one model to normalised points.
fn fit_one(c: Complexity, pts: &[(f64, f64, f64)], floor: f64) -> Fit {
    let unfit = Fit {
        complexity: c,
        coefficient: 0.0,
        intercept: 0.0,
        rss: f64::INFINITY,
        aicc: f64::INFINITY,
    };
    let g: Vec<f64> = pts.iter().map(|p| c.basis(p.0)).collect();
    if !g.iter().all(|v| v.is_finite()) {
        return unfit;
    }
    // Rescale g to [−1, 1] so 2ⁿ near 2¹⁰²³ cannot overflow the sums.
    let scale = g.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let scale = if scale > 0.0 { scale } else { 1.0 };
    let sw: f64 = pts.iter().map(|p| p.2).sum();
    let xbar = pts
        .iter()
        .zip(&g)
        .map(|(p, gi)| p.2 * gi / scale)
        .sum::<f64>()
        / sw;
    let ybar = pts.iter().map(|p| p.2 * p.1).sum::<f64>() / sw;
    let (mut sxx, mut sxy) = (0.0, 0.0);
    for (p, gi) in pts.iter().zip(&g) {
        let dx = gi / scale - xbar;
        sxx += p.2 * dx * dx;
        sxy += p.2 * dx * (p.1 - ybar);
    }
    let slope = if c != Complexity::Constant && sxx > 0.0 && sxy > 0.0 {
        sxy / sxx
    } else {
        0.0
    };
    let intercept = ybar - slope * xbar;
    let rss: f64 = pts
        .iter()
        .zip(&g)
        .map(|(p, gi)| {
            let r = p.1 - intercept - slope * gi / scale;
            p.2 * r * r
        })
        .sum();
    let coefficient = slope / scale;
    if !(rss.is_finite() && intercept.is_finite() && coefficient.is_finite()) {
        return unfit;
    }
    let mut fit = Fit {
        complexity: c,
        coefficient,
        intercept,
        rss,
        aicc: f64::INFINITY,
    };
    fit.aicc = aicc(&fit, pts.len() as f64, floor);
    fit
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::SplitMix64;

    /// (n, t·(1 + noise·u), 1/t²) with u uniform on [−1, 1]: relative noise,
    /// so the weight is the inverse variance up to a constant.
    fn synth(ns: &[f64], f: impl Fn(f64) -> f64, noise: f64, seed: u64) -> Vec<(f64, f64, f64)> {
        let mut rng = SplitMix64::new(seed);
        ns.iter()
            .map(|&n| {
                let t = f(n) * (1.0 + noise * (2.0 * rng.uniform() - 1.0));
                (n, t, 1.0 / (t * t))
            })
            .collect()
    }

    fn hundreds() -> Vec<f64> {
        (1..=10).map(|i| f64::from(i) * 100.0).collect()
    }

    fn no_nan(r: &ComplexityReport) {
        for f in &r.fits {
            assert!(!f.aicc.is_nan() && !f.rss.is_nan(), "{f:?}");
            assert!(!f.coefficient.is_nan() && !f.intercept.is_nan(), "{f:?}");
            assert!(f.coefficient >= 0.0, "{f:?}");
        }
    }

    #[test]
    fn labels() {
        let labels: Vec<_> = Complexity::ALL.iter().map(|c| c.label()).collect();
        assert_eq!(
            labels,
            [
                "O(1)",
                "O(log n)",
                "O(n)",
                "O(n log n)",
                "O(n²)",
                "O(n³)",
                "O(2ⁿ)"
            ]
        );
    }

    #[test]
    fn linear_with_intercept() {
        for seed in 1..=5 {
            let r = fit_complexity(&synth(&hundreds(), |n| 5.0 + 2.0 * n, 0.01, seed)).unwrap();
            no_nan(&r);
            assert_eq!(r.best.complexity, Complexity::Linear, "seed {seed}: {r:?}");
            assert!((r.best.coefficient - 2.0).abs() < 0.05, "{:?}", r.best);
            assert!((r.best.intercept - 5.0).abs() < 10.0, "{:?}", r.best);
            assert!(r.distinguishable, "{r:?}");
            assert_eq!(r.fits.len(), 7);
        }
    }

    #[test]
    fn n_log_n() {
        for seed in 1..=5 {
            let r = fit_complexity(&synth(&hundreds(), |n| 3.0 * n * n.ln(), 0.01, seed)).unwrap();
            no_nan(&r);
            assert_eq!(r.best.complexity, Complexity::NLogN, "seed {seed}: {r:?}");
            assert!((r.best.coefficient - 3.0).abs() < 0.15, "{:?}", r.best);
            assert!(r.distinguishable, "{r:?}");
        }
    }

    #[test]
    fn quadratic() {
        for seed in 1..=5 {
            let r = fit_complexity(&synth(&hundreds(), |n| n * n, 0.01, seed)).unwrap();
            no_nan(&r);
            assert_eq!(
                r.best.complexity,
                Complexity::Quadratic,
                "seed {seed}: {r:?}"
            );
            assert!((r.best.coefficient - 1.0).abs() < 0.02, "{:?}", r.best);
            assert!(r.distinguishable, "{r:?}");
        }
    }

    #[test]
    fn constant() {
        for seed in 1..=5 {
            let r = fit_complexity(&synth(&hundreds(), |_| 50.0, 0.02, seed)).unwrap();
            no_nan(&r);
            assert_eq!(
                r.best.complexity,
                Complexity::Constant,
                "seed {seed}: {r:?}"
            );
            assert!((r.best.intercept - 50.0).abs() < 1.0, "{:?}", r.best);
        }
    }

    #[test]
    fn logarithmic_and_exponential() {
        let ns: Vec<f64> = (0..12).map(|i| 2f64.powi(i)).collect();
        let r = fit_complexity(&synth(&ns, |n| 100.0 + 50.0 * n.ln(), 0.005, 3)).unwrap();
        assert_eq!(r.best.complexity, Complexity::Log, "{r:?}");
        let ns: Vec<f64> = (1..=20).map(f64::from).collect();
        let r = fit_complexity(&synth(&ns, |n| 10.0 * n.exp2(), 0.01, 4)).unwrap();
        assert_eq!(r.best.complexity, Complexity::Exponential, "{r:?}");
        assert!(r.distinguishable);
    }

    #[test]
    fn exact_fit_does_not_produce_nan() {
        let pts: Vec<_> = hundreds()
            .iter()
            .map(|&n| (n, 5.0 + 2.0 * n, 1.0))
            .collect();
        let r = fit_complexity(&pts).unwrap();
        no_nan(&r);
        assert_eq!(r.best.complexity, Complexity::Linear);
        assert!((r.best.coefficient - 2.0).abs() < 1e-9);
    }

    #[test]
    fn decreasing_times_clamp_slopes() {
        let pts: Vec<_> = hundreds().iter().map(|&n| (n, 1e4 - n, 1.0)).collect();
        let r = fit_complexity(&pts).unwrap();
        no_nan(&r);
        assert_eq!(r.best.complexity, Complexity::Constant);
        assert!(r.fits.iter().all(|f| f.coefficient == 0.0));
    }

    #[test]
    fn degenerate_inputs() {
        assert!(fit_complexity(&[]).is_none());
        assert!(fit_complexity(&[(1.0, 2.0, 1.0), (2.0, 4.0, 1.0)]).is_none());
        let same_n = [
            (5.0, 1.0, 1.0),
            (5.0, 2.0, 1.0),
            (5.0, 3.0, 1.0),
            (5.0, 4.0, 1.0),
        ];
        assert!(fit_complexity(&same_n).is_none());
        // Bad weights/values are dropped, leaving two distinct n.
        let bad = [
            (1.0, 1.0, 1.0),
            (2.0, 2.0, 1.0),
            (3.0, 3.0, 0.0),
            (4.0, f64::NAN, 1.0),
        ];
        assert!(fit_complexity(&bad).is_none());
    }

    #[test]
    fn huge_n_excludes_exponential() {
        let ns: Vec<f64> = (1..=10).map(|i| f64::from(i) * 2000.0).collect();
        let r = fit_complexity(&synth(&ns, |n| 7.0 * n, 0.01, 9)).unwrap();
        no_nan(&r);
        assert_eq!(r.best.complexity, Complexity::Linear);
        assert_ne!(r.runner_up.unwrap().complexity, Complexity::Exponential);
        let exp = r.fits.last().unwrap();
        assert_eq!(exp.complexity, Complexity::Exponential);
        assert!(exp.aicc == f64::INFINITY && !exp.is_fitted());
    }

    #[test]
    fn three_points_rank_without_aicc() {
        // N = 3: every AICc is undefined; ranking falls back to AIC, and
        // nothing is called distinguishable.
        let pts = [(1.0, 10.0, 1.0), (2.0, 40.0, 1.0), (3.0, 90.0, 1.0)];
        let r = fit_complexity(&pts).unwrap();
        no_nan(&r);
        assert!(r.fits.iter().all(|f| f.aicc == f64::INFINITY));
        assert_eq!(r.best.complexity, Complexity::Quadratic);
        assert!(!r.distinguishable);
    }

    #[test]
    fn the_simplest_of_the_classes_that_fit_equally_well_is_reported() {
        // A flat benchmark measured at a quarter of a nanosecond: the last point is 4% up, which
        // O(n³) "explains" best, by a margin that means nothing.
        let pts: Vec<_> = [(100.0, 0.259), (1e3, 0.257), (1e4, 0.245), (1e5, 0.267)]
            .iter()
            .map(|&(n, t)| (n, t, 1.0 / (t * 0.01f64).powi(2)))
            .collect();
        let r = fit_complexity(&pts).unwrap();
        no_nan(&r);
        assert_eq!(r.best.complexity, Complexity::Constant, "{r:?}");
        assert!(!r.distinguishable);
        assert_eq!(r.candidates[0], Complexity::Constant);
        assert!(r.candidates.len() > 1, "{r:?}");
        assert_eq!(r.fits[0].complexity, Complexity::Constant);
    }

    #[test]
    fn four_points_are_not_all_crowned_constant() {
        // The regression: with four points every slope model's AICc is undefined, and ranking
        // the finite O(1) first called seed 001's chain constant. Measured medians of
        // chain(n) for n = 10..10000 (the smallest n overlaps in the pipeline).
        let pts = [
            (10.0, 4.32, 1.0 / 0.0043f64.powi(2)),
            (100.0, 117.0, 1.0 / 0.117f64.powi(2)),
            (1000.0, 1384.0, 1.0 / 1.384f64.powi(2)),
            (10000.0, 14061.0, 1.0 / 14.06f64.powi(2)),
        ];
        let r = fit_complexity(&pts).unwrap();
        no_nan(&r);
        assert_eq!(r.best.complexity, Complexity::Linear, "{r:?}");
    }
}
