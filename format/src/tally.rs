//! Counting a run's items by how they ended, and the closing line that says it:
//! `6 passed, 2 warned, 1 failed, 7 skipped in 8.40 s`.

use knotmeter_protocol::Outcome;

use crate::units::format_duration_ns;

/// How many items of a run ended which way. A warned item is not a passed one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Measured without a warning.
    pub passed: u64,
    /// Measured, with a warning that says the figure may be wrong.
    pub warned: u64,
    /// Cut short by a cancel, with the samples taken until then.
    pub partial: u64,
    /// Panicked or declared wrongly.
    pub failed: u64,
    /// Could not be built or run (a compile error, a crash, a hang).
    pub errored: u64,
    /// Not measured (the run was cancelled before it).
    pub skipped: u64,
}

impl Tally {
    /// Counts a measured item by its outcome.
    pub fn measured(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Passed => self.passed += 1,
            Outcome::Warned => self.warned += 1,
            Outcome::Partial => self.partial += 1,
        }
    }

    /// The counts as words, zero counts left out (but never an empty text):
    /// `6 passed, 2 warned, 10 skipped`.
    pub fn text(&self) -> String {
        let counts = [
            (self.passed, "passed"),
            (self.warned, "warned"),
            (self.partial, "partial"),
            (self.failed, "failed"),
            (self.errored, "errored"),
            (self.skipped, "skipped"),
        ];
        let words: Vec<String> = counts
            .iter()
            .filter(|(count, _)| *count > 0)
            .map(|(count, word)| format!("{count} {word}"))
            .collect();
        if words.is_empty() {
            "nothing ran".to_owned()
        } else {
            words.join(", ")
        }
    }

    /// The closing line of a run: the counts, then `in 8.40 s` or `, cancelled after 8.40 s`.
    pub fn closing_line(&self, wall_ns: f64, cancelled: bool) -> String {
        let wall = format_duration_ns(wall_ns);
        if cancelled {
            format!("{}, cancelled after {wall}", self.text())
        } else {
            format!("{} in {wall}", self.text())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warned_and_skipped_items_are_counted_apart_from_passed_ones() {
        let mut tally = Tally::default();
        for outcome in [Outcome::Passed, Outcome::Warned, Outcome::Passed] {
            tally.measured(outcome);
        }
        tally.skipped = 10;
        assert_eq!(tally.text(), "2 passed, 1 warned, 10 skipped");
        assert_eq!(
            tally.closing_line(8.4e9, true),
            "2 passed, 1 warned, 10 skipped, cancelled after 8.40 s"
        );
        tally.measured(Outcome::Partial);
        tally.failed = 1;
        assert_eq!(
            tally.closing_line(8.4e9, false),
            "2 passed, 1 warned, 1 partial, 1 failed, 10 skipped in 8.40 s"
        );
        assert_eq!(Tally::default().text(), "nothing ran");
    }
}
