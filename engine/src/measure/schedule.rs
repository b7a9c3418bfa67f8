//! The shared rules of a sampling schedule: warm-up, jitter, when to stop.
//!
//! Samples of the workload and its empty baseline alternate in ABBA order (W B, B W, B W,
//! W B, …) so that a linear drift of the machine affects both alike. Each round's operation
//! count is stretched by a random 0–20% (nanobench does the same), so samples cannot fall into
//! lockstep with periodic noise such as a timer interrupt. Sampling stops at a sample boundary
//! when the estimate is precise enough, when the next round would overrun the budget, or when
//! the run is cancelled.
//!
//! The budget is a bound, not a target to exceed by a fixed number of samples: a benchmark
//! whose single call outlasts the budget gets its cold call and one sample (which may be the
//! last tuning sample, when tuning settled on one operation and no warm-up fitted), flagged
//! `imprecise`, rather than a minimum number of samples that multiplies its cost.

use std::time::{Duration, Instant};

use super::pace::Pace;
use super::sampler::Sampler;
use super::tune::{target_sample_ns, tune, warm_up};
use super::MeasureConfig;

/// Never stop on precision before this many samples: small samples give optimistic intervals.
pub(super) const MIN_SAMPLES_FOR_PRECISION: usize = 100;
/// Never stop on precision before this fraction of the budget has been spent sampling: a few
/// milliseconds of samples can look precise while missing slower disturbances (frequency
/// changes, other processes) that a longer window averages in.
const MIN_SAMPLING_FRACTION: u32 = 10;
/// Upper bound on samples per side, which also bounds the raw data kept.
pub(crate) const MAX_SAMPLES: usize = 10_000;
/// Tuning and warm-up take at most a fifth of the budget, and never more than this.
const MAX_WARM_UP: Duration = Duration::from_millis(500);

/// The result of tuning: the operations per sample, and the last tuning sample (nanoseconds,
/// at that count).
#[derive(Debug, Clone, Copy)]
pub(super) struct Tuned {
    /// Operations per sample.
    pub(super) ops: u64,
    /// The last tuning sample, taken at `ops` operations.
    pub(super) last_ns: f64,
}

/// Tunes `sampler`'s operations per sample, within `deadline`; every batch is a step of `pace`.
/// A count an earlier round tuned ([`MeasureConfig::tuned_ops`]) is kept: one batch at it is
/// the tuning sample.
pub(super) fn tune_only(
    cfg: &MeasureConfig,
    sampler: &mut dyn Sampler,
    pace: &mut Pace<'_>,
    deadline: Instant,
) -> Tuned {
    if let Some(ops) = cfg.tuned_ops {
        let ops = ops.max(1);
        let last_ns = sampler.workload(ops);
        pace.step(0);
        return Tuned { ops, last_ns };
    }
    let mut last_ns = 0.0;
    let ops = tune(target_sample_ns(&cfg.timer), deadline, |ops| {
        last_ns = sampler.workload(ops);
        pace.step(0);
        last_ns
    });
    Tuned { ops, last_ns }
}

/// Samples `sampler` at `ops` until its timings stop trending, within `deadline`; returns how
/// many batches it took. Every batch is a step of `pace`.
pub(super) fn warm_only(
    sampler: &mut dyn Sampler,
    ops: u64,
    pace: &mut Pace<'_>,
    deadline: Instant,
) -> usize {
    warm_up(ops, deadline, |ops| {
        let ns = sampler.workload(ops);
        pace.step(0);
        ns
    })
}

/// The end of the warm-up phase for a case whose budget `pace` keeps.
pub(super) fn warm_up_deadline(pace: &Pace<'_>, budget: Duration) -> Instant {
    (pace.started() + (budget / 5).min(MAX_WARM_UP)).min(pace.deadline())
}

/// Whether the last tuning sample can count as the first round's workload sample: tuning
/// settled on one operation (so the round's count, jittered, is one too) and no warm-up batch
/// came after it. Only a benchmark slow enough to use up its warm-up time in one call gets
/// here, and for it one call saved is a large share of its budget.
pub(super) fn reuse_tuning_sample(tuned: Tuned, warm_batches: usize) -> bool {
    tuned.ops == 1 && warm_batches == 0
}

/// Why a sampling loop stops, if it should stop now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stop {
    /// Keep sampling.
    No,
    /// The estimate is precise enough.
    Precise,
    /// The next round would overrun the budget.
    Budget,
    /// Too many samples to keep.
    Full,
    /// The run was cancelled.
    Cancelled,
}

/// The bookkeeping of one sampling loop: jitter and checkpoints.
pub(super) struct Schedule {
    sampling_started: Instant,
    min_sampling: Duration,
    next_check: usize,
    last_round: Duration,
    jitter: SplitMix64,
}

impl Schedule {
    /// A schedule for a case now beginning to sample.
    pub(super) fn new(cfg: &MeasureConfig) -> Self {
        Schedule {
            sampling_started: Instant::now(),
            min_sampling: cfg.budget / MIN_SAMPLING_FRACTION,
            next_check: MIN_SAMPLES_FOR_PRECISION,
            last_round: Duration::ZERO,
            jitter: SplitMix64(cfg.seed),
        }
    }

    /// The operation count of the next round: `ops` stretched by 0–20%.
    pub(super) fn jittered(&mut self, ops: u64) -> u64 {
        ops + self.jitter.below(ops / 5 + 1)
    }

    /// Records how long the last round took: the next one is expected to take as long.
    pub(super) fn round_took(&mut self, duration: Duration) {
        self.last_round = duration;
    }

    /// Decides after `samples` rounds whether to stop. `precise()` is asked only at
    /// geometrically spaced checkpoints, so its cost stays O(log n) sorts per case.
    pub(super) fn stop(
        &mut self,
        cfg: &MeasureConfig,
        pace: &Pace<'_>,
        samples: usize,
        precise: impl FnOnce() -> bool,
    ) -> Stop {
        if cfg.cancelled() {
            return Stop::Cancelled;
        }
        if samples >= cfg.max_samples.max(1) {
            return Stop::Full;
        }
        if samples >= 1 && !pace.fits(self.last_round) {
            return Stop::Budget;
        }
        if cfg.stop_when_precise
            && samples >= self.next_check
            && self.sampling_started.elapsed() >= self.min_sampling
        {
            if precise() {
                return Stop::Precise;
            }
            self.next_check = samples + samples / 8;
        }
        Stop::No
    }
}

/// SplitMix64: a tiny, well-distributed generator for the jitter and the order of rounds. Not
/// for anything secret.
pub(crate) struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator seeded with `seed`.
    pub(crate) fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..bound` (`bound` > 0).
    pub(crate) fn below(&mut self, bound: u64) -> u64 {
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
