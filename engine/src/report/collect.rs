//! The formats written once, when the run ends (`json`, `markdown`, `csv`): the run is
//! collected event by event into a [`Report`], comparisons patched into their results as they
//! arrive, and the whole handed to the format's [`Finish`] at the end.

use std::io;

use knotmeter_format::csv::Row;
use knotmeter_format::text::{bench_id, failure_text};
use knotmeter_protocol::{
    BenchResult, BenchSummary, CaseFailure, Comparison, ListEntry, Manifest, Report, RunSummary,
    VERSION,
};

use super::Reporter;
use crate::measure::Progress;

/// A whole run, as the formats written at the end receive it.
pub(crate) struct Collected {
    /// Everything measured, as `--format json` prints it.
    pub(crate) report: Report,
    /// The cases announced at the start, in run order.
    pub(crate) cases: Vec<ListEntry>,
    /// The totals.
    pub(crate) summary: RunSummary,
    /// Why each failed case has no result, in the order of `report.failures`.
    reasons: Vec<String>,
}

impl Collected {
    /// One row per case, in run order: announced cases first, then any result or failure of
    /// a case that was not announced.
    pub(crate) fn rows(&self) -> Vec<Row<'_>> {
        let report = &self.report;
        let bench = |result: &BenchResult| {
            let id = bench_id(&result.id);
            report.benches.iter().find(|b| b.id == id)
        };
        let measured = |result| Row::Measured {
            result,
            bench: bench(result),
        };
        let failed = |index: usize, case| Row::NotMeasured {
            id: &report.failures[index].id,
            status: "failed",
            case,
            why: &self.reasons[index],
        };
        let mut rows = Vec::new();
        let mut seen = Vec::new();
        for case in &self.cases {
            if let Some(result) = report.results.iter().find(|r| r.id == case.id) {
                rows.push(measured(result));
                seen.push(case.id.as_str());
            } else if let Some(index) = report.failures.iter().position(|f| f.id == case.id) {
                rows.push(failed(index, Some(case)));
                seen.push(case.id.as_str());
            }
        }
        for result in &report.results {
            if !seen.contains(&result.id.as_str()) {
                rows.push(measured(result));
            }
        }
        for (index, failure) in report.failures.iter().enumerate() {
            if !seen.contains(&failure.id.as_str()) {
                rows.push(failed(index, None));
            }
        }
        rows
    }
}

/// A format that writes the whole run at once.
pub(crate) trait Finish {
    /// Writes the collected run.
    fn finish(&mut self, run: Collected) -> io::Result<()>;
}

/// A [`Reporter`] that collects the run and hands it to `F` when it ends.
pub(crate) struct AtEnd<F> {
    finish: F,
    manifest: Option<Manifest>,
    cases: Vec<ListEntry>,
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
            cases: Vec::new(),
            results: Vec::new(),
            failures: Vec::new(),
            benches: Vec::new(),
        }
    }
}

impl<F: Finish> Reporter for AtEnd<F> {
    fn run_started(&mut self, manifest: &Manifest, cases: &[ListEntry]) -> io::Result<()> {
        self.manifest = Some(manifest.clone());
        self.cases = cases.to_vec();
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
            probe: summary.probe.clone(),
        };
        let reasons = report.failures.iter().map(failure_text).collect();
        self.finish.finish(Collected {
            report,
            cases: std::mem::take(&mut self.cases),
            summary: summary.clone(),
            reasons,
        })
    }
}
