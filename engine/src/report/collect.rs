//! The formats written once, when the run ends (`json`, `markdown`): the run is collected event
//! by event into a [`Report`], comparisons patched into their results as they arrive, and the
//! whole handed to the format's [`Finish`] at the end.

use std::io;

use knotmeter_protocol::{
    BenchResult, BenchSummary, CaseFailure, Comparison, ListEntry, Manifest, Report, RunSummary,
    VERSION,
};

use super::Reporter;
use crate::measure::Progress;

/// A format that writes the whole run at once.
pub(crate) trait Finish {
    /// Writes the collected run.
    fn finish(&mut self, report: Report, summary: &RunSummary) -> io::Result<()>;
}

/// A [`Reporter`] that collects the run and hands it to `F` when it ends.
pub(crate) struct AtEnd<F> {
    finish: F,
    manifest: Option<Manifest>,
    results: Vec<BenchResult>,
    failures: Vec<CaseFailure>,
    benches: Vec<BenchSummary>,
}

impl<F: Finish> AtEnd<F> {
    /// Collects for `finish`.
    pub(crate) fn new(finish: F) -> Self {
        AtEnd {
            finish,
            manifest: None,
            results: Vec::new(),
            failures: Vec::new(),
            benches: Vec::new(),
        }
    }
}

impl<F: Finish> Reporter for AtEnd<F> {
    fn run_started(&mut self, manifest: &Manifest, _cases: &[ListEntry]) -> io::Result<()> {
        self.manifest = Some(manifest.clone());
        Ok(())
    }

    fn case_started(&mut self, _id: &str) -> io::Result<()> {
        Ok(())
    }

    fn progress(&mut self, _id: &str, _progress: &Progress) -> io::Result<()> {
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

    fn run_finished(&mut self, summary: &RunSummary) -> io::Result<()> {
        let manifest = self
            .manifest
            .take()
            .ok_or_else(|| io::Error::other("the run finished before it started"))?;
        let report = Report {
            version: VERSION,
            manifest,
            results: std::mem::take(&mut self.results),
            failures: std::mem::take(&mut self.failures),
            benches: std::mem::take(&mut self.benches),
        };
        self.finish.finish(report, summary)
    }
}
