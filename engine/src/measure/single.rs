//! Measuring one benchmark on its own: cold call, tuning and warm-up, then workload and empty
//! baseline samples interleaved until the median is precise enough or the budget is spent.

use std::time::Instant;

use super::sampler::Sampler;
use super::schedule::{tune_and_warm, warm_up_deadline, Schedule, Stop};
use super::{MeasureConfig, Measurement};
use crate::{alloc, stats};

/// An interval narrower than this (± nanoseconds) is precise whatever the median: it is far
/// below any clock's resolution, and a relative target means nothing for an estimate near 0.
const ABSOLUTE_PRECISION_NS: f64 = 0.01;

/// Measures one case. `progress(samples, fraction)` is called between samples.
pub(crate) fn measure(
    cfg: &MeasureConfig,
    progress: &mut dyn FnMut(u64, f64),
    sampler: &mut dyn Sampler,
) -> Measurement {
    let started = Instant::now();
    let mut m = Measurement {
        cold_ns: sampler.cold(),
        ..Measurement::default()
    };
    if cfg.run_once || cfg.cancelled() {
        return m.finish(started, cfg.cancelled());
    }
    let ops = tune_and_warm(cfg, sampler, warm_up_deadline(started, cfg.budget));
    m.ops_per_sample = ops;
    if cfg.cancelled() {
        return m.finish(started, true);
    }
    let mut schedule = Schedule::new(cfg, started);
    loop {
        let round = m.workload_ns.len();
        let n = schedule.jittered(ops);
        let (w, b) = if matches!(round % 4, 0 | 3) {
            let w = sampler.workload(n);
            (w, sampler.baseline(n))
        } else {
            let b = sampler.baseline(n);
            (sampler.workload(n), b)
        };
        m.workload_ns.push(w / n as f64);
        m.baseline_ns.push(b / n as f64);
        match schedule.stop(cfg, round + 1, || precise(&m, cfg.target_precision)) {
            Stop::No => schedule.progress(round + 1, progress),
            Stop::Precise | Stop::Full => break,
            Stop::Budget => {
                m.budget_exhausted = true;
                break;
            }
            Stop::Cancelled => return m.finish(started, true),
        }
    }
    if alloc::installed() {
        m.allocations = Some(sampler.allocations(ops));
    }
    m.finish(started, false)
}

/// Whether the corrected median's interval is within the target, relatively or absolutely.
fn precise(m: &Measurement, target: f64) -> bool {
    let overhead = stats::median(&stats::sorted(&m.baseline_ns));
    let corrected: Vec<f64> = m
        .workload_ns
        .iter()
        .map(|w| (w - overhead).max(0.0))
        .collect();
    let corrected = stats::sorted(&corrected);
    let ci = stats::median_ci(&corrected, 0.95);
    stats::relative_half_width(&ci, stats::median(&corrected)) <= target
        || (ci.high - ci.low) / 2.0 <= ABSOLUTE_PRECISION_NS
}
