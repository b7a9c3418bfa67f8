//! From raw samples to a result: overhead subtraction, statistics and warnings.
//!
//! The baseline's median per-operation time is the harness overhead. It is subtracted from
//! every workload sample; a sample that would go below zero is capped at zero and counted, so
//! the report shows how often the subtraction bit. The estimate is the median of the corrected
//! samples with a distribution-free 95% interval (order statistics), which needs no assumption
//! about the shape of the distribution: benchmark timings are skewed and often multimodal.

use knotmeter_protocol::{
    Allocations, BenchResult, Estimate, Overhead, Quantiles, RawSamples, Warning,
};

use crate::measure::Measurement;
use crate::registry::Case;
use crate::stats;

/// Confidence level of every interval the engine reports.
pub(crate) const LEVEL: f64 = 0.95;

/// Turns one case's measurement into its result. `target_precision` decides the `imprecise`
/// warning.
pub(crate) fn analyse(case: &Case, m: Measurement, target_precision: f64) -> BenchResult {
    let overhead_ns = stats::median(&stats::sorted(&m.baseline_ns));
    let mut capped = 0;
    let corrected: Vec<f64> = m
        .workload_ns
        .iter()
        .map(|w| {
            let c = w - overhead_ns;
            if c < 0.0 {
                capped += 1;
            }
            c.max(0.0)
        })
        .collect();
    let sorted = stats::sorted(&corrected);
    let median = stats::median(&sorted);
    let ci = stats::median_ci(&sorted, LEVEL);
    let tukey = stats::tukey(&sorted);
    let precision = stats::relative_half_width(&ci, median);

    let mut warnings = Vec::new();
    if m.partial {
        warnings.push(Warning::new(
            "partial",
            format!(
                "the run was cancelled after {} samples; this estimate is from those alone",
                m.workload_ns.len()
            ),
        ));
    } else if m.budget_exhausted && precision > target_precision {
        warnings.push(Warning::new(
            "imprecise",
            format!(
                "the time budget ran out with the median known to ±{:.1}%, short of the ±{:.1}% target; \
                 give it more time with `--time SECS` or reduce the noise on the machine",
                precision * 100.0,
                target_precision * 100.0
            ),
        ));
    }

    let half = m.baseline_ns.len() / 2;
    let drift = if half >= 1 {
        stats::median(&stats::sorted(&m.baseline_ns[half..]))
            - stats::median(&stats::sorted(&m.baseline_ns[..half]))
    } else {
        0.0
    };

    BenchResult {
        id: case.id.clone(),
        name: case.def.name.to_owned(),
        args: case.args.clone(),
        group: case.def.group.map(str::to_owned),
        baseline: case.def.baseline,
        file: case.def.file.to_owned(),
        line: case.def.line,
        estimate: Estimate {
            median_ns: median,
            low_ns: ci.low,
            high_ns: ci.high,
            mean_ns: stats::mean(&corrected),
        },
        quantiles: Quantiles {
            min_ns: sorted.first().copied().unwrap_or(0.0),
            p5_ns: stats::quantile(&sorted, 0.05),
            q1_ns: stats::quantile(&sorted, 0.25),
            q3_ns: stats::quantile(&sorted, 0.75),
            p95_ns: stats::quantile(&sorted, 0.95),
            max_ns: sorted.last().copied().unwrap_or(0.0),
            std_dev_ns: stats::std_dev(&corrected),
            outliers: tukey.low + tukey.high,
        },
        precision,
        overhead: Overhead {
            per_op_ns: overhead_ns,
            drift,
            capped,
        },
        cold_ns: m.cold_ns,
        ops_per_sample: m.ops_per_sample,
        samples: m.workload_ns.len() as u64,
        wall_ns: m.wall_ns,
        partial: m.partial,
        warnings,
        comparison: None,
        allocations: m.allocations.map(|(per_op, bytes_per_op)| Allocations {
            per_op,
            bytes_per_op,
        }),
        raw: RawSamples {
            workload_ns: m.workload_ns,
            baseline_ns: m.baseline_ns,
        },
    }
}
