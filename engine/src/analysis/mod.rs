//! From raw samples to a result: overhead subtraction, statistics and warnings.
//!
//! The baseline's median per-operation time is the harness overhead. It is subtracted from
//! every workload sample; a sample that would go below zero is capped at zero and counted, so
//! the report shows how often the subtraction bit. The estimate is the median of the corrected
//! samples with a distribution-free 95% interval (order statistics), which needs no assumption
//! about the shape of the distribution: benchmark timings are skewed and often multimodal.
//! `validity` adds the checks that say whether the number can be trusted; `scaling` analyses
//! a benchmark across its `args` cases.

pub(crate) mod rounds;
mod scaling;
mod validity;

use knotmeter_protocol::BenchResult;

pub(crate) use scaling::summarise;

use crate::measure::{Measurement, Timer};
use crate::registry::Case;
use crate::stats;

/// Confidence level of every interval the engine reports.
pub(crate) const LEVEL: f64 = 0.95;
/// The fewest samples whose median has a distribution-free 95% interval: with fewer, even
/// [min, max] covers the median with less than 95% probability (1 − 2⁻⁴ < 0.95 < 1 − 2⁻⁵).
pub(crate) const MIN_SAMPLES_FOR_INTERVAL: usize = 6;

/// The code of the note on a result whose routine timed itself.
pub(crate) const SELF_TIMED: &str = "self_timed";

/// The code of the warning on a body indistinguishable from the empty baseline.
pub(crate) const OPTIMIZED_AWAY_CODE: &str = validity::OPTIMIZED_AWAY;

/// Workload samples with the harness overhead subtracted.
pub(crate) struct Corrected {
    /// Per-operation times less the overhead, capped at zero, in time order.
    pub(crate) samples: Vec<f64>,
    /// How many samples were capped at zero.
    pub(crate) capped: u64,
}

/// Subtracts the baseline's median from every workload sample (per-operation times).
pub(crate) fn corrected(workload_ns: &[f64], baseline_ns: &[f64]) -> Corrected {
    let overhead_ns = stats::median(&stats::sorted(baseline_ns));
    let mut capped = 0;
    let samples = workload_ns
        .iter()
        .map(|w| {
            let c = w - overhead_ns;
            if c < 0.0 {
                capped += 1;
            }
            c.max(0.0)
        })
        .collect();
    Corrected { samples, capped }
}

/// The change of the baseline's median per operation from the first half of its samples to the
/// second (positive: the harness got slower). Fewer than two samples have no halves to compare:
/// the drift is unknown, not 0.
fn baseline_drift(baseline_ns: &[f64]) -> Option<f64> {
    let half = baseline_ns.len() / 2;
    (half >= 1).then(|| {
        stats::median(&stats::sorted(&baseline_ns[half..]))
            - stats::median(&stats::sorted(&baseline_ns[..half]))
    })
}

/// What the analysis needs to know about the run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Context {
    /// The calibrated clock.
    pub(crate) timer: Timer,
    /// The stopping rule's precision target, which decides the `imprecise` warning.
    pub(crate) target_precision: f64,
}

/// Turns one case's measurement, taken in one stretch of one process, into its result: a run
/// of one round (see [`rounds::analyse_rounds`]).
pub(crate) fn analyse(case: &Case, m: Measurement, cx: &Context) -> BenchResult {
    rounds::analyse_rounds(
        case,
        vec![rounds::Round { m, twice: false }],
        &rounds::Plan {
            processes: 1,
            planned: 1,
            cut_short: false,
        },
        cx,
    )
}

/// The smallest difference between two medians that counts as a real difference in cost:
/// half a CPU cycle (the margin of the `optimized_away` test, without the clock's share, which
/// depends on a case's operation count).
pub(crate) fn resolution_ns() -> f64 {
    validity::half_cycle_ns()
}

/// Whether a result's body was found indistinguishable from the empty baseline.
pub(crate) fn optimized_away(result: &BenchResult) -> bool {
    result
        .warnings
        .iter()
        .any(|w| w.code == validity::OPTIMIZED_AWAY)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::TimerKind;
    use crate::registry::BenchDef;

    static DEF: BenchDef = BenchDef {
        name: "slow",
        module_path: "q",
        file: "benches/q.rs",
        line: 1,
        group: None,
        baseline: false,
        args: &[],
        run: |_, _| {},
    };

    /// The result of `n` samples around 30 ms, out of a budget that ran out.
    fn result_of(n: usize) -> BenchResult {
        let case = crate::registry::cases(std::slice::from_ref(&DEF)).remove(0);
        let m = Measurement {
            cold_ns: 31e6,
            ops_per_sample: 1,
            workload_ns: (0..n).map(|i| 30e6 + i as f64 * 1e5).collect(),
            baseline_ns: vec![20.0; n],
            budget_exhausted: true,
            ..Measurement::default()
        };
        let cx = Context {
            timer: Timer::calibrate(TimerKind::Instant).unwrap(),
            target_precision: 0.03,
        };
        analyse(&case, m, &cx)
    }

    #[test]
    fn too_few_samples_for_an_interval_have_no_precision_and_say_so() {
        for n in 1..MIN_SAMPLES_FOR_INTERVAL {
            let result = result_of(n);
            assert_eq!(result.precision, None, "{n} samples");
            let imprecise = result.warnings.iter().find(|w| w.code == "imprecise");
            let message = &imprecise
                .unwrap_or_else(|| panic!("{n}: {result:?}"))
                .message;
            assert!(message.contains(&format!("only {n} sample")), "{message}");
            // The interval of the median is not a 95% one below the minimum ...
            let sorted = stats::sorted(&result.raw.workload_ns);
            assert!(stats::median_ci(&sorted, LEVEL).level < LEVEL);
        }
        // ... and is from the minimum on.
        let result = result_of(MIN_SAMPLES_FOR_INTERVAL);
        assert!(result.precision.is_some());
        let sorted = stats::sorted(&result.raw.workload_ns);
        assert!(stats::median_ci(&sorted, LEVEL).level >= LEVEL);
    }

    #[test]
    fn drift_of_one_baseline_sample_was_reported_as_zero() {
        // One sample has no halves to compare: its drift is unknown.
        assert_eq!(baseline_drift(&[]), None);
        assert_eq!(baseline_drift(&[20.0]), None);
        assert_eq!(result_of(1).overhead.drift, None);
        // From two on, the second half's median less the first's.
        assert_eq!(baseline_drift(&[20.0, 23.0]), Some(3.0));
        assert_eq!(baseline_drift(&[20.0, 22.0, 23.0, 25.0, 24.0]), Some(3.0));
        assert_eq!(result_of(2).overhead.drift, Some(0.0));
    }
}
