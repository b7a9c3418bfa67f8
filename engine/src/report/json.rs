//! `--format json`: one pretty-printed [`Report`] written when the run finishes.
//!
//! Results are kept as `case_finished` delivers them; `case_compared` fills in their
//! `comparison` by id, and `bench_finished` adds to `benches`.

use std::io::{self, Write};

use knotmeter_protocol::{
    BenchResult, BenchSummary, CaseFailure, Comparison, ListEntry, Manifest, Report, RunSummary,
    VERSION,
};

use super::Reporter;

/// Collects results, failures and analyses, and writes them as one document at the end.
pub(crate) struct Json {
    /// Where the document goes.
    out: Box<dyn Write + Send>,
    /// The manifest, once the run has started.
    manifest: Option<Manifest>,
    /// Results in run order.
    results: Vec<BenchResult>,
    /// Failures in run order.
    failures: Vec<CaseFailure>,
    /// Benchmark analyses in run order.
    benches: Vec<BenchSummary>,
}

impl Json {
    /// A reporter writing its document to `out`.
    pub(crate) fn new(out: Box<dyn Write + Send>) -> Self {
        Self {
            out,
            manifest: None,
            results: Vec::new(),
            failures: Vec::new(),
            benches: Vec::new(),
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

    fn bench_finished(&mut self, summary: &BenchSummary) -> io::Result<()> {
        self.benches.push(summary.clone());
        Ok(())
    }

    fn case_compared(&mut self, id: &str, comparison: &Comparison) -> io::Result<()> {
        if let Some(result) = self.results.iter_mut().find(|result| result.id == id) {
            result.comparison = Some(comparison.clone());
        }
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
            benches: std::mem::take(&mut self.benches),
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
                results: fixtures::compared_results(),
                failures: vec![fixtures::failure("q::boom")],
                benches: fixtures::summaries(),
            }
        );
        assert!(text.starts_with("{\n  \"version\": 1,"), "{text}");
    }

    #[test]
    fn comparisons_patch_their_result_and_analyses_land_in_benches() {
        let text = fixtures::run(Format::Json, false);
        let report: serde_json::Value = serde_json::from_str(&text).unwrap();
        let results = report["results"].as_array().unwrap();
        assert!(results[2]["comparison"].is_null());
        assert_eq!(results[3]["comparison"]["against"], "q::sort_std");
        assert_eq!(results[3]["comparison"]["verdict"], "slower");
        assert_eq!(results[0]["comparison"]["verdict"], "faster");
        assert_eq!(
            report["benches"][0]["complexity"]["runner_up"],
            "O(n log n)"
        );
        assert!(report["benches"][0]["complexity"]["fits"][2]["aicc"].is_null());
    }

    #[test]
    fn a_comparison_for_an_unknown_case_is_ignored() {
        let buf = fixtures::SharedBuf::default();
        let mut reporter = Json::new(Box::new(buf.clone()));
        reporter.run_started(&fixtures::manifest(), &[]).unwrap();
        reporter.case_finished(&fixtures::results()[0]).unwrap();
        let (_, comparison) = &fixtures::comparisons()[0];
        reporter.case_compared("q::nope", comparison).unwrap();
        reporter.run_finished(&fixtures::summary()).unwrap();
        let report: Report = serde_json::from_str(&buf.text()).unwrap();
        assert_eq!(report.results, vec![fixtures::results()[0].clone()]);
        assert!(report.benches.is_empty());
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
