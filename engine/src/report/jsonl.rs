//! `--format jsonl`: one [`Event`] per line, flushed after every line.
//!
//! The daemon reads this stream as it comes, so nothing is buffered across events. Each event
//! is serialised first and handed to the writer whole, in one `write`, then flushed.
//!
//! Each slot of a case (one per round) is also marked on standard error, at its start and its
//! end ([`knotmeter_protocol::OutputMark`], written where the slot is measured: see
//! `rounds::slot`), where what the benchmarks print goes, so that a consumer attributes printed
//! text to its case by the order of that one stream rather than by the timing of two pipes.

use std::io::{self, Write};

use knotmeter_protocol::{
    BenchResult, BenchSummary, CaseFailure, Comparison, Event, ListEntry, Manifest, RunSummary,
    VERSION,
};

use super::Reporter;
use crate::measure::Progress;

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

    /// Writes `event` as one line, in one write, and flushes it.
    fn emit(&mut self, event: &Event) -> io::Result<()> {
        let mut line = serde_json::to_vec(event)?;
        line.push(b'\n');
        self.out.write_all(&line)?;
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

    fn progress(&mut self, id: &str, progress: &Progress) -> io::Result<()> {
        self.emit(&Event::Progress {
            id: id.to_owned(),
            samples: progress.samples,
            fraction: progress.fraction,
            longest_step_ns: Some(progress.longest_step_ns),
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

    fn bench_finished(&mut self, summary: &BenchSummary) -> io::Result<()> {
        self.emit(&Event::BenchFinished(summary.clone()))
    }

    fn case_compared(&mut self, id: &str, comparison: &Comparison) -> io::Result<()> {
        self.emit(&Event::CaseCompared {
            id: id.to_owned(),
            comparison: comparison.clone(),
        })
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
                longest_step_ns: Some(fixtures::PROGRESS.longest_step_ns),
            });
            expected.push(match results.get(index) {
                Some(result) => Event::CaseFinished {
                    result: Box::new(result.clone()),
                },
                None => Event::CaseFailed(fixtures::failure(&case.id)),
            });
            if index == 0 {
                expected.push(Event::BenchFinished(fixtures::summaries()[0].clone()));
            }
        }
        for (id, comparison) in fixtures::comparisons() {
            expected.push(Event::CaseCompared { id, comparison });
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

    #[test]
    fn analyses_and_comparisons_are_tagged_lines() {
        let text = fixtures::run(Format::Jsonl, false);
        let values: Vec<serde_json::Value> = text
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        let bench = values.iter().find(|v| v["event"] == "bench_finished");
        let bench = bench.unwrap();
        assert_eq!(bench["id"], "q::chain_n");
        assert_eq!(bench["complexity"]["best"], "O(n)");
        assert_eq!(bench["warnings"][0]["severity"], "info");
        let compared: Vec<&serde_json::Value> = values
            .iter()
            .filter(|v| v["event"] == "case_compared")
            .collect();
        assert_eq!(compared.len(), 3);
        assert_eq!(compared[2]["id"], "q::sort_radix");
        assert_eq!(compared[2]["comparison"]["verdict"], "slower");
        let finished = values.iter().filter(|v| v["event"] == "case_finished");
        assert!(finished
            .into_iter()
            .all(|v| v["result"]["comparison"].is_null()));
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

    /// A writer that keeps each `write` call apart.
    #[derive(Clone, Default)]
    struct WriteLog(std::sync::Arc<std::sync::Mutex<Vec<Vec<u8>>>>);

    impl Write for WriteLog {
        /// Records one write.
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().push(buf.to_vec());
            Ok(buf.len())
        }

        /// Nothing is buffered.
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn each_event_is_one_write_so_no_other_write_can_split_it() {
        let log = WriteLog::default();
        let mut reporter = Jsonl::new(Box::new(log.clone()));
        reporter.case_started("q::a").unwrap();
        reporter.case_finished(&fixtures::results()[0]).unwrap();
        reporter.run_finished(&fixtures::summary()).unwrap();
        let writes = log.0.lock().unwrap().clone();
        assert_eq!(writes.len(), 3);
        for write in &writes {
            assert_eq!(write.iter().filter(|&&b| b == b'\n').count(), 1);
            assert!(write.ends_with(b"\n"));
            serde_json::from_slice::<Event>(write).unwrap();
        }
    }

    #[test]
    fn each_line_is_flushed_as_soon_as_it_is_complete() {
        let log = FlushLog::default();
        let mut reporter = Jsonl::new(Box::new(log.clone()));
        reporter.case_started("q::a").unwrap();
        reporter.progress("q::a", &fixtures::PROGRESS).unwrap();
        reporter.bench_finished(&fixtures::summaries()[0]).unwrap();
        let (id, comparison) = &fixtures::comparisons()[0];
        reporter.case_compared(id, comparison).unwrap();
        let (bytes, flushes) = log.0.lock().unwrap().clone();
        let text = String::from_utf8(bytes).unwrap();
        let ends: Vec<usize> = text.match_indices('\n').map(|(at, _)| at + 1).collect();
        assert_eq!(flushes, ends);
        assert_eq!(ends.len(), 4);
    }
}
