//! [`Sampler`]: one benchmark's timed loop and its empty baseline, sampled on demand.
//!
//! Everything inside a sampler is generic over the benchmark's routine, so each benchmark gets
//! its own monomorphised copy of [`time_batch`]. Everything outside (tuning, warm-up, the
//! stopping rule, pairing two benchmarks) talks to samplers through `&mut dyn Sampler`: one
//! dynamic call per sample, outside the two clock reads, never per operation.

use super::routine::{time_batch, Batch};
use super::timer::Timer;
use crate::alloc::AllocCount;

/// One side of a measurement.
pub(crate) trait Sampler {
    /// The first call, timed on its own, less one clock read, in nanoseconds.
    fn cold(&mut self) -> f64;
    /// Times `ops` operations of the workload; nanoseconds.
    fn workload(&mut self, ops: u64) -> f64;
    /// Times `ops` operations of the empty body of the same shape; nanoseconds.
    fn baseline(&mut self, ops: u64) -> f64;
    /// Allocations and bytes per operation over one untimed batch of `ops` operations.
    fn allocations(&mut self, ops: u64) -> (f64, f64);
    /// Whether the routine times itself, so `baseline` has nothing to measure.
    fn self_timed(&self) -> bool {
        false
    }
}

/// A [`Sampler`] over a concrete set-up, workload and baseline.
pub(crate) struct RoutineSampler<I, O, B, S, W, E> {
    timer: Timer,
    setup: S,
    workload: W,
    baseline: E,
    work: Batch<I, O>,
    base: Batch<I, B>,
}

impl<I, O, B, S, W, E> RoutineSampler<I, O, B, S, W, E>
where
    S: FnMut() -> I,
    W: FnMut(I) -> O,
    E: FnMut(I) -> B,
{
    /// A sampler: `setup` makes one input, `workload` is the benchmark, `baseline` the empty
    /// routine with the same input type.
    pub(crate) fn new(timer: Timer, setup: S, workload: W, baseline: E) -> Self {
        RoutineSampler {
            timer,
            setup,
            workload,
            baseline,
            work: Batch::with_capacity(1),
            base: Batch::with_capacity(1),
        }
    }
}

impl<I, O, B, S, W, E> Sampler for RoutineSampler<I, O, B, S, W, E>
where
    S: FnMut() -> I,
    W: FnMut(I) -> O,
    E: FnMut(I) -> B,
{
    fn cold(&mut self) -> f64 {
        (self.workload(1) - self.timer.read_cost_ns).max(0.0)
    }

    fn workload(&mut self, ops: u64) -> f64 {
        self.work.fill(ops as usize, &mut self.setup);
        self.timer
            .ticks_to_ns(time_batch(&self.timer, &mut self.workload, &mut self.work))
    }

    fn baseline(&mut self, ops: u64) -> f64 {
        self.base.fill(ops as usize, &mut self.setup);
        self.timer
            .ticks_to_ns(time_batch(&self.timer, &mut self.baseline, &mut self.base))
    }

    fn allocations(&mut self, ops: u64) -> (f64, f64) {
        // Set-up allocations and the outputs' drops fall outside the counted span, as they
        // fall outside the timed one.
        self.work.fill(ops as usize, &mut self.setup);
        let before = AllocCount::now();
        time_batch(&self.timer, &mut self.workload, &mut self.work);
        let counted = AllocCount::now().since(before);
        (
            counted.allocations as f64 / ops as f64,
            counted.bytes as f64 / ops as f64,
        )
    }
}

#[cfg(test)]
mod tests {
    //! What falls inside the two clock reads of a [`RoutineSampler`]: the routine, and neither
    //! the set-up that makes its inputs nor the drop of its outputs (criterion's
    //! `iter_batched`, `iter_with_setup` and `iter_with_large_drop` rely on both).

    use std::time::{Duration, Instant};

    use super::*;
    use crate::measure::TimerKind;

    /// How long the expensive set-up, drop or body below each keep the CPU busy.
    const SPIN: Duration = Duration::from_micros(20);
    /// Operations per sample.
    const OPS: u64 = 8;

    /// Keeps the CPU busy for [`SPIN`].
    fn spin() {
        let started = Instant::now();
        while started.elapsed() < SPIN {
            std::hint::spin_loop();
        }
    }

    /// A value whose drop costs [`SPIN`].
    struct SlowDrop;

    impl Drop for SlowDrop {
        fn drop(&mut self) {
            spin();
        }
    }

    /// The median per-operation time of nine workload samples: a preemption of the test
    /// process during one sample cannot move it.
    fn median_per_op(sampler: &mut dyn Sampler) -> f64 {
        let mut per_op: Vec<f64> = (0..9).map(|_| sampler.workload(OPS) / OPS as f64).collect();
        per_op.sort_by(f64::total_cmp);
        per_op[4]
    }

    fn timer() -> Timer {
        Timer::calibrate(TimerKind::Instant).unwrap()
    }

    #[test]
    fn an_expensive_setup_and_output_drop_are_not_timed() {
        // Each operation's input costs 20 µs to make and its output 20 µs to drop; the routine
        // itself only moves one into the other. A figure of microseconds would mean one of
        // them was inside the clock.
        let mut sampler = RoutineSampler::new(
            timer(),
            || {
                spin();
                SlowDrop
            },
            |input: SlowDrop| input,
            |input: SlowDrop| input,
        );
        let per_op = median_per_op(&mut sampler);
        assert!(
            per_op < SPIN.as_nanos() as f64 / 10.0,
            "{per_op} ns per operation: the set-up or the drop was timed"
        );
    }

    #[test]
    fn the_same_cost_inside_the_routine_is_timed() {
        // The control for the test above: the same 20 µs spent in the body is measured, so a
        // timer that read nothing would not pass as "set-up not counted".
        let mut sampler = RoutineSampler::new(timer(), || (), |()| spin(), |()| ());
        let per_op = median_per_op(&mut sampler);
        assert!(
            per_op >= SPIN.as_nanos() as f64,
            "{per_op} ns per operation for a 20 µs body"
        );
    }
}
