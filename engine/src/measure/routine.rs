//! The timed loop: one generic function that every benchmark shape goes through.
//!
//! A benchmark is normalised to a routine `FnMut(I) -> O`: `()` inputs for `iter`, the set-up's
//! values for `with_inputs`, and an `O` produced by blocking on a future for `iter_async`. The
//! loop is monomorphised for each routine, so the call is direct and usually inlined; it
//! allocates nothing, keeps no per-call bookkeeping, and reads the clock once before and once
//! after the batch. The empty baseline goes through this same function with an empty routine
//! over inputs of the same size, which is what makes subtracting it honest.
//!
//! Which of the loop's two branches runs (values moved into a buffer and dropped after the
//! clock stops, or consumed with [`black_box`]) is decided by a type of its own, `D`: the
//! workload's output type, on the workload's side and on its baseline's alike. The baseline's
//! values are of another type (an input handed back, `None::<O>`), and a branch chosen by their
//! type would be another loop than the one whose cost it stands for.

use std::hint::black_box;
use std::marker::PhantomData;
use std::mem::needs_drop;

use super::region;
use super::timer::Timer;

/// The inputs and the output slots of one sample, prepared before the clock starts.
///
/// Inputs are made outside the timed region. When `D` (the workload's output type) needs
/// dropping, every value the routine returns is moved into a buffer reserved in advance and
/// dropped after the clock stops, so neither the set-up nor the drop is timed; otherwise each
/// is consumed by [`black_box`] in the loop. A value of type `O` that needs dropping never goes
/// through [`black_box`] (checked when the loop is compiled), so the other branch cannot drop
/// one inside the clock.
pub(crate) struct Batch<I, O, D = O> {
    inputs: Vec<I>,
    outputs: Vec<O>,
    branch: PhantomData<fn() -> D>,
}

impl<I, O, D> Batch<I, O, D> {
    /// Whether the loop moves each value into the drop buffer: the branch it takes, the same on
    /// every batch whose `D` is the same.
    const KEEPS_OUTPUTS: bool = needs_drop::<D>();

    /// An empty batch with room for `capacity` operations, so filling it never reallocates.
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        Batch {
            inputs: Vec::with_capacity(capacity),
            outputs: Vec::with_capacity(if Self::KEEPS_OUTPUTS { capacity } else { 0 }),
            branch: PhantomData,
        }
    }

    /// Makes the inputs of `ops` operations with `setup`, outside the timed region.
    pub(crate) fn fill(&mut self, ops: usize, setup: &mut impl FnMut() -> I) {
        debug_assert!(self.inputs.is_empty());
        self.reserve(ops);
        for _ in 0..ops {
            self.inputs.push(setup());
        }
    }

    /// Whether [`time_batch`] moves this batch's values into the drop buffer (rather than
    /// consuming them with [`black_box`]).
    #[cfg(test)]
    pub(crate) fn keeps_outputs(&self) -> bool {
        Self::KEEPS_OUTPUTS
    }

    fn reserve(&mut self, ops: usize) {
        self.inputs.reserve(ops);
        if Self::KEEPS_OUTPUTS {
            self.outputs.reserve(ops);
        }
    }
}

/// Runs every operation of `batch` through `routine` and returns the elapsed clock ticks.
///
/// This is the only code between the two clock reads. It is kept out of line so that the
/// compiler cannot interleave the caller's bookkeeping with the timed work. A `marked` batch
/// (the workload's, not its empty body's) is the region a profiler is told of
/// ([`region`](super::region)), entered before the first clock read and left after the last,
/// before the outputs are dropped; when instructions are counted, every batch is.
#[inline(never)]
pub(crate) fn time_batch<I, O, D, F>(
    timer: &Timer,
    routine: &mut F,
    batch: &mut Batch<I, O, D>,
    marked: bool,
) -> u64
where
    F: FnMut(I) -> O,
{
    const {
        assert!(
            Batch::<I, O, D>::KEEPS_OUTPUTS || !needs_drop::<O>(),
            "a value that needs dropping would be dropped inside the clock"
        );
    }
    let entered = region::enter(marked, batch.inputs.len() as u64);
    let start = timer.now();
    if Batch::<I, O, D>::KEEPS_OUTPUTS {
        for input in batch.inputs.drain(..) {
            // Capacity was reserved by `fill`, so this push never allocates.
            batch.outputs.push(routine(input));
        }
    } else {
        for input in batch.inputs.drain(..) {
            black_box(routine(input));
        }
    }
    let end = timer.now();
    if entered {
        region::leave();
    }
    batch.outputs.clear();
    end.saturating_sub(start)
}

#[cfg(test)]
mod tests {
    //! The timed loop allocates nothing, for every shape. The library's test build installs
    //! `CountingAlloc` as its global allocator (see `lib.rs`), which counts per thread.

    use super::*;
    use crate::alloc::AllocCount;
    use crate::measure::executor::{block_on, current_thread_waker};
    use crate::measure::TimerKind;

    const OPS: usize = 1_000;

    /// Allocations made inside `time_batch` alone, with the batch filled beforehand.
    fn allocations_in_loop<I, O>(
        mut setup: impl FnMut() -> I,
        mut routine: impl FnMut(I) -> O,
    ) -> u64 {
        let timer = Timer::calibrate(TimerKind::Instant).unwrap();
        let mut batch = Batch::<I, O>::with_capacity(OPS);
        batch.fill(OPS, &mut setup);
        let before = AllocCount::now();
        time_batch(&timer, &mut routine, &mut batch, false);
        AllocCount::now().since(before).allocations
    }

    #[test]
    fn the_counter_sees_allocations_in_the_loop() {
        // The positive control: a routine that allocates is counted once per operation.
        assert_eq!(allocations_in_loop(|| (), |()| vec![1u8; 16]), OPS as u64);
    }

    #[test]
    fn value_returning_loop_allocates_nothing() {
        assert_eq!(
            allocations_in_loop(|| (), |()| black_box(7u64).wrapping_mul(3)),
            0
        );
        assert_eq!(allocations_in_loop(|| (), |()| ()), 0);
    }

    #[test]
    fn outputs_that_need_drop_are_buffered_without_allocating() {
        let text = String::from("kept alive until after the clock stops");
        // A `String` clone allocates once per operation, and the buffer adds nothing.
        assert_eq!(allocations_in_loop(|| (), |()| text.clone()), OPS as u64);
    }

    #[test]
    fn inputs_made_by_setup_are_not_counted() {
        let data: Vec<u64> = (0..100).rev().collect();
        assert_eq!(
            allocations_in_loop(
                || data.clone(),
                |mut v: Vec<u64>| {
                    v.sort_unstable();
                    v
                }
            ),
            0
        );
    }

    #[test]
    fn async_loop_allocates_nothing() {
        let waker = current_thread_waker();
        assert_eq!(
            allocations_in_loop(|| (), |()| block_on(&waker, async { black_box(3u32) + 1 })),
            0
        );
    }
}
