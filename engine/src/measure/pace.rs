//! The clock of one case: its time budget, the length of its steps, and the progress it reports.
//!
//! A case is a sequence of steps: the cold call, tuning batches, warm-up batches, and sampling
//! rounds (one workload and one baseline sample each). [`Pace`] times every step and keeps the
//! longest, so the budget rule can ask whether the next step still fits ([`Pace::fits`]) and
//! the consumer can tell a slow case from a hung one.
//!
//! Progress is reported right after the cold call, then after any step that ends 100 ms or
//! more after the last report: a consumer hears from a slow case after every one of its steps,
//! and from a fast one ten times a second. The fraction is the share of the case's expected
//! wall time spent so far, where the expected time is the budget, or more when the steps still
//! to come (at least one more as long as the last) overrun it. It never goes back and stays
//! below 1 until the case ends, so a case that overruns its budget does not claim 100% from
//! its first sample.

use std::time::{Duration, Instant};

use super::{MeasureConfig, Progress};

/// How often progress is reported at most, unless a step takes longer.
const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// One case's budget, steps and progress.
pub(super) struct Pace<'p> {
    started: Instant,
    deadline: Instant,
    budget: Duration,
    step_started: Instant,
    last_step: Duration,
    longest_step: Duration,
    last_report: Option<Instant>,
    reported: f64,
    progress: &'p mut dyn FnMut(&Progress),
}

impl<'p> Pace<'p> {
    /// The pace of a case starting now, with `cfg`'s budget, reporting to `progress`.
    pub(super) fn new(cfg: &MeasureConfig, progress: &'p mut dyn FnMut(&Progress)) -> Self {
        let now = Instant::now();
        Pace {
            started: now,
            deadline: now + cfg.budget,
            budget: cfg.budget,
            step_started: now,
            last_step: Duration::ZERO,
            longest_step: Duration::ZERO,
            last_report: None,
            reported: 0.0,
            progress,
        }
    }

    /// When the case started.
    pub(super) fn started(&self) -> Instant {
        self.started
    }

    /// When the budget runs out.
    pub(super) fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Ends the step in progress (the next one starts now); `samples` workload samples have
    /// been taken so far. Reports progress after the first step, and after later ones when
    /// 100 ms have passed since the last report.
    pub(super) fn step(&mut self, samples: usize) {
        let now = Instant::now();
        self.last_step = now.duration_since(self.step_started);
        self.longest_step = self.longest_step.max(self.last_step);
        self.step_started = now;
        let due = self
            .last_report
            .is_none_or(|at| now.duration_since(at) >= PROGRESS_EVERY);
        if due {
            self.last_report = Some(now);
            let fraction = self.fraction(now);
            (self.progress)(&Progress {
                samples: samples as u64,
                fraction,
                longest_step_ns: self.longest_step.as_nanos() as f64,
            });
        }
    }

    /// The length of the last step.
    pub(super) fn last_step(&self) -> Duration {
        self.last_step
    }

    /// Whether a step expected to take `next` would end within the budget.
    pub(super) fn fits(&self, next: Duration) -> bool {
        Instant::now() + next <= self.deadline
    }

    /// The share of the case's expected wall time spent at `now` (see the module doc).
    fn fraction(&mut self, now: Instant) -> f64 {
        let spent = now.duration_since(self.started).as_secs_f64();
        let expected = self
            .budget
            .as_secs_f64()
            .max(spent + self.last_step.as_secs_f64());
        let fraction = if expected > 0.0 {
            spent / expected
        } else {
            0.0
        };
        // Below 1 until the case ends: there is always at least one step to come.
        self.reported = self.reported.max(fraction.min(0.99));
        self.reported
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use super::*;
    use crate::measure::{Timer, TimerKind};

    static NEVER: AtomicBool = AtomicBool::new(false);

    fn config(budget: Duration) -> MeasureConfig {
        MeasureConfig::new(
            Timer::calibrate(TimerKind::Instant).unwrap(),
            budget,
            0.01,
            1,
            &NEVER,
        )
    }

    #[test]
    fn a_step_longer_than_the_budget_is_reported_at_once_and_not_as_done() {
        let mut reports = Vec::new();
        let mut record = |p: &Progress| reports.push(*p);
        let cfg = config(Duration::from_millis(10));
        let mut pace = Pace::new(&cfg, &mut record);
        std::thread::sleep(Duration::from_millis(40));
        pace.step(0);
        assert!(!pace.fits(pace.last_step()));
        assert_eq!(reports.len(), 1, "{reports:?}");
        let first = reports[0];
        assert!(first.longest_step_ns >= 40e6, "{first:?}");
        // 40 ms spent, at least 40 more to come: about half, far from done.
        assert!(first.fraction > 0.3 && first.fraction < 0.7, "{first:?}");
    }

    #[test]
    fn short_steps_report_at_most_every_100_ms_and_never_go_back() {
        let mut reports: Vec<(Instant, Progress)> = Vec::new();
        let mut record = |p: &Progress| reports.push((Instant::now(), *p));
        let cfg = config(Duration::from_secs(10));
        let mut pace = Pace::new(&cfg, &mut record);
        for samples in 0..50 {
            std::thread::sleep(Duration::from_millis(5));
            pace.step(samples);
        }
        // At least 250 ms of 5 ms steps: the first step's report, then one per 100 ms at most.
        assert!(reports.len() >= 3 && reports.len() < 50, "{reports:?}");
        for pair in reports.windows(2) {
            let ((at, earlier), (later_at, later)) = (pair[0], pair[1]);
            assert!(later_at.duration_since(at) >= PROGRESS_EVERY);
            assert!(earlier.fraction <= later.fraction);
            assert!(later.samples > earlier.samples);
        }
        assert!(reports
            .iter()
            .all(|(_, p)| p.fraction < 0.5 && p.longest_step_ns >= 5e6));
    }
}
