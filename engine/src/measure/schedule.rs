//! The shared rules of a sampling schedule: warm-up, jitter, when to stop, progress.
//!
//! Samples of the workload and its empty baseline alternate in ABBA order (W B, B W, B W,
//! W B, …) so that a linear drift of the machine affects both alike. Each round's operation
//! count is stretched by a random 0–20% (nanobench does the same), so samples cannot fall into
//! lockstep with periodic noise such as a timer interrupt. Sampling stops at a sample boundary
//! when the estimate is precise enough, when the budget is spent, or when the run is cancelled.

use std::time::{Duration, Instant};

use super::sampler::Sampler;
use super::tune::{target_sample_ns, tune, warm_up};
use super::MeasureConfig;

/// Never stop on precision before this many samples: small samples give optimistic intervals.
pub(super) const MIN_SAMPLES_FOR_PRECISION: usize = 100;
/// Never stop on precision before this fraction of the budget has been spent sampling: a few
/// milliseconds of samples can look precise while missing slower disturbances (frequency
/// changes, other processes) that a longer window averages in.
const MIN_SAMPLING_FRACTION: u32 = 10;
/// Even when the budget is spent, take at least this many samples.
const MIN_SAMPLES: usize = 5;
/// Upper bound on samples per side, which also bounds the raw data kept.
pub(super) const MAX_SAMPLES: usize = 10_000;
/// Tuning and warm-up take at most a fifth of the budget, and never more than this.
const MAX_WARM_UP: Duration = Duration::from_millis(500);
/// How often progress is reported.
const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// Tunes `sampler`'s operations per sample and warms it up, within `deadline`.
pub(super) fn tune_and_warm(
    cfg: &MeasureConfig,
    sampler: &mut dyn Sampler,
    deadline: Instant,
) -> u64 {
    let ops = tune_only(cfg, sampler, deadline);
    warm_only(sampler, ops, deadline);
    ops
}

/// Tunes `sampler`'s operations per sample, within `deadline`.
pub(super) fn tune_only(cfg: &MeasureConfig, sampler: &mut dyn Sampler, deadline: Instant) -> u64 {
    tune(target_sample_ns(&cfg.timer), deadline, |ops| {
        sampler.workload(ops)
    })
}

/// Samples `sampler` at `ops` until its timings stop trending, within `deadline`.
pub(super) fn warm_only(sampler: &mut dyn Sampler, ops: u64, deadline: Instant) {
    warm_up(ops, deadline, |ops| sampler.workload(ops));
}

/// The end of the warm-up phase for a case started at `started` with `budget`.
pub(super) fn warm_up_deadline(started: Instant, budget: Duration) -> Instant {
    started + (budget / 5).min(MAX_WARM_UP)
}

/// Why a sampling loop stops, if it should stop now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stop {
    /// Keep sampling.
    No,
    /// The estimate is precise enough.
    Precise,
    /// The budget is spent.
    Budget,
    /// Too many samples to keep.
    Full,
    /// The run was cancelled.
    Cancelled,
}

/// The bookkeeping of one sampling loop: jitter, checkpoints, progress.
pub(super) struct Schedule {
    started: Instant,
    sampling_started: Instant,
    deadline: Instant,
    min_sampling: Duration,
    next_check: usize,
    last_progress: Instant,
    budget_ns: f64,
    jitter: SplitMix64,
}

impl Schedule {
    /// A schedule for a case that started at `started`, now beginning to sample.
    pub(super) fn new(cfg: &MeasureConfig, started: Instant) -> Self {
        let now = Instant::now();
        Schedule {
            started,
            sampling_started: now,
            deadline: started + cfg.budget,
            min_sampling: cfg.budget / MIN_SAMPLING_FRACTION,
            next_check: MIN_SAMPLES_FOR_PRECISION,
            last_progress: now,
            budget_ns: cfg.budget.as_nanos() as f64,
            jitter: SplitMix64(cfg.seed),
        }
    }

    /// The operation count of the next round: `ops` stretched by 0–20%.
    pub(super) fn jittered(&mut self, ops: u64) -> u64 {
        ops + self.jitter.below(ops / 5 + 1)
    }

    /// Decides after `samples` rounds whether to stop. `precise()` is asked only at
    /// geometrically spaced checkpoints, so its cost stays O(log n) sorts per case.
    pub(super) fn stop(
        &mut self,
        cfg: &MeasureConfig,
        samples: usize,
        precise: impl FnOnce() -> bool,
    ) -> Stop {
        let now = Instant::now();
        if cfg.cancelled() {
            return Stop::Cancelled;
        }
        if samples >= MAX_SAMPLES {
            return Stop::Full;
        }
        if now >= self.deadline && samples >= MIN_SAMPLES {
            return Stop::Budget;
        }
        if samples >= self.next_check
            && now.duration_since(self.sampling_started) >= self.min_sampling
        {
            if precise() {
                return Stop::Precise;
            }
            self.next_check = samples + samples / 8;
        }
        Stop::No
    }

    /// Calls `progress` at most every 100 ms.
    pub(super) fn progress(&mut self, samples: usize, progress: &mut dyn FnMut(u64, f64)) {
        let now = Instant::now();
        if now.duration_since(self.last_progress) >= PROGRESS_EVERY {
            self.last_progress = now;
            let fraction =
                (now.duration_since(self.started).as_nanos() as f64 / self.budget_ns).min(1.0);
            progress(samples as u64, fraction);
        }
    }
}

/// SplitMix64: a tiny, well-distributed generator for the jitter. Not for anything secret.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..bound` (`bound` > 0).
    fn below(&mut self, bound: u64) -> u64 {
        self.next() % bound
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jitter_stretches_by_at_most_a_fifth() {
        let mut jitter = SplitMix64(42);
        let values: Vec<u64> = (0..1000)
            .map(|_| 1000 + jitter.below(1000 / 5 + 1))
            .collect();
        assert!(values.iter().all(|&v| (1000..=1200).contains(&v)));
        let distinct: std::collections::BTreeSet<_> = values.iter().collect();
        assert!(
            distinct.len() > 150,
            "the stretch varies: {}",
            distinct.len()
        );
    }
}
