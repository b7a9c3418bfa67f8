//! One measuring run of a bench binary: plan the steps, measure each, report as results come,
//! analyse each benchmark across its cases, compare, store, and decide the exit status.
//!
//! Results stream to the history store, and to the reporter, as each case ends: a run that
//! dies in its seventh case keeps the six before. What needs every case first comes at the
//! end: before/after comparisons against the history, the Benjamini–Hochberg correction over
//! every comparison of the run, and the verdicts (`case_compared`, also added to the stored
//! results), then the run is closed in the history and the gate decides (`gate`).
//!
//! The report is written through [`Output`]: the first error writing it (the reader went away,
//! the disk is full) cancels the run like a signal would, and nothing more is written; a broken
//! pipe ends the run quietly, as `cargo bench | head` expects.

mod compare_run;
mod counted;
mod emit;
pub(crate) mod execute;
mod gate;
mod once;
pub(crate) mod panics;
mod plan;

use std::cell::RefCell;
use std::collections::HashMap;
use std::io;
use std::process::ExitCode;
use std::rc::Rc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use knotmeter_history::{machine_key, RunStatus};
use knotmeter_protocol::{
    BenchResult, CaseFailure, ComparisonKind, FailureKind, MachineProbe, Manifest, RunSummary,
};

pub(crate) use execute::{not_measured, with_sampler, Outcome};
pub(crate) use once::run_once;
pub(crate) use panics::install as install_panic_hook;

use crate::analysis::rounds::{Plan as RoundsPlan, Round};
use crate::analysis::{self, Context};
use crate::cancel::{self, Cause};
use crate::cli::Options;
use crate::compare::Pending;
use crate::manifest::manifest;
use crate::measure::{Progress, Timer};
use crate::output::ReportOut;
use crate::probe;
use crate::registry::Case;
use crate::report::{Format, Reporter};
use crate::rounds;
use crate::store::Store;
use emit::Output;
use plan::Step;

/// The seed of the sample-length jitter: `--seed`, or from the clock.
pub(crate) fn seed(options: &Options) -> u64 {
    options.seed.unwrap_or_else(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    })
}

/// Reports a run that selected no case: the machine-readable formats still print a valid,
/// empty document (`cargo bench FILTER` passes the filter to every bench binary of the
/// package, so most of them match nothing; like libtest, that is not an error).
pub(crate) fn report_empty(
    options: &Options,
    timer: Timer,
    debug_assertions: bool,
    out: ReportOut,
) -> ExitCode {
    let mut output = Output::new(options, out);
    let manifest = manifest(&timer, debug_assertions, seed(options), options);
    output.emit(|r| r.run_started(&manifest, &[]));
    output.emit(|r| {
        r.run_finished(&RunSummary {
            probe: None,
            passed: 0,
            failed: 0,
            partial: 0,
            cancelled: false,
            wall_ns: 0.0,
        })
    });
    if output.failed_loudly() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Measures `selected` (out of `all`) and reports; returns the process's exit status.
pub(crate) fn measure_all(
    options: &Options,
    selected: &[Case],
    all: &[Case],
    timer: Timer,
    debug_assertions: bool,
    out: ReportOut,
) -> ExitCode {
    let seed = seed(options);
    let manifest = manifest(&timer, debug_assertions, seed, options);
    // The history is opened, and the history flags checked, before anything runs.
    let store = Store::open(options.no_history);
    if let Err(message) = gate::preflight(options, &store, &manifest, selected) {
        eprintln!("knotmeter: {message}");
        return ExitCode::from(2);
    }
    let mut run = Run {
        options,
        timer,
        seed,
        manifest,
        output: Rc::new(RefCell::new(Output::new(options, out))),
        results: Vec::new(),
        failed: 0,
        partial: 0,
        stray_panics: 0,
        paired: Vec::new(),
        remaining: HashMap::new(),
        store,
        compared: None,
        probe: None,
        machine_sd: None,
    };
    for case in selected {
        *run.remaining.entry(case.bench_id.clone()).or_default() += 1;
    }
    run.run(selected, all)
}

/// The state of one run.
struct Run<'o> {
    options: &'o Options,
    timer: Timer,
    seed: u64,
    manifest: Manifest,
    output: Rc<RefCell<Output>>,
    /// Every reported result, in run order.
    results: Vec<BenchResult>,
    /// Cases that failed (not counting those the cancel cut short).
    failed: u64,
    /// Cases the cancel cut short, with a partial result or none.
    partial: u64,
    /// Panics of threads that happened between cases, so no case could fail for them.
    stray_panics: usize,
    /// Paired comparisons found during the run, waiting for the run-wide correction.
    paired: Vec<Pending>,
    /// Cases of each benchmark function still to report, to know when to summarise it.
    remaining: HashMap<String, usize>,
    /// The history store: each case's reproducibility when it finishes, then its result;
    /// the before/after comparisons at the end.
    store: Store,
    /// The run's comparisons, once decided: for the gate.
    compared: Option<compare_run::Compared>,
    /// The machine's probe, once its rounds ended (`crate::probe`).
    probe: Option<MachineProbe>,
    /// How far the machine's speed moves between runs, learnt from the probes of the runs
    /// stored on this machine before this one, once enough of them are.
    machine_sd: Option<f64>,
}

impl Run<'_> {
    /// Hands `event` to the reporter (see [`Output::emit`]).
    fn emit(&self, event: impl FnOnce(&mut dyn Reporter) -> io::Result<()>) {
        self.output.borrow_mut().emit(event);
    }

    fn run(&mut self, selected: &[Case], all: &[Case]) -> ExitCode {
        let started = Instant::now();
        let entries: Vec<_> = selected.iter().map(Case::list_entry).collect();
        self.emit(|r| r.run_started(&self.manifest, &entries));
        self.store
            .begin(&self.manifest, self.options.save_baseline.as_deref());
        self.machine_sd = compare_run::machine_sd(
            &self.store,
            &machine_key(&self.manifest),
            &probe::build(&self.manifest),
        );
        let mut units: Vec<rounds::Unit<'_>> = plan::plan(selected, all)
            .into_iter()
            .map(|step| self.unit(step))
            .collect();
        // The machine's probe, a slot in every round beside the cases (`crate::probe`).
        // A count does not move with the machine's speed: no probe.
        let probe_case = all.iter().find(|c| probe::is_probe(c));
        if let Some(probe_case) = probe_case.filter(|_| !crate::count::active()) {
            units.push(rounds::Unit {
                cases: vec![probe_case],
                reports: vec![true],
                budget: probe::budget(self.options.budget),
                every_round: true,
            });
        }
        let settings = rounds::Settings {
            rounds: self.options.rounds,
            in_process: self.options.in_process,
            mark_output: self.options.format == Format::Jsonl,
            target_precision: self.options.precision,
            seed: self.seed,
            timer: self.timer,
        };
        rounds::run(units, &settings, self);
        self.check_stray_panics();
        let compared = compare_run::finish(self);
        let mut verdicts = Vec::new();
        for (id, comparison) in &compared.comparisons {
            self.emit(|r| r.case_compared(id, comparison));
            if let Some(result) = self.results.iter_mut().find(|r| &r.id == id) {
                result.comparison = Some(comparison.clone());
                verdicts.push(result.clone());
            }
        }
        self.compared = Some(compared);
        self.store.record_verdicts(verdicts);
        let status = if cancel::requested() {
            RunStatus::Cancelled
        } else {
            RunStatus::Complete
        };
        self.store
            .finish(status, self.probe.as_ref(), self.results.len());
        let partial_results = self.results.iter().filter(|r| r.partial).count() as u64;
        let summary = RunSummary {
            passed: self.results.len() as u64 - partial_results,
            failed: self.failed,
            partial: self.partial + partial_results,
            cancelled: cancel::requested(),
            wall_ns: started.elapsed().as_nanos() as f64,
            probe: self.probe.take(),
        };
        self.emit(|r| r.run_finished(&summary));
        self.exit_code(&summary)
    }

    /// The unit of rounds a step of the plan is: a case alone, or a pair with two cases'
    /// worth of budget.
    fn unit<'c>(&self, step: Step<'c>) -> rounds::Unit<'c> {
        match step {
            Step::Single(case) => rounds::Unit {
                cases: vec![case],
                reports: vec![true],
                budget: budget_of(self.options, case),
                every_round: false,
            },
            Step::Pair {
                base,
                member,
                report_base,
            } => rounds::Unit {
                cases: vec![base, member],
                reports: vec![report_base, true],
                budget: budget_of(self.options, member) * 2,
                every_round: false,
            },
        }
    }

    /// Counts the panics of threads of this process since its last case, and says so: they
    /// fail the run, since the case that probably left the thread running was measured.
    fn check_stray_panics(&mut self) {
        let stray = rounds::stray_panics();
        rounds::Sink::stray_panics(self, &stray);
    }

    /// Counts a case of its benchmark as reported; after the benchmark's last case, its
    /// analysis across cases.
    fn reported(&mut self, case: &Case) {
        let remaining = self.remaining.entry(case.bench_id.clone()).or_default();
        *remaining = remaining.saturating_sub(1);
        if *remaining == 0 {
            let results: Vec<&BenchResult> = self
                .results
                .iter()
                .filter(|r| is_case_of(&r.id, &case.bench_id))
                .collect();
            let resolution = analysis::resolution_ns();
            if let Some(summary) =
                analysis::summarise(&case.bench_id, &case.name, &results, resolution)
            {
                self.emit(|r| r.bench_finished(&summary));
            }
        }
    }

    fn fail(&mut self, failure: &CaseFailure) {
        if failure.kind == FailureKind::Cancelled {
            self.partial += 1;
        } else {
            self.failed += 1;
        }
        self.emit(|r| r.case_failed(failure));
    }

    fn exit_code(&self, summary: &RunSummary) -> ExitCode {
        if self.output.borrow().failed_loudly() {
            return ExitCode::FAILURE;
        }
        // The status follows what the report said: a cancel that came after `run_finished`
        // changed nothing.
        let cancelled_by = summary
            .cancelled
            .then(cancel::cause)
            .flatten()
            .and_then(Cause::exit_status);
        if let Some(status) = cancelled_by {
            return ExitCode::from(status);
        }
        let passes = self
            .compared
            .as_ref()
            .is_none_or(|compared| gate::passes(self.options, compared, &self.results));
        if !passes {
            return ExitCode::FAILURE;
        }
        if summary.failed > 0 || self.stray_panics > 0 {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        }
    }
}

impl rounds::Sink for Run<'_> {
    fn started(&mut self, case: &Case) {
        if probe::is_probe(case) {
            return;
        }
        self.emit(|r| r.case_started(&case.id));
    }

    fn progress(&mut self, id: &str, progress: &Progress) {
        if id == probe::PROBE_ID {
            return;
        }
        self.emit(|r| r.progress(id, progress));
    }

    fn failed(&mut self, case: &Case, failure: CaseFailure) {
        if probe::is_probe(case) {
            // No probe for this run: its comparisons go without (said by its absence).
            return;
        }
        self.fail(&failure);
        self.reported(case);
    }

    fn paired(&mut self, base: &Case, member: &Case, log_ratios: &[f64]) {
        if let Some(estimate) = crate::compare::rounds::paired(log_ratios) {
            self.paired.push(Pending {
                id: member.id.clone(),
                against: base.id.clone(),
                estimate,
                threshold: self.options.noise_threshold,
                kind: ComparisonKind::Group,
                machine_ratio: None,
            });
        }
    }

    fn finished(&mut self, case: &Case, rounds: Vec<Round>, plan: &RoundsPlan) {
        if probe::is_probe(case) {
            let medians: Vec<f64> = rounds
                .iter()
                .map(|round| analysis::rounds::round_median(&round.m))
                .collect();
            self.probe = probe::figure(&medians, plan.processes, probe::build(&self.manifest));
            return;
        }
        if crate::count::active() {
            // One round in this process: its counts are the result. The history keeps it under
            // the count's machine key (counts meet counts).
            if let Some(round) = rounds.first() {
                let mut result = crate::count::analysis::analyse(case, &round.m);
                // How far its counts moved between runs: the floor of a count that moves.
                let key = machine_key(&self.manifest);
                result.reproducibility =
                    compare_run::reproducibility(&self.store, &result.id, &key);
                self.counted_against_its_baseline(case, &result);
                self.store.record(&result);
                self.emit(|r| r.case_finished(&result));
                self.results.push(result);
                self.reported(case);
            }
            return;
        }
        let cx = Context {
            timer: self.timer,
            target_precision: self.options.precision,
        };
        let mut result = analysis::rounds::analyse_rounds(case, rounds, plan, &cx);
        let key = machine_key(&self.manifest);
        result.reproducibility = compare_run::reproducibility(&self.store, &result.id, &key);
        let run_sd = result
            .reproducibility
            .and_then(|r| r.spread)
            // One run of several: half the spread of a step between two of them.
            .map(|spread| crate::compare::step_sd(spread) / std::f64::consts::SQRT_2);
        analysis::rounds::from_the_history(&mut result, self.machine_sd, run_sd);
        // Stored before it is printed: a result that was shown is in the history.
        self.store.record(&result);
        self.emit(|r| r.case_finished(&result));
        self.results.push(result);
        self.reported(case);
    }

    fn stray_panics(&mut self, panics: &[String]) {
        self.stray_panics += panics.len();
        for panic in panics {
            eprintln!("knotmeter: {panic}; the run fails");
        }
    }
}

/// A case's time budget: its own (criterion's `measurement_time` and `warm_up_time`) unless
/// the command line chose one with `--quick` or `--time`.
pub(crate) fn budget_of(options: &Options, case: &Case) -> Duration {
    match case.budget {
        Some(own) if !options.budget_from_command_line => own,
        _ => options.budget,
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
pub(crate) fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}
