//! Benchmarks declared while the bench binary runs, rather than by `#[bench]`: what
//! `knotmeter-criterion` needs to run criterion's API on this engine.
//!
//! A declarer hands the runner a list of [`Case`]s (the same type `#[bench]` functions expand
//! to), each with a `run` function that, given a [`Bencher`], finds its way back to the
//! benchmark's closure and calls one of the measuring functions below. From then on the cases
//! are filtered, listed, planned, measured, reported and stored like any other.

use std::future::Future;
use std::mem::MaybeUninit;
use std::process::ExitCode;
use std::task::Waker;
use std::time::Duration;

use crate::bencher::Bencher;
use crate::measure::executor::{block_on, current_thread_waker};
use crate::measure::{RoutineSampler, SelfTimedSampler};
use crate::registry::Case;

/// Runs the bench binary with the cases `declare` returns besides the `#[bench]` ones.
/// `declare` runs after standard output is claimed for the report and the command line is
/// checked; an `Err` is printed and ends the process with status 2.
pub fn main(
    debug_assertions: bool,
    declare: impl FnOnce() -> Result<Vec<Case>, String>,
) -> ExitCode {
    crate::runner::main_with(debug_assertions, declare)
}

/// Measures `routine` on inputs made by `setup` outside the timed region, against `baseline`:
/// an empty routine that takes a placeholder of the input's size (the input itself is dropped
/// after the clock stops) and returns a value of the output's size. Both loops take the branch
/// of `O` (moved into the drop buffer when it needs dropping, consumed with `black_box`
/// otherwise), so the harness overhead subtracted is that of this shape; `B` must not need
/// dropping when `O` does not.
pub fn measure_routine<I, O, B>(
    bencher: &mut Bencher<'_>,
    setup: impl FnMut() -> I,
    routine: impl FnMut(I) -> O,
    baseline: impl FnMut(MaybeUninit<I>) -> B,
) {
    let timer = bencher.timer();
    bencher.take(&mut RoutineSampler::new(timer, setup, routine, baseline));
}

/// Measures a routine that times `ops` operations itself and returns how long they took
/// (criterion's `iter_custom`). No overhead can be subtracted; the result carries the
/// `self_timed` note that says so.
pub fn measure_self_timed(bencher: &mut Bencher<'_>, routine: impl FnMut(u64) -> Duration) {
    bencher.take(&mut SelfTimedSampler::new(routine));
}

/// The engine's minimal executor (the one `#[bench] async fn` uses): polls a future on this
/// thread and parks while it is pending. It has no reactor.
#[derive(Debug, Clone)]
pub struct ThreadExecutor {
    waker: Waker,
}

impl ThreadExecutor {
    /// An executor for the current thread; make it outside the timed region.
    pub fn new() -> Self {
        ThreadExecutor {
            waker: current_thread_waker(),
        }
    }

    /// Polls `future` to completion on this thread.
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        block_on(&self.waker, future)
    }
}

impl Default for ThreadExecutor {
    fn default() -> Self {
        Self::new()
    }
}
