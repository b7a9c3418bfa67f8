//! [`Sampler`]: one benchmark's timed loop and its empty baseline, sampled on demand.
//!
//! Everything inside a sampler is generic over the benchmark's routine, so each benchmark gets
//! its own monomorphised copy of [`time_batch`]. Everything outside (tuning, warm-up, the
//! stopping rule, pairing two benchmarks) talks to samplers through `&mut dyn Sampler`: one
//! dynamic call per sample, outside the two clock reads, never per operation.

use std::mem::MaybeUninit;

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
///
/// Both loops take the branch of the workload's output type `O` (see [`Batch`]), whatever the
/// baseline returns. The baseline's loop takes inputs of type `J`, made from the set-up's by
/// `feed`: placeholders of the same size for [`RoutineSampler::new`] (the inputs themselves
/// kept until its clock has stopped), the inputs themselves for [`RoutineSampler::consuming`].
pub(crate) struct RoutineSampler<I, J, O, B, S, W, E> {
    timer: Timer,
    setup: S,
    workload: W,
    baseline: E,
    feed: fn(I, &mut Vec<I>) -> J,
    /// The set-up's inputs that the baseline's loop does not take, dropped after its clock.
    kept: Vec<I>,
    work: Batch<I, O, O>,
    base: Batch<J, B, O>,
}

impl<I, O, B, S, W, E> RoutineSampler<I, MaybeUninit<I>, O, B, S, W, E>
where
    S: FnMut() -> I,
    W: FnMut(I) -> O,
    E: FnMut(MaybeUninit<I>) -> B,
{
    /// A sampler: `setup` makes one input, `workload` is the benchmark, `baseline` the empty
    /// routine. The baseline's loop moves a placeholder of each input's size: the input itself,
    /// made by `setup` all the same, is held outside the loop and dropped after the clock
    /// stops, so that whatever the workload's branch, the baseline times no input's drop.
    pub(crate) fn new(timer: Timer, setup: S, workload: W, baseline: E) -> Self {
        Self::with_feed(timer, setup, workload, baseline, |input, kept| {
            kept.push(input);
            MaybeUninit::uninit()
        })
    }
}

impl<I, O, B, S, W, E> RoutineSampler<I, I, O, B, S, W, E>
where
    S: FnMut() -> I,
    W: FnMut(I) -> O,
    E: FnMut(I) -> B,
{
    /// A sampler whose `baseline` takes the inputs themselves, for a workload known to consume
    /// its input inside the clock (a function that takes its argument by value): the baseline
    /// drops it there too.
    pub(crate) fn consuming(timer: Timer, setup: S, workload: W, baseline: E) -> Self {
        Self::with_feed(timer, setup, workload, baseline, |input, _| input)
    }
}

impl<I, J, O, B, S, W, E> RoutineSampler<I, J, O, B, S, W, E> {
    fn with_feed(
        timer: Timer,
        setup: S,
        workload: W,
        baseline: E,
        feed: fn(I, &mut Vec<I>) -> J,
    ) -> Self {
        RoutineSampler {
            timer,
            setup,
            workload,
            baseline,
            feed,
            kept: Vec::new(),
            work: Batch::with_capacity(1),
            base: Batch::with_capacity(1),
        }
    }
}

impl<I, J, O, B, S, W, E> Sampler for RoutineSampler<I, J, O, B, S, W, E>
where
    S: FnMut() -> I,
    W: FnMut(I) -> O,
    E: FnMut(J) -> B,
{
    fn cold(&mut self) -> f64 {
        (self.workload(1) - self.timer.read_cost_ns).max(0.0)
    }

    fn workload(&mut self, ops: u64) -> f64 {
        self.work.fill(ops as usize, &mut self.setup);
        self.timer.ticks_to_ns(time_batch(
            &self.timer,
            &mut self.workload,
            &mut self.work,
            true,
        ))
    }

    fn baseline(&mut self, ops: u64) -> f64 {
        let (setup, feed, kept) = (&mut self.setup, self.feed, &mut self.kept);
        kept.reserve(ops as usize);
        self.base.fill(ops as usize, &mut || feed(setup(), kept));
        let ticks = time_batch(&self.timer, &mut self.baseline, &mut self.base, false);
        self.kept.clear();
        self.timer.ticks_to_ns(ticks)
    }

    fn allocations(&mut self, ops: u64) -> (f64, f64) {
        // Set-up allocations and the outputs' drops fall outside the counted span, as they
        // fall outside the timed one.
        self.work.fill(ops as usize, &mut self.setup);
        let before = AllocCount::now();
        time_batch(&self.timer, &mut self.workload, &mut self.work, false);
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

    /// A value whose drop costs [`SPIN`] (its clone costs nothing).
    #[derive(Clone)]
    struct SlowDrop;

    impl Drop for SlowDrop {
        fn drop(&mut self) {
            spin();
        }
    }

    /// The median per-operation time of nine workload samples: a preemption of the test
    /// process during one sample cannot move it.
    fn median_per_op(sampler: &mut dyn Sampler) -> f64 {
        median_of_nine(|ops| sampler.workload(ops))
    }

    /// The median per-operation time of nine samples of [`OPS`] operations taken by `sample`.
    fn median_of_nine(mut sample: impl FnMut(u64) -> f64) -> f64 {
        let mut per_op: Vec<f64> = (0..9).map(|_| sample(OPS) / OPS as f64).collect();
        per_op.sort_by(f64::total_cmp);
        per_op[4]
    }

    /// Whether the workload's loop and the baseline's move their values into the drop buffer:
    /// the branch of [`time_batch`] each takes.
    fn branches<I, J, O, B, S, W, E>(sampler: &RoutineSampler<I, J, O, B, S, W, E>) -> [bool; 2] {
        [sampler.work.keeps_outputs(), sampler.base.keeps_outputs()]
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
            |input: MaybeUninit<SlowDrop>| input,
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
        let mut sampler = RoutineSampler::new(timer(), || (), |()| spin(), |_| ());
        let per_op = median_per_op(&mut sampler);
        assert!(
            per_op >= SPIN.as_nanos() as f64,
            "{per_op} ns per operation for a 20 µs body"
        );
    }

    #[test]
    fn with_inputs_baseline_took_another_branch_than_the_workload() {
        // The baseline of `with_inputs(..).run(..)` hands back its input where the workload
        // returns its output: an input that needs dropping went to the drop buffer while the
        // output went through `black_box`, and an output that needs dropping the other way
        // round. Both loops now take the branch of the workload's output type.
        let mut drops_its_input = RoutineSampler::new(
            timer(),
            || String::from("dropped by the routine"),
            |text: String| text.len(),
            |input: MaybeUninit<String>| input,
        );
        assert_eq!(branches(&drops_its_input), [false, false]);
        let mut makes_a_vector = RoutineSampler::new(
            timer(),
            || 16usize,
            |len: usize| vec![0u8; len],
            |input: MaybeUninit<usize>| input,
        );
        assert_eq!(branches(&makes_a_vector), [true, true]);
        // `run_by_value`'s sampler, whose baseline takes the inputs themselves.
        let mut by_value = RoutineSampler::consuming(
            timer(),
            || String::from("dropped by both"),
            |text: String| text.len(),
            |text: String| {
                drop(text);
                None::<usize>
            },
        );
        assert_eq!(branches(&by_value), [false, false]);
        for sampler in [
            &mut drops_its_input as &mut dyn Sampler,
            &mut makes_a_vector,
            &mut by_value,
        ] {
            sampler.workload(OPS);
            sampler.baseline(OPS);
        }
    }

    #[test]
    fn the_baseline_times_no_input_drop_on_the_black_box_branch() {
        // The workload drops each input itself (20 µs, timed) and returns a number, so both
        // loops consume their values with `black_box`: the baseline's inputs are dropped after
        // its clock stops all the same.
        let mut sampler = RoutineSampler::new(
            timer(),
            || SlowDrop,
            |input: SlowDrop| {
                drop(input);
                7u64
            },
            |input: MaybeUninit<SlowDrop>| input,
        );
        let workload = median_of_nine(|ops| sampler.workload(ops));
        let baseline = median_of_nine(|ops| sampler.baseline(ops));
        assert!(
            workload >= SPIN.as_nanos() as f64,
            "{workload} ns per operation"
        );
        assert!(
            baseline < SPIN.as_nanos() as f64 / 10.0,
            "{baseline} ns per operation: the baseline timed its input's drop"
        );
    }

    #[test]
    fn clone_args_were_dropped_inside_the_workloads_clock_only() {
        // `#[bench(args = [..])] fn f(n: T)` for a cloned `T`: `f` drops its clone inside the
        // clock, and the baseline used to drop its own after it, so the drop was counted as
        // the benchmark's. The baseline now drops a clone inside its clock too.
        fn takes_its_argument(_: SlowDrop) -> u64 {
            0
        }
        let (mut workload, mut baseline) = (0.0, 0.0);
        let mut consume = |sampler: &mut dyn Sampler| {
            workload = median_of_nine(|ops| sampler.workload(ops));
            baseline = median_of_nine(|ops| sampler.baseline(ops));
        };
        let arg = SlowDrop;
        crate::bencher::run_by_value(
            &mut crate::Bencher::new(timer(), &mut consume),
            move || arg.clone(),
            takes_its_argument,
        );
        let spin = SPIN.as_nanos() as f64;
        assert!(workload >= spin, "{workload} ns per operation");
        assert!(
            baseline >= spin,
            "{baseline} ns per operation: the baseline dropped its argument after the clock"
        );
    }
}
