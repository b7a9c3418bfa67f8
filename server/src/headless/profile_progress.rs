//! What `knotmeter profile` and `knotmeter compare --profile` show on standard error while they
//! work. On a terminal: a spinner with cargo's current step while the profile build runs, then
//! a bar of the case's budget spent under the profiler with the time elapsed (the bench
//! binary's own progress; a profiler slows the case, callgrind some fifty times), then a
//! spinner while perf's samples are read. Elsewhere (a pipe, a CI log): cargo's lines and one
//! line a phase. Either way the lines cargo and the profiler's command print stay above.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use crate::cargo_build::BuildEvent;
use crate::profile::compared::Side;
use crate::profile::ProfileEvent;

/// The bar's steps: a case's fraction of its budget, to a thousandth.
const STEPS: u64 = 1000;

/// The progress of one profile, or of one on each side.
pub(super) struct ProfileProgress {
    /// The bar, on a terminal.
    bar: Option<ProgressBar>,
    /// The case, as the bar names it.
    id: String,
    /// The profiler's program, as the bar names it.
    program: &'static str,
}

impl ProfileProgress {
    /// Progress of profiling `id` with `program` (`callgrind` or `perf`): a bar when standard
    /// error is a terminal.
    pub(super) fn new(id: &str, program: &'static str) -> Self {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new_spinner();
            bar.set_style(spinner_style());
            bar.enable_steady_tick(Duration::from_millis(120));
            bar.set_message("building");
            bar
        });
        Self {
            bar,
            id: id.to_owned(),
            program,
        }
    }

    /// Shows `event`, of `side` when two builds are profiled.
    pub(super) fn event(&self, side: Option<Side>, event: ProfileEvent) {
        let of_side = side.map_or(String::new(), |side| format!("the {}: ", side.name()));
        match event {
            ProfileEvent::Build(BuildEvent::Output(line)) => self.line(&line),
            ProfileEvent::Build(BuildEvent::Progress(step)) => {
                if let Some(bar) = &self.bar {
                    bar.set_message(format!("{of_side}building: {step}"));
                }
            }
            ProfileEvent::Counting(command) => {
                self.line(&format!("knotmeter: {of_side}{command}"));
                if let Some(bar) = &self.bar {
                    bar.set_style(
                        ProgressStyle::with_template(
                            "{bar:20} {percent:>3}% {elapsed:>4} {wide_msg}",
                        )
                        .expect("a valid template"),
                    );
                    bar.set_length(STEPS);
                    bar.set_position(0);
                    bar.reset_elapsed();
                    bar.set_message(format!(
                        "{of_side}profiling {} under {}",
                        self.id, self.program
                    ));
                }
            }
            ProfileEvent::Progress(fraction) => {
                if let Some(bar) = &self.bar {
                    bar.set_position(steps(fraction));
                }
            }
            ProfileEvent::Reading => match &self.bar {
                Some(bar) => {
                    bar.set_style(spinner_style());
                    bar.set_message(format!("{of_side}reading perf's samples"));
                }
                None => self.line(&format!("knotmeter: {of_side}reading perf's samples")),
            },
        }
    }

    /// Clears the bar: what is said next stands alone.
    pub(super) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    /// A line above the bar, or alone.
    pub(super) fn line(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => eprintln!("{line}"),
        }
    }
}

impl Drop for ProfileProgress {
    /// The bar goes, whichever way the profile ended, before what is said after it.
    fn drop(&mut self) {
        self.finish();
    }
}

/// The spinner of the build and of reading perf's samples, with the time it has taken.
fn spinner_style() -> ProgressStyle {
    ProgressStyle::with_template("{spinner} {elapsed:>4} {wide_msg}").expect("a valid template")
}

/// A fraction of the budget as the bar's steps (a fraction past the whole is the whole).
fn steps(fraction: f64) -> u64 {
    (fraction.clamp(0.0, 1.0) * STEPS as f64).round() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fraction_of_the_budget_is_the_bars_steps() {
        assert_eq!(steps(0.0), 0);
        assert_eq!(steps(0.3001), 300);
        assert_eq!(steps(1.7), STEPS);
        assert_eq!(steps(-1.0), 0);
        assert_eq!(steps(f64::NAN), 0, "NaN clamps to NaN, and `as` makes it 0");
    }
}
