//! `--format json`: one pretty-printed [`Report`] written when the run finishes.

use std::io::{self, Write};

use knotmeter_protocol::{
    BenchResult, CaseFailure, ListEntry, Manifest, Report, RunSummary, VERSION,
};

use super::Reporter;

/// Collects results and failures, and writes them as one document at the end.
pub(crate) struct Json {
    /// Where the document goes.
    out: Box<dyn Write + Send>,
    /// The manifest, once the run has started.
    manifest: Option<Manifest>,
    /// Results in run order.
    results: Vec<BenchResult>,
    /// Failures in run order.
    failures: Vec<CaseFailure>,
}

impl Json {
    /// A reporter writing its document to `out`.
    pub(crate) fn new(out: Box<dyn Write + Send>) -> Self {
        Self {
            out,
            manifest: None,
            results: Vec::new(),
            failures: Vec::new(),
        }
    }
}

impl Reporter for Json {
    fn run_started(&mut self, manifest: &Manifest, _cases: &[ListEntry]) -> io::Result<()> {
        self.manifest = Some(manifest.clone());
        Ok(())
    }

    fn case_started(&mut self, _id: &str) -> io::Result<()> {
        Ok(())
    }

    fn progress(&mut self, _id: &str, _samples: u64, _fraction: f64) -> io::Result<()> {
        Ok(())
    }

    fn case_finished(&mut self, result: &BenchResult) -> io::Result<()> {
        self.results.push(result.clone());
        Ok(())
    }

    fn case_failed(&mut self, failure: &CaseFailure) -> io::Result<()> {
        self.failures.push(failure.clone());
        Ok(())
    }

    fn run_finished(&mut self, _summary: &RunSummary) -> io::Result<()> {
        let manifest = self
            .manifest
            .take()
            .ok_or_else(|| io::Error::other("json report: run finished before it started"))?;
        let report = Report {
            version: VERSION,
            manifest,
            results: std::mem::take(&mut self.results),
            failures: std::mem::take(&mut self.failures),
        };
        serde_json::to_writer_pretty(&mut self.out, &report)?;
        self.out.write_all(b"\n")?;
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{fixtures, Format};
    use super::*;

    #[test]
    fn writes_one_report_with_every_result_and_failure() {
        let text = fixtures::run(Format::Json, false);
        let report: Report = serde_json::from_str(&text).unwrap();
        assert_eq!(
            report,
            Report {
                version: VERSION,
                manifest: fixtures::manifest(),
                results: fixtures::results(),
                failures: vec![fixtures::failure("q::boom")],
            }
        );
        assert!(text.starts_with("{\n  \"version\": 1,"), "{text}");
    }

    #[test]
    fn writes_nothing_before_the_run_finishes() {
        let buf = fixtures::SharedBuf::default();
        let mut reporter = Json::new(Box::new(buf.clone()));
        reporter.run_started(&fixtures::manifest(), &[]).unwrap();
        reporter.case_finished(&fixtures::results()[0]).unwrap();
        assert_eq!(buf.text(), "");
    }

    #[test]
    fn finishing_without_a_start_is_an_error() {
        let mut reporter = Json::new(Box::new(fixtures::SharedBuf::default()));
        assert!(reporter.run_finished(&fixtures::summary()).is_err());
    }
}
