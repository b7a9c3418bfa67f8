//! The pretty table's status line: on a terminal, one line below the finished rows says which
//! case is being measured and how far it has got, redrawn on every progress event (`\r`, the
//! line, then erase to its end); a finished row, or any other line, replaces it.
//!
//! The cases of a run are measured in rounds, interleaved, so rows are printed as cases finish,
//! not as they start. Without a terminal (a log file, a pipe) there is no status line: the
//! finished rows alone.

use super::style::{Painter, Tone};
use crate::measure::Progress;

/// Erases from the cursor to the end of the line.
const ERASE: &str = "\x1b[K";

/// The status line, if one is shown.
#[derive(Debug)]
pub(crate) struct InProgress {
    /// Draw a status line at all (a terminal).
    live: bool,
    /// A status line is on the screen.
    shown: bool,
}

impl InProgress {
    /// No status line yet; one is drawn only when `live` (on a terminal).
    pub(crate) fn new(live: bool) -> Self {
        InProgress { live, shown: false }
    }

    /// The redrawn status line after `progress` of the case labelled `label`, on a terminal.
    pub(crate) fn progress(
        &mut self,
        label: &str,
        progress: &Progress,
        painter: Painter,
    ) -> Option<String> {
        if !self.live {
            return None;
        }
        self.shown = true;
        let status = format!(
            "measuring {label}… {:.0}% · {} samples",
            progress.fraction * 100.0,
            progress.samples
        );
        Some(format!("\r{}{ERASE}", painter.paint(Tone::Dim, &status)))
    }

    /// The text that ends the status line before another line is written: erased on a
    /// terminal, nothing otherwise.
    pub(crate) fn interrupt(&mut self) -> String {
        if std::mem::take(&mut self.shown) {
            format!("\r{ERASE}")
        } else {
            String::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No colour, so the expected text is readable.
    fn plain() -> Painter {
        Painter::new(false)
    }

    fn progress() -> Progress {
        Progress {
            samples: 120,
            fraction: 0.374,
            longest_step_ns: 1e6,
        }
    }

    #[test]
    fn in_a_log_there_is_no_status_line() {
        let mut line = InProgress::new(false);
        assert_eq!(line.progress("plain", &progress(), plain()), None);
        assert_eq!(line.interrupt(), "");
    }

    #[test]
    fn on_a_terminal_the_status_line_is_redrawn_and_erased_before_a_row() {
        let mut line = InProgress::new(true);
        assert_eq!(line.interrupt(), "");
        assert_eq!(
            line.progress("plain", &progress(), plain()).unwrap(),
            "\rmeasuring plain… 37% · 120 samples\x1b[K"
        );
        assert_eq!(line.interrupt(), "\r\x1b[K");
        assert_eq!(line.interrupt(), "");
    }
}
