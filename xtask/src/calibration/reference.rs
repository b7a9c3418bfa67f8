//! What exactly calibrated intervals would show over as many runs as the calibration measures:
//! each run's estimate the mean of normal round values, its interval Student's t over them,
//! simulated with a fixed seed. Ten runs are few: a calibrated interval's coverage over ten
//! runs ranges widely from case to case, and the report says how widely beside the figures.

use super::figures::{COVERAGE, WIDTH_OVER_RANGE};
use super::stats::{coverage, half_range, median_half_width};
use crate::stats::median;

/// Calibrations simulated.
const CALIBRATIONS: usize = 2000;

/// A calibrated interval's figures over `runs` runs, across simulated calibrations.
#[derive(Debug, Clone, Copy)]
pub(super) struct Reference {
    /// The 5th, 50th and 95th percentiles of the coverage.
    pub(super) coverage: (f64, f64, f64),
    /// The share of calibrations whose coverage reaches [`COVERAGE`].
    pub(super) coverage_met: f64,
    /// The share whose median half-width is at most [`WIDTH_OVER_RANGE`] half-ranges.
    pub(super) width_met: f64,
}

/// Simulates `runs` runs of `rounds` rounds each (at least 2 of each).
pub(super) fn calibrated(runs: usize, rounds: usize) -> Reference {
    let (runs, rounds) = (runs.max(2), rounds.max(2));
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let t = t975(rounds - 1);
    let mut coverages = Vec::with_capacity(CALIBRATIONS);
    let mut width_met = 0usize;
    for _ in 0..CALIBRATIONS {
        let mut points = Vec::with_capacity(runs);
        let mut intervals = Vec::with_capacity(runs);
        for _ in 0..runs {
            // Around 1000 with a spread of 1%, so every estimate is positive.
            let xs: Vec<f64> = (0..rounds).map(|_| 1000.0 + 10.0 * rng.normal()).collect();
            let (mean, sd) = mean_sd(&xs);
            let half = t * sd / (rounds as f64).sqrt();
            points.push(mean);
            intervals.push((mean - half, mean + half));
        }
        coverages.push(coverage(&points, &intervals).share().unwrap_or(f64::NAN));
        let width = median_half_width(&points, &intervals);
        width_met += usize::from(width <= WIDTH_OVER_RANGE * half_range(&points));
    }
    coverages.sort_by(f64::total_cmp);
    let at = |q: f64| coverages[((coverages.len() - 1) as f64 * q).round() as usize];
    Reference {
        coverage: (at(0.05), median(&coverages), at(0.95)),
        coverage_met: coverages.iter().filter(|c| **c >= COVERAGE).count() as f64
            / CALIBRATIONS as f64,
        width_met: width_met as f64 / CALIBRATIONS as f64,
    }
}

/// The mean and the sample standard deviation.
fn mean_sd(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var.sqrt())
}

/// Student's t 97.5th percentile with `df` degrees of freedom (two-sided 95%).
fn t975(df: usize) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::NAN,
        d if d <= TABLE.len() => TABLE[d - 1],
        // The Cornish–Fisher expansion's first terms: within 0.001 from 30 on.
        d => {
            let (z, d) = (1.959_964_f64, d as f64);
            z + (z.powi(3) + z) / (4.0 * d)
                + (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * d * d)
        }
    }
}

/// xorshift64*, with Box–Muller for normal deviates.
struct Rng(u64);

impl Rng {
    /// Uniform in (0, 1).
    fn uniform(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D);
        ((x >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// Standard normal.
    fn normal(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_deviates_are_standard_normal() {
        let mut rng = Rng(1);
        let xs: Vec<f64> = (0..20_000).map(|_| rng.normal()).collect();
        let (mean, sd) = mean_sd(&xs);
        assert!(mean.abs() < 0.03 && (sd - 1.0).abs() < 0.03, "{mean} {sd}");
        let inside = xs.iter().filter(|x| x.abs() <= 1.959_964).count() as f64 / 20_000.0;
        assert!((inside - 0.95).abs() < 0.01, "{inside}");
    }

    #[test]
    fn t_quantiles_join_the_table_to_the_expansion() {
        assert_eq!(t975(9), 2.262);
        assert!((t975(31) - 2.040).abs() < 0.001, "{}", t975(31));
        assert!((t975(120) - 1.980).abs() < 0.001, "{}", t975(120));
        assert!(t975(0).is_nan());
    }

    /// Two estimates of equal precision: the other's lies in a 95% interval about 83% of the
    /// time (a little more with t intervals of ten rounds); ten runs scatter that widely.
    #[test]
    fn calibrated_intervals_cover_about_five_in_six_and_ten_runs_scatter_it() {
        let r = calibrated(10, 10);
        assert!((0.82..0.89).contains(&r.coverage.1), "{r:?}");
        assert!(r.coverage.0 < 0.75 && r.coverage.2 > 0.95, "{r:?}");
        assert!((0.6..0.9).contains(&r.coverage_met), "{r:?}");
        assert!((0.75..0.95).contains(&r.width_met), "{r:?}");
        // Many runs pin the coverage down.
        let many = calibrated(40, 10);
        let band = |r: &Reference| r.coverage.2 - r.coverage.0;
        assert!(band(&many) < 0.6 * band(&r), "{r:?} {many:?}");
    }
}
