//! One measuring run of a bench binary: plan the steps, measure each, report as results come,
//! analyse each benchmark across its cases, compare, store, and decide the exit status.
//!
//! Results stream to the reporter as each case ends. What needs every case first comes at the
//! end: before/after comparisons against the history, the Benjamini–Hochberg correction over
//! every comparison of the run, and the verdicts (`case_compared`), then the history record.

mod compare_run;
mod execute;
mod plan;

use std::cell::RefCell;
use std::collections::HashMap;
use std::io;
use std::process::ExitCode;
use std::rc::Rc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use knotmeter_protocol::{BenchResult, CaseFailure, Manifest, RunSummary, Verdict, Warning};

pub(crate) use execute::install_panic_hook;

use crate::analysis::{self, Context};
use crate::cancel;
use crate::cli::Options;
use crate::compare::Pending;
use crate::manifest::manifest;
use crate::measure::{MeasureConfig, Measurement, Timer};
use crate::registry::Case;
use crate::report::{self, Reporter};
use crate::store::Store;
use execute::Outcome;
use plan::Step;

/// Exit status of a cancelled run, as a shell reports a process ended by SIGINT.
const INTERRUPTED: u8 = 130;

/// Measures `selected` (out of `all`) and reports; returns the process's exit status.
pub(crate) fn measure_all(
    options: &Options,
    selected: &[Case],
    all: &[Case],
    timer: Timer,
    debug_assertions: bool,
) -> ExitCode {
    let seed = options.seed.unwrap_or_else(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    let mut session = Session {
        options,
        timer,
        seed,
        manifest: manifest(&timer, debug_assertions, seed, options),
        reporter: Rc::new(RefCell::new(report::reporter(
            options.format,
            Box::new(io::stdout()),
            options.color,
        ))),
        results: Vec::new(),
        failed: 0,
        paired: Vec::new(),
        remaining: HashMap::new(),
    };
    for case in selected {
        *session.remaining.entry(case.bench_id.clone()).or_default() += 1;
    }
    match session.run(selected, all) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("knotmeter: cannot write the output: {err}");
            ExitCode::FAILURE
        }
    }
}

/// The state of one run.
struct Session<'o> {
    options: &'o Options,
    timer: Timer,
    seed: u64,
    manifest: Manifest,
    reporter: Rc<RefCell<Box<dyn Reporter + Send>>>,
    /// Every reported result, in run order.
    results: Vec<BenchResult>,
    failed: u64,
    /// Paired comparisons found during the run, waiting for the run-wide correction.
    paired: Vec<Pending>,
    /// Cases of each benchmark function still to report, to know when to summarise it.
    remaining: HashMap<String, usize>,
}

impl Session<'_> {
    fn run(&mut self, selected: &[Case], all: &[Case]) -> io::Result<ExitCode> {
        let started = Instant::now();
        let entries: Vec<_> = selected.iter().map(Case::list_entry).collect();
        self.reporter
            .borrow_mut()
            .run_started(&self.manifest, &entries)?;
        for step in plan::plan(selected, all) {
            if cancel::requested() {
                break;
            }
            match step {
                Step::Single(case) => {
                    self.reporter.borrow_mut().case_started(&case.id)?;
                    let outcome =
                        execute::single(case, &self.config(case, 1), &mut self.progress(case));
                    self.report(case, outcome)?;
                }
                Step::Pair {
                    base,
                    member,
                    report_base,
                } => self.pair(base, member, report_base)?,
            }
        }
        let mut store = Store::open(self.options.no_history);
        let comparisons = compare_run::finish(self, &mut store);
        for (id, comparison) in &comparisons {
            self.reporter.borrow_mut().case_compared(id, comparison)?;
            if let Some(result) = self.results.iter_mut().find(|r| &r.id == id) {
                result.comparison = Some(comparison.clone());
            }
        }
        if !cancel::requested() {
            store.record(
                &self.manifest,
                &self.results,
                self.options.save_baseline.as_deref(),
            );
        }
        let summary = RunSummary {
            passed: self.results.len() as u64,
            failed: self.failed,
            cancelled: cancel::requested(),
            wall_ns: started.elapsed().as_nanos() as f64,
        };
        self.reporter.borrow_mut().run_finished(&summary)?;
        Ok(self.exit_code(&summary))
    }

    fn pair(&mut self, base: &Case, member: &Case, report_base: bool) -> io::Result<()> {
        if report_base {
            self.reporter.borrow_mut().case_started(&base.id)?;
        }
        self.reporter.borrow_mut().case_started(&member.id)?;
        let cfg = self.config(member, 2);
        let (base_end, member_end) = execute::pair(base, member, &cfg, &mut self.progress(member));
        if let (Some(Ok((b, _))), Some(Ok((m, _)))) = (&base_end, &member_end) {
            if let Some(estimate) = crate::compare::paired_ratio(b, m) {
                self.paired.push(Pending {
                    id: member.id.clone(),
                    against: base.id.clone(),
                    estimate,
                    threshold: self.options.noise_threshold,
                });
            }
        }
        if report_base {
            let base_end = match base_end {
                Some(outcome) => outcome,
                None => execute::single(base, &self.config(base, 1), &mut self.progress(base)),
            };
            self.report(base, base_end)?;
        }
        let member_end = match member_end {
            Some(outcome) => outcome,
            None => execute::single(member, &self.config(member, 1), &mut self.progress(member)),
        };
        self.report(member, member_end)
    }

    /// The measuring configuration of `case`, with `shares` cases' worth of time budget.
    fn config(&self, case: &Case, shares: u32) -> MeasureConfig {
        MeasureConfig {
            timer: self.timer,
            budget: self.options.budget * shares,
            target_precision: self.options.precision,
            seed: self.seed ^ fnv1a(&case.id),
            run_once: false,
            cancel: &cancel::CANCEL,
        }
    }

    fn progress(&self, case: &Case) -> impl FnMut(u64, f64) {
        let reporter = Rc::clone(&self.reporter);
        let id = case.id.clone();
        move |samples, fraction| {
            let _ = reporter.borrow_mut().progress(&id, samples, fraction);
        }
    }

    /// Reports one case's outcome, then the benchmark's summary if it was its last case.
    fn report(&mut self, case: &Case, outcome: Outcome) -> io::Result<()> {
        match outcome {
            Ok((m, _)) if m.workload_ns.is_empty() => self.fail(&execute::cancelled(case))?,
            Ok((m, twice)) => self.finish(case, m, twice)?,
            Err(failure) => self.fail(&failure)?,
        }
        let remaining = self.remaining.entry(case.bench_id.clone()).or_default();
        *remaining = remaining.saturating_sub(1);
        if *remaining == 0 {
            let results: Vec<&BenchResult> = self
                .results
                .iter()
                .filter(|r| is_case_of(&r.id, &case.bench_id))
                .collect();
            if let Some(summary) = analysis::summarise(&case.bench_id, case.def.name, &results) {
                self.reporter.borrow_mut().bench_finished(&summary)?;
            }
        }
        Ok(())
    }

    fn finish(&mut self, case: &Case, m: Measurement, twice: bool) -> io::Result<()> {
        let cx = Context {
            timer: self.timer,
            target_precision: self.options.precision,
        };
        let mut result = analysis::analyse(case, m, &cx);
        if twice {
            result.warnings.push(Warning::new(
                "measured_twice",
                "the benchmark called a timing method more than once; only the first was measured: \
                 split it into two #[bench] functions",
            ));
        }
        self.reporter.borrow_mut().case_finished(&result)?;
        self.results.push(result);
        Ok(())
    }

    fn fail(&mut self, failure: &CaseFailure) -> io::Result<()> {
        self.failed += 1;
        self.reporter.borrow_mut().case_failed(failure)
    }

    fn exit_code(&self, summary: &RunSummary) -> ExitCode {
        if summary.cancelled {
            return ExitCode::from(INTERRUPTED);
        }
        if let Some(limit) = self.options.fail_on_regression {
            let regressions: Vec<&BenchResult> = self
                .results
                .iter()
                .filter(|r| {
                    r.comparison.as_ref().is_some_and(|c| {
                        c.verdict == Verdict::Slower && (c.ratio - 1.0) * 100.0 > limit
                    })
                })
                .collect();
            for r in &regressions {
                let c = r.comparison.as_ref().expect("filtered on a comparison");
                eprintln!(
                    "knotmeter: regression: {} is {:.1}% slower than {} (limit {limit}%)",
                    r.id,
                    (c.ratio - 1.0) * 100.0,
                    c.against
                );
            }
            if !regressions.is_empty() {
                return ExitCode::FAILURE;
            }
        }
        if summary.failed > 0 {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        }
    }
}

/// Whether `id` is a case of benchmark `bench_id` (the benchmark itself, or `bench_id/arg`).
fn is_case_of(id: &str, bench_id: &str) -> bool {
    id == bench_id
        || id
            .strip_prefix(bench_id)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// FNV-1a, to give every case its own jitter seed.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Test mode (no `--bench`, as under `cargo test`): each case runs once to prove it works,
/// reported in libtest's words.
pub(crate) fn run_once(cases: &[Case], timer: Timer) -> ExitCode {
    println!(
        "\nrunning {} benchmarks once (pass --bench to measure)",
        cases.len()
    );
    let mut failures = Vec::new();
    for case in cases {
        let cfg = MeasureConfig {
            timer,
            budget: std::time::Duration::ZERO,
            target_precision: 1.0,
            seed: 0,
            run_once: true,
            cancel: &cancel::CANCEL,
        };
        let failure = execute::single(case, &cfg, &mut |_, _| {}).err();
        println!(
            "test {} ... {}",
            case.short_name(),
            if failure.is_some() { "FAILED" } else { "ok" }
        );
        failures.extend(failure);
    }
    for failure in &failures {
        let at = failure
            .location
            .as_ref()
            .map_or(String::new(), |l| format!(" at {l}"));
        println!("\n---- {} ----\n{}{at}", failure.id, failure.message);
    }
    let status = if failures.is_empty() { "ok" } else { "FAILED" };
    println!(
        "\ntest result: {status}. {} passed; {} failed; 0 ignored; 0 measured; 0 filtered out\n",
        cases.len() - failures.len(),
        failures.len()
    );
    if failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
