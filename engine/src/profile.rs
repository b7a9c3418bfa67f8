//! Quick ad-hoc timing (seed 002's `Profile` helpers), through the engine's own loop.
//!
//! ```
//! let report = knotmeter::profile(1_000, || (0..100u64).map(|x| x * x).sum::<u64>());
//! println!("{}", report.format("{runs} runs in {time} ({frequency} per second)").unwrap());
//!
//! let first = knotmeter::profile_with_first(100, || std::fs::metadata("."));
//! println!("{first}"); // "first call 41.2 µs; then 99 runs in 310 µs (319 000 /s)"
//! ```
//!
//! These time one batch and print it; they make no statistical claims. For figures you can
//! trust and compare, write a `#[bench]`.

use std::fmt;
use std::sync::OnceLock;

use crate::measure::routine::{time_batch, Batch};
use crate::measure::{Timer, TimerKind};
use knotmeter_format::units::{format_duration_ns, format_rate, group_digits};

/// The placeholders a [`ProfileReport::format`] template may use.
pub const PLACEHOLDERS: [&str; 4] = ["{runs}", "{time}", "{frequency}", "{first}"];

/// What [`profile`] or [`profile_with_first`] measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProfileReport {
    /// Calls timed together (the first call excluded for [`profile_with_first`]).
    pub runs: u64,
    /// Their total time, in nanoseconds, less one clock read.
    pub total_ns: f64,
    /// The first call, timed on its own, for [`profile_with_first`].
    pub first_ns: Option<f64>,
}

/// A template placeholder that [`ProfileReport::format`] does not know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError {
    /// The unknown placeholder, braces included.
    pub placeholder: String,
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown placeholder `{}` in the profile template; allowed: {} (write `{{{{` and `}}}}` for literal braces)",
            self.placeholder,
            PLACEHOLDERS.join(", ")
        )
    }
}

impl std::error::Error for TemplateError {}

fn timer() -> &'static Timer {
    static TIMER: OnceLock<Timer> = OnceLock::new();
    TIMER.get_or_init(|| {
        Timer::calibrate(TimerKind::Instant).expect("the OS clock is always available")
    })
}

fn time_runs<O>(runs: u64, routine: &mut impl FnMut() -> O) -> f64 {
    if runs == 0 {
        return 0.0;
    }
    let timer = timer();
    let mut batch = Batch::<(), O>::with_capacity(runs as usize);
    batch.fill(runs as usize, &mut || ());
    let mut call = |()| routine();
    (timer.ticks_to_ns(time_batch(timer, &mut call, &mut batch, false)) - timer.read_cost_ns)
        .max(0.0)
}

/// Calls `routine` `runs` times in the engine's timed loop and reports the total.
pub fn profile<O>(runs: u64, mut routine: impl FnMut() -> O) -> ProfileReport {
    ProfileReport {
        runs,
        total_ns: time_runs(runs, &mut routine),
        first_ns: None,
    }
}

/// Times the first (cold) call on its own, then the remaining `runs - 1` together.
pub fn profile_with_first<O>(runs: u64, mut routine: impl FnMut() -> O) -> ProfileReport {
    let first_ns = time_runs(1.min(runs), &mut routine);
    let rest = runs.saturating_sub(1);
    ProfileReport {
        runs: rest,
        total_ns: time_runs(rest, &mut routine),
        first_ns: (runs > 0).then_some(first_ns),
    }
}

impl ProfileReport {
    /// Calls per second over the timed runs.
    pub fn frequency(&self) -> f64 {
        if self.total_ns > 0.0 {
            self.runs as f64 * 1e9 / self.total_ns
        } else {
            f64::INFINITY
        }
    }

    /// Fills a template: `{runs}` (digit-grouped), `{time}` (human units), `{frequency}`
    /// (calls per second, digit-grouped) and `{first}` (the cold call, or `n/a`).
    pub fn format(&self, template: &str) -> Result<String, TemplateError> {
        let mut out = String::with_capacity(template.len() + 16);
        let mut rest = template;
        while let Some(open) = rest.find(['{', '}']) {
            out.push_str(&rest[..open]);
            let tail = &rest[open..];
            if tail.starts_with("{{") || tail.starts_with("}}") {
                out.push_str(&tail[..1]);
                rest = &tail[2..];
                continue;
            }
            let close = tail
                .find('}')
                .filter(|_| tail.starts_with('{'))
                .ok_or_else(|| TemplateError {
                    placeholder: tail.chars().take(12).collect(),
                })?;
            let placeholder = &tail[..=close];
            out.push_str(&match placeholder {
                "{runs}" => group_digits(self.runs),
                "{time}" => format_duration_ns(self.total_ns),
                "{frequency}" => format_rate(self.frequency()),
                "{first}" => self
                    .first_ns
                    .map_or_else(|| "n/a".to_owned(), format_duration_ns),
                _ => {
                    return Err(TemplateError {
                        placeholder: placeholder.to_owned(),
                    })
                }
            });
            rest = &tail[close + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }
}

impl fmt::Display for ProfileReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let template = if self.first_ns.is_some() {
            "first call {first}; then {runs} runs in {time} ({frequency} /s)"
        } else {
            "{runs} runs in {time} ({frequency} /s)"
        };
        f.write_str(
            &self
                .format(template)
                .expect("the built-in templates are valid"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_fills_placeholders() {
        let report = ProfileReport {
            runs: 1_234_567,
            total_ns: 2.5e9,
            first_ns: None,
        };
        let text = report
            .format("{runs} runs in {time}: {frequency}/s {{literal}}")
            .unwrap();
        assert_eq!(text, "1 234 567 runs in 2.50 s: 493 827/s {literal}");
    }

    #[test]
    fn unknown_placeholder_names_the_allowed_ones() {
        let report = profile(10, || 1 + 1);
        let err = report.format("{runs} in {duration}").unwrap_err();
        assert_eq!(err.placeholder, "{duration}");
        let message = err.to_string();
        for allowed in PLACEHOLDERS {
            assert!(message.contains(allowed), "{message}");
        }
    }

    #[test]
    fn with_first_times_the_first_call_apart() {
        let mut calls = 0u32;
        let report = profile_with_first(50, || {
            calls += 1;
            if calls == 1 {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        });
        assert_eq!(calls, 50);
        assert_eq!(report.runs, 49);
        assert!(report.first_ns.unwrap() >= 5e6, "{report:?}");
        assert!(report.total_ns < 5e6, "{report:?}");
        assert!(report.to_string().starts_with("first call "), "{report}");
    }
}
