//! Statistics over round summaries: the mean of a few values with Student's t interval, and
//! the difference of two such means (Welch).
//!
//! A run's independent observations are its rounds, each in a fresh process: a handful of
//! values (one median or one paired log-ratio per round), not thousands of samples. Their
//! mean's interval must use Student's t, whose quantile for ten rounds is 2.26 where the
//! normal's is 1.96; with few rounds the difference is larger still.

use super::student::{t_critical, t_two_sided_p};

/// The mean of a few values with its standard error and degrees of freedom.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mean {
    /// The mean.
    pub mean: f64,
    /// Its standard error: the sample standard deviation over √n; NaN with one value.
    pub se: f64,
    /// Degrees of freedom of the t distribution the interval uses (n − 1, or Welch's).
    pub df: f64,
    /// How many values.
    pub n: usize,
}

impl Mean {
    /// The mean of `values` (finite ones only); `None` when there are none.
    pub fn of(values: &[f64]) -> Option<Mean> {
        let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        let n = finite.len();
        if n == 0 {
            return None;
        }
        let mean = finite.iter().sum::<f64>() / n as f64;
        let se = if n >= 2 {
            let variance = finite.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
            (variance / n as f64).sqrt()
        } else {
            f64::NAN
        };
        Some(Mean {
            mean,
            se,
            df: (n as f64 - 1.0).max(0.0),
            n,
        })
    }

    /// Whether the mean has an interval at all (two values or more).
    pub fn has_interval(&self) -> bool {
        self.se.is_finite() && self.df > 0.0
    }

    /// The `level` interval of the mean (NaN bounds without one).
    pub fn interval(&self, level: f64) -> (f64, f64) {
        if !self.has_interval() {
            return (f64::NAN, f64::NAN);
        }
        let half = t_critical(level, self.df) * self.se;
        (self.mean - half, self.mean + half)
    }

    /// The two-sided p-value of "the true mean is 0"; 1 without an interval, 0 for a nonzero
    /// mean with no spread at all.
    pub fn p_value(&self) -> f64 {
        if !self.has_interval() {
            return 1.0;
        }
        if self.se == 0.0 {
            return if self.mean == 0.0 { 1.0 } else { 0.0 };
        }
        t_two_sided_p(self.mean / self.se, self.df)
    }

    /// The same mean with its standard error widened to at least `se` (degrees of freedom
    /// kept): an uncertainty known from elsewhere that the values themselves may not show.
    pub fn widened_to(self, se: f64) -> Mean {
        if se.is_finite() && se > self.se {
            Mean { se, ..self }
        } else {
            self
        }
    }
}

/// `after − before` for two independent means, with Welch's standard error and
/// Welch–Satterthwaite degrees of freedom; `None` unless both have an interval.
pub fn welch(before: &Mean, after: &Mean) -> Option<Mean> {
    if !before.has_interval() || !after.has_interval() {
        return None;
    }
    let (va, vb) = (after.se.powi(2), before.se.powi(2));
    let se = (va + vb).sqrt();
    let df = if va + vb > 0.0 {
        (va + vb).powi(2) / (va.powi(2) / after.df + vb.powi(2) / before.df)
    } else {
        after.df + before.df
    };
    Some(Mean {
        mean: after.mean - before.mean,
        se,
        df: df.max(1.0),
        n: before.n + after.n,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_of_ten_values_uses_t_with_nine_degrees_of_freedom() {
        let values = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0];
        let mean = Mean::of(&values).unwrap();
        assert_eq!(mean.mean, 5.5);
        assert_eq!(mean.df, 9.0);
        // s = 3.0277, se = 0.9574, t(0.975, 9) = 2.2622: half-width 2.1659 (R's t.test).
        let (low, high) = mean.interval(0.95);
        assert!((low - 3.3341).abs() < 1e-3, "{low}");
        assert!((high - 7.6659).abs() < 1e-3, "{high}");
        // t = 5.7446 on 9 degrees of freedom: p = 0.000278.
        assert!(
            (mean.p_value() - 0.000278).abs() < 1e-5,
            "{}",
            mean.p_value()
        );
    }

    #[test]
    fn one_value_has_no_interval_and_no_evidence() {
        let mean = Mean::of(&[4.0]).unwrap();
        assert!(!mean.has_interval());
        assert!(mean.interval(0.95).0.is_nan());
        assert_eq!(mean.p_value(), 1.0);
        assert_eq!(Mean::of(&[]), None);
        assert_eq!(Mean::of(&[f64::NAN]), None);
    }

    #[test]
    fn welch_matches_a_reference() {
        // Welch's two-sample t of (after − before): difference 1.325, standard error
        // √(s²ₐ/5 + s²ᵦ/4) = 0.28687, t = 4.6189 on 6.3548 degrees of freedom (R's t.test).
        let before = Mean::of(&[20.1, 19.8, 20.5, 20.3]).unwrap();
        let after = Mean::of(&[21.0, 22.2, 21.6, 20.9, 21.8]).unwrap();
        let d = welch(&before, &after).unwrap();
        assert!((d.mean - 1.325).abs() < 1e-9, "{d:?}");
        assert!((d.se - 0.28687).abs() < 1e-4, "{d:?}");
        assert!((d.df - 6.3548).abs() < 1e-3, "{d:?}");
        assert!(welch(&before, &Mean::of(&[1.0]).unwrap()).is_none());
    }

    #[test]
    fn widening_never_narrows() {
        let mean = Mean::of(&[1.0, 1.1, 0.9]).unwrap();
        assert_eq!(mean.widened_to(0.0), mean);
        assert_eq!(mean.widened_to(f64::NAN), mean);
        assert_eq!(mean.widened_to(1.0).se, 1.0);
    }
}
