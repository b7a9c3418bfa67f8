//! The bench binary's `main`: claim standard output for the report, parse, select cases (the
//! filters, then the shard of `--partition`), then list them, run each once (test mode), or
//! measure them (`--bench`, see `run`).
//!
//! Every case runs in this one process, one after another on the main thread. A panicking
//! case is caught, reported as failed with its message and location, and the run goes on. Exit
//! statuses: 0 when every case passed (or none was selected), 1 when a case failed or the gate
//! of `--fail-on-regression` tripped, 2 for a bad command line or a comparison group without
//! exactly one baseline (checked before anything runs), 130 after SIGINT or the end of
//! standard input under `--stdin-cancel`, 143 after SIGTERM. Under `--driven` the binary
//! measures as an orchestrator asks instead (see `driven`).

use std::io::{self, Write};
use std::process::ExitCode;

use knotmeter_protocol::{ListDocument, VERSION};

use crate::cancel;
use crate::cli;
use crate::count;
use crate::driven;
use crate::measure::{Timer, TimerKind};
use crate::output::{self, ReportOut};
use crate::probe;
use crate::registry::{self, Case, BENCHES};
use crate::report::Format;
use crate::run;

/// Entry point behind `knotmeter::main!()`.
pub(crate) fn main(debug_assertions: bool) -> ExitCode {
    main_with(debug_assertions, || Ok(Vec::new()))
}

/// Entry point for bench binaries that declare benchmarks while they run (criterion's API):
/// `declare` runs after standard output is claimed and the command line is read, and returns
/// its cases (or why it could not), which join the `#[bench]` ones.
pub(crate) fn main_with(
    debug_assertions: bool,
    declare: impl FnOnce() -> Result<Vec<Case>, String>,
) -> ExitCode {
    let parsed = cli::parse(std::env::args_os());
    // A count runs the whole process under callgrind: started before standard output is
    // claimed, so that callgrind's process gets the streams this one was given.
    if let Ok(options) = &parsed {
        if options.counts_instructions() {
            if let Err(why) = count_under_callgrind(options) {
                eprintln!("knotmeter: {why}");
                return ExitCode::from(2);
            }
        }
    }
    // Then, before any benchmark code runs: nothing but the report may reach standard output.
    let mut out = output::claim_stdout();
    let options = match parsed {
        Ok(options) if options.counts_instructions() => cli::Options {
            // One process, callgrind's: the rounds of worker processes would not be counted.
            rounds: 1,
            in_process: true,
            ..options
        },
        Ok(options) => options,
        Err(err) => return cli::report_error(&err, &mut out),
    };
    let all = match all_cases(declare) {
        Ok(all) => all,
        Err(code) => return code,
    };
    if options.driven {
        return serve_driven(&options, &all, debug_assertions, out);
    }
    let (selected, empty_shard) = select(&options, &all);
    if options.list {
        return match list(&selected, options.format, &mut out) {
            Err(err) if !output::is_broken_pipe(&err) => {
                eprintln!("knotmeter: cannot write the list: {err}");
                ExitCode::FAILURE
            }
            _ => ExitCode::SUCCESS,
        };
    }
    if let Err(problems) = registry::check_groups(&selected, &all) {
        for problem in problems.lines() {
            eprintln!("knotmeter: {problem}");
        }
        return ExitCode::from(2);
    }
    if selected.is_empty() {
        match empty_shard {
            Some(message) => eprintln!("{message}"),
            None => eprintln!(
                "knotmeter: no benchmark matches the filter {:?} ({} available; `--list` shows \
                 them)",
                options.filter.patterns,
                all.iter().filter(|c| !probe::is_probe(c)).count()
            ),
        }
        if !options.bench || options.format == Format::Pretty {
            return ExitCode::SUCCESS;
        }
    }
    let timer = match calibrate(options.timer) {
        Ok(timer) => timer,
        Err(code) => return code,
    };
    if selected.is_empty() {
        return run::report_empty(&options, timer, debug_assertions, out);
    }
    run::install_panic_hook();
    cancel::install(options.stdin_cancel);
    if options.bench {
        let status = run::measure_all(&options, &selected, &all, timer, debug_assertions, out);
        count::finish();
        status
    } else {
        run::run_once(&selected, timer, out)
    }
}

/// Makes this process count instructions: outside Valgrind, it becomes callgrind running it
/// (and does not return); under it, counting starts. Why it cannot, otherwise.
fn count_under_callgrind(options: &cli::Options) -> Result<(), String> {
    if !crate::measure::region::under_valgrind() {
        return Err(count::exec::under_callgrind(options.cache_simulation));
    }
    count::start()
}

/// Every case of the binary: the `#[bench]` ones and those `declare` gives; the exit status
/// when declaring failed or two cases share an id (said on standard error).
fn all_cases(declare: impl FnOnce() -> Result<Vec<Case>, String>) -> Result<Vec<Case>, ExitCode> {
    let mut all = registry::cases(&BENCHES);
    match declare() {
        Ok(declared) => all.extend(declared),
        Err(message) => {
            eprintln!("knotmeter: {message}");
            return Err(ExitCode::from(2));
        }
    }
    if let Some(case) = registry::duplicate_id(&all) {
        eprintln!(
            "knotmeter: two benchmarks have the id `{}` (the second at {}:{}); ids name \
             benchmarks on the command line and in the history, so rename one",
            case.id, case.file, case.line
        );
        return Err(ExitCode::from(2));
    }
    if let Some(case) = all.iter().find(|case| probe::is_probe(case)) {
        eprintln!(
            "knotmeter: the benchmark at {}:{} has the id `{}`, which is the engine's own probe \
             of the machine; rename it",
            case.file, case.line, case.id
        );
        return Err(ExitCode::from(2));
    }
    // The machine's probe, last: a round's worker measures it by its id like any case.
    all.push(probe::case());
    Ok(all)
}

/// The clock calibrated as `kind` asks; exit status 2 when it cannot be (said on standard
/// error).
fn calibrate(kind: TimerKind) -> Result<Timer, ExitCode> {
    Timer::calibrate(kind).map_err(|err| {
        eprintln!("knotmeter: {}", err.0);
        ExitCode::from(2)
    })
}

/// `--driven`: measured on command from standard input, as a round worker of a coordinator
/// (its clock as the coordinator calibrated it) or for an orchestrator such as `knotmeter
/// compare`.
fn serve_driven(
    options: &cli::Options,
    all: &[Case],
    debug_assertions: bool,
    out: ReportOut,
) -> ExitCode {
    // This process's heap layout, when whoever started it drew one: everything allocated
    // from here on lies after it.
    let heap_offset = std::env::var(knotmeter_protocol::HEAP_OFFSET_ENV)
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|offset| *offset <= 1 << 20);
    if let Some(offset) = heap_offset {
        Box::leak(vec![0u8; offset].into_boxed_slice());
    }
    let timer = match options.round_worker {
        Some(spec) => {
            if !worker_of(spec.parent) {
                // The coordinator is already gone: nobody would read a word of this.
                return ExitCode::from(130);
            }
            Timer::calibrated(
                options.timer,
                spec.ns_per_tick,
                spec.precision_ns,
                spec.read_cost_ns,
            )
        }
        None => match calibrate(options.timer) {
            Ok(timer) => timer,
            Err(code) => return code,
        },
    };
    run::install_panic_hook();
    // Standard input carries the commands; its end is the end of the session.
    cancel::install(false);
    driven::serve(options, all, timer, debug_assertions, out)
}

/// The cases the filters select, and of them the partition's shard; with the message to give
/// when a shard holds none of the selected cases.
fn select(options: &cli::Options, all: &[Case]) -> (Vec<Case>, Option<String>) {
    let mut selected: Vec<Case> = all
        .iter()
        .filter(|c| !probe::is_probe(c) && options.filter.matches(c))
        .cloned()
        .collect();
    // A shard of a partitioned suite: whole groups and functions, after the filters.
    let mut empty_shard = None;
    if let Some(partition) = &options.partition {
        let units = registry::unit_count(&selected);
        selected = registry::in_shard(selected, partition);
        if selected.is_empty() && units > 0 {
            empty_shard = Some(format!(
                "knotmeter: --partition {partition}: this shard holds none of the {units} \
                 benchmark(s) and comparison group(s) selected; the other shards run them"
            ));
        }
    }
    (selected, empty_shard)
}

/// Makes this process die with its coordinator `parent` (Linux: a parent-death signal), and
/// says whether `parent` is still its parent: one that ended before the signal was set would
/// never send it.
fn worker_of(parent: u32) -> bool {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl with PR_SET_PDEATHSIG takes a signal number and touches no memory.
        unsafe {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
        }
    }
    #[cfg(unix)]
    {
        // SAFETY: getppid has no preconditions.
        let actual = unsafe { libc::getppid() };
        u32::try_from(actual).is_ok_and(|actual| actual == parent)
    }
    #[cfg(not(unix))]
    {
        let _ = parent;
        true
    }
}

fn list(cases: &[Case], format: Format, out: &mut ReportOut) -> io::Result<()> {
    if format == Format::Json {
        let document = ListDocument {
            version: VERSION,
            cases: cases.iter().map(Case::list_entry).collect(),
        };
        serde_json::to_writer_pretty(&mut *out, &document)?;
        writeln!(out)?;
    } else {
        for case in cases {
            writeln!(out, "{}: benchmark", case.short_name())?;
        }
        writeln!(out, "\n0 tests, {} benchmarks", cases.len())?;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A declared case (criterion's API names its own) with the probe's id would be taken for
    /// the probe and quietly never measured as itself: the binary refuses it, naming it.
    #[test]
    fn a_case_with_the_probes_id_is_refused() {
        let refused = all_cases(|| Ok(vec![probe::case()]));
        assert_eq!(refused.err(), Some(ExitCode::from(2)));
        let all = all_cases(|| Ok(Vec::new())).unwrap();
        assert_eq!(all.iter().filter(|c| probe::is_probe(c)).count(), 1);
        assert!(probe::is_probe(all.last().unwrap()), "the probe comes last");
    }
}
