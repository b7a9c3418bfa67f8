//! [`Bencher`]: the handle a benchmark uses to say what is timed.

use std::future::Future;
use std::marker::PhantomData;
use std::mem::MaybeUninit;

use crate::measure::executor::{block_on, current_thread_waker};
use crate::measure::{RoutineSampler, Sampler, Timer};

/// Measures one benchmark case. A `#[bench]` function that takes `&mut Bencher` calls exactly
/// one of [`iter`](Bencher::iter), [`iter_async`](Bencher::iter_async) or
/// [`with_inputs(..).run(..)`](WithInputs::run); everything else in the function is set-up and
/// is not timed.
///
/// ```
/// use knotmeter::{bench, Bencher};
///
/// #[bench]
/// fn sort_1000(b: &mut Bencher) {
///     let data: Vec<u64> = (0..1000).rev().collect(); // set-up: not timed
///     b.with_inputs(|| data.clone()).run(|mut v| {
///         v.sort();
///         v // returned, so its drop happens after the clock stops
///     });
/// }
/// # fn main() {}
/// ```
pub struct Bencher<'a> {
    timer: Timer,
    consume: &'a mut dyn FnMut(&mut dyn Sampler),
    calls: u32,
}

impl<'a> Bencher<'a> {
    /// A bencher that hands the benchmark's sampler to `consume`, which measures it (alone, or
    /// paired with another benchmark's sampler) before the benchmark function returns.
    pub(crate) fn new(timer: Timer, consume: &'a mut dyn FnMut(&mut dyn Sampler)) -> Self {
        Bencher {
            timer,
            consume,
            calls: 0,
        }
    }

    /// The calibrated clock this bencher measures with.
    pub(crate) fn timer(&self) -> Timer {
        self.timer
    }

    /// How many times the benchmark called a timing method (only the first is measured).
    pub(crate) fn calls(&self) -> u32 {
        self.calls
    }

    /// Times `routine`, called repeatedly. Its return value is consumed with
    /// [`black_box`](crate::black_box); a value that needs dropping is dropped after the clock
    /// stops.
    pub fn iter<O, F>(&mut self, mut routine: F)
    where
        F: FnMut() -> O,
    {
        // The baseline returns `None::<O>`: the same output size, moved into the drop buffer
        // or consumed as the workload's output is (the sampler takes `O`'s branch for both).
        self.take(&mut RoutineSampler::new(
            self.timer,
            || (),
            move |()| routine(),
            |_| None::<O>,
        ));
    }

    /// Times the future returned by `routine`, awaited inside the timed region by a minimal
    /// executor on this thread.
    ///
    /// Futures that need a runtime's reactor (tokio timers, sockets) must run on that runtime:
    /// build it in the set-up and time `iter(|| rt.block_on(work()))` instead.
    pub fn iter_async<O, Fut, F>(&mut self, mut routine: F)
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = O>,
    {
        let waker = current_thread_waker();
        let baseline_waker = waker.clone();
        self.take(&mut RoutineSampler::new(
            self.timer,
            || (),
            move |()| block_on(&waker, routine()),
            move |_| block_on(&baseline_waker, async { None::<O> }),
        ));
    }

    /// Makes an input for every operation with `setup`, outside the timed region; finish with
    /// [`WithInputs::run`] or [`WithInputs::run_async`].
    pub fn with_inputs<I, G>(&mut self, setup: G) -> WithInputs<'_, 'a, I, G>
    where
        G: FnMut() -> I,
    {
        WithInputs {
            bencher: self,
            setup,
            input: PhantomData,
        }
    }

    /// Hands `sampler` over to be measured, if it is the first timing call of the case.
    pub(crate) fn take(&mut self, sampler: &mut dyn Sampler) {
        self.calls += 1;
        if self.calls == 1 {
            (self.consume)(sampler);
        }
    }
}

/// The timed loop of `#[bench(args = [..])] fn f(n: T)` for a `T` that is cloned rather than
/// copied: every operation calls `f` on a clone of its own, made by `clone` outside the timed
/// region and passed through [`black_box`](crate::black_box).
///
/// `f` owns its argument, so the clone is dropped inside the clock (at the end of `f`). The
/// baseline is an empty `fn(n: T)`: it takes a clone made the same way and drops it inside the
/// clock too, so the argument's drop is subtracted with the rest of the harness, whatever `T`.
/// (A function that returns its argument, or something owning it, drops it after the clock
/// instead; one drop too many is then subtracted.) Both loops take the branch of `O`.
pub fn run_by_value<T, O>(
    bencher: &mut Bencher<'_>,
    clone: impl FnMut() -> T,
    mut f: impl FnMut(T) -> O,
) {
    let timer = bencher.timer;
    bencher.take(&mut RoutineSampler::consuming(
        timer,
        clone,
        move |input: T| f(crate::black_box(input)),
        |input: T| {
            drop(crate::black_box(input));
            None::<O>
        },
    ));
}

/// A benchmark with per-operation inputs, made by [`Bencher::with_inputs`].
pub struct WithInputs<'b, 'a, I, G> {
    bencher: &'b mut Bencher<'a>,
    setup: G,
    input: PhantomData<fn() -> I>,
}

impl<I, G> WithInputs<'_, '_, I, G>
where
    G: FnMut() -> I,
{
    /// Times `routine` on inputs made in advance. Return the input (or anything that owns it)
    /// to keep its drop out of the timed region.
    pub fn run<O, F>(self, routine: F)
    where
        F: FnMut(I) -> O,
    {
        // The baseline hands back a placeholder of the input's size; the input itself is
        // dropped after the clock stops, and the loop takes `O`'s branch on both sides.
        let timer = self.bencher.timer;
        self.bencher.take(&mut RoutineSampler::new(
            timer,
            self.setup,
            routine,
            |input: MaybeUninit<I>| input,
        ));
    }

    /// Times the future `routine` returns for each input made in advance, awaited inside the
    /// timed region as with [`Bencher::iter_async`].
    pub fn run_async<O, Fut, F>(self, mut routine: F)
    where
        F: FnMut(I) -> Fut,
        Fut: Future<Output = O>,
    {
        let timer = self.bencher.timer;
        let waker = current_thread_waker();
        let baseline_waker = waker.clone();
        self.bencher.take(&mut RoutineSampler::new(
            timer,
            self.setup,
            move |input| block_on(&waker, routine(input)),
            move |input: MaybeUninit<I>| block_on(&baseline_waker, async move { input }),
        ));
    }
}
