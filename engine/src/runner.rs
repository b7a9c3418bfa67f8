//! The bench binary's `main`: parse the command line, select cases, measure each in turn,
//! report, and exit with a status that says whether everything ran.
//!
//! Every case runs in this one process, one after another on the main thread. A panicking
//! case is caught, reported as failed with its message and location, and the run goes on;
//! the exit status is 1 when any case failed, 2 for a bad command line.

use std::cell::RefCell;
use std::io::{self, Write};
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;
use std::rc::Rc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use knotmeter_protocol::{CaseFailure, FailureKind, ListDocument, RunSummary, Warning, VERSION};

use crate::analysis::analyse;
use crate::bencher::{Bencher, Outcome};
use crate::cancel;
use crate::cli::{self, Options};
use crate::manifest::manifest;
use crate::measure::{MeasureConfig, Timer};
use crate::registry::{self, Case, BENCHES};
use crate::report::{self, Format, Reporter};

/// Exit status of a cancelled run, as a shell reports a process ended by SIGINT.
const INTERRUPTED: u8 = 130;

thread_local! {
    /// The message and location of the last panic on this thread, recorded by the hook.
    static LAST_PANIC: RefCell<Option<(String, Option<String>)>> = const { RefCell::new(None) };
}

/// Entry point behind `knotmeter::main!()`.
pub(crate) fn main(debug_assertions: bool) -> ExitCode {
    let options = match cli::parse(std::env::args_os()) {
        Ok(options) => options,
        Err(err) => {
            let _ = err.print();
            return ExitCode::from(err.exit_code().clamp(0, 255) as u8);
        }
    };
    let cases: Vec<Case> = registry::cases(&BENCHES)
        .into_iter()
        .filter(|c| options.filter.matches(c))
        .collect();
    if options.list {
        return exit(list(&cases, options.format));
    }
    if cases.is_empty() {
        let available = registry::cases(&BENCHES).len();
        eprintln!(
            "knotmeter: no benchmark matches the filter {:?} ({available} available; `--list` shows them)",
            options.filter.patterns
        );
        return ExitCode::SUCCESS;
    }
    let timer = match Timer::calibrate(options.timer) {
        Ok(timer) => timer,
        Err(err) => {
            eprintln!("knotmeter: {}", err.0);
            return ExitCode::from(2);
        }
    };
    install_panic_hook();
    cancel::install(options.stdin_cancel);
    if options.bench {
        measure_all(&options, &cases, timer, debug_assertions)
    } else {
        run_once(&cases, timer)
    }
}

fn exit(result: io::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("knotmeter: cannot write the output: {err}");
            ExitCode::FAILURE
        }
    }
}

fn list(cases: &[Case], format: Format) -> io::Result<()> {
    let mut out = io::stdout().lock();
    if format == Format::Json {
        let document = ListDocument {
            version: VERSION,
            cases: cases.iter().map(Case::list_entry).collect(),
        };
        serde_json::to_writer_pretty(&mut out, &document)?;
        writeln!(out)?;
    } else {
        for case in cases {
            writeln!(out, "{}: benchmark", case.short_name())?;
        }
        writeln!(out, "\n0 tests, {} benchmarks", cases.len())?;
    }
    out.flush()
}

fn install_panic_hook() {
    panic::set_hook(Box::new(|info| {
        let message = info
            .payload_as_str()
            .map_or_else(|| "Box<dyn Any>".to_owned(), str::to_owned);
        let location = info
            .location()
            .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
        LAST_PANIC.with(|last| *last.borrow_mut() = Some((message, location)));
    }));
}

/// What running one case's function produced.
enum CaseEnd {
    Measured(Outcome),
    Panicked(CaseFailure),
}

fn run_case(case: &Case, config: MeasureConfig, progress: Box<dyn FnMut(u64, f64)>) -> CaseEnd {
    let mut bencher = Bencher::new(config, progress);
    match panic::catch_unwind(AssertUnwindSafe(|| {
        (case.def.run)(&mut bencher, case.index)
    })) {
        Ok(()) => CaseEnd::Measured(bencher.into_outcome()),
        Err(_) => {
            let (message, location) = LAST_PANIC
                .with(|last| last.borrow_mut().take())
                .unwrap_or_else(|| ("panicked".to_owned(), None));
            CaseEnd::Panicked(CaseFailure {
                id: case.id.clone(),
                kind: FailureKind::Panic,
                message,
                location,
            })
        }
    }
}

fn cancelled(case: &Case) -> CaseFailure {
    CaseFailure {
        id: case.id.clone(),
        kind: FailureKind::Cancelled,
        message: "the run was cancelled before this case took a sample".into(),
        location: None,
    }
}

fn not_measured(case: &Case) -> CaseFailure {
    CaseFailure {
        id: case.id.clone(),
        kind: FailureKind::Misuse,
        message: "the benchmark returned without calling `b.iter`, `b.iter_async` or `b.with_inputs(..).run`".into(),
        location: Some(format!("{}:{}", case.def.file, case.def.line)),
    }
}

fn config(
    options: &Options,
    timer: Timer,
    seed: u64,
    case: &Case,
    run_once: bool,
) -> MeasureConfig {
    MeasureConfig {
        timer,
        budget: options.budget,
        target_precision: options.precision,
        seed: seed ^ fnv1a(&case.id),
        run_once,
        cancel: &cancel::CANCEL,
    }
}

fn measure_all(
    options: &Options,
    cases: &[Case],
    timer: Timer,
    debug_assertions: bool,
) -> ExitCode {
    let started = Instant::now();
    let seed = options.seed.unwrap_or_else(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    let manifest = manifest(&timer, debug_assertions, seed);
    let reporter: Rc<RefCell<Box<dyn Reporter + Send>>> = Rc::new(RefCell::new(report::reporter(
        options.format,
        Box::new(io::stdout()),
        options.color,
    )));
    let entries: Vec<_> = cases.iter().map(Case::list_entry).collect();
    let write =
        |f: &mut dyn FnMut(&mut dyn Reporter) -> io::Result<()>| f(&mut **reporter.borrow_mut());
    if let Err(err) = write(&mut |r| r.run_started(&manifest, &entries)) {
        return exit(Err(err));
    }
    let (mut passed, mut failed) = (0, 0);
    for case in cases {
        let progress_reporter = Rc::clone(&reporter);
        let id = case.id.clone();
        let progress = Box::new(move |samples, fraction| {
            let _ = progress_reporter
                .borrow_mut()
                .progress(&id, samples, fraction);
        });
        let written = write(&mut |r| r.case_started(&case.id)).and_then(|()| {
            match run_case(case, config(options, timer, seed, case, false), progress) {
                CaseEnd::Measured(Outcome::Measured(m) | Outcome::MeasuredTwice(m)) if m.workload_ns.is_empty() => {
                    failed += 1;
                    write(&mut |r| r.case_failed(&cancelled(case)))
                }
                CaseEnd::Measured(Outcome::Measured(m)) => {
                    passed += 1;
                    let result = analyse(case, m, options.precision);
                    write(&mut |r| r.case_finished(&result))
                }
                CaseEnd::Measured(Outcome::MeasuredTwice(m)) => {
                    passed += 1;
                    let mut result = analyse(case, m, options.precision);
                    result.warnings.push(Warning::new(
                        "measured_twice",
                        "the benchmark called a timing method more than once; only the first was measured: \
                         split it into two #[bench] functions",
                    ));
                    write(&mut |r| r.case_finished(&result))
                }
                CaseEnd::Measured(Outcome::NotMeasured) => {
                    failed += 1;
                    write(&mut |r| r.case_failed(&not_measured(case)))
                }
                CaseEnd::Panicked(failure) => {
                    failed += 1;
                    write(&mut |r| r.case_failed(&failure))
                }
            }
        });
        if let Err(err) = written {
            return exit(Err(err));
        }
        if cancel::requested() {
            break;
        }
    }
    let summary = RunSummary {
        passed,
        failed,
        cancelled: cancel::requested(),
        wall_ns: started.elapsed().as_nanos() as f64,
    };
    if let Err(err) = write(&mut |r| r.run_finished(&summary)) {
        return exit(Err(err));
    }
    if summary.cancelled {
        ExitCode::from(INTERRUPTED)
    } else if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Test mode (no `--bench`, as under `cargo test`): each case runs once to prove it works,
/// reported in libtest's words.
fn run_once(cases: &[Case], timer: Timer) -> ExitCode {
    let options = cli::parse(["bench".into()]).expect("the empty command line parses");
    println!(
        "\nrunning {} benchmarks once (pass --bench to measure)",
        cases.len()
    );
    let mut failures = Vec::new();
    for case in cases {
        let end = run_case(
            case,
            config(&options, timer, 0, case, true),
            Box::new(|_, _| {}),
        );
        let failure = match end {
            CaseEnd::Measured(Outcome::NotMeasured) => Some(not_measured(case)),
            CaseEnd::Measured(_) => None,
            CaseEnd::Panicked(failure) => Some(failure),
        };
        println!(
            "test {} ... {}",
            case.short_name(),
            if failure.is_some() { "FAILED" } else { "ok" }
        );
        failures.extend(failure);
    }
    for failure in &failures {
        println!(
            "\n---- {} ----\n{}{}",
            failure.id,
            failure.message,
            failure
                .location
                .as_ref()
                .map_or(String::new(), |l| format!(" at {l}"))
        );
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

/// FNV-1a, to give every case its own jitter seed.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}
