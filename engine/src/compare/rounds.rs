//! Ratios from rounds: a group member against its baseline (one paired log-ratio per round), a
//! case against its stored result (the two runs' rounds, Welch), and two builds (one paired
//! log-ratio per round, each round in a fresh pair of processes).
//!
//! Samples within a round are not independent evidence: a process keeps the state it was born
//! with for its whole life, and that state moves its figures by more than its samples show. So
//! every interval here is Student's t over per-round values, whose spread includes whatever
//! differs between processes and over the time of the run; and, since a run's rounds all lie
//! within its few seconds, each standard error is at least what reruns show beyond them.

use knotmeter_protocol::Rounds;

use super::{RatioEstimate, LEVEL};
use crate::analysis::rounds::across_runs;
use crate::stats::rounds::{welch, Mean};

/// The share of the rounds' own standard deviation by which a paired ratio moves between
/// whole runs. Pairing cancels what a moment or a process does to both sides, but a run's
/// rounds lie within its few seconds, and reruns of three groups (14 fresh runs each of the
/// calibration suite's `same_code` and `plus5` and the quickstart's `sort`, at c70fa3e) moved
/// their ratio by 0.61 to 0.62 times the rounds' standard deviation, where the rounds' standard
/// error (0.35 of it over 8 rounds) gave intervals that held another run's ratio in 52% to 69%
/// of pairs; 14 more runs of each, measured with this share, 81% to 97% (docs/measurement.md,
/// §9).
const RATIO_SHARE_OF_ROUND_SD: f64 = 0.6;

/// The ratio from per-round log-ratios (member over baseline, head over base): their mean,
/// exponentiated, with a t interval and the t test's p-value, its standard error at least
/// [`RATIO_SHARE_OF_ROUND_SD`] of the rounds' standard deviation (where a rerun lands); `None`
/// with fewer than two rounds, which show nothing about the variation between rounds.
pub(crate) fn paired(log_ratios: &[f64]) -> Option<RatioEstimate> {
    let mean = Mean::of(log_ratios)?;
    let round_sd = mean.se * (mean.n as f64).sqrt();
    ratio_of(&mean.widened_to(RATIO_SHARE_OF_ROUND_SD * round_sd))
}

/// The ratio of `after` over `before` from both runs' rounds: Welch's difference of the mean
/// log medians, each run's standard error as a rerun sees it (`across_runs`: what moves whole
/// runs, which neither run's rounds see), the difference's widened to at least `history_sd` (the spread between runs
/// of this case learnt from the history, as a standard deviation of a log step), when known.
/// `None` unless both runs have two positive round medians or more.
pub(crate) fn before_after(
    before: &Rounds,
    after: &Rounds,
    history_sd: Option<f64>,
) -> Option<RatioEstimate> {
    let logs = |r: &Rounds| -> Vec<f64> {
        r.medians_ns
            .iter()
            .filter(|m| **m > 0.0 && m.is_finite())
            .map(|m| m.ln())
            .collect()
    };
    let run = |r: &Rounds| Mean::of(&logs(r)).map(across_runs);
    let difference = welch(&run(before)?, &run(after)?)?;
    let difference = match history_sd {
        Some(sd) => difference.widened_to(sd),
        None => difference,
    };
    ratio_of(&difference)
}

/// A log-scale mean as a ratio with its interval and p-value.
fn ratio_of(mean: &Mean) -> Option<RatioEstimate> {
    if !mean.has_interval() {
        return None;
    }
    let (low, high) = mean.interval(LEVEL);
    Some(RatioEstimate {
        ratio: mean.mean.exp(),
        low: low.exp(),
        high: high.exp(),
        p_value: mean.p_value(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rounds(medians: &[f64]) -> Rounds {
        Rounds {
            medians_ns: medians.to_vec(),
            processes: medians.len() as u32,
            widened: false,
        }
    }

    #[test]
    fn a_paired_ratio_needs_two_rounds() {
        assert_eq!(paired(&[0.01]), None);
        let r = paired(&[0.01, 0.012, 0.009, 0.011]).unwrap();
        assert!(r.low > 1.0 && r.high < 1.02, "{r:?}");
        assert!(r.p_value < 0.001, "{r:?}");
    }

    /// A paired ratio's interval is where a rerun lands, not the rounds' standard error alone:
    /// ten rounds whose log-ratios spread with standard deviation s gave ±t·s/√10 = ±0.71 s,
    /// which reruns missed in about a third of pairs; it is now ±t·0.6 s.
    #[test]
    fn a_paired_ratio_is_as_wide_as_reruns_move() {
        let log_ratios = [
            0.01, 0.012, 0.009, 0.011, 0.010, 0.013, 0.008, 0.010, 0.011, 0.009,
        ];
        let mean = Mean::of(&log_ratios).unwrap();
        let round_sd = mean.se * (log_ratios.len() as f64).sqrt();
        let r = paired(&log_ratios).unwrap();
        let half_width = (r.high / r.low).ln() / 2.0;
        let t = mean.interval(LEVEL).1 - mean.mean;
        let wanted = t / mean.se * RATIO_SHARE_OF_ROUND_SD * round_sd;
        assert!(
            (half_width - wanted).abs() < 1e-9,
            "{half_width} vs {wanted}"
        );
        assert!(half_width > 1.8 * t, "{half_width} vs the rounds' {t}");
        assert!((r.ratio.ln() - mean.mean).abs() < 1e-12, "{r:?}");
    }

    #[test]
    fn before_after_takes_both_runs_spread_and_the_history_widens_it() {
        let before = rounds(&[100.0, 104.0, 97.0, 101.0, 99.0]);
        let after = rounds(&[103.0, 107.0, 100.0, 104.0, 102.0]);
        let plain = before_after(&before, &after, None).unwrap();
        assert!((plain.ratio - 1.0296).abs() < 0.002, "{plain:?}");
        let widened = before_after(&before, &after, Some(0.05)).unwrap();
        assert!(widened.low < plain.low && widened.high > plain.high);
        assert!(widened.p_value > plain.p_value);
        // A history spread narrower than the runs' own leaves the interval alone.
        assert_eq!(before_after(&before, &after, Some(1e-6)), Some(plain));
        assert_eq!(before_after(&rounds(&[1.0]), &after, None), None);
    }

    /// Two runs of unchanged code whose rounds each agree within 0.2%, the second 2% slower
    /// across the board (the machine drifted between them, as it does over minutes): the
    /// rounds alone would call it slower, [1.017, 1.023]; each run's error as a rerun sees it
    /// keeps the interval over the 0.5% threshold's near side. A 10% change still stands out.
    #[test]
    fn a_drift_between_runs_that_neither_runs_rounds_see_is_not_a_change() {
        let before = rounds(&[100.0, 100.2, 99.9, 100.1, 99.8, 100.0, 100.1, 99.9]);
        let drifted: Vec<f64> = before.medians_ns.iter().map(|m| m * 1.02).collect();
        let r = before_after(&before, &rounds(&drifted), None).unwrap();
        assert!((r.ratio - 1.02).abs() < 1e-9, "{r:?}");
        assert!(r.low < 1.005, "{r:?}");
        let changed: Vec<f64> = before.medians_ns.iter().map(|m| m * 1.10).collect();
        let r = before_after(&before, &rounds(&changed), None).unwrap();
        assert!(r.low > 1.05, "{r:?}");
    }
}
