//! Case boundaries on the bench binary's standard error, under `--format jsonl`.
//!
//! Events go to standard output and what a benchmark prints goes to standard error: two pipes,
//! read by the consumer in whatever order they become readable, so a line printed in the last
//! instant of a case could be read after the next case's `case_started` and be taken for its
//! output. So the engine also marks each case's start and end *on standard error*, in the same
//! stream as the printed text: a consumer that attributes printed lines by these marks gets
//! them right whatever the timing.
//!
//! A mark is one line: the record separator U+001E, `knotmeter `, the word `case_started` or
//! `case_ended`, a space and the case id. The engine flushes the benchmark's buffered standard
//! output before it writes one, so a `print!` without a newline made during a case precedes
//! that case's end mark; such text can share the mark's line (`x\u{1e}knotmeter case_ended id`)
//! and belongs to the case before the mark.

/// The character that starts a mark (ASCII record separator).
pub const MARK: char = '\u{1e}';

/// A case boundary read from standard error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputMark {
    /// The case's output starts here.
    CaseStarted(String),
    /// The case's output ends here.
    CaseEnded(String),
}

impl OutputMark {
    /// The mark as the engine writes it, line break included.
    pub fn line(&self) -> String {
        let (word, id) = match self {
            OutputMark::CaseStarted(id) => ("case_started", id),
            OutputMark::CaseEnded(id) => ("case_ended", id),
        };
        format!("{MARK}knotmeter {word} {id}\n")
    }

    /// Splits a line of standard error (without its line break) into the printed text before
    /// a mark and the mark. A line without a well-formed mark is all text.
    pub fn split(line: &str) -> (&str, Option<OutputMark>) {
        let Some(at) = line.find(MARK) else {
            return (line, None);
        };
        let mark = line[at + MARK.len_utf8()..].strip_prefix("knotmeter ");
        let parsed = mark.and_then(|m| {
            let (word, id) = m.split_once(' ')?;
            match word {
                "case_started" => Some(OutputMark::CaseStarted(id.to_owned())),
                "case_ended" => Some(OutputMark::CaseEnded(id.to_owned())),
                _ => None,
            }
        });
        match parsed {
            Some(mark) => (&line[..at], Some(mark)),
            None => (line, None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mark_reads_back_with_the_text_printed_before_it() {
        let start = OutputMark::CaseStarted("q::a/10".into());
        let line = start.line();
        assert_eq!(OutputMark::split(line.trim_end()), ("", Some(start)));
        let end = OutputMark::CaseEnded("q::a/10".into());
        let glued = format!("xxx{}", end.line());
        assert_eq!(OutputMark::split(glued.trim_end()), ("xxx", Some(end)));
    }

    #[test]
    fn text_without_a_well_formed_mark_is_all_text() {
        for line in [
            "plain",
            "\u{1e}",
            "a\u{1e}knotmeter case_paused x",
            "\u{1e}other x",
        ] {
            assert_eq!(OutputMark::split(line), (line, None));
        }
    }
}
