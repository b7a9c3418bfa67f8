//! [`SelfTimedSampler`]: a routine that times its own operations (criterion's `iter_custom`).
//!
//! The routine is handed an operation count and returns how long those operations took by its
//! own clock. knotmeter cannot see inside it, so there is no empty body of the same shape to
//! measure: the baseline is zero, nothing is subtracted, and the result says so (the
//! `self_timed` note) rather than pretend its overhead was removed. Counted
//! (`--measure instructions`), the whole routine is each batch's count.

use std::time::Duration;

use super::region;
use super::sampler::Sampler;
use crate::alloc::AllocCount;

/// A [`Sampler`] over a routine that returns the duration of `ops` operations.
pub(crate) struct SelfTimedSampler<R> {
    routine: R,
}

impl<R> SelfTimedSampler<R>
where
    R: FnMut(u64) -> Duration,
{
    /// A sampler that asks `routine` to run and time `ops` operations.
    pub(crate) fn new(routine: R) -> Self {
        SelfTimedSampler { routine }
    }
}

impl<R> Sampler for SelfTimedSampler<R>
where
    R: FnMut(u64) -> Duration,
{
    fn cold(&mut self) -> f64 {
        (self.routine)(1).as_nanos() as f64
    }

    fn workload(&mut self, ops: u64) -> f64 {
        let counted = region::enter_if_counting();
        let took = (self.routine)(ops);
        if counted {
            region::leave();
        }
        took.as_nanos() as f64
    }

    fn baseline(&mut self, _ops: u64) -> f64 {
        // No empty body to run; counted, an empty batch, so that each batch has its count.
        if region::enter_if_counting() {
            region::leave();
        }
        0.0
    }

    fn allocations(&mut self, ops: u64) -> (f64, f64) {
        // The routine's own set-up, if any, is counted too: it cannot be told apart.
        let before = AllocCount::now();
        (self.routine)(ops);
        let counted = AllocCount::now().since(before);
        (
            counted.allocations as f64 / ops as f64,
            counted.bytes as f64 / ops as f64,
        )
    }

    fn self_timed(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use super::*;
    use crate::analysis::corrected;
    use crate::measure::{measure, MeasureConfig, Timer, TimerKind};
    use crate::stats;

    static NEVER: AtomicBool = AtomicBool::new(false);

    #[test]
    fn the_routine_gets_the_operation_count_and_its_duration_is_the_sample() {
        let asked = std::cell::RefCell::new(Vec::new());
        let mut sampler = SelfTimedSampler::new(|ops| {
            asked.borrow_mut().push(ops);
            Duration::from_nanos(ops * 3)
        });
        assert_eq!(sampler.workload(1000), 3000.0);
        assert_eq!(sampler.baseline(1000), 0.0);
        assert_eq!(sampler.cold(), 3.0);
        assert!(sampler.self_timed());
        assert_eq!(*asked.borrow(), [1000, 1]);
    }

    #[test]
    fn iter_custom_reporting_ten_ns_per_iteration_reads_exactly_ten_ns() {
        // criterion's `iter_custom` contract: the routine runs `iters` iterations and returns
        // their total time. Whatever count the pipeline asks for (tuned, then stretched by
        // jitter), a routine whose iterations cost exactly 10 ns must read 10 ns: no count is
        // divided by another, and no overhead is subtracted.
        let cfg = MeasureConfig::new(
            Timer::calibrate(TimerKind::Instant).unwrap(),
            Duration::from_millis(50),
            0.01,
            11,
            &NEVER,
        );
        let asked = std::cell::RefCell::new(Vec::new());
        let mut sampler = SelfTimedSampler::new(|iters| {
            asked.borrow_mut().push(iters);
            Duration::from_nanos(iters * 10)
        });
        let m = measure(&cfg, &mut |_| {}, &mut sampler);
        assert!(m.self_timed);
        assert_eq!(m.cold_ns, 10.0);
        assert!(
            m.workload_ns.len() >= 100,
            "{} samples",
            m.workload_ns.len()
        );
        assert!(
            m.workload_ns.iter().all(|&ns| ns == 10.0),
            "per-iteration samples: {:?}",
            &m.workload_ns[..10]
        );
        let counts = asked.borrow();
        assert!(
            counts.iter().any(|&iters| iters > m.ops_per_sample),
            "the jittered counts differ from the tuned one, so a division by the wrong one \
             would show: {:?}",
            &counts[counts.len() - 10..]
        );
        assert!(
            m.baseline_ns.iter().all(|b| *b == 0.0),
            "nothing to subtract"
        );
        let corrected = corrected(&m.workload_ns, &m.baseline_ns);
        assert_eq!(stats::median(&stats::sorted(&corrected.samples)), 10.0);
    }
}
