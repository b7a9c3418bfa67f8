//! Test data for the reporters: a manifest, a small run, and a writer the test can read back.

use std::io::{self, Write};
use std::sync::{Arc, Mutex};

use knotmeter_protocol::{
    Allocations, BenchResult, BenchSummary, CaseFailure, ClassFit, Comparison, ComplexityFit,
    Estimate, FailureKind, ListEntry, Manifest, Overhead, Quantiles, RawSamples, Reproducibility,
    Rounds, RunSummary, TimerInfo, Verdict, Warning,
};

use super::{reporter, Format};
use crate::measure::Progress;

/// The progress every case of the sample run reports once.
pub(crate) const PROGRESS: Progress = Progress {
    samples: 10,
    fraction: 0.5,
    longest_step_ns: 2_500_000.0,
};

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
        git_dirty: Some(false),
        timestamp: 1_700_000_000,
        seed: 42,
        budget_ms: 1000,
        target_precision: 0.01,
        measure: Default::default(),
        warnings: vec![Warning::new(
            "debug_build",
            "the bench target was built without optimisations: run `cargo bench`",
        )],
    }
}

/// The list entry of a case: `(id, args, group, baseline)`.
fn entry(id: &str, args: Option<&str>, group: Option<&str>, baseline: bool) -> ListEntry {
    let bench_id = knotmeter_format::text::bench_id(id).to_owned();
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
        measure: Default::default(),
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
        precision: Some(0.0045),
        overhead: Overhead {
            per_op_ns: 0.31,
            drift: Some(-0.002),
            capped: 0,
        },
        cold_ns: 1234.0,
        ops_per_sample: 4096,
        samples: 1200,
        wall_ns: 2.0e9,
        partial: false,
        warnings: Vec::new(),
        comparison: None,
        reproducibility: Some(Reproducibility {
            spread: Some(0.0125),
            runs: 7,
            runs_needed: 5,
            learnt_from: None,
        }),
        rounds: Some(Rounds {
            medians_ns: vec![median_ns; 10],
            processes: 10,
            widened: false,
            machine_sd: None,
        }),
        allocations: None,
        raw: RawSamples {
            workload_ns: vec![median_ns + 0.25; 3],
            baseline_ns: vec![0.25; 3],
        },
        stored_at: None,
        throughput: None,
        cache: None,
    }
}

/// The results of the first four cases, as `case_finished` sees them (no comparison yet):
/// `pair` counts allocations and was optimised away; `sort_radix` has a warning; `sort_std`
/// was measured in one round, so its figure has no interval between processes.
pub(crate) fn results() -> Vec<BenchResult> {
    let cases = cases();
    let mut std = result(&cases[2], 1226.0);
    std.reproducibility = Some(Reproducibility {
        spread: None,
        runs: 2,
        runs_needed: 5,
        learnt_from: None,
    });
    // Measured in one round: no interval between processes beside its figure.
    std.rounds = None;
    let mut radix = result(&cases[3], 1268.0);
    radix.warnings.push(Warning::new(
        "high_noise",
        "the middle half of the samples spans 25% of the median | close other programs",
    ));
    let mut pair = result(&cases[1], 0.3125);
    pair.allocations = Some(Allocations {
        per_op: 3.0,
        bytes_per_op: 96.0,
    });
    pair.warnings.push(Warning::new(
        "optimized_away",
        "the body cannot be told apart from an empty one | return the result",
    ));
    vec![result(&cases[0], 12.25), pair, std, radix]
}

/// A comparison against `against` with the given ratio, interval, p-value and verdict.
fn comparison(against: &str, ratio: [f64; 3], p_value: f64, verdict: Verdict) -> Comparison {
    Comparison {
        machine: None,
        against: against.to_owned(),
        ratio: ratio[0],
        low: ratio[1],
        high: ratio[2],
        p_value,
        verdict,
        kind: None,
    }
}

/// The final comparisons of the sample run, in run order: two cases against the previous
/// run, and `sort_radix` against its group's baseline.
pub(crate) fn comparisons() -> Vec<(String, Comparison)> {
    vec![
        (
            "q::chain_n/1000".to_owned(),
            comparison("run 12", [0.8125, 0.75, 0.875], 0.002, Verdict::Faster),
        ),
        (
            "q::pair/(1,\"x|y\")".to_owned(),
            comparison("run 12", [1.0, 0.96875, 1.03125], 0.5, Verdict::Same),
        ),
        (
            "q::sort_radix".to_owned(),
            comparison(
                "q::sort_std",
                [1.034, 1.012, 1.051],
                0.0001,
                Verdict::Slower,
            ),
        ),
    ]
}

/// The results with their final comparisons, as the JSON report ends up holding them.
pub(crate) fn compared_results() -> Vec<BenchResult> {
    let mut results = results();
    for (id, comparison) in comparisons() {
        let result = results.iter_mut().find(|result| result.id == id).unwrap();
        result.comparison = Some(comparison);
    }
    results
}

/// The scaling analyses of the sample run: `chain_n`'s, with an informational note.
pub(crate) fn summaries() -> Vec<BenchSummary> {
    let fit = |class: &str, coefficient_ns: f64, aicc: Option<f64>| ClassFit {
        class: class.to_owned(),
        coefficient_ns,
        intercept_ns: 0.5,
        aicc,
    };
    vec![BenchSummary {
        id: "q::chain_n".to_owned(),
        name: "chain_n".to_owned(),
        complexity: Some(ComplexityFit {
            best: "O(n)".to_owned(),
            runner_up: Some("O(n log n)".to_owned()),
            distinguishable: false,
            candidates: vec!["O(n)".to_owned(), "O(n log n)".to_owned()],
            fits: vec![
                fit("O(n)", 0.0125, Some(-12.5)),
                fit("O(n log n)", 0.001_25, Some(-11.5)),
                fit("O(2ⁿ)", 0.0, None),
            ],
        }),
        warnings: vec![Warning::info(
            "sublinear_scaling",
            "the cost grows as n^0.42 between n = 10 and n = 1000",
        )],
        points: Vec::new(),
    }]
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
        probe: None,
        passed: 4,
        failed: 1,
        partial: 0,
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
/// finishes (the last one fails), `chain_n`'s analysis follows its last case, the final
/// comparisons come after every case, then the run finishes.
pub(crate) fn run(format: Format, color: bool) -> String {
    let buf = SharedBuf::default();
    let mut reporter = reporter(format, Box::new(buf.clone()), color, false);
    let cases = cases();
    reporter.run_started(&manifest(), &cases).unwrap();
    let mut results = results().into_iter();
    for (index, case) in cases.iter().enumerate() {
        reporter.case_started(&case.id).unwrap();
        reporter.progress(&case.id, &PROGRESS).unwrap();
        match results.next() {
            Some(result) => reporter.case_finished(&result).unwrap(),
            None => reporter.case_failed(&failure(&case.id)).unwrap(),
        }
        let next_bench = cases.get(index + 1).map(|next| next.bench_id.as_str());
        for summary in summaries() {
            if summary.id == case.bench_id && next_bench != Some(summary.id.as_str()) {
                reporter.bench_finished(&summary).unwrap();
            }
        }
    }
    for (id, comparison) in comparisons() {
        reporter.case_compared(&id, &comparison).unwrap();
    }
    reporter.run_finished(&summary()).unwrap();
    buf.text()
}
