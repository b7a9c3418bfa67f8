//! The bench binary's `main`: parse the command line, select cases, then list them, run each
//! once (test mode), or measure them (`--bench`, see `run`).
//!
//! Every case runs in this one process, one after another on the main thread. A panicking
//! case is caught, reported as failed with its message and location, and the run goes on;
//! the exit status is 1 when any case failed, 2 for a bad command line, 130 when cancelled.

use std::io::{self, Write};
use std::process::ExitCode;

use knotmeter_protocol::{ListDocument, VERSION};

use crate::cancel;
use crate::cli;
use crate::measure::Timer;
use crate::registry::{self, Case, BENCHES};
use crate::report::Format;
use crate::run;

/// Entry point behind `knotmeter::main!()`.
pub(crate) fn main(debug_assertions: bool) -> ExitCode {
    let options = match cli::parse(std::env::args_os()) {
        Ok(options) => options,
        Err(err) => {
            let _ = err.print();
            return ExitCode::from(err.exit_code().clamp(0, 255) as u8);
        }
    };
    let all = registry::cases(&BENCHES);
    let selected: Vec<Case> = all
        .iter()
        .filter(|c| options.filter.matches(c))
        .cloned()
        .collect();
    if options.list {
        return match list(&selected, options.format) {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => {
                eprintln!("knotmeter: cannot write the list: {err}");
                ExitCode::FAILURE
            }
        };
    }
    if selected.is_empty() {
        eprintln!(
            "knotmeter: no benchmark matches the filter {:?} ({} available; `--list` shows them)",
            options.filter.patterns,
            all.len()
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
    run::install_panic_hook();
    cancel::install(options.stdin_cancel);
    if options.bench {
        run::measure_all(&options, &selected, &all, timer, debug_assertions)
    } else {
        run::run_once(&selected, timer)
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
