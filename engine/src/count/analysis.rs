//! From a case's counts to its result, in instructions per operation.
//!
//! Each repetition of the count schedule is one sample of the workload and one of its empty
//! body, per operation ([`super::measure`]). The empty body's median is the harness's overhead
//! and is subtracted from each workload sample, as for time. The estimate is the median of the
//! corrected samples; its interval is their whole range: a deterministic body has one value, so
//! an interval of width zero, and the result says it is exact. A body whose count moved says so
//! (`not_deterministic`), with the range. The checks read counts: a body that counts what the
//! empty body counts, to half an instruction, was optimised away; a harness that counts more
//! than the body dominates it.

use knotmeter_protocol::{
    Allocations, BenchResult, CacheSimulation, Estimate, Measure, Overhead, Quantiles, RawSamples,
    Warning,
};

use crate::analysis::{corrected, SELF_TIMED};
use crate::measure::Measurement;
use crate::registry::Case;
use crate::stats;

/// The warning code of a body whose count moved between repetitions.
pub(crate) const NOT_DETERMINISTIC: &str = "not_deterministic";

/// A corrected count below this many instructions per operation is no work at all: the
/// counts are exact, so half an instruction is the finest difference there is.
const NO_WORK: f64 = 0.5;

/// The result of a case counted in `m`.
pub(crate) fn analyse(case: &Case, m: &Measurement) -> BenchResult {
    let c = corrected(&m.workload_ns, &m.baseline_ns);
    let sorted = stats::sorted(&c.samples);
    let overhead = stats::median(&stats::sorted(&m.baseline_ns));
    let median = stats::median(&sorted);
    let (low, high) = (
        sorted.first().copied().unwrap_or(0.0),
        sorted.last().copied().unwrap_or(0.0),
    );
    let precision = (median > 0.0).then(|| (high - median).max(median - low) / median);
    BenchResult {
        id: case.id.clone(),
        name: case.name.clone(),
        args: case.args.clone(),
        group: case.group.clone(),
        baseline: case.baseline,
        file: case.file.clone(),
        line: case.line,
        measure: Measure::Instructions,
        estimate: Estimate {
            median_ns: median,
            low_ns: low,
            high_ns: high,
            mean_ns: stats::mean(&c.samples),
        },
        quantiles: Quantiles {
            min_ns: low,
            p5_ns: stats::quantile(&sorted, 0.05),
            q1_ns: stats::quantile(&sorted, 0.25),
            q3_ns: stats::quantile(&sorted, 0.75),
            p95_ns: stats::quantile(&sorted, 0.95),
            max_ns: high,
            std_dev_ns: stats::std_dev(&c.samples),
            outliers: 0,
        },
        precision,
        overhead: Overhead {
            per_op_ns: overhead,
            drift: None,
            capped: c.capped,
        },
        cold_ns: m.cold_ns,
        ops_per_sample: m.ops_per_sample,
        samples: c.samples.len() as u64,
        wall_ns: m.wall_ns,
        partial: m.partial,
        warnings: warnings(m, median, low, high, overhead),
        comparison: None,
        reproducibility: None,
        rounds: None,
        allocations: m.allocations.map(|(per_op, bytes_per_op)| Allocations {
            per_op,
            bytes_per_op,
        }),
        cache: cache_simulation(&m.cache),
        // A rate per second means nothing for a count.
        throughput: None,
        raw: RawSamples {
            workload_ns: m.workload_ns.clone(),
            baseline_ns: m.baseline_ns.clone(),
        },
        stored_at: None,
    }
}

/// The cache simulation's figures per operation: the median of each over the repetitions.
fn cache_simulation(repetitions: &[[f64; 3]]) -> Option<CacheSimulation> {
    if repetitions.is_empty() {
        return None;
    }
    let median = |i: usize| {
        let values: Vec<f64> = repetitions.iter().map(|r| r[i]).collect();
        stats::median(&stats::sorted(&values))
    };
    Some(CacheSimulation::from_accesses(
        median(0),
        median(1),
        median(2),
    ))
}

/// The checks, on counts.
fn warnings(m: &Measurement, median: f64, low: f64, high: f64, overhead: f64) -> Vec<Warning> {
    let mut warnings = Vec::new();
    if m.self_timed {
        warnings.push(Warning::info(
            SELF_TIMED,
            "the benchmark times itself (`iter_custom`): the engine counted its whole routine, \
             the benchmark's own bookkeeping included, with no empty body to subtract"
                .to_owned(),
        ));
    }
    if m.workload_ns.is_empty() {
        return warnings;
    }
    if high < NO_WORK {
        warnings.push(Warning::new(
            crate::analysis::OPTIMIZED_AWAY_CODE,
            format!(
                "the body counts the instructions of an empty one ({median:.1} more per \
                 operation, at most {high:.1}): the compiler probably removed the work because \
                 its result is unused, or folded it because its inputs are constants. Return the \
                 result from the benchmark (or pass it to `black_box`) and pass the inputs \
                 through `black_box`"
            ),
        ));
        return warnings;
    }
    if high > low {
        // Enough decimals that the two ends never read the same.
        let decimals = if high - low >= 0.1 { 1 } else { 4 };
        warnings.push(Warning::info(
            NOT_DETERMINISTIC,
            format!(
                "the count moved between {} repetitions, from {low:.decimals$} to \
                 {high:.decimals$} instructions per operation: the body's work depends on more \
                 than its code (a hash map's random seed, the time, where the allocator puts \
                 memory); the median is shown",
                m.workload_ns.len()
            ),
        ));
    }
    if overhead > median {
        warnings.push(Warning::new(
            "overhead_dominates",
            format!(
                "the harness counts {overhead:.1} instructions per operation around a body of \
                 {median:.1}: the figure is mostly the subtraction; measure a larger unit of work \
                 per operation"
            ),
        ));
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::BenchDef;

    static DEF: BenchDef = BenchDef {
        name: "counted",
        module_path: "q",
        file: "benches/q.rs",
        line: 1,
        group: None,
        baseline: false,
        args: &[],
        run: |_, _| {},
    };

    fn result_of(workload: &[f64], baseline: &[f64]) -> BenchResult {
        let case = crate::registry::cases(std::slice::from_ref(&DEF)).remove(0);
        let m = Measurement {
            cold_ns: 5_600.0,
            ops_per_sample: 512,
            workload_ns: workload.to_vec(),
            baseline_ns: baseline.to_vec(),
            ..Measurement::default()
        };
        analyse(&case, &m)
    }

    fn codes(result: &BenchResult) -> Vec<&str> {
        result.warnings.iter().map(|w| w.code.as_str()).collect()
    }

    #[test]
    fn a_deterministic_count_is_exact() {
        let r = result_of(&[5_518.0; 5], &[3.0; 5]);
        assert_eq!(r.measure, Measure::Instructions);
        assert_eq!(r.estimate.median_ns, 5_515.0);
        assert_eq!((r.estimate.low_ns, r.estimate.high_ns), (5_515.0, 5_515.0));
        assert_eq!(r.precision, Some(0.0));
        assert_eq!(r.overhead.per_op_ns, 3.0);
        assert!(codes(&r).is_empty(), "{:?}", r.warnings);
    }

    #[test]
    fn a_count_that_moved_shows_its_range_and_says_so() {
        let r = result_of(&[100.0, 103.0, 101.0, 101.0, 102.0], &[3.0; 5]);
        assert_eq!(r.estimate.median_ns, 98.0);
        assert_eq!((r.estimate.low_ns, r.estimate.high_ns), (97.0, 100.0));
        assert_eq!(codes(&r), [NOT_DETERMINISTIC]);
        assert!(r.precision.unwrap() > 0.0);
    }

    #[test]
    fn a_body_that_counts_as_the_empty_one_was_optimised_away() {
        let r = result_of(&[3.0; 5], &[3.0; 5]);
        assert_eq!(codes(&r), [crate::analysis::OPTIMIZED_AWAY_CODE]);
        assert_eq!(r.precision, None, "no relative width around zero");
        // One instruction more is work.
        let r = result_of(&[4.0; 5], &[3.0; 5]);
        assert!(!codes(&r).contains(&crate::analysis::OPTIMIZED_AWAY_CODE));
        assert_eq!(codes(&r), ["overhead_dominates"]);
    }
}
