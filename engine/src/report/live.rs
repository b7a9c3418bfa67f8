//! The pretty table's in-progress line: a case's row is begun before the case runs, so a crash
//! leaves the name of the case that was running as the last line of the output.
//!
//! Without a terminal (a log file, a pipe), the row's label cell is written when the case
//! starts and the rest of the row when it ends, as libtest writes `test name ... ` before a
//! test runs. On a terminal the line also says how far the case has got, redrawn on every
//! progress event (`\r`, the line, then erase to its end), and the finished row replaces it.
//!
//! Only one row is begun at a time: the members of a pair are measured together, and the
//! second's row is written whole once the first's is done.

use super::style::{Painter, Tone};
use crate::measure::Progress;

/// Erases from the cursor to the end of the line.
const ERASE: &str = "\x1b[K";

/// The row begun on the current line, if any.
#[derive(Debug)]
pub(crate) struct InProgress {
    /// Redraw the line (a terminal) or only append to it.
    live: bool,
    /// The case whose row is begun, and the text written for it.
    open: Option<(String, String)>,
}

impl InProgress {
    /// No row begun yet; `live` on a terminal.
    pub(crate) fn new(live: bool) -> Self {
        InProgress { live, open: None }
    }

    /// Whether a row is begun (a new case then does not begin its own).
    pub(crate) fn is_open(&self) -> bool {
        self.open.is_some()
    }

    /// Begins the row of case `id` with `prefix` (its label cell and the gap after it), and
    /// returns the text to write.
    pub(crate) fn begin(&mut self, id: &str, prefix: String, painter: Painter) -> String {
        let text = if self.live {
            format!("{prefix}{}", painter.paint(Tone::Dim, "running…"))
        } else {
            prefix.clone()
        };
        self.open = Some((id.to_owned(), prefix));
        text
    }

    /// The redrawn line after `progress` of case `id`, on a terminal, if its row is begun.
    pub(crate) fn progress(
        &self,
        id: &str,
        progress: &Progress,
        painter: Painter,
    ) -> Option<String> {
        let (open, prefix) = self.open.as_ref()?;
        if !self.live || open != id {
            return None;
        }
        let status = format!(
            "running… {:.0}% · {} samples",
            progress.fraction * 100.0,
            progress.samples
        );
        Some(format!(
            "\r{prefix}{}{ERASE}",
            painter.paint(Tone::Dim, &status)
        ))
    }

    /// The text that writes `line`, the finished row of case `id`, where its begun row is (or
    /// on a line of its own when another case's row is begun).
    pub(crate) fn finish(&mut self, id: &str, line: &str) -> String {
        match self.open.take() {
            Some((open, prefix)) if open == id => match line.strip_prefix(&prefix) {
                Some(rest) if !self.live => rest.to_owned(),
                _ if self.live => format!("\r{line}{ERASE}"),
                _ => format!("\n{line}"),
            },
            Some(_) if self.live => format!("\r{ERASE}{line}"),
            Some(_) => format!("\n{line}"),
            None => line.to_owned(),
        }
    }

    /// The text that ends a begun row before an unrelated line: erased on a terminal, ended
    /// as it is otherwise.
    pub(crate) fn interrupt(&mut self) -> String {
        match self.open.take() {
            Some(_) if self.live => format!("\r{ERASE}"),
            Some(_) => "\n".to_owned(),
            None => String::new(),
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
    fn in_a_log_the_label_comes_first_and_the_row_completes_it() {
        let mut line = InProgress::new(false);
        let begun = line.begin("q::plain", "plain    ".into(), plain());
        assert_eq!(begun, "plain    ");
        assert_eq!(line.progress("q::plain", &progress(), plain()), None);
        let rest = line.finish("q::plain", "plain    12.2 ns ±0.4%");
        assert_eq!(format!("{begun}{rest}"), "plain    12.2 ns ±0.4%");
        assert!(!line.is_open());
    }

    #[test]
    fn on_a_terminal_the_line_shows_progress_and_the_row_replaces_it() {
        let mut line = InProgress::new(true);
        assert_eq!(
            line.begin("q::plain", "plain  ".into(), plain()),
            "plain  running…"
        );
        assert_eq!(
            line.progress("q::plain", &progress(), plain()).unwrap(),
            "\rplain  running… 37% · 120 samples\x1b[K"
        );
        assert_eq!(line.progress("q::other", &progress(), plain()), None);
        assert_eq!(
            line.finish("q::plain", "plain  12 ns"),
            "\rplain  12 ns\x1b[K"
        );
    }

    #[test]
    fn another_line_first_ends_the_begun_row() {
        let mut log = InProgress::new(false);
        log.begin("q::a", "a  ".into(), plain());
        assert_eq!(log.finish("q::b", "b  1 ns"), "\nb  1 ns");
        assert!(!log.is_open());
        let mut terminal = InProgress::new(true);
        terminal.begin("q::a", "a  ".into(), plain());
        assert_eq!(terminal.interrupt(), "\r\x1b[K");
        assert_eq!(terminal.interrupt(), "");
        assert_eq!(terminal.finish("q::a", "a  1 ns"), "a  1 ns");
    }
}
