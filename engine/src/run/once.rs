//! Test mode (no `--bench`, as under `cargo test`): each case runs once to prove it works,
//! reported in libtest's words on the report channel.

use std::io::{self, Write};
use std::process::ExitCode;

use super::execute;
use crate::cancel::{self, Cause};
use crate::measure::{MeasureConfig, Timer};
use crate::output::{self, ReportOut};
use crate::registry::Case;

/// Test mode (no `--bench`, as under `cargo test`): each case runs once to prove it works,
/// reported in libtest's words. Each case's line starts before it runs, so a crash names it.
pub(crate) fn run_once(cases: &[Case], timer: Timer, mut out: ReportOut) -> ExitCode {
    let mut failures = Vec::new();
    let mut ran = 0;
    let written = (|| -> io::Result<()> {
        writeln!(
            out,
            "\nrunning {} benchmarks once (pass --bench to measure)",
            cases.len()
        )?;
        for case in cases {
            if cancel::requested() {
                break;
            }
            write!(out, "test {} ... ", case.short_name())?;
            out.flush()?;
            let cfg = MeasureConfig {
                run_once: true,
                ..MeasureConfig::new(timer, std::time::Duration::ZERO, 1.0, 0, &cancel::CANCEL)
            };
            let failure = execute::single(case, &cfg, &mut |_| {}).err();
            ran += 1;
            writeln!(out, "{}", if failure.is_some() { "FAILED" } else { "ok" })?;
            failures.extend(failure);
        }
        for failure in &failures {
            let at = failure
                .location
                .as_ref()
                .map_or(String::new(), |l| format!(" at {l}"));
            writeln!(out, "\n---- {} ----\n{}{at}", failure.id, failure.message)?;
        }
        if ran < cases.len() {
            writeln!(
                out,
                "\ncancelled: {} benchmarks did not run",
                cases.len() - ran
            )?;
        }
        let status = if failures.is_empty() && ran == cases.len() {
            "ok"
        } else {
            "FAILED"
        };
        writeln!(
            out,
            "\ntest result: {status}. {} passed; {} failed; 0 ignored; 0 measured; 0 filtered out\n",
            ran - failures.len(),
            failures.len(),
        )?;
        out.flush()
    })();
    if let Err(err) = written {
        if !output::is_broken_pipe(&err) {
            eprintln!("knotmeter: cannot write the report: {err}");
            return ExitCode::FAILURE;
        }
    }
    if let Some(status) = cancel::cause().and_then(Cause::exit_status) {
        return ExitCode::from(status);
    }
    if failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
