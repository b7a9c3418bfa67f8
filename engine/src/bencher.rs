//! [`Bencher`]: the handle a benchmark uses to say what is timed.

use std::future::Future;
use std::marker::PhantomData;

use crate::measure::executor::{block_on, current_thread_waker};
use crate::measure::{self, MeasureConfig, Measurement};

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
pub struct Bencher {
    config: MeasureConfig,
    progress: Box<dyn FnMut(u64, f64)>,
    outcome: Outcome,
}

/// What became of a [`Bencher`] once the benchmark function returned.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// The function never called a timing method.
    NotMeasured,
    /// It measured once, as it should.
    Measured(Measurement),
    /// It called timing methods more than once; the first measurement is kept.
    MeasuredTwice(Measurement),
}

impl Bencher {
    pub(crate) fn new(config: MeasureConfig, progress: Box<dyn FnMut(u64, f64)>) -> Self {
        Bencher {
            config,
            progress,
            outcome: Outcome::NotMeasured,
        }
    }

    pub(crate) fn into_outcome(self) -> Outcome {
        self.outcome
    }

    /// Times `routine`, called repeatedly. Its return value is consumed with
    /// [`black_box`](crate::black_box); a value that needs dropping is dropped after the clock
    /// stops.
    pub fn iter<O, F>(&mut self, mut routine: F)
    where
        F: FnMut() -> O,
    {
        self.record(|config, progress| {
            measure::measure(config, progress, || (), move |()| routine(), |()| ())
        });
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
        self.record(|config, progress| {
            measure::measure(
                config,
                progress,
                || (),
                move |()| block_on(&waker, routine()),
                move |()| block_on(&baseline_waker, async {}),
            )
        });
    }

    /// Makes an input for every operation with `setup`, outside the timed region; finish with
    /// [`WithInputs::run`].
    pub fn with_inputs<I, G>(&mut self, setup: G) -> WithInputs<'_, I, G>
    where
        G: FnMut() -> I,
    {
        WithInputs {
            bencher: self,
            setup,
            input: PhantomData,
        }
    }

    fn record(
        &mut self,
        run: impl FnOnce(&MeasureConfig, &mut dyn FnMut(u64, f64)) -> Measurement,
    ) {
        if let Outcome::NotMeasured = self.outcome {
            self.outcome = Outcome::Measured(run(&self.config, &mut *self.progress));
        } else if let Outcome::Measured(first) =
            std::mem::replace(&mut self.outcome, Outcome::NotMeasured)
        {
            self.outcome = Outcome::MeasuredTwice(first);
        }
    }
}

/// A benchmark with per-operation inputs, made by [`Bencher::with_inputs`].
pub struct WithInputs<'b, I, G> {
    bencher: &'b mut Bencher,
    setup: G,
    input: PhantomData<fn() -> I>,
}

impl<I, G> WithInputs<'_, I, G>
where
    G: FnMut() -> I,
{
    /// Times `routine` on inputs made in advance. Return the input (or anything that owns it)
    /// to keep its drop out of the timed region.
    pub fn run<O, F>(self, routine: F)
    where
        F: FnMut(I) -> O,
    {
        let WithInputs { bencher, setup, .. } = self;
        bencher.record(|config, progress| {
            measure::measure(config, progress, setup, routine, |input: I| input)
        });
    }
}
