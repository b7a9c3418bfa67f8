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
use crate::analysis::rounds::{across_runs_on, relative_to_the_machine};
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

/// How far a case's move between two runs may stray from the machine's probe's move, as a
/// share of the probe's move. The machine's speed moves every case of a run at once, but not
/// every case by the same share: over 14 runs of the calibration suite, the chain-like cases
/// moved by 3.3–5.0% between runs and by 1.6–2.5% relative to a chain measured in the same
/// rounds, whose own runs moved by 3.6% (docs/calibration.md, "What moves whole runs"). Half
/// the probe's move, as a standard deviation, is what is left of that, and it grows with the
/// move: the further the machine moved, the less surely its move can be taken out.
const SHARE_OF_THE_MACHINES_MOVE: f64 = 0.5;

/// The machine's move between two runs, from the probe's rounds in each: the difference of
/// their mean log medians (after − before) with Welch's standard error over the rounds (a
/// chain whose code is the same in both runs has nothing else to show). `None` unless both
/// runs have two positive probe rounds or more.
pub(crate) fn machine_move(before: &Rounds, after: &Rounds) -> Option<Mean> {
    let run = |r: &Rounds| Mean::of(&logs(r));
    welch(&run(before)?, &run(after)?)
}

/// The ratio of `after` over `before` from both runs' rounds: Welch's difference of the mean
/// log medians, each run's standard error as a rerun sees it (`across_runs_on`: what moves
/// whole runs, which neither run's rounds see, the machine's move included, as that run's
/// history learnt it, `Rounds::machine_sd`, or assumed).
///
/// With `machine`, the machine's move between the two runs ([`machine_move`]), the ratio is
/// relative to it: the case's move less the machine's, each run's standard error what it
/// strays from the machine (`relative_to_the_machine`), the variance the sum of both and of
/// [`SHARE_OF_THE_MACHINES_MOVE`] of the machine's move (how far a case may stray from it).
///
/// The difference's standard error is widened to at least `history_sd` (the spread between
/// runs of this case learnt from the history, as a standard deviation of a log step, itself
/// relative to the probe where the history's runs had one), when known. `None` unless both
/// runs have two positive round medians or more.
pub(crate) fn before_after(
    before: &Rounds,
    after: &Rounds,
    machine: Option<&Mean>,
    history_sd: Option<f64>,
) -> Option<RatioEstimate> {
    let machine = machine.filter(|m| m.has_interval());
    // Relative to the machine, each run's error is what it strays from the machine's move;
    // otherwise that move is in it too, as each run's history knew it or assumed.
    let run = |r: &Rounds| {
        Mean::of(&logs(r)).map(|mean| match machine {
            Some(_) => relative_to_the_machine(mean),
            None => across_runs_on(mean, r.machine_sd),
        })
    };
    let mut difference = welch(&run(before)?, &run(after)?)?;
    if let Some(machine) = machine {
        let relative = welch(machine, &difference)?;
        let strays = SHARE_OF_THE_MACHINES_MOVE * machine.mean;
        difference = relative.widened_to(relative.se.hypot(strays));
    }
    let difference = match history_sd {
        Some(sd) => difference.widened_to(sd),
        None => difference,
    };
    ratio_of(&difference)
}

/// The logs of a run's positive, finite round medians.
fn logs(r: &Rounds) -> Vec<f64> {
    r.medians_ns
        .iter()
        .filter(|m| **m > 0.0 && m.is_finite())
        .map(|m| m.ln())
        .collect()
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
    use knotmeter_protocol::Verdict;

    use super::*;
    use crate::compare::{finalize, Pending};

    fn rounds(medians: &[f64]) -> Rounds {
        Rounds {
            medians_ns: medians.to_vec(),
            processes: medians.len() as u32,
            widened: false,
            machine_sd: None,
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
        let plain = before_after(&before, &after, None, None).unwrap();
        assert!((plain.ratio - 1.0296).abs() < 0.002, "{plain:?}");
        let widened = before_after(&before, &after, None, Some(0.05)).unwrap();
        assert!(widened.low < plain.low && widened.high > plain.high);
        assert!(widened.p_value > plain.p_value);
        // A history spread narrower than the runs' own leaves the interval alone.
        assert_eq!(before_after(&before, &after, None, Some(1e-6)), Some(plain));
        assert_eq!(before_after(&rounds(&[1.0]), &after, None, None), None);
    }

    /// Two runs of unchanged code whose rounds each agree within 0.2%, the second 2% slower
    /// across the board (the machine drifted between them, as it does over minutes): the
    /// rounds alone would call it slower, [1.017, 1.023]; each run's error as a rerun sees it
    /// keeps the interval over the 0.5% threshold's near side. A 10% change still stands out,
    /// though without the probe to take the machine's move out it barely does.
    #[test]
    fn a_drift_between_runs_that_neither_runs_rounds_see_is_not_a_change() {
        let before = rounds(&[100.0, 100.2, 99.9, 100.1, 99.8, 100.0, 100.1, 99.9]);
        let drifted: Vec<f64> = before.medians_ns.iter().map(|m| m * 1.02).collect();
        let r = before_after(&before, &rounds(&drifted), None, None).unwrap();
        assert!((r.ratio - 1.02).abs() < 1e-9, "{r:?}");
        assert!(r.low < 1.005, "{r:?}");
        let changed: Vec<f64> = before.medians_ns.iter().map(|m| m * 1.10).collect();
        let r = before_after(&before, &rounds(&changed), None, None).unwrap();
        assert!(r.low > 1.01 && r.low < 1.05, "{r:?}");
        assert_eq!(verdict_of(r), Verdict::Slower, "{r:?}");
    }

    /// Without the probe, each run's error holds the machine's move as that run's history
    /// learnt it: on a quiet machine (0.5%) a 5% change stands out, where the assumed 2.5%
    /// leaves it `same`; on a noisy one (6%) a 10% change does not.
    #[test]
    fn without_the_probe_the_learnt_move_of_the_machine_sets_the_error() {
        let on = |center: f64, machine_sd: Option<f64>| Rounds {
            machine_sd,
            ..steady(center)
        };
        let verdict = |change: f64, sd: Option<f64>| {
            let r = before_after(&on(2_000.0, sd), &on(2_000.0 * change, sd), None, None);
            verdict_of(r.unwrap())
        };
        assert_eq!(verdict(1.05, None), Verdict::Same);
        assert_eq!(verdict(1.05, Some(0.005)), Verdict::Slower);
        assert_eq!(verdict(1.10, Some(0.06)), Verdict::Same);
    }

    /// Rounds of a probe (or a case) around `center`, each within 0.3% of it.
    fn steady(center: f64) -> Rounds {
        let wobble = [1.0, 1.002, 0.998, 1.003, 0.999, 1.001, 0.997, 1.0];
        rounds(&wobble.map(|w| center * w))
    }

    fn verdict_of(estimate: RatioEstimate) -> Verdict {
        let pending = [Pending {
            id: "c".into(),
            against: "run 1".into(),
            estimate,
            threshold: 0.01,
            kind: knotmeter_protocol::ComparisonKind::History,
            machine_ratio: None,
        }];
        finalize(&pending)[0].1.verdict
    }

    /// The machine ran 15% slower in the second run, and so did the unchanged case: alone,
    /// past what the prior allows for the machine, the case's rounds call that slower;
    /// relative to the probe, measured in the same rounds, it is the same.
    #[test]
    fn a_move_of_the_whole_machine_is_taken_out_by_the_probe() {
        let (case_before, case_after) = (steady(2_000.0), steady(2_300.0));
        let machine = machine_move(&steady(2_500.0), &steady(2_875.0)).unwrap();
        assert!((machine.mean - 1.15f64.ln()).abs() < 1e-3, "{machine:?}");
        let alone = before_after(&case_before, &case_after, None, None).unwrap();
        assert_eq!(verdict_of(alone), Verdict::Slower, "{alone:?}");
        let relative = before_after(&case_before, &case_after, Some(&machine), None).unwrap();
        assert!((relative.ratio - 1.0).abs() < 0.002, "{relative:?}");
        assert_eq!(verdict_of(relative), Verdict::Same, "{relative:?}");
    }

    /// A change of the code, the machine steady: the probe changes nothing but adds its own
    /// little uncertainty, and a 10% change is still called.
    #[test]
    fn a_change_of_the_code_stands_out_when_the_machine_held_still() {
        let machine = machine_move(&steady(2_500.0), &steady(2_500.0)).unwrap();
        let r = before_after(&steady(2_000.0), &steady(2_200.0), Some(&machine), None).unwrap();
        assert!((r.ratio - 1.10).abs() < 0.003, "{r:?}");
        assert_eq!(verdict_of(r), Verdict::Slower, "{r:?}");
    }

    /// The further the machine moved, the less surely its move is taken out: how far a case
    /// strays from the probe grows with the probe's move, and with it the interval.
    #[test]
    fn the_interval_widens_with_the_machines_move() {
        let width = |machine_after: f64| {
            let machine = machine_move(&steady(2_500.0), &steady(machine_after)).unwrap();
            let case_after = 2_000.0 * machine_after / 2_500.0;
            let r = before_after(&steady(2_000.0), &steady(case_after), Some(&machine), None);
            let r = r.unwrap();
            assert!((r.ratio - 1.0).abs() < 0.002, "{machine_after}: {r:?}");
            assert_eq!(verdict_of(r), Verdict::Same, "{machine_after}: {r:?}");
            (r.high / r.low).ln()
        };
        let (still, two, ten) = (width(2_500.0), width(2_550.0), width(2_750.0));
        assert!(still < two && two < ten, "{still} {two} {ten}");
        // Ten percent of move: ±1.96 × half of it, about ±9%.
        assert!(ten > 0.15 && ten < 0.25, "{ten}");
    }
}
