//! Measuring one benchmark on its own: cold call, tuning and warm-up, then workload and empty
//! baseline samples interleaved until the median is precise enough or the budget is spent.

use std::time::Instant;

use super::sampler::Sampler;
use super::schedule::{tune_and_warm, warm_up_deadline, Schedule, Stop};
use super::{MeasureConfig, Measurement};
use crate::{alloc, stats};

/// An interval narrower than this (± nanoseconds) is precise whatever the median: it is far
/// below any clock's resolution, and a relative target means nothing for an estimate near 0.
const ABSOLUTE_PRECISION_NS: f64 = 0.01;

/// Measures one case. `progress(samples, fraction)` is called between samples.
pub(crate) fn measure(
    cfg: &MeasureConfig,
    progress: &mut dyn FnMut(u64, f64),
    sampler: &mut dyn Sampler,
) -> Measurement {
    let started = Instant::now();
    let mut m = Measurement {
        cold_ns: sampler.cold(),
        ..Measurement::default()
    };
    if cfg.run_once || cfg.cancelled() {
        return m.finish(started, cfg.cancelled());
    }
    let ops = tune_and_warm(cfg, sampler, warm_up_deadline(started, cfg.budget));
    m.ops_per_sample = ops;
    if cfg.cancelled() {
        return m.finish(started, true);
    }
    let mut schedule = Schedule::new(cfg, started);
    loop {
        let round = m.workload_ns.len();
        let n = schedule.jittered(ops);
        let (w, b) = if matches!(round % 4, 0 | 3) {
            let w = sampler.workload(n);
            (w, sampler.baseline(n))
        } else {
            let b = sampler.baseline(n);
            (sampler.workload(n), b)
        };
        m.workload_ns.push(w / n as f64);
        m.baseline_ns.push(b / n as f64);
        match schedule.stop(cfg, round + 1, || precise(&m, cfg.target_precision)) {
            Stop::No => schedule.progress(round + 1, progress),
            Stop::Precise | Stop::Full => break,
            Stop::Budget => {
                m.budget_exhausted = true;
                break;
            }
            Stop::Cancelled => return m.finish(started, true),
        }
    }
    if alloc::installed() {
        m.allocations = Some(sampler.allocations(ops));
    }
    m.finish(started, false)
}

/// Whether the corrected median's interval is within the target, relatively or absolutely.
fn precise(m: &Measurement, target: f64) -> bool {
    let overhead = stats::median(&stats::sorted(&m.baseline_ns));
    let corrected: Vec<f64> = m
        .workload_ns
        .iter()
        .map(|w| (w - overhead).max(0.0))
        .collect();
    let corrected = stats::sorted(&corrected);
    let ci = stats::median_ci(&corrected, 0.95);
    stats::relative_half_width(&ci, stats::median(&corrected)) <= target
        || (ci.high - ci.low) / 2.0 <= ABSOLUTE_PRECISION_NS
}

#[cfg(test)]
mod tests {
    //! The stopping rule's bounds, with fake samplers whose "times" cost no time to take.

    use std::sync::atomic::AtomicBool;
    use std::time::{Duration, Instant};

    use super::*;
    use crate::measure::{Timer, TimerKind};

    static NEVER: AtomicBool = AtomicBool::new(false);

    /// A sampler reporting `per_op(i)` nanoseconds per operation for its i-th sample, after
    /// really sleeping `sleep` (to make the budget run out).
    struct Fake<F: FnMut(usize) -> f64> {
        per_op: F,
        calls: usize,
        sleep: Duration,
    }

    impl<F: FnMut(usize) -> f64> Sampler for Fake<F> {
        fn cold(&mut self) -> f64 {
            1.0
        }
        fn workload(&mut self, ops: u64) -> f64 {
            self.calls += 1;
            std::thread::sleep(self.sleep);
            (self.per_op)(self.calls) * ops as f64 + 20_000.0
        }
        fn baseline(&mut self, ops: u64) -> f64 {
            ops as f64 * 0.25
        }
        fn allocations(&mut self, _: u64) -> (f64, f64) {
            (0.0, 0.0)
        }
    }

    fn config(budget: Duration) -> MeasureConfig {
        MeasureConfig {
            timer: Timer::calibrate(TimerKind::Instant).unwrap(),
            budget,
            target_precision: 0.01,
            seed: 7,
            run_once: false,
            cancel: &NEVER,
        }
    }

    #[test]
    fn steady_work_stops_on_precision_after_the_minimums() {
        let cfg = config(Duration::from_millis(500));
        let started = Instant::now();
        let sleep = Duration::from_micros(20);
        let m = measure(
            &cfg,
            &mut |_, _| {},
            &mut Fake {
                per_op: |_| 10.0,
                calls: 0,
                sleep,
            },
        );
        let elapsed = started.elapsed();
        assert!(!m.budget_exhausted, "{m:?}");
        assert!(
            m.workload_ns.len() >= 100,
            "at least 100 samples before a precision stop"
        );
        assert!(
            elapsed >= cfg.budget / 10,
            "at least a tenth of the budget: {elapsed:?}"
        );
        assert!(elapsed < cfg.budget, "stopped early: {elapsed:?}");
    }

    #[test]
    fn noisy_work_stops_at_the_budget_and_says_so() {
        let cfg = config(Duration::from_millis(200));
        let started = Instant::now();
        // Alternates between 10 and 30 µs per operation: the median's interval never narrows
        // to ±1%, whatever operation count tuning picks. (With 10 and 30 ns, the fake's fixed
        // 20 µs per sample dominated at one operation per sample, which tuning picks when the
        // clock is coarse: the samples then differed by 0.1% and the run stopped as precise.)
        let sleep = Duration::from_micros(50);
        let m = measure(
            &cfg,
            &mut |_, _| {},
            &mut Fake {
                per_op: |i| if i % 2 == 0 { 10_000.0 } else { 30_000.0 },
                calls: 0,
                sleep,
            },
        );
        let elapsed = started.elapsed();
        assert!(m.budget_exhausted, "{} samples", m.workload_ns.len());
        assert!(
            elapsed >= cfg.budget && elapsed < cfg.budget * 2,
            "{elapsed:?}"
        );
    }

    #[test]
    fn slow_work_still_takes_five_samples() {
        let cfg = config(Duration::from_millis(50));
        // Every sample takes 30 ms: the budget is gone after two.
        let m = measure(
            &cfg,
            &mut |_, _| {},
            &mut Fake {
                per_op: |_| 1e6,
                calls: 0,
                sleep: Duration::from_millis(30),
            },
        );
        assert_eq!(m.workload_ns.len(), 5);
        assert!(m.budget_exhausted);
    }

    #[test]
    fn samples_are_stretched_by_up_to_a_fifth() {
        let cfg = config(Duration::from_millis(100));
        let mut ops_seen = Vec::new();
        struct Recording<'a>(&'a mut Vec<u64>);
        impl Sampler for Recording<'_> {
            fn cold(&mut self) -> f64 {
                1.0
            }
            fn workload(&mut self, ops: u64) -> f64 {
                self.0.push(ops);
                ops as f64 * 100.0
            }
            fn baseline(&mut self, ops: u64) -> f64 {
                ops as f64
            }
            fn allocations(&mut self, _: u64) -> (f64, f64) {
                (0.0, 0.0)
            }
        }
        let m = measure(&cfg, &mut |_, _| {}, &mut Recording(&mut ops_seen));
        let tuned = m.ops_per_sample;
        let sampled = &ops_seen[ops_seen.len() - m.workload_ns.len()..];
        assert!(
            sampled
                .iter()
                .all(|&ops| ops >= tuned && ops <= tuned + tuned / 5),
            "{tuned}: {sampled:?}"
        );
        assert!(sampled.iter().any(|&ops| ops != tuned), "the length varies");
    }
}
