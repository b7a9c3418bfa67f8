//! Telling a hung case from a slow one: by the absence of progress, not by a fixed wall time.
//!
//! The bench binary reports `progress` during a case, with the longest single step so far
//! (the cold call, a warm-up or tuning batch, a sample: `longest_step_ns`), right after the
//! cold call and after every long step. A case that takes 30 s per call therefore speaks every
//! 30 s or so, and one that takes a microsecond speaks several times a second. A case is taken
//! for hung when nothing was heard from the bench binary for [`STEP_FACTOR`] times its longest
//! step so far, and at least [`FLOOR`] (a step may well take longer than the ones before it:
//! the engine doubles its batches while tuning). While nothing says how long a step takes
//! (before a case's first step reports, between cases, at start-up, at the end of the run, and
//! with engines that do not send `longest_step_ns`) the silence allowed is the configured limit
//! (`--case-timeout`, `caseTimeoutSecs`, default 120 s).

use std::time::Duration;

use knotmeter_format::text::{hung_text, seconds_text};
use tokio::time::Instant;

/// A case is hung after this many times its longest step without a word.
pub const STEP_FACTOR: u32 = 10;
/// ... and never sooner than this, whatever the configured limit before the first step.
pub const FLOOR: Duration = Duration::from_secs(10);

/// The silence allowed now, and what to say when it runs out.
#[derive(Debug, Clone)]
pub struct Silence {
    /// The configured limit: silence allowed while no step has reported.
    limit: Duration,
    /// When the bench binary was last heard (an event on its standard output).
    last_heard: Instant,
    /// The case in progress, if any.
    in_case: bool,
    /// The longest step of the case in progress, once reported.
    longest_step: Option<Duration>,
}

impl Silence {
    /// A watch that starts now, with `limit` allowed before anything reports.
    pub fn new(limit: Duration, now: Instant) -> Self {
        Self {
            limit,
            last_heard: now,
            in_case: false,
            longest_step: None,
        }
    }

    /// The bench binary said something (any event).
    pub fn heard(&mut self, now: Instant) {
        self.last_heard = now;
    }

    /// A case started: nothing is known about its steps yet.
    pub fn case_started(&mut self, now: Instant) {
        self.in_case = true;
        self.longest_step = None;
        self.heard(now);
    }

    /// The case in progress ended.
    pub fn case_ended(&mut self, now: Instant) {
        self.in_case = false;
        self.longest_step = None;
        self.heard(now);
    }

    /// A progress event of the case in progress, with its longest step so far if known.
    pub fn progress(&mut self, longest_step_ns: Option<f64>, now: Instant) {
        if let Some(ns) = longest_step_ns.filter(|ns| ns.is_finite() && *ns >= 0.0) {
            // Capped at a week, so that deadlines stay representable.
            let step = Duration::from_secs_f64((ns / 1e9).min(7.0 * 86_400.0));
            self.longest_step = Some(self.longest_step.map_or(step, |l| l.max(step)));
        }
        self.heard(now);
    }

    /// The silence allowed from the last word.
    pub fn allowed(&self) -> Duration {
        match (self.in_case, self.longest_step) {
            (true, Some(step)) => (step * STEP_FACTOR).max(FLOOR),
            _ => self.limit,
        }
    }

    /// When the silence runs out.
    pub fn deadline(&self) -> Instant {
        self.last_heard + self.allowed()
    }

    /// Why the case in progress (or the bench binary) was taken for hung, said at `now`.
    pub fn explain(&self, now: Instant) -> String {
        let silent = seconds(now.saturating_duration_since(self.last_heard));
        let quiet = now.saturating_duration_since(self.last_heard).as_secs_f64();
        match (self.in_case, self.longest_step) {
            (true, step) => hung_text(
                quiet,
                step.map(|s| s.as_secs_f64()),
                STEP_FACTOR,
                FLOOR.as_secs_f64(),
                "the bench binary",
            ),
            (false, _) => format!(
                "the bench binary said nothing for {silent} outside any case (the limit set by \
                 --case-timeout); it was killed"
            ),
        }
    }
}

/// A duration for people: `120 s`, `1.5 s`, `250 ms`, `2 µs`.
pub fn seconds(d: Duration) -> String {
    seconds_text(d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMIT: Duration = Duration::from_secs(120);

    #[test]
    fn before_any_step_the_configured_limit_applies() {
        let t0 = Instant::now();
        let mut silence = Silence::new(LIMIT, t0);
        assert_eq!(silence.deadline(), t0 + LIMIT);
        silence.case_started(t0 + Duration::from_secs(1));
        assert_eq!(silence.allowed(), LIMIT);
        // A progress event without `longest_step_ns` (an older engine) keeps the limit.
        silence.progress(None, t0 + Duration::from_secs(2));
        assert_eq!(silence.deadline(), t0 + Duration::from_secs(2) + LIMIT);
        assert!(silence
            .explain(t0 + Duration::from_secs(122))
            .contains("first step"));
    }

    #[test]
    fn a_slow_case_gets_ten_times_its_longest_step() {
        let t0 = Instant::now();
        let mut silence = Silence::new(LIMIT, t0);
        silence.case_started(t0);
        // A 30 s cold call: 300 s of silence allowed, well past the 120 s limit.
        silence.progress(Some(30e9), t0 + Duration::from_secs(30));
        assert_eq!(silence.allowed(), Duration::from_secs(300));
        // A shorter step later does not shrink it.
        silence.progress(Some(1e9), t0 + Duration::from_secs(60));
        assert_eq!(silence.deadline(), t0 + Duration::from_secs(360));
    }

    #[test]
    fn a_fast_case_that_falls_silent_is_hung_after_the_floor() {
        let t0 = Instant::now();
        let mut silence = Silence::new(LIMIT, t0);
        silence.case_started(t0);
        silence.progress(Some(2e3), t0 + Duration::from_millis(100));
        assert_eq!(silence.allowed(), FLOOR);
        let text = silence.explain(t0 + Duration::from_secs(11));
        assert!(text.contains("for 11 s"), "{text}");
        assert!(text.contains("longest step so far took 2 µs"), "{text}");
        assert!(text.contains("at least 10 s"), "{text}");
        // A short limit before the first step does not shorten the floor after it: a later
        // step may be longer than the first.
        let mut short = Silence::new(Duration::from_secs(1), t0);
        short.case_started(t0);
        assert_eq!(short.allowed(), Duration::from_secs(1));
        short.progress(Some(1e6), t0);
        assert_eq!(short.allowed(), FLOOR);
    }

    #[test]
    fn between_cases_the_limit_applies_again() {
        let t0 = Instant::now();
        let mut silence = Silence::new(LIMIT, t0);
        silence.case_started(t0);
        silence.progress(Some(1e6), t0);
        silence.case_ended(t0 + Duration::from_secs(1));
        assert_eq!(silence.allowed(), LIMIT);
        assert!(silence
            .explain(t0 + Duration::from_secs(200))
            .contains("outside any case"));
    }

    #[test]
    fn nonsense_step_lengths_are_ignored() {
        let t0 = Instant::now();
        let mut silence = Silence::new(LIMIT, t0);
        silence.case_started(t0);
        silence.progress(Some(f64::NAN), t0);
        silence.progress(Some(-1.0), t0);
        assert_eq!(silence.allowed(), LIMIT);
        silence.progress(Some(f64::INFINITY), t0);
        assert!(silence.allowed() >= LIMIT);
    }
}
