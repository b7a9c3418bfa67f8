//! The figures of `cargo xtask drift`: how far each case's estimate moves between runs, and how
//! much of that a measure of the machine's speed at the time of each run explains.
//!
//! Everything is on a log scale, where a state of the machine that slows a run multiplies its
//! figures and so adds to their logarithms. A case's movement is the sample standard deviation
//! of its log estimate over the runs; "explained" means the standard deviation of the log
//! estimate less a log measure of the machine in the same run:
//!
//! * **the reference**: the harness-free chain, timed in processes of its own just before and
//!   just after the run (no knotmeter code runs in it);
//! * **the probe**: one case of the same bench binary (`chain_long`), measured in the same
//!   rounds and processes as every other case, as a built-in probe of the engine would be;
//! * **the engine's probe**: the machine's probe the engine measures in a slot of every round
//!   of every run (`engine/src/probe.rs`), as the run's JSON document reports it: what
//!   before/after comparisons take their ratios relative to (the geometric mean of its rounds'
//!   figures), and beside it the median of the same rounds, which one stray round cannot move
//!   far;
//! * **the common shift**: the median, over the *other* cases of the run, of each one's log
//!   estimate less its mean over the runs: what the run did to nearly every case at once.

use std::collections::BTreeMap;

/// One run: each case's estimate (nanoseconds per operation, by its short name) and the
/// harness-free reference's nanoseconds per step around it.
#[derive(Debug, Clone)]
pub(super) struct Run {
    /// Each case's estimate.
    pub(super) estimates: BTreeMap<String, f64>,
    /// The reference: the geometric mean of its calls just before and just after the run.
    pub(super) reference_ns: f64,
    /// The engine's probe of the run, nanoseconds per step.
    pub(super) engine_probe_ns: f64,
    /// The figures of the engine's probe's rounds (any unit: only their ratios are used).
    pub(super) engine_probe_rounds: Vec<f64>,
}

/// How far one case moves between runs, and what is left of it once each measure of the
/// machine is taken out (standard deviations of log values: 0.05 is about 5%).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct CaseMovement {
    /// The case's short name.
    pub(super) name: String,
    /// The median of its estimates over the runs, in nanoseconds.
    pub(super) median_ns: f64,
    /// Its log estimate's standard deviation over the runs.
    pub(super) raw: f64,
    /// The same, less the reference's log.
    pub(super) less_reference: f64,
    /// The same, less the probe's log (NaN for the probe itself, which has nothing left).
    pub(super) less_probe: f64,
    /// The same, less the engine's probe's log.
    pub(super) less_engine_probe: f64,
    /// The same, less the run's common shift from the other cases.
    pub(super) less_common: f64,
    /// The correlation of its log estimate with the reference's, over the runs.
    pub(super) with_reference: f64,
    /// The correlation of its log estimate with the common shift of the other cases.
    pub(super) with_common: f64,
}

/// What moved one run as a whole, each as a log deviation from its own mean over the runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct RunShift {
    /// The median over every case.
    pub(super) common: f64,
    /// The harness-free reference.
    pub(super) reference: f64,
    /// The probe case.
    pub(super) probe: f64,
    /// The engine's probe.
    pub(super) engine_probe: f64,
    /// The median of the engine's probe's rounds.
    pub(super) engine_probe_median: f64,
    /// How far the engine's probe's rounds spread in the run: the largest over the smallest,
    /// less one (NaN with fewer than two).
    pub(super) engine_probe_rounds_range: f64,
}

/// Every figure of the section.
#[derive(Debug, Clone)]
pub(super) struct Figures {
    /// The cases, by name.
    pub(super) cases: Vec<CaseMovement>,
    /// Each run's shifts, in run order.
    pub(super) runs: Vec<RunShift>,
    /// The standard deviation of the runs' common shift (over every case).
    pub(super) common_sd: f64,
    /// The standard deviation of the reference's log over the runs.
    pub(super) reference_sd: f64,
    /// The correlation of the common shift with the reference.
    pub(super) common_with_reference: f64,
    /// The standard deviation of the engine's probe's log over the runs.
    pub(super) engine_probe_sd: f64,
    /// The correlation of the common shift with the engine's probe.
    pub(super) common_with_engine_probe: f64,
    /// The standard deviation of the log of the median of the engine's probe's rounds.
    pub(super) engine_probe_median_sd: f64,
    /// The correlation of the common shift with the median of the engine's probe's rounds.
    pub(super) common_with_engine_probe_median: f64,
}

/// The figures of `runs`, with `probe` the case that stands for an in-process probe. An error
/// with fewer than three runs, when a run lacks a case of the first one or the probe, or when
/// a run's engine's probe is not a positive number.
pub(super) fn compute(runs: &[Run], probe: &str) -> Result<Figures, String> {
    if runs.len() < 3 {
        return Err(format!("{} runs: at least 3 are needed", runs.len()));
    }
    if let Some(k) = runs
        .iter()
        .position(|r| !(r.engine_probe_ns.is_finite() && r.engine_probe_ns > 0.0))
    {
        return Err(format!("run {} reported no probe of the machine", k + 1));
    }
    let names: Vec<String> = runs[0].estimates.keys().cloned().collect();
    if !names.iter().any(|n| n == probe) {
        return Err(format!("the runs have no case `{probe}`, the probe"));
    }
    // Each case's log estimate less its mean over the runs.
    let mut deviations: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for name in &names {
        let logs = runs
            .iter()
            .enumerate()
            .map(|(i, run)| {
                run.estimates
                    .get(name)
                    .filter(|e| **e > 0.0)
                    .map(|e| e.ln())
                    .ok_or_else(|| format!("run {} has no positive estimate of `{name}`", i + 1))
            })
            .collect::<Result<Vec<f64>, String>>()?;
        deviations.insert(name, centred(&logs));
    }
    let reference = centred(&runs.iter().map(|r| r.reference_ns.ln()).collect::<Vec<_>>());
    let engine_probe = centred(
        &runs
            .iter()
            .map(|r| r.engine_probe_ns.ln())
            .collect::<Vec<_>>(),
    );
    // The median of the probe's rounds, each run's relative to the geometric mean of the same
    // rounds, on the engine's probe's scale (a run whose rounds were not reported keeps its
    // estimate).
    let engine_probe_median = centred(
        &runs
            .iter()
            .map(|r| {
                let rounds: Vec<f64> = r
                    .engine_probe_rounds
                    .iter()
                    .copied()
                    .filter(|m| m.is_finite() && *m > 0.0)
                    .collect();
                if rounds.is_empty() {
                    return r.engine_probe_ns.ln();
                }
                let log_mean = rounds.iter().map(|m| m.ln()).sum::<f64>() / rounds.len() as f64;
                r.engine_probe_ns.ln() + crate::stats::median(&rounds).ln() - log_mean
            })
            .collect::<Vec<_>>(),
    );
    let rounds_range = |rounds: &[f64]| {
        let finite: Vec<f64> = rounds
            .iter()
            .copied()
            .filter(|m| m.is_finite() && *m > 0.0)
            .collect();
        if finite.len() < 2 {
            return f64::NAN;
        }
        let (low, high) = finite
            .iter()
            .fold((f64::INFINITY, 0.0_f64), |(l, h), m| (l.min(*m), h.max(*m)));
        high / low - 1.0
    };
    let probe_deviation = &deviations[probe];
    let common_without = |skip: Option<&str>| -> Vec<f64> {
        (0..runs.len())
            .map(|k| {
                let others: Vec<f64> = deviations
                    .iter()
                    .filter(|(name, _)| Some(**name) != skip)
                    .map(|(_, d)| d[k])
                    .collect();
                crate::stats::median(&others)
            })
            .collect()
    };
    let common = common_without(None);
    let cases = names
        .iter()
        .map(|name| {
            let own = &deviations[name.as_str()];
            let others = common_without(Some(name));
            let estimates: Vec<f64> = runs.iter().map(|r| r.estimates[name]).collect();
            CaseMovement {
                name: name.clone(),
                median_ns: crate::stats::median(&estimates),
                raw: sd(own),
                less_reference: sd(&less(own, &reference)),
                less_probe: if name == probe {
                    f64::NAN
                } else {
                    sd(&less(own, probe_deviation))
                },
                less_engine_probe: sd(&less(own, &engine_probe)),
                less_common: sd(&less(own, &others)),
                with_reference: correlation(own, &reference),
                with_common: correlation(own, &others),
            }
        })
        .collect();
    Ok(Figures {
        cases,
        runs: (0..runs.len())
            .map(|k| RunShift {
                common: common[k],
                reference: reference[k],
                probe: probe_deviation[k],
                engine_probe: engine_probe[k],
                engine_probe_median: engine_probe_median[k],
                engine_probe_rounds_range: rounds_range(&runs[k].engine_probe_rounds),
            })
            .collect(),
        common_sd: sd(&common),
        reference_sd: sd(&reference),
        common_with_reference: correlation(&common, &reference),
        engine_probe_sd: sd(&engine_probe),
        common_with_engine_probe: correlation(&common, &engine_probe),
        engine_probe_median_sd: sd(&engine_probe_median),
        common_with_engine_probe_median: correlation(&common, &engine_probe_median),
    })
}

/// `values` less their mean.
fn centred(values: &[f64]) -> Vec<f64> {
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    values.iter().map(|v| v - mean).collect()
}

/// `a − b`, element by element.
fn less(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter().zip(b).map(|(x, y)| x - y).collect()
}

/// The sample standard deviation (n − 1); NaN with fewer than two values.
fn sd(values: &[f64]) -> f64 {
    let n = values.len() as f64;
    if values.len() < 2 {
        return f64::NAN;
    }
    let mean = values.iter().sum::<f64>() / n;
    (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
}

/// Pearson's correlation of `a` and `b`; NaN when either does not vary.
fn correlation(a: &[f64], b: &[f64]) -> f64 {
    let (a, b) = (centred(a), centred(b));
    let products: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
    let squares = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>();
    let denominator = (squares(&a) * squares(&b)).sqrt();
    if denominator > 0.0 {
        products / denominator
    } else {
        f64::NAN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs of cases whose every figure is its base times the machine's state of the run times
    /// a case's own factor, with the reference seeing the machine alone.
    fn runs(machine: &[f64], own: &[(&str, f64, Vec<f64>)]) -> Vec<Run> {
        machine
            .iter()
            .enumerate()
            .map(|(k, m)| Run {
                estimates: own
                    .iter()
                    .map(|(name, base, noise)| ((*name).to_owned(), base * m * noise[k]))
                    .collect(),
                reference_ns: 2.0 * m,
                engine_probe_ns: 2.5 * m,
                engine_probe_rounds: vec![*m; 3],
            })
            .collect()
    }

    #[test]
    fn one_stray_round_moves_the_probes_mean_and_not_the_median_of_its_rounds() {
        let machine = [1.0, 1.1, 0.95, 1.05, 0.9];
        let flat = vec![1.0; 5];
        let mut runs = runs(
            &machine,
            &[
                ("chain_long", 25_000.0, flat.clone()),
                ("sort", 10_000.0, flat),
            ],
        );
        // The last run's probe: five rounds at the machine's state and one twice as slow, whose
        // geometric mean is 2^(1/6) (12%) slower.
        let m = machine[4];
        runs[4].engine_probe_rounds = vec![m, m, m, m, m, 2.0 * m];
        runs[4].engine_probe_ns = 2.5 * m * 2f64.powf(1.0 / 6.0);
        let figures = compute(&runs, "chain_long").unwrap();
        assert!(figures.common_with_engine_probe < 0.9, "{figures:?}");
        assert!(
            (figures.common_with_engine_probe_median - 1.0).abs() < 1e-9,
            "{figures:?}"
        );
        let last = figures.runs[4];
        assert!((last.engine_probe_rounds_range - 1.0).abs() < 1e-12);
        assert!(figures.runs[0].engine_probe_rounds_range.abs() < 1e-12);
    }

    #[test]
    fn a_state_of_the_machine_shared_by_every_case_is_taken_out_by_each_measure_of_it() {
        let machine = [1.0, 1.1, 0.95, 1.05, 0.9];
        let flat = vec![1.0; 5];
        let figures = compute(
            &runs(
                &machine,
                &[
                    ("chain_long", 25_000.0, flat.clone()),
                    ("sort", 10_000.0, flat.clone()),
                    ("parse", 2_000.0, flat),
                ],
            ),
            "chain_long",
        )
        .unwrap();
        let logs: Vec<f64> = machine.iter().map(|m: &f64| m.ln()).collect();
        let machine_sd = sd(&logs);
        assert!((figures.reference_sd - machine_sd).abs() < 1e-12);
        assert!((figures.common_sd - machine_sd).abs() < 1e-12);
        assert!((figures.common_with_reference - 1.0).abs() < 1e-12);
        assert!((figures.engine_probe_sd - machine_sd).abs() < 1e-12);
        assert!((figures.common_with_engine_probe - 1.0).abs() < 1e-12);
        for case in &figures.cases {
            assert!((case.raw - machine_sd).abs() < 1e-12, "{case:?}");
            assert!(case.less_reference < 1e-12, "{case:?}");
            assert!(case.less_engine_probe < 1e-12, "{case:?}");
            assert!(case.less_common < 1e-12, "{case:?}");
            assert!((case.with_reference - 1.0).abs() < 1e-12, "{case:?}");
        }
        let sort = figures.cases.iter().find(|c| c.name == "sort").unwrap();
        assert!(sort.less_probe < 1e-12);
        assert_eq!(sort.median_ns, 10_000.0 * 1.0);
        let probe = figures
            .cases
            .iter()
            .find(|c| c.name == "chain_long")
            .unwrap();
        assert!(probe.less_probe.is_nan());
        assert!(
            (figures.runs[1].reference - (1.1f64.ln() - logs.iter().sum::<f64>() / 5.0)).abs()
                < 1e-12
        );
    }

    #[test]
    fn what_a_case_does_alone_stays_and_no_other_case_takes_it_out() {
        let machine = [1.0; 6];
        let wild = vec![1.0, 1.3, 0.8, 1.2, 0.9, 1.1];
        let flat = vec![1.0; 6];
        let figures = compute(
            &runs(
                &machine,
                &[
                    ("chain_long", 25_000.0, flat.clone()),
                    ("a", 1.0, flat.clone()),
                    ("b", 1.0, flat),
                    ("wild", 5.0, wild.clone()),
                ],
            ),
            "chain_long",
        )
        .unwrap();
        let wild_sd = sd(&wild.iter().map(|w| w.ln()).collect::<Vec<_>>());
        let case = figures.cases.iter().find(|c| c.name == "wild").unwrap();
        // The common shift leaves the case itself out: its own movement is not explained away.
        for left in [
            case.raw,
            case.less_reference,
            case.less_probe,
            case.less_engine_probe,
            case.less_common,
        ] {
            assert!((left - wild_sd).abs() < 1e-12, "{case:?}");
        }
        assert!(case.with_reference.is_nan(), "the reference did not move");
    }

    #[test]
    fn too_few_runs_or_a_missing_case_is_an_error() {
        let flat = vec![1.0; 3];
        let three = runs(&[1.0, 1.0, 1.0], &[("chain_long", 1.0, flat.clone())]);
        assert!(compute(&three[..2], "chain_long")
            .unwrap_err()
            .contains("at least 3"));
        assert!(compute(&three, "other").unwrap_err().contains("`other`"));
        let mut gap = runs(
            &[1.0, 1.0, 1.0],
            &[("chain_long", 1.0, flat.clone()), ("x", 1.0, flat)],
        );
        gap[2].estimates.remove("x");
        assert!(compute(&gap, "chain_long").unwrap_err().contains("run 3"));
        let mut no_probe = three;
        no_probe[1].engine_probe_ns = f64::NAN;
        assert!(compute(&no_probe, "chain_long")
            .unwrap_err()
            .contains("run 2 reported no probe"));
    }
}
