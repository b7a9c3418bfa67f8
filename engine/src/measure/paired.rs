//! Measuring a group member against its group's baseline, interleaved in one loop.
//!
//! Both benchmarks are tuned and warmed up on their own; then they share one operation count
//! (the larger of the two, so both samples are long enough) and every round times the
//! baseline and the member back to back, in alternating order (B M, M B, …), each followed by
//! its own empty body. Machine noise that lasts longer than a round hits both sides of a pair
//! alike, so the per-pair ratio cancels it: this is what makes paired comparison sensitive
//! (tango-bench's insight). Sampling stops when the ratio's 95% interval is within a quarter of
//! the precision target, or when the budget for the pair is spent.

use std::time::{Duration, Instant};

use super::pace::Pace;
use super::region;
use super::sampler::Sampler;
use super::schedule::{
    reuse_tuning_sample, tune_only, warm_only, warm_up_deadline, Schedule, Stop, Tuned,
};
use super::{MeasureConfig, Measurement, Progress};
use crate::alloc;
/// Sides whose per-operation times differ by more than this factor do not simply share the
/// larger operation count (see [`shared_ops`]).
const DISPARATE_SPEEDS: f64 = 10.0;
/// For such sides, the shared operation count never makes one round longer than the pair's
/// budget divided by this, so that the pair still gets rounds (enough for the validity
/// checks, which need 10, even when the machine is four times slower than while tuning).
const MIN_ROUNDS_IN_BUDGET: u32 = 200;

/// The operation count both sides sample with: the larger of their tuned counts, so both
/// samples are long enough. When one side is more than [`DISPARATE_SPEEDS`] times slower per
/// operation, the larger count could make its samples enormous (a body the compiler removed
/// tunes to millions of operations, and one sample of real work on the other side then took
/// seconds, far past the budget): then the count is the most that keeps a round within
/// [`MIN_ROUNDS_IN_BUDGET`]th of the budget, and never fewer than the smaller tuned count.
fn shared_ops(base: Tuned, member: Tuned, budget: Duration) -> u64 {
    let larger = base.ops.max(member.ops);
    let per_op = |t: Tuned| t.last_ns.max(0.0) / t.ops.max(1) as f64;
    let (fast, slow) = {
        let (a, b) = (per_op(base), per_op(member));
        (a.min(b), a.max(b))
    };
    if fast <= 0.0 || slow <= fast * DISPARATE_SPEEDS {
        return larger;
    }
    let round_limit = budget.as_nanos() as f64 / f64::from(MIN_ROUNDS_IN_BUDGET);
    let fits = (round_limit / (fast + slow)).floor() as u64;
    larger.min(fits).max(base.ops.min(member.ops))
}

/// Whether a pair's samples so far resolve its ratio well enough to stop (the caller's rule:
/// `compare::pair_is_precise`; this module measures, it does not compare).
pub(crate) type PairPrecise<'a> = &'a dyn Fn(&Measurement, &Measurement) -> bool;

/// Measures `base` and `member` paired, until `precise` says their ratio is resolved or the
/// budget is spent; returns their measurements, index-aligned by round.
pub(crate) fn measure_pair(
    cfg: &MeasureConfig,
    progress: &mut dyn FnMut(&Progress),
    base: &mut dyn Sampler,
    member: &mut dyn Sampler,
    precise: PairPrecise<'_>,
) -> (Measurement, Measurement) {
    let started = Instant::now();
    let mut pace = Pace::new(cfg, progress);
    let mut b = cold(base);
    pace.step(0);
    let mut m = cold(member);
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
    let ops = shared_ops(base_tuned, member_tuned, cfg.budget);
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
            match schedule.stop(cfg, &pace, round, || precise(&b, &m)) {
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
        sample_round(
            round,
            schedule.jittered(ops),
            (base, &mut b),
            (member, &mut m),
        );
        pace.step(round + 1);
        schedule.round_took(round_started.elapsed());
    }
    if cfg.count_allocations && alloc::installed() && !cancelled {
        b.allocations = Some(base.allocations(ops));
        m.allocations = Some(member.allocations(ops));
    }
    (b.finish(started, cancelled), m.finish(started, cancelled))
}

/// A side's measurement begun with its cold first call.
fn cold(sampler: &mut dyn Sampler) -> Measurement {
    Measurement {
        cold_ns: sampler.cold(),
        self_timed: sampler.self_timed(),
        ..Measurement::default()
    }
}

/// One sample of each side and of each side's empty body, `n` operations each, per
/// operation, each side's empty body in the reverse order of the workloads (ABBA); the base
/// first in even rounds and the member in odd ones, so that what going first does to a figure
/// falls on both sides alike.
///
/// Only the member's workload is the region a profiler is told of: the member is the case
/// measured (`--exact member`, or this build's side of `knotmeter compare`), its baseline the
/// reference it is paired with.
fn sample_round(
    round: usize,
    n: u64,
    (base, b): (&mut dyn Sampler, &mut Measurement),
    (member, m): (&mut dyn Sampler, &mut Measurement),
) {
    let per_op = |ns: f64| ns / n as f64;
    let marked = |member: &mut dyn Sampler| {
        let _sampling = region::sampling();
        member.workload(n)
    };
    if round.is_multiple_of(2) {
        b.workload_ns.push(per_op(base.workload(n)));
        m.workload_ns.push(per_op(marked(member)));
        m.baseline_ns.push(per_op(member.baseline(n)));
        b.baseline_ns.push(per_op(base.baseline(n)));
    } else {
        m.workload_ns.push(per_op(marked(member)));
        b.workload_ns.push(per_op(base.workload(n)));
        b.baseline_ns.push(per_op(base.baseline(n)));
        m.baseline_ns.push(per_op(member.baseline(n)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tuned(ops: u64, per_op_ns: f64) -> Tuned {
        Tuned {
            ops,
            last_ns: ops as f64 * per_op_ns,
        }
    }

    #[test]
    fn sides_of_similar_speed_share_the_larger_count() {
        let budget = Duration::from_secs(2);
        assert_eq!(
            shared_ops(tuned(30, 1_000.0), tuned(28, 1_050.0), budget),
            30
        );
        assert_eq!(shared_ops(tuned(1, 5e6), tuned(2, 4e6), budget), 2);
    }

    #[test]
    fn an_empty_body_paired_with_real_work_does_not_stretch_the_work_past_the_budget() {
        // The empty side tunes to 85 000 operations of 0.3 ns; at that count one sample of
        // the 37 µs side took 3.2 s against a 0.2 s budget.
        let budget = Duration::from_millis(200);
        let (empty, work) = (tuned(85_000, 0.3), tuned(1, 37_000.0));
        let ops = shared_ops(empty, work, budget);
        let round_ns = ops as f64 * (0.3 + 37_000.0);
        assert!(
            round_ns <= budget.as_nanos() as f64 / f64::from(MIN_ROUNDS_IN_BUDGET),
            "{ops} operations: {round_ns} ns per round"
        );
        assert!(ops >= 1);
        // Never below the smaller tuned count, which each side needs for a long enough sample.
        assert_eq!(shared_ops(tuned(85_000, 0.3), tuned(10, 3e6), budget), 10);
    }
}
