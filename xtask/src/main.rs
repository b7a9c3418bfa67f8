//! `cargo xtask`: repository chores that are programs rather than tests.
//!
//! * `cargo xtask perf [--rounds N]`: measures the engine's own figures (issue targets for the
//!   empty body, the harness overhead, `chain(n)` against a harness-free reference, run-to-run
//!   spread, the wall time of a default run) and rewrites the "Engine" section of
//!   `docs/performance.md`. It is a benchmark, not a test: CI does not run it.

mod cargo;
mod perf;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("perf") => perf::run(&args[1..]),
        _ => Err("usage: cargo xtask perf [--rounds N]".to_owned()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("xtask: {err}");
            ExitCode::FAILURE
        }
    }
}
