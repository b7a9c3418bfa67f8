//! Measuring a group member against its group's baseline, interleaved in one loop.
//!
//! Both benchmarks are tuned and warmed up on their own; then they share one operation count
//! (the larger of the two, so both samples are long enough) and every round times the
//! baseline and the member back to back, in alternating order (B M, M B, …), each followed by
//! its own empty body. Machine noise that lasts longer than a round hits both sides of a pair
//! alike, so the per-pair ratio cancels it: this is what makes paired comparison sensitive
//! (tango-bench's insight). Sampling stops when the ratio's 95% interval is within a quarter of
//! the precision target, or when the budget for the pair is spent.

use std::time::Instant;

use super::pace::Pace;
use super::sampler::Sampler;
use super::schedule::{
    reuse_tuning_sample, tune_only, warm_only, warm_up_deadline, Schedule, Stop,
};
use super::{MeasureConfig, Measurement, Progress};
use crate::alloc;
use crate::compare::paired_ratio;

/// The ratio's interval must be this many times narrower than the precision target, so that
/// a difference of the target's size is resolved, not merely bracketed.
const PAIRED_PRECISION_DIVISOR: f64 = 4.0;

/// Measures `base` and `member` paired; returns their measurements, index-aligned by round.
pub(crate) fn measure_pair(
    cfg: &MeasureConfig,
    progress: &mut dyn FnMut(&Progress),
    base: &mut dyn Sampler,
    member: &mut dyn Sampler,
) -> (Measurement, Measurement) {
    let started = Instant::now();
    let mut pace = Pace::new(cfg, progress);
    let mut b = Measurement {
        cold_ns: base.cold(),
        self_timed: base.self_timed(),
        ..Measurement::default()
    };
    pace.step(0);
    let mut m = Measurement {
        cold_ns: member.cold(),
        self_timed: member.self_timed(),
        ..Measurement::default()
    };
    pace.step(0);
    if cfg.run_once || cfg.cancelled() {
        let cancelled = cfg.cancelled();
        return (b.finish(started, cancelled), m.finish(started, cancelled));
    }
    // Both sides are tuned before either warms up, so a baseline that is slow to settle cannot
    // spend the member's tuning time; each then warms up in its own half of what is left.
    let warm = warm_up_deadline(&pace, cfg.budget);
    let base_tuned = tune_only(cfg, base, &mut pace, warm);
    let base_step = pace.last_step();
    let member_tuned = tune_only(cfg, member, &mut pace, warm);
    let member_step = pace.last_step();
    let ops = base_tuned.ops.max(member_tuned.ops);
    let now = Instant::now();
    let mut warm_batches = warm_only(
        base,
        ops,
        &mut pace,
        now + warm.saturating_duration_since(now) / 2,
    );
    warm_batches += warm_only(member, ops, &mut pace, warm);
    b.ops_per_sample = ops;
    m.ops_per_sample = ops;
    if cfg.cancelled() {
        return (b.finish(started, true), m.finish(started, true));
    }
    let mut schedule = Schedule::new(cfg);
    if reuse_tuning_sample(base_tuned, warm_batches) && reuse_tuning_sample(member_tuned, 0) {
        // Round 0 is base, member, member's baseline, base's baseline: the two tuning samples
        // were its first half, in that order.
        b.workload_ns.push(base_tuned.last_ns);
        m.workload_ns.push(member_tuned.last_ns);
        m.baseline_ns.push(member.baseline(1));
        b.baseline_ns.push(base.baseline(1));
        pace.step(1);
        schedule.round_took(base_step + member_step + pace.last_step());
    }
    let mut cancelled = false;
    loop {
        let round = m.workload_ns.len();
        if round > 0 {
            let precise = || {
                paired_ratio(&b, &m).is_some_and(|r| {
                    (r.high - r.low) / 2.0 <= cfg.target_precision / PAIRED_PRECISION_DIVISOR
                })
            };
            match schedule.stop(cfg, &pace, round, precise) {
                Stop::No => {}
                Stop::Precise | Stop::Full => break,
                Stop::Budget => {
                    b.budget_exhausted = true;
                    m.budget_exhausted = true;
                    break;
                }
                Stop::Cancelled => {
                    cancelled = true;
                    break;
                }
            }
        }
        let round_started = Instant::now();
        let n = schedule.jittered(ops);
        let per_op = |ns: f64| ns / n as f64;
        if round.is_multiple_of(2) {
            b.workload_ns.push(per_op(base.workload(n)));
            m.workload_ns.push(per_op(member.workload(n)));
            m.baseline_ns.push(per_op(member.baseline(n)));
            b.baseline_ns.push(per_op(base.baseline(n)));
        } else {
            m.workload_ns.push(per_op(member.workload(n)));
            b.workload_ns.push(per_op(base.workload(n)));
            b.baseline_ns.push(per_op(base.baseline(n)));
            m.baseline_ns.push(per_op(member.baseline(n)));
        }
        pace.step(round + 1);
        schedule.round_took(round_started.elapsed());
    }
    if alloc::installed() && !cancelled {
        b.allocations = Some(base.allocations(ops));
        m.allocations = Some(member.allocations(ops));
    }
    (b.finish(started, cancelled), m.finish(started, cancelled))
}
