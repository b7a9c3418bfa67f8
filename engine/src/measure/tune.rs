//! Tuning and warm-up: choosing the operations per sample and waiting for steady state.
//!
//! A sample must be long enough that the clock's precision and the cost of reading it are
//! negligible: at least 1000× both, and never under 10 µs (BenchmarkDotNet and divan aim for
//! 100× or more). Tuning starts at one operation and grows geometrically towards that length.
//! Warm-up then keeps sampling at the tuned count until two consecutive windows of samples
//! agree within 2%, so caches, branch predictors and CPU frequency have settled, bounded by a
//! fifth of the case's budget. Neither starts a sample that would end past its deadline (the
//! last sample's length predicts the next one's).

use std::time::{Duration, Instant};

use super::timer::Timer;

/// Shortest sample the tuner accepts, whatever the clock.
const MIN_SAMPLE: Duration = Duration::from_micros(10);
/// How many multiples of the clock's precision and read cost one sample must span.
const CLOCK_MULTIPLE: f64 = 1_000.0;
/// Samples per warm-up window.
const WINDOW: usize = 5;
/// Agreement between consecutive warm-up windows that counts as steady.
const STEADY: f64 = 0.02;

/// The sample length tuning aims for, in nanoseconds.
pub(super) fn target_sample_ns(timer: &Timer) -> f64 {
    (timer.precision_ns.max(timer.read_cost_ns) * CLOCK_MULTIPLE).max(MIN_SAMPLE.as_nanos() as f64)
}

/// Grows the operation count until one sample reaches `target_ns`, or until the next, larger
/// sample would end after `deadline`. `sample(ops)` times `ops` operations and returns
/// nanoseconds.
pub(super) fn tune(target_ns: f64, deadline: Instant, mut sample: impl FnMut(u64) -> f64) -> u64 {
    let mut ops: u64 = 1;
    loop {
        let ns = sample(ops);
        if ns >= target_ns {
            return ops;
        }
        // Aim straight at the target once a sample is long enough to be trusted, but never
        // grow more than 10× at once: early samples are dominated by cold effects.
        let growth = if ns > 0.0 {
            (target_ns / ns).clamp(2.0, 10.0)
        } else {
            10.0
        };
        let next = Duration::from_nanos((ns * growth).min(1e18) as u64);
        if Instant::now() + next > deadline {
            return ops;
        }
        ops = ((ops as f64 * growth).ceil() as u64).min(u64::MAX / 4);
    }
}

/// Samples at `ops` until the per-operation time stops trending, or until the next sample
/// would end after `deadline`; returns how many samples it took.
pub(super) fn warm_up(ops: u64, deadline: Instant, mut sample: impl FnMut(u64) -> f64) -> usize {
    let mut previous: Option<f64> = None;
    let mut window = Vec::with_capacity(WINDOW);
    let mut taken = 0;
    let mut last = Duration::ZERO;
    while Instant::now() + last <= deadline {
        let started = Instant::now();
        window.push(sample(ops));
        last = started.elapsed();
        taken += 1;
        if window.len() < WINDOW {
            continue;
        }
        window.sort_by(f64::total_cmp);
        let median = window[WINDOW / 2];
        window.clear();
        if let Some(previous) = previous {
            if previous > 0.0 && (median / previous - 1.0).abs() <= STEADY {
                break;
            }
        }
        previous = Some(median);
    }
    taken
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tune_reaches_the_target() {
        // A fake operation of 3 ns.
        let ops = tune(20_000.0, Instant::now() + Duration::from_secs(1), |ops| {
            ops as f64 * 3.0
        });
        assert!(ops as f64 * 3.0 >= 20_000.0, "{ops}");
        assert!(ops as f64 * 3.0 < 20_000.0 * 10.0, "{ops}");
    }

    #[test]
    fn tune_stops_at_the_deadline() {
        let ops = tune(1e12, Instant::now(), |_| 1.0);
        assert_eq!(ops, 1);
    }

    #[test]
    fn tune_does_not_start_a_batch_that_would_end_after_the_deadline() {
        // 2 ms per operation against a 1 s target: the next batch (10 operations, 20 ms) would
        // end after a deadline 10 ms away.
        let mut batches = 0;
        let ops = tune(1e9, Instant::now() + Duration::from_millis(10), |ops| {
            batches += 1;
            ops as f64 * 2e6
        });
        assert_eq!((ops, batches), (1, 1));
    }

    #[test]
    fn warm_up_does_not_start_a_sample_that_would_end_after_the_deadline() {
        let mut calls = 0;
        let taken = warm_up(1, Instant::now() + Duration::from_millis(50), |_| {
            calls += 1;
            std::thread::sleep(Duration::from_millis(30));
            30e6
        });
        // The first sample ends after ~30 ms; a second would end after ~60 ms.
        assert_eq!((taken, calls), (1, 1));
    }

    #[test]
    fn slow_operation_needs_one_op() {
        let ops = tune(20_000.0, Instant::now() + Duration::from_secs(1), |ops| {
            ops as f64 * 1e6
        });
        assert_eq!(ops, 1);
    }

    #[test]
    fn warm_up_ends_when_steady() {
        let mut calls = 0;
        // Slows down for the first 12 samples (a cold cache), then stays at 100 ns.
        let taken = warm_up(1, Instant::now() + Duration::from_secs(5), |_| {
            calls += 1;
            if calls < 12 {
                200.0 - calls as f64 * 8.0
            } else {
                100.0
            }
        });
        assert!((15..=25).contains(&calls), "{calls}");
        assert_eq!(taken, calls);
    }
}
