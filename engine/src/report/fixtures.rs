//! Test data for the reporters: a manifest, a small run, and a writer the test can read back.

use std::io::{self, Write};
use std::sync::{Arc, Mutex};

use knotmeter_protocol::{
    Allocations, BenchResult, CaseFailure, Comparison, Estimate, FailureKind, ListEntry, Manifest,
    Overhead, Quantiles, RawSamples, RunSummary, TimerInfo, Verdict, Warning,
};

use super::{reporter, Format};

/// A manifest with one environment warning.
pub(crate) fn manifest() -> Manifest {
    Manifest {
        knotmeter_version: "0.1.0".to_owned(),
        rustc: "rustc 1.95.0 (59807616e 2026-04-14)".to_owned(),
        profile: "release".to_owned(),
        opt_level: "3".to_owned(),
        debug_assertions: false,
        target: "x86_64-unknown-linux-gnu".to_owned(),
        cpu: "Test CPU @ 3.0GHz".to_owned(),
        cores: 8,
        timer: TimerInfo {
            kind: "instant".to_owned(),
            precision_ns: 20.0,
            read_cost_ns: 19.0,
        },
        git_commit: Some("0123456789abcdef0123456789abcdef01234567".to_owned()),
        timestamp: 1_700_000_000,
        seed: 42,
        warnings: vec![Warning::new(
            "debug_build",
            "the bench target was built without optimisations: run `cargo bench`",
        )],
    }
}

/// The list entry of a case: `(id, args, group, baseline)`.
fn entry(id: &str, args: Option<&str>, group: Option<&str>, baseline: bool) -> ListEntry {
    let bench_id = id.split('/').next().unwrap_or(id).to_owned();
    ListEntry {
        id: id.to_owned(),
        name: bench_id.rsplit("::").next().unwrap_or(id).to_owned(),
        bench_id,
        args: args.map(str::to_owned),
        group: group.map(str::to_owned),
        baseline,
        file: "benches/q.rs".to_owned(),
        line: 7,
    }
}

/// The cases of the sample run, in run order; the last one fails.
pub(crate) fn cases() -> Vec<ListEntry> {
    vec![
        entry("q::chain_n/1000", Some("1000"), None, false),
        entry("q::pair/(1,\"x|y\")", Some("(1,\"x|y\")"), None, false),
        entry("q::sort_std", None, Some("sorting"), true),
        entry("q::sort_radix", None, Some("sorting"), false),
        entry("q::boom", None, None, false),
    ]
}

/// A result for `case` with a median of `median_ns` and no comparison or warning. Every
/// number is a short dyadic fraction of the median, so that it survives a trip through
/// JSON text exactly.
pub(crate) fn result(case: &ListEntry, median_ns: f64) -> BenchResult {
    BenchResult {
        id: case.id.clone(),
        name: case.name.clone(),
        args: case.args.clone(),
        group: case.group.clone(),
        baseline: case.baseline,
        file: case.file.clone(),
        line: case.line,
        estimate: Estimate {
            median_ns,
            low_ns: median_ns * 0.992_187_5,
            high_ns: median_ns * 1.007_812_5,
            mean_ns: median_ns * 1.015_625,
        },
        quantiles: Quantiles {
            min_ns: median_ns * 0.75,
            p5_ns: median_ns * 0.875,
            q1_ns: median_ns * 0.937_5,
            q3_ns: median_ns * 1.062_5,
            p95_ns: median_ns * 1.25,
            max_ns: median_ns * 2.0,
            std_dev_ns: median_ns * 0.031_25,
            outliers: 3,
        },
        precision: 0.0045,
        overhead: Overhead {
            per_op_ns: 0.31,
            drift: -0.002,
            capped: 0,
        },
        cold_ns: 1234.0,
        ops_per_sample: 4096,
        samples: 1200,
        wall_ns: 2.0e9,
        partial: false,
        warnings: Vec::new(),
        comparison: None,
        allocations: None,
        raw: RawSamples {
            workload_ns: vec![median_ns + 0.25; 3],
            baseline_ns: vec![0.25; 3],
        },
    }
}

/// The results of the first four cases: `pair` counts allocations; `sort_radix` is compared
/// with `sort_std` and has a warning.
pub(crate) fn results() -> Vec<BenchResult> {
    let cases = cases();
    let mut radix = result(&cases[3], 1268.0);
    radix.comparison = Some(Comparison {
        against: "q::sort_std".to_owned(),
        ratio: 1.034,
        low: 1.012,
        high: 1.051,
        p_value: 0.0001,
        verdict: Verdict::Slower,
    });
    radix.warnings.push(Warning::new(
        "optimized_away",
        "the body takes less than the timer's precision | wrap the input in black_box",
    ));
    let mut pair = result(&cases[1], 0.3125);
    pair.allocations = Some(Allocations {
        per_op: 3.0,
        bytes_per_op: 96.0,
    });
    vec![
        result(&cases[0], 12.25),
        pair,
        result(&cases[2], 1226.0),
        radix,
    ]
}

/// The failure of the last case: a panic whose message has a comma.
pub(crate) fn failure(id: &str) -> CaseFailure {
    CaseFailure {
        id: id.to_owned(),
        kind: FailureKind::Panic,
        message: "boom, with a comma".to_owned(),
        location: Some("src/lib.rs:3:5".to_owned()),
    }
}

/// The totals of the sample run.
pub(crate) fn summary() -> RunSummary {
    RunSummary {
        passed: 4,
        failed: 1,
        cancelled: false,
        wall_ns: 8.4e9,
    }
}

/// A writer whose bytes stay readable after it was boxed and handed to a reporter.
#[derive(Clone, Default)]
pub(crate) struct SharedBuf(Arc<Mutex<Vec<u8>>>);

impl SharedBuf {
    /// Everything written so far, as text.
    pub(crate) fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

impl Write for SharedBuf {
    /// Appends `buf` to the shared bytes.
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    /// Nothing to flush: the bytes are in memory.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The whole output of `format` for the sample run: every case starts, reports progress and
/// finishes (the last one fails), then the run finishes.
pub(crate) fn run(format: Format, color: bool) -> String {
    let buf = SharedBuf::default();
    let mut reporter = reporter(format, Box::new(buf.clone()), color);
    let cases = cases();
    reporter.run_started(&manifest(), &cases).unwrap();
    let mut results = results().into_iter();
    for case in &cases {
        reporter.case_started(&case.id).unwrap();
        reporter.progress(&case.id, 10, 0.5).unwrap();
        match results.next() {
            Some(result) => reporter.case_finished(&result).unwrap(),
            None => reporter.case_failed(&failure(&case.id)).unwrap(),
        }
    }
    reporter.run_finished(&summary()).unwrap();
    buf.text()
}
