//! Measuring one benchmark on its own: cold call, tuning and warm-up, then workload and empty
//! baseline samples interleaved until the median is precise enough or the budget is spent.

use std::time::Instant;

use super::pace::Pace;
use super::region;
use super::sampler::Sampler;
use super::schedule::{
    reuse_tuning_sample, tune_only, warm_only, warm_up_deadline, Schedule, Stop,
};
use super::{MeasureConfig, Measurement, Progress};
use crate::{alloc, stats};

/// An interval narrower than this (± nanoseconds) is precise whatever the median: it is far
/// below any clock's resolution, and a relative target means nothing for an estimate near 0.
const ABSOLUTE_PRECISION_NS: f64 = 0.01;

/// Measures one case. `progress` hears after the cold call and then after every long step
/// (see `pace`).
pub(crate) fn measure(
    cfg: &MeasureConfig,
    progress: &mut dyn FnMut(&Progress),
    sampler: &mut dyn Sampler,
) -> Measurement {
    let started = Instant::now();
    let mut pace = Pace::new(cfg, progress);
    let mut m = Measurement {
        cold_ns: sampler.cold(),
        self_timed: sampler.self_timed(),
        ..Measurement::default()
    };
    pace.step(0);
    if cfg.run_once || cfg.cancelled() {
        return m.finish(started, cfg.cancelled());
    }
    let warm_deadline = warm_up_deadline(&pace, cfg.budget);
    let tuned = tune_only(cfg, sampler, &mut pace, warm_deadline);
    let tuning_step = pace.last_step();
    let warm_batches = warm_only(sampler, tuned.ops, &mut pace, warm_deadline);
    let ops = tuned.ops;
    m.ops_per_sample = ops;
    if cfg.cancelled() {
        return m.finish(started, true);
    }
    let mut schedule = Schedule::new(cfg);
    if reuse_tuning_sample(tuned, warm_batches) {
        // Round 0 is workload first: the tuning sample was it.
        m.workload_ns.push(tuned.last_ns);
        m.baseline_ns.push(sampler.baseline(1));
        pace.step(1);
        schedule.round_took(tuning_step + pace.last_step());
    }
    let _sampling = region::sampling();
    loop {
        let round = m.workload_ns.len();
        if round > 0 {
            match schedule.stop(cfg, &pace, round, || precise(&m, cfg.target_precision)) {
                Stop::No => {}
                Stop::Precise | Stop::Full => break,
                Stop::Budget => {
                    m.budget_exhausted = true;
                    break;
                }
                Stop::Cancelled => return m.finish(started, true),
            }
        }
        let round_started = Instant::now();
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
        pace.step(round + 1);
        schedule.round_took(round_started.elapsed());
    }
    if cfg.count_allocations && alloc::installed() {
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

    /// A sampler reporting `per_op(i)` nanoseconds per operation for its i-th sample, plus
    /// `fixed_ns` per sample, after really sleeping `sleep` (to make the budget run out).
    struct Fake<F: FnMut(usize) -> f64> {
        per_op: F,
        fixed_ns: f64,
        calls: usize,
        sleep: Duration,
        /// When each workload batch began.
        starts: Vec<Instant>,
    }

    impl<F: FnMut(usize) -> f64> Fake<F> {
        fn new(per_op: F, sleep: Duration) -> Self {
            Fake {
                per_op,
                fixed_ns: 20_000.0,
                calls: 0,
                sleep,
                starts: Vec::new(),
            }
        }
    }

    impl<F: FnMut(usize) -> f64> Sampler for Fake<F> {
        fn cold(&mut self) -> f64 {
            1.0
        }
        fn workload(&mut self, ops: u64) -> f64 {
            self.calls += 1;
            self.starts.push(Instant::now());
            std::thread::sleep(self.sleep);
            (self.per_op)(self.calls) * ops as f64 + self.fixed_ns
        }
        fn baseline(&mut self, ops: u64) -> f64 {
            ops as f64 * 0.25
        }
        fn allocations(&mut self, _: u64) -> (f64, f64) {
            (0.0, 0.0)
        }
    }

    fn config(budget: Duration) -> MeasureConfig {
        MeasureConfig::new(
            Timer::calibrate(TimerKind::Instant).unwrap(),
            budget,
            0.01,
            7,
            &NEVER,
        )
    }

    #[test]
    fn steady_work_stops_on_precision_after_the_minimums() {
        let cfg = config(Duration::from_millis(500));
        let started = Instant::now();
        let sleep = Duration::from_micros(20);
        // Steady: every sample the same time per operation. (With the fake's fixed 20 µs per
        // sample on 10 ns of work, a coarse clock under load tuned 8 operations, the lengths
        // jittered between 8 and 9, and the per-operation times between two values 12% apart,
        // whose median never narrows: the run hit the budget, in CI once. No real sample
        // carries a fixed cost that large beside its work: tuning lengthens such samples.)
        let mut fake = Fake::new(|_| 10.0, sleep);
        fake.fixed_ns = 0.0;
        let m = measure(&cfg, &mut |_| {}, &mut fake);
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
            &mut |_| {},
            &mut Fake::new(|i| if i % 2 == 0 { 10_000.0 } else { 30_000.0 }, sleep),
        );
        let elapsed = started.elapsed();
        assert!(m.budget_exhausted, "{} samples", m.workload_ns.len());
        // It stops when the next round would overrun: most of the budget is used, no more.
        assert!(
            elapsed >= cfg.budget * 9 / 10 && elapsed < cfg.budget * 2,
            "{elapsed:?}"
        );
    }

    #[test]
    fn slow_work_stays_within_about_the_budget_with_fewer_samples() {
        // Every call takes 30 ms against a 50 ms budget: after the cold call (instant here)
        // and one sample, a second would end at ~60 ms. Once, the engine took five samples
        // whatever the budget, and a 30 s call cost 210 s under `--quick`.
        let cfg = config(Duration::from_millis(50));
        let mut fake = Fake::new(|_| 30e6, Duration::from_millis(30));
        let m = measure(&cfg, &mut |_| {}, &mut fake);
        assert_eq!(m.workload_ns.len(), 1, "{m:?}");
        assert_eq!(fake.calls, 1, "the tuning sample is the sample");
        assert!(m.budget_exhausted);
        assert_eq!(m.ops_per_sample, 1);
    }

    #[test]
    fn a_call_longer_than_the_budget_costs_the_cold_call_and_one_more() {
        // 120 ms calls against a 5 ms budget.
        let cfg = config(Duration::from_millis(5));
        let mut reports = Vec::new();
        let mut fake = Fake::new(|_| 120e6, Duration::from_millis(120));
        let m = measure(&cfg, &mut |p| reports.push(*p), &mut fake);
        assert_eq!((fake.calls, m.workload_ns.len()), (1, 1), "{m:?}");
        assert!(m.budget_exhausted);
        // Heard from after the cold call and after the long sample, never as done.
        assert_eq!(reports.len(), 2, "{reports:?}");
        assert!(reports[1].longest_step_ns >= 120e6, "{reports:?}");
        assert!(reports.iter().all(|p| p.fraction < 1.0));
    }

    #[test]
    fn no_batch_starts_that_would_end_after_the_budget() {
        // 4 ms per call against a 100 ms budget: tuning takes one call, warm-up what fits in
        // 20 ms, and sampling goes on while the next round still fits.
        let cfg = config(Duration::from_millis(100));
        let started = Instant::now();
        let mut fake = Fake::new(|_| 4e6, Duration::from_millis(4));
        let m = measure(&cfg, &mut |_| {}, &mut fake);
        let calls = fake.calls;
        assert!(m.budget_exhausted, "{m:?}");
        assert!(m.workload_ns.len() >= 2, "{}", m.workload_ns.len());
        // A round is predicted to last as long as the last one (at least the 4 ms sleep), so
        // none starts later than 4 ms before the end of the budget.
        let latest = fake.starts.iter().max().unwrap().duration_since(started);
        assert!(
            latest + Duration::from_millis(4) <= cfg.budget + Duration::from_millis(1),
            "a 4 ms call began {latest:?} into a 100 ms budget ({calls} calls)"
        );
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
        let m = measure(&cfg, &mut |_| {}, &mut Recording(&mut ops_seen));
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
