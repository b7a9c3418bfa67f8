//! [`Bencher`] and [`AsyncBencher`]: criterion's timing loops, each mapped onto one knotmeter
//! measurement with an empty baseline of the same shape.
//!
//! | criterion | knotmeter |
//! |---|---|
//! | `iter`, `iter_with_large_drop` | `Bencher::iter` (outputs are dropped after the clock stops) |
//! | `iter_batched`, `iter_with_setup` (any `BatchSize`) | `with_inputs(setup).run(routine)` |
//! | `iter_batched_ref` | the same, the routine borrowing the input; input and output are dropped after the clock stops |
//! | `iter_custom` | the routine's own durations; nothing can be subtracted, and the result carries the `self_timed` note |
//! | `to_async(executor).iter(..)` | one `block_on` per operation; the baseline blocks on an empty future on the same executor |

use std::future::Future;
use std::mem::MaybeUninit;
use std::time::Duration;

use knotmeter::__private::declared::{measure_routine, measure_self_timed};
use knotmeter::Bencher as EngineBencher;

use crate::async_executor::AsyncExecutor;
use crate::measurement::{Measurement, WallTime};
use crate::settings::BatchSize;

/// Times a benchmark's routine: call one of its methods once in the closure given to
/// `bench_function`. Everything else in the closure is set-up and is not timed.
pub struct Bencher<'a, M: Measurement = WallTime> {
    engine: &'a mut EngineBencher<'static>,
    measurement: &'a M,
}

impl<'a, M: Measurement> Bencher<'a, M> {
    pub(crate) fn new(engine: &'a mut EngineBencher<'static>, measurement: &'a M) -> Self {
        Bencher {
            engine,
            measurement,
        }
    }

    /// knotmeter measures wall time only: a custom measurement fails the benchmark rather than
    /// report a number in units nobody asked for.
    fn engine(&mut self) -> &mut EngineBencher<'static> {
        if !self.measurement.__knotmeter_is_wall_time() {
            panic!(
                "knotmeter-criterion measures wall time only, and this benchmark uses the \
                 measurement `{}`: measure it with criterion itself, or drop \
                 `with_measurement` to measure wall time",
                std::any::type_name::<M>()
            );
        }
        self.engine
    }

    /// Times `routine`; its output is consumed with `black_box` and dropped after the clock
    /// stops.
    pub fn iter<O, R>(&mut self, routine: R)
    where
        R: FnMut() -> O,
    {
        self.engine().iter(routine);
    }

    /// Times `routine` running `iters` iterations, by the routine's own clock. No harness
    /// overhead can be measured or subtracted; the result says so (`self_timed`).
    pub fn iter_custom<R>(&mut self, mut routine: R)
    where
        R: FnMut(u64) -> M::Value,
    {
        let measurement = self.measurement;
        measure_self_timed(self.engine(), move |iters| {
            nanos(measurement.to_f64(&routine(iters)))
        });
    }

    /// Times `routine` on an input made by `setup` outside the timed region.
    pub fn iter_with_setup<I, O, S, R>(&mut self, setup: S, routine: R)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> O,
    {
        self.iter_batched(setup, routine, BatchSize::PerIteration);
    }

    /// Times `routine`; its output is dropped after the clock stops (as with every method).
    pub fn iter_with_large_drop<O, R>(&mut self, routine: R)
    where
        R: FnMut() -> O,
    {
        self.engine().iter(routine);
    }

    /// criterion 0.3's name for `iter_batched(setup, routine, BatchSize::NumBatches(1))`, kept
    /// so suites written for it still build.
    pub fn iter_with_large_setup<I, O, S, R>(&mut self, setup: S, routine: R)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> O,
    {
        self.iter_batched(setup, routine, BatchSize::NumBatches(1));
    }

    /// Times `routine` on inputs made by `setup` before each sample, outside the timed region.
    /// `size` is accepted: knotmeter decides how many operations a sample holds.
    pub fn iter_batched<I, O, S, R>(&mut self, setup: S, routine: R, _size: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> O,
    {
        self.engine().with_inputs(setup).run(routine);
    }

    /// Times `routine` on a mutable reference to an input made by `setup`; input and output
    /// are dropped after the clock stops.
    pub fn iter_batched_ref<I, O, S, R>(&mut self, setup: S, mut routine: R, _size: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(&mut I) -> O,
    {
        measure_routine(
            self.engine(),
            setup,
            move |mut input: I| {
                let output = routine(&mut input);
                (input, output)
            },
            |input: MaybeUninit<I>| (input, None::<O>),
        );
    }

    /// Times futures on `runner`: `b.to_async(&runtime).iter(|| async { .. })`.
    pub fn to_async<'b, A: AsyncExecutor>(&'b mut self, runner: A) -> AsyncBencher<'a, 'b, A, M> {
        AsyncBencher { b: self, runner }
    }
}

/// A duration from nanoseconds (a measurement's `to_f64`).
fn nanos(ns: f64) -> Duration {
    Duration::from_secs_f64(ns.max(0.0) / 1e9)
}

/// Times futures, each operation awaited by blocking on the executor.
pub struct AsyncBencher<'a, 'b, A: AsyncExecutor, M: Measurement = WallTime> {
    b: &'b mut Bencher<'a, M>,
    runner: A,
}

impl<A: AsyncExecutor, M: Measurement> AsyncBencher<'_, '_, A, M> {
    /// Times the future `routine` returns, blocked on by the executor; the baseline blocks on
    /// an empty future on the same executor.
    pub fn iter<O, R, F>(&mut self, mut routine: R)
    where
        R: FnMut() -> F,
        F: Future<Output = O>,
    {
        let runner = &self.runner;
        measure_routine(
            self.b.engine(),
            || (),
            move |()| runner.block_on(routine()),
            move |_| runner.block_on(async { None::<O> }),
        );
    }

    /// Times `iters` iterations by the routine's own clock (see [`Bencher::iter_custom`]).
    pub fn iter_custom<R, F>(&mut self, mut routine: R)
    where
        R: FnMut(u64) -> F,
        F: Future<Output = M::Value>,
    {
        let runner = &self.runner;
        let measurement = self.b.measurement;
        measure_self_timed(self.b.engine(), move |iters| {
            nanos(measurement.to_f64(&runner.block_on(routine(iters))))
        });
    }

    /// Times the future made from an input prepared outside the timed region.
    pub fn iter_with_setup<I, O, S, R, F>(&mut self, setup: S, routine: R)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> F,
        F: Future<Output = O>,
    {
        self.iter_batched(setup, routine, BatchSize::PerIteration);
    }

    /// Times the future; its output is dropped after the clock stops.
    pub fn iter_with_large_drop<O, R, F>(&mut self, routine: R)
    where
        R: FnMut() -> F,
        F: Future<Output = O>,
    {
        self.iter(routine);
    }

    /// Times the future made from an input prepared outside the timed region.
    pub fn iter_with_large_setup<I, O, S, R, F>(&mut self, setup: S, routine: R)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> F,
        F: Future<Output = O>,
    {
        self.iter_batched(setup, routine, BatchSize::NumBatches(1));
    }

    /// Times the future made from each input; `size` is accepted (see
    /// [`Bencher::iter_batched`]).
    pub fn iter_batched<I, O, S, R, F>(&mut self, setup: S, mut routine: R, _size: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> F,
        F: Future<Output = O>,
    {
        let runner = &self.runner;
        measure_routine(
            self.b.engine(),
            setup,
            move |input| runner.block_on(routine(input)),
            move |input: MaybeUninit<I>| runner.block_on(async move { input }),
        );
    }

    /// Times the future made from a mutable reference to each input.
    pub fn iter_batched_ref<I, O, S, R, F>(&mut self, setup: S, mut routine: R, _size: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(&mut I) -> F,
        F: Future<Output = O>,
    {
        let runner = &self.runner;
        measure_routine(
            self.b.engine(),
            setup,
            move |mut input: I| {
                let output = runner.block_on(routine(&mut input));
                (input, output)
            },
            move |input: MaybeUninit<I>| (input, runner.block_on(async { None::<O> })),
        );
    }
}
