//! The run's comparisons, decided together at its end: the paired ones found while measuring,
//! plus a before/after comparison for every other case that has a stored predecessor (or a
//! result in the baseline named by `--baseline`), all corrected at once. Also each case's
//! reproducibility, learnt from the same history: the spread every surface shows beside its
//! figure, which a before/after verdict widens to unless both runs have the machine's probe
//! (then the spread of the case's medians over their runs' probes, which takes the machine's
//! moves out, is its floor once known); and how far the machine's speed moves between runs,
//! learnt from the stored runs' probes.
//!
//! Only complete results are compared and compared against: a case cut short by a cancel gets
//! no verdict, and the store never offers a partial result as a baseline. Every measured case
//! that gets no comparison at all is listed with the reason, for the gate.

use knotmeter_history::{machine_key, StoredMedian, StoredResult};
use knotmeter_protocol::{
    BenchResult, Comparison, ComparisonKind, MachineProbe, Measure, Reproducibility,
};

use super::Run;
use crate::analysis::{corrected, optimized_away};
use crate::cancel;
use crate::compare::{
    self, count_noise, count_ratio, step_sd, unpaired_ratio, Pending, RatioEstimate,
    DEFAULT_RUN_TO_RUN_NOISE,
};
use crate::store::{Lookup, Store};

/// Stored runs looked at to estimate a case's run-to-run noise.
const NOISE_HISTORY: usize = 20;

/// The run's comparisons, and which measured cases got none.
pub(super) struct Compared {
    /// Every comparison of the run with its corrected p-value and verdict, in run order.
    pub(super) comparisons: Vec<(String, Comparison)>,
    /// Measured cases without any comparison, each with the reason.
    pub(super) not_compared: Vec<(String, String)>,
}

/// The reproducibility of case `case_id` on the machine `machine_key` from its earlier
/// comparable runs (before this one), or `None` when no history can be read.
pub(super) fn reproducibility(
    store: &Store,
    case_id: &str,
    machine_key: &str,
) -> Option<Reproducibility> {
    let medians = store.medians(case_id, machine_key, NOISE_HISTORY)?;
    Some(compare::reproducibility(&medians))
}

/// How far the machine's speed moves between runs, as the standard deviation of one run's log
/// figure: learnt from its probe in the last runs stored on this machine whose probe `build`
/// compiled, whatever they measured (the same rule as a case's spread, on the probe's figures;
/// one run of several is half a step between two), or `None` until enough of them have one,
/// or when no history can be read.
pub(super) fn machine_sd(store: &Store, machine_key: &str, build: &str) -> Option<f64> {
    let probes: Vec<StoredMedian> = store
        .probes(machine_key, build, NOISE_HISTORY)?
        .into_iter()
        .map(|ns_per_step| StoredMedian {
            median_ns: ns_per_step,
            git_commit: None,
            git_dirty: None,
            probe_ns_per_step: None,
            probe_build: String::new(),
        })
        .collect();
    let spread = compare::reproducibility(&probes).spread?;
    Some(compare::step_sd(spread) / std::f64::consts::SQRT_2)
}

/// The spread between runs of case `case_id` relative to the machine's probe, learnt from
/// its earlier runs that have one `build` compiled (the same rule as [`reproducibility`], on
/// each median over its run's probe), or `None` until enough of them do.
fn spread_relative_to_the_probe(
    store: &Store,
    case_id: &str,
    machine_key: &str,
    build: &str,
) -> Option<f64> {
    let medians = store.medians(case_id, machine_key, NOISE_HISTORY)?;
    let relative: Vec<StoredMedian> = medians
        .into_iter()
        .filter_map(|m| {
            let probe = m.probe_ns_per_step.filter(|_| m.probe_build == build)?;
            Some(StoredMedian {
                median_ns: m.median_ns / probe,
                ..m
            })
        })
        .collect();
    compare::reproducibility(&relative).spread
}

/// The before/after ratio of `result` against `stored`, and the noise floor for its verdict.
///
/// From both runs' rounds (Welch), their uncertainty widened to what the history says runs of
/// this case move by, once it knows. When both runs have the machine's probe, compiled by the
/// same build (the same code), relative to it (`machine_ratio` is then the probe's ratio) and
/// widened to the spread learnt relative to the probe, or the plain spread until that is
/// known. From the samples (Mann–Whitney,
/// Hodges–Lehmann) when either side was measured in one stretch (a result stored by an engine
/// without rounds), with the history's spread, or the default while it is not known, as the
/// noise floor those samples cannot see. Counts by their ratio ([`count_ratio`]), with a noise
/// floor only when one of them moved ([`count_noise`]).
fn before_after(
    store: &Store,
    machine_key: &str,
    stored: &StoredResult,
    result: &BenchResult,
    probe: Option<&MachineProbe>,
) -> Option<Estimate> {
    let spread = result.reproducibility.and_then(|r| r.spread);
    if result.measure == Measure::Instructions {
        // Exact counts: the threshold the only floor; counts that move, a noise floor.
        let before = corrected(
            &stored.result.raw.workload_ns,
            &stored.result.raw.baseline_ns,
        );
        let after = corrected(&result.raw.workload_ns, &result.raw.baseline_ns);
        return count_ratio(&before.samples, &after.samples).map(|estimate| Estimate {
            estimate,
            noise: count_noise(&before.samples, &after.samples, spread),
            machine_ratio: None,
        });
    }
    if let (Some(before), Some(after)) = (&stored.result.rounds, &result.rounds) {
        let (machine, build) = match (&stored.probe, probe) {
            (Some(then), Some(now)) if then.build == now.build => (
                compare::rounds::machine_move(&then.rounds, &now.rounds),
                now.build.as_str(),
            ),
            _ => (None, ""),
        };
        let spread = match machine {
            Some(_) => {
                spread_relative_to_the_probe(store, &result.id, machine_key, build).or(spread)
            }
            None => spread,
        };
        let estimate =
            compare::rounds::before_after(before, after, machine.as_ref(), spread.map(step_sd))?;
        return Some(Estimate {
            estimate,
            noise: 0.0,
            machine_ratio: machine.map(|m| m.mean.exp()),
        });
    }
    let before = corrected(
        &stored.result.raw.workload_ns,
        &stored.result.raw.baseline_ns,
    )
    .samples;
    let after = corrected(&result.raw.workload_ns, &result.raw.baseline_ns).samples;
    unpaired_ratio(&before, &after).map(|estimate| Estimate {
        estimate,
        noise: spread.unwrap_or(DEFAULT_RUN_TO_RUN_NOISE),
        machine_ratio: None,
    })
}

/// A before/after estimate with what its verdict needs besides.
struct Estimate {
    estimate: RatioEstimate,
    /// The noise floor below which a change is not called.
    noise: f64,
    /// The machine's probe's ratio between the two runs, when the estimate is relative to it.
    machine_ratio: Option<f64>,
}

/// Decides every comparison of the run.
pub(super) fn finish(run: &Run<'_>) -> Compared {
    let store = &run.store;
    // A cut-short or optimised-away result gets no verdict, paired or not.
    let comparable = |id: &str| {
        run.results
            .iter()
            .any(|r| r.id == id && !r.partial && !optimized_away(r))
    };
    let mut pending: Vec<Pending> = run
        .paired
        .iter()
        .filter(|p| comparable(&p.id))
        .cloned()
        .collect();
    let paired: Vec<String> = pending.iter().map(|p| p.id.clone()).collect();
    let mut not_compared = Vec::new();
    let key = machine_key(&run.manifest);
    for result in &run.results {
        if paired.contains(&result.id) {
            continue;
        }
        let why = if result.partial {
            Some("cut short by the cancel".to_owned())
        } else if optimized_away(result) {
            Some("indistinguishable from the empty body".to_owned())
        } else if cancel::requested() {
            Some("the run was cancelled before the comparisons".to_owned())
        } else {
            None
        };
        if let Some(why) = why {
            not_compared.push((result.id.clone(), why));
            continue;
        }
        let (lookup, against) = match &run.options.baseline {
            Some(name) => (
                store.named(name, &result.id, &key),
                format!("baseline {name}"),
            ),
            None => (store.previous(&result.id, &key), String::new()),
        };
        let stored = match lookup {
            Lookup::Found(stored) => stored,
            Lookup::None => {
                let why = match &run.options.baseline {
                    Some(name) => format!(
                        "the baseline `{name}` has no complete result of it on this machine with \
                         this profile and time budget"
                    ),
                    None => "no earlier complete result on this machine with this profile and \
                             time budget"
                        .to_owned(),
                };
                not_compared.push((result.id.clone(), why));
                continue;
            }
            Lookup::Unavailable(why) => {
                not_compared.push((result.id.clone(), why));
                continue;
            }
        };
        let Some(Estimate {
            estimate,
            noise,
            machine_ratio,
        }) = before_after(store, &key, &stored, result, run.probe.as_ref())
        else {
            not_compared.push((
                result.id.clone(),
                "too few rounds or positive samples to compare".to_owned(),
            ));
            continue;
        };
        pending.push(Pending {
            id: result.id.clone(),
            against: if against.is_empty() {
                format!("run {}", stored.run.0)
            } else {
                against
            },
            estimate,
            threshold: run.options.noise_threshold.max(noise),
            kind: ComparisonKind::History,
            machine_ratio,
        });
    }
    // Report in run order, whichever kind each comparison is.
    let order = |id: &str| {
        run.results
            .iter()
            .position(|r| r.id == id)
            .unwrap_or(usize::MAX)
    };
    pending.sort_by_key(|p| order(&p.id));
    Compared {
        comparisons: compare::finalize(&pending),
        not_compared,
    }
}

#[cfg(test)]
mod tests {
    use knotmeter_history::{stored_samples, STORED_WORKLOAD_SAMPLES};
    use knotmeter_protocol::Verdict;

    use crate::compare::{finalize, unpaired_ratio, Pending, RatioEstimate};

    /// `n` samples around `center`, ±`spread` uniform, deterministic per `seed`.
    fn noisy(center: f64, spread: f64, n: usize, seed: u64) -> Vec<f64> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                center * (1.0 + ((x >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 2.0 * spread)
            })
            .collect()
    }

    fn verdict(estimate: RatioEstimate) -> Verdict {
        let pending = [Pending {
            id: "c".into(),
            against: "run 1".into(),
            estimate,
            threshold: crate::cli::DEFAULT_NOISE_PERCENT / 100.0,
            kind: knotmeter_protocol::ComparisonKind::History,
            machine_ratio: None,
        }];
        finalize(&pending)[0].1.verdict
    }

    /// What docs/measurement.md says the history's compact samples do to a before/after
    /// comparison: the estimate stays, the interval only widens, the verdicts hold.
    #[test]
    fn stored_quantiles_keep_the_estimate_and_the_verdict_and_only_widen_the_interval() {
        for (shift, expected) in [
            (1.0, Verdict::Same),
            (1.02, Verdict::Slower),
            (1.05, Verdict::Slower),
            (0.95, Verdict::Faster),
        ] {
            let before = noisy(100.0, 0.02, 3000, 1);
            let after = noisy(100.0 * shift, 0.02, 3000, 2);
            let stored = stored_samples(&before, STORED_WORKLOAD_SAMPLES);
            let full = unpaired_ratio(&before, &after).unwrap();
            let compact = unpaired_ratio(&stored, &after).unwrap();
            assert!(
                (compact.ratio / full.ratio - 1.0).abs() < 0.002,
                "{shift}: {compact:?} vs {full:?}"
            );
            assert!(
                compact.low <= full.low && compact.high >= full.high,
                "{shift}: the interval only widens: {compact:?} vs {full:?}"
            );
            assert!(compact.p_value >= full.p_value, "{shift}: {compact:?}");
            assert_eq!(verdict(full), expected, "{shift}: {full:?}");
            assert_eq!(verdict(compact), expected, "{shift}: {compact:?}");
        }
    }
}
