//! Interleaved sampling of the workload and its empty baseline, to a stopping rule.
//!
//! Each round times one workload sample and one baseline sample of the same operation count,
//! in ABBA order (W B, B W, B W, W B, …) so that a linear drift of the machine affects both
//! sides alike. The count is stretched by a random 0–20% per round (nanobench does the same) so
//! that samples cannot fall into lockstep with periodic noise such as a timer interrupt.
//! Sampling stops when the median's 95% interval is within the target precision, when the
//! budget is spent, or when the run is cancelled, always at a sample boundary.

use std::time::{Duration, Instant};

use super::routine::{time_batch, Batch};
use super::timer::Timer;
use super::tune::{target_sample_ns, tune, warm_up};
use super::{MeasureConfig, Measurement};
use crate::alloc::{self, AllocCount};
use crate::stats;

/// Never stop on precision before this many samples: small samples give optimistic intervals.
const MIN_SAMPLES_FOR_PRECISION: usize = 100;
/// Never stop on precision before this fraction of the budget has been spent sampling: a few
/// milliseconds of samples can look precise while missing slower disturbances (frequency
/// changes, other processes) that a longer window averages in.
const MIN_SAMPLING_FRACTION: u32 = 10;
/// Even when the budget is spent, take at least this many samples.
const MIN_SAMPLES: usize = 5;
/// Upper bound on samples per side, which also bounds the raw data kept.
const MAX_SAMPLES: usize = 10_000;
/// An interval narrower than this (± nanoseconds) is precise whatever the median: it is far
/// below any clock's resolution, and a relative target means nothing for an estimate near 0.
const ABSOLUTE_PRECISION_NS: f64 = 0.01;
/// Tuning and warm-up take at most a fifth of the budget, and never more than this.
const MAX_WARM_UP: Duration = Duration::from_millis(500);
/// How often progress is reported.
const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// Measures one case. `setup` makes one input; `workload` is the benchmark; `baseline` is the
/// empty routine of the same shape. `progress(samples, fraction)` is called between samples.
pub(crate) fn measure<I, O, B, S, W, E>(
    cfg: &MeasureConfig,
    progress: &mut dyn FnMut(u64, f64),
    mut setup: S,
    mut workload: W,
    mut baseline: E,
) -> Measurement
where
    S: FnMut() -> I,
    W: FnMut(I) -> O,
    E: FnMut(I) -> B,
{
    let timer = cfg.timer;
    let started = Instant::now();
    let deadline = started + cfg.budget;

    let mut first = Batch::<I, O>::with_capacity(1);
    let cold_ns =
        (sample(&timer, 1, &mut setup, &mut workload, &mut first) - timer.read_cost_ns).max(0.0);
    let mut measurement = Measurement {
        cold_ns,
        ..Measurement::default()
    };
    if cfg.run_once || cfg.cancelled() {
        measurement.partial = cfg.cancelled();
        measurement.wall_ns = started.elapsed().as_nanos() as f64;
        return measurement;
    }

    let mut work = Batch::<I, O>::with_capacity(1);
    let warm_deadline = started + (cfg.budget / 5).min(MAX_WARM_UP);
    let mut sample_workload = |ops: u64| sample(&timer, ops, &mut setup, &mut workload, &mut work);
    let ops = tune(
        target_sample_ns(&timer),
        warm_deadline,
        &mut sample_workload,
    );
    warm_up(ops, warm_deadline, &mut sample_workload);
    measurement.ops_per_sample = ops;
    if cfg.cancelled() {
        measurement.partial = true;
        measurement.wall_ns = started.elapsed().as_nanos() as f64;
        return measurement;
    }

    let max_ops = (ops + ops / 5) as usize;
    let mut work = Batch::<I, O>::with_capacity(max_ops);
    let mut base = Batch::<I, B>::with_capacity(max_ops);
    let mut jitter = SplitMix64(cfg.seed);
    let mut next_check = MIN_SAMPLES_FOR_PRECISION;
    let mut last_progress = Instant::now();
    let budget_ns = cfg.budget.as_nanos() as f64;
    let sampling_started = Instant::now();
    let min_sampling = cfg.budget / MIN_SAMPLING_FRACTION;
    loop {
        let round = measurement.workload_ns.len();
        let ops = ops + jitter.below(ops / 5 + 1);
        let per_op = |ns: f64| ns / ops as f64;
        let (w, b) = if matches!(round % 4, 0 | 3) {
            let w = sample(&timer, ops, &mut setup, &mut workload, &mut work);
            let b = sample(&timer, ops, &mut setup, &mut baseline, &mut base);
            (w, b)
        } else {
            let b = sample(&timer, ops, &mut setup, &mut baseline, &mut base);
            let w = sample(&timer, ops, &mut setup, &mut workload, &mut work);
            (w, b)
        };
        measurement.workload_ns.push(per_op(w));
        measurement.baseline_ns.push(per_op(b));

        let samples = round + 1;
        let now = Instant::now();
        if cfg.cancelled() {
            measurement.partial = true;
            break;
        }
        if samples >= MAX_SAMPLES {
            break;
        }
        if now >= deadline && samples >= MIN_SAMPLES {
            measurement.budget_exhausted = true;
            break;
        }
        if samples >= next_check && now.duration_since(sampling_started) >= min_sampling {
            let (relative, absolute_ns) =
                precision(&measurement.workload_ns, &measurement.baseline_ns);
            if relative <= cfg.target_precision || absolute_ns <= ABSOLUTE_PRECISION_NS {
                break;
            }
            // Check geometrically often, so the check costs O(log n) sorts per case.
            next_check = samples + samples / 8;
        }
        if now.duration_since(last_progress) >= PROGRESS_EVERY {
            last_progress = now;
            let fraction = (now.duration_since(started).as_nanos() as f64 / budget_ns).min(1.0);
            progress(samples as u64, fraction);
        }
    }
    if alloc::installed() && !measurement.partial {
        measurement.allocations = Some(count_allocations(
            &timer,
            ops,
            &mut setup,
            &mut workload,
            &mut work,
        ));
    }
    measurement.wall_ns = started.elapsed().as_nanos() as f64;
    measurement
}

/// Allocations and bytes per operation over one extra, untimed batch. Set-up allocations and
/// the outputs' drops fall outside the counted span, as they fall outside the timed one.
fn count_allocations<I, O>(
    timer: &Timer,
    ops: u64,
    setup: &mut impl FnMut() -> I,
    routine: &mut impl FnMut(I) -> O,
    batch: &mut Batch<I, O>,
) -> (f64, f64) {
    batch.fill(ops as usize, setup);
    let before = AllocCount::now();
    time_batch(timer, routine, batch);
    let counted = AllocCount::now().since(before);
    (
        counted.allocations as f64 / ops as f64,
        counted.bytes as f64 / ops as f64,
    )
}

/// Makes `ops` inputs, then times them through `routine`; returns nanoseconds.
fn sample<I, O>(
    timer: &Timer,
    ops: u64,
    setup: &mut impl FnMut() -> I,
    routine: &mut impl FnMut(I) -> O,
    batch: &mut Batch<I, O>,
) -> f64 {
    batch.fill(ops as usize, setup);
    timer.ticks_to_ns(time_batch(timer, routine, batch))
}

/// Relative and absolute half-width of the corrected median's interval, as the stopping rule
/// sees them.
fn precision(workload_ns: &[f64], baseline_ns: &[f64]) -> (f64, f64) {
    let overhead = stats::median(&stats::sorted(baseline_ns));
    let corrected: Vec<f64> = workload_ns
        .iter()
        .map(|w| (w - overhead).max(0.0))
        .collect();
    let corrected = stats::sorted(&corrected);
    let ci = stats::median_ci(&corrected, 0.95);
    let relative = stats::relative_half_width(&ci, stats::median(&corrected));
    (relative, (ci.high - ci.low) / 2.0)
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
