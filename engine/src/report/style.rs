//! ANSI styling for the pretty reporter, off unless the runner asks for color.
//!
//! Styles are applied after padding so that escape codes never count towards column widths.

/// An ANSI style: the parameters of one SGR escape (`ESC [ .. m`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tone {
    /// Bold, for headings and the summary.
    Bold,
    /// Dim, for the table rule and secondary text.
    Dim,
    /// Bold yellow, for run-wide warnings.
    Alarm,
    /// Yellow, for result warnings.
    Caution,
    /// Bold red, for failures.
    Error,
    /// Green, for improvements and a clean summary.
    Good,
    /// Red, for regressions.
    Bad,
}

impl Tone {
    /// The SGR parameters of this style.
    fn code(self) -> &'static str {
        match self {
            Tone::Bold => "1",
            Tone::Dim => "2",
            Tone::Alarm => "1;33",
            Tone::Caution => "33",
            Tone::Error => "1;31",
            Tone::Good => "32",
            Tone::Bad => "31",
        }
    }
}

/// Paints text with a [`Tone`] when color is on, and leaves it alone otherwise.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Painter {
    /// Whether to emit ANSI escapes.
    color: bool,
}

impl Painter {
    /// A painter that emits escapes only when `color` is true.
    pub(crate) fn new(color: bool) -> Self {
        Self { color }
    }

    /// `text` wrapped in the escapes of `tone`, or unchanged without color.
    pub(crate) fn paint(self, tone: Tone, text: &str) -> String {
        if self.color && !text.is_empty() {
            format!("\x1b[{}m{text}\x1b[0m", tone.code())
        } else {
            text.to_owned()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paints_only_with_color() {
        assert_eq!(Painter::new(false).paint(Tone::Error, "x"), "x");
        assert_eq!(
            Painter::new(true).paint(Tone::Error, "x"),
            "\x1b[1;31mx\x1b[0m"
        );
        assert_eq!(Painter::new(true).paint(Tone::Alarm, ""), "");
    }
}
