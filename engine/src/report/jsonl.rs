//! `--format jsonl`: one [`Event`] per line, flushed after every line.
//!
//! The daemon reads this stream as it comes, so nothing is buffered across events.

use std::io::{self, Write};

use knotmeter_protocol::{
    BenchResult, CaseFailure, Event, ListEntry, Manifest, RunSummary, VERSION,
};

use super::Reporter;

/// Writes every call as one JSON line.
pub(crate) struct Jsonl {
    /// Where the lines go.
    out: Box<dyn Write + Send>,
}

impl Jsonl {
    /// A reporter writing lines to `out`.
    pub(crate) fn new(out: Box<dyn Write + Send>) -> Self {
        Self { out }
    }

    /// Writes `event` as one line and flushes it.
    fn emit(&mut self, event: &Event) -> io::Result<()> {
        serde_json::to_writer(&mut self.out, event)?;
        self.out.write_all(b"\n")?;
        self.out.flush()
    }
}

impl Reporter for Jsonl {
    fn run_started(&mut self, manifest: &Manifest, cases: &[ListEntry]) -> io::Result<()> {
        self.emit(&Event::RunStarted {
            version: VERSION,
            manifest: Box::new(manifest.clone()),
            cases: cases.to_vec(),
        })
    }

    fn case_started(&mut self, id: &str) -> io::Result<()> {
        self.emit(&Event::CaseStarted { id: id.to_owned() })
    }

    fn progress(&mut self, id: &str, samples: u64, fraction: f64) -> io::Result<()> {
        self.emit(&Event::Progress {
            id: id.to_owned(),
            samples,
            fraction,
        })
    }

    fn case_finished(&mut self, result: &BenchResult) -> io::Result<()> {
        self.emit(&Event::CaseFinished {
            result: Box::new(result.clone()),
        })
    }

    fn case_failed(&mut self, failure: &CaseFailure) -> io::Result<()> {
        self.emit(&Event::CaseFailed(failure.clone()))
    }

    fn run_finished(&mut self, summary: &RunSummary) -> io::Result<()> {
        self.emit(&Event::RunFinished(summary.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{fixtures, Format};
    use super::*;

    #[test]
    fn every_line_parses_back_as_the_event_that_was_sent() {
        let text = fixtures::run(Format::Jsonl, false);
        assert!(text.ends_with('\n'));
        let events: Vec<Event> = text
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        let cases = fixtures::cases();
        let results = fixtures::results();
        let mut expected = vec![Event::RunStarted {
            version: VERSION,
            manifest: Box::new(fixtures::manifest()),
            cases: cases.clone(),
        }];
        for (index, case) in cases.iter().enumerate() {
            expected.push(Event::CaseStarted {
                id: case.id.clone(),
            });
            expected.push(Event::Progress {
                id: case.id.clone(),
                samples: 10,
                fraction: 0.5,
            });
            expected.push(match results.get(index) {
                Some(result) => Event::CaseFinished {
                    result: Box::new(result.clone()),
                },
                None => Event::CaseFailed(fixtures::failure(&case.id)),
            });
        }
        expected.push(Event::RunFinished(fixtures::summary()));
        assert_eq!(events, expected);
    }

    #[test]
    fn lines_name_their_event() {
        let text = fixtures::run(Format::Jsonl, false);
        let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        assert_eq!(first["event"], "run_started");
        assert_eq!(first["version"], VERSION);
        let last: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
        assert_eq!(last["event"], "run_finished");
        assert_eq!(last["passed"], 4);
    }

    /// A writer that counts flushes and the bytes written before each.
    #[derive(Clone, Default)]
    struct FlushLog(std::sync::Arc<std::sync::Mutex<(Vec<u8>, Vec<usize>)>>);

    impl Write for FlushLog {
        /// Records the bytes.
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().0.extend_from_slice(buf);
            Ok(buf.len())
        }

        /// Records how many bytes had been written.
        fn flush(&mut self) -> io::Result<()> {
            let mut log = self.0.lock().unwrap();
            let written = log.0.len();
            log.1.push(written);
            Ok(())
        }
    }

    #[test]
    fn each_line_is_flushed_as_soon_as_it_is_complete() {
        let log = FlushLog::default();
        let mut reporter = Jsonl::new(Box::new(log.clone()));
        reporter.case_started("q::a").unwrap();
        reporter.progress("q::a", 3, 0.25).unwrap();
        let (bytes, flushes) = log.0.lock().unwrap().clone();
        let text = String::from_utf8(bytes).unwrap();
        let first_line = text.find('\n').unwrap() + 1;
        assert_eq!(flushes, [first_line, text.len()]);
    }
}
