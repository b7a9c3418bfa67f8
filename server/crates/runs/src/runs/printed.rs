//! Which case printed a line of the bench binary's standard error.
//!
//! The engine marks each case's start and end in that stream ([`OutputMark`]), so a line
//! belongs to the case whose marks enclose it, however the daemon interleaves its reading of
//! standard error with the events of standard output. A bench binary whose engine predates the
//! marks has none: its lines go to the case in progress by the events, as before (a line
//! printed in the last instant of a case may then be taken for the next one's).

use knotmeter_protocol::OutputMark;

/// Follows the marks of one bench binary's standard error.
#[derive(Debug, Default)]
pub(super) struct Printing {
    /// A mark was seen: this binary marks its cases, and only marks attribute its lines.
    marked: bool,
    /// The case between its start and end marks.
    current: Option<String>,
}

impl Printing {
    /// The printed text of `line` (none when the line is only a mark) with the case it
    /// belongs to. `by_events` is the case in progress according to standard output's events,
    /// used when the binary marks nothing.
    pub(super) fn line(
        &mut self,
        line: &str,
        by_events: Option<&str>,
    ) -> Option<(Option<String>, String)> {
        let (text, mark) = OutputMark::split(line);
        // Text before a mark was printed before it: it belongs to the case the mark ends.
        let printed = (!text.is_empty() || mark.is_none()).then(|| {
            let case = if self.marked || mark.is_some() {
                self.current.clone()
            } else {
                by_events.map(str::to_owned)
            };
            (case, text.to_owned())
        });
        match mark {
            Some(OutputMark::CaseStarted(id)) => {
                self.marked = true;
                self.current = Some(id);
            }
            Some(OutputMark::CaseEnded(id)) => {
                self.marked = true;
                // A group's baseline ends while its member, started after it, still runs.
                if self.current.as_deref() == Some(id.as_str()) {
                    self.current = None;
                }
            }
            None => {}
        }
        printed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn started(id: &str) -> String {
        OutputMark::CaseStarted(id.into())
            .line()
            .trim_end()
            .to_owned()
    }

    fn ended(id: &str) -> String {
        OutputMark::CaseEnded(id.into())
            .line()
            .trim_end()
            .to_owned()
    }

    /// The race the marks remove: the events of standard output were read up to case `b`'s
    /// start while `a`'s last lines still waited in standard error's pipe.
    #[test]
    fn a_line_printed_at_the_end_of_a_case_is_its_own_when_read_after_the_next_case_started() {
        let mut printing = Printing::default();
        let by_events = Some("q::b");
        let lines = [
            started("q::a"),
            "a's first line".to_owned(),
            format!("a's last words{}", ended("q::a")),
            started("q::b"),
            "b's line".to_owned(),
            ended("q::b"),
            "after every case".to_owned(),
        ];
        let printed: Vec<_> = lines
            .iter()
            .filter_map(|l| printing.line(l, by_events))
            .collect();
        let case = |id: &str| Some(id.to_owned());
        assert_eq!(
            printed,
            [
                (case("q::a"), "a's first line".to_owned()),
                (case("q::a"), "a's last words".to_owned()),
                (case("q::b"), "b's line".to_owned()),
                (None, "after every case".to_owned()),
            ]
        );
    }

    #[test]
    fn a_member_keeps_its_lines_after_its_baseline_ends() {
        let mut printing = Printing::default();
        for line in [started("g::base"), started("g::member"), ended("g::base")] {
            assert_eq!(printing.line(&line, None), None);
        }
        assert_eq!(
            printing.line("from the pair", None),
            Some((Some("g::member".to_owned()), "from the pair".to_owned()))
        );
    }

    #[test]
    fn without_marks_lines_go_to_the_case_in_progress_by_the_events() {
        let mut printing = Printing::default();
        assert_eq!(
            printing.line("old engine", Some("q::a")),
            Some((Some("q::a".to_owned()), "old engine".to_owned()))
        );
        assert_eq!(
            printing.line("between", None),
            Some((None, "between".to_owned()))
        );
    }
}
