//! The measurement pipeline for one case: cold call, tuning and warm-up, then interleaved
//! workload and baseline samples until the estimate is precise enough or the budget is spent.
//!
//! The timed loop ([`routine::time_batch`]) is generic over the routine, so each benchmark gets
//! its own copy; a [`Sampler`] wraps it with its empty baseline. Everything between samples
//! (tuning, warm-up, the stopping rule, pairing) works on `&mut dyn Sampler`, outside the two
//! clock reads.

pub(crate) mod executor;
mod pace;
mod paired;
pub(crate) mod region;
pub(crate) mod routine;
mod sampler;
pub(crate) mod schedule;
mod self_timed;
mod single;
pub(crate) mod timer;
mod tune;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

pub(crate) use paired::measure_pair;
pub(crate) use sampler::{RoutineSampler, Sampler};
pub(crate) use self_timed::SelfTimedSampler;
pub(crate) use single::measure;
pub(crate) use timer::{Timer, TimerKind};

/// How one case is measured. One value serves every case of a run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MeasureConfig {
    /// The calibrated clock.
    pub(crate) timer: Timer,
    /// Wall-time budget per case, cold call and warm-up included.
    pub(crate) budget: Duration,
    /// Stop sampling once the median's interval is within ± this fraction.
    pub(crate) target_precision: f64,
    /// Seed for the sample-length jitter.
    pub(crate) seed: u64,
    /// Test mode: run each case once to prove it works, measure nothing.
    pub(crate) run_once: bool,
    /// The operations per sample, when an earlier round of the case tuned them: tuning is
    /// skipped and every round samples alike.
    pub(crate) tuned_ops: Option<u64>,
    /// The most samples to take per side.
    pub(crate) max_samples: usize,
    /// Stop as soon as the median's interval is within `target_precision`. A slot of a round
    /// samples for its whole budget instead: the rounds, not one process's samples, decide
    /// when a case is known well enough.
    pub(crate) stop_when_precise: bool,
    /// Count allocations over one untimed batch after sampling, when a `CountingAlloc` is
    /// installed (one round of a case counts them; the count does not move between rounds).
    pub(crate) count_allocations: bool,
    /// Set when the run is cancelled; checked at every sample boundary.
    pub(crate) cancel: &'static AtomicBool,
}

impl MeasureConfig {
    /// The configuration of a case measured in one stretch: `budget` wall time, stopping
    /// once precise, tuned afresh, at most [`schedule::MAX_SAMPLES`] samples.
    pub(crate) fn new(
        timer: Timer,
        budget: Duration,
        target_precision: f64,
        seed: u64,
        cancel: &'static AtomicBool,
    ) -> Self {
        MeasureConfig {
            timer,
            budget,
            target_precision,
            seed,
            run_once: false,
            cancel,
            tuned_ops: None,
            max_samples: schedule::MAX_SAMPLES,
            stop_when_precise: true,
            count_allocations: true,
        }
    }

    /// True once cancellation was requested. Asked only at sample boundaries, so a true
    /// answer also tells the watchdog that the benchmark is not stuck.
    pub(crate) fn cancelled(&self) -> bool {
        let cancelled = self.cancel.load(Ordering::Relaxed);
        if cancelled {
            crate::cancel::reached_boundary();
        }
        cancelled
    }
}

/// What a case reports while it is measured (the `progress` event).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Progress {
    /// Workload samples taken so far.
    pub(crate) samples: u64,
    /// Share of the case's expected wall time spent, 0 to 1 (below 1 until it ends).
    pub(crate) fraction: f64,
    /// The longest step of the case so far (cold call, tuning or warm-up batch, round).
    pub(crate) longest_step_ns: f64,
}

/// Raw figures of one case, before statistics.
#[derive(Debug, Clone, Default)]
pub(crate) struct Measurement {
    /// The first call on its own, less one clock read, in nanoseconds.
    pub(crate) cold_ns: f64,
    /// The tuned operation count per sample, before jitter.
    pub(crate) ops_per_sample: u64,
    /// Per-operation time of each workload sample, in time order.
    pub(crate) workload_ns: Vec<f64>,
    /// Per-operation time of each baseline sample, paired with `workload_ns`.
    pub(crate) baseline_ns: Vec<f64>,
    /// Wall time of the whole case.
    pub(crate) wall_ns: f64,
    /// The run was cancelled during sampling.
    pub(crate) partial: bool,
    /// Sampling stopped because the budget ran out before the target precision.
    pub(crate) budget_exhausted: bool,
    /// Allocations and bytes per operation, when a `CountingAlloc` is installed.
    pub(crate) allocations: Option<(f64, f64)>,
    /// The routine timed itself (criterion's `iter_custom`): no empty body could be measured,
    /// so the baseline samples are zero and nothing was subtracted.
    pub(crate) self_timed: bool,
    /// A count's cache simulation, one per repetition (`crate::count`): accesses, first-level
    /// and last-level misses per operation, the empty body's subtracted. Empty otherwise.
    pub(crate) cache: Vec<[f64; 3]>,
}

impl Measurement {
    /// Stamps the wall time and whether the case was cut short by a cancel.
    fn finish(mut self, started: Instant, cancelled: bool) -> Self {
        self.partial = cancelled;
        self.wall_ns = started.elapsed().as_nanos() as f64;
        self
    }
}
