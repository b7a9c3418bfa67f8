//! `cargo xtask`: repository chores that are programs rather than tests.
//!
//! * `cargo xtask perf [--rounds N] [--pair-runs N]`: measures the engine's own figures (the
//!   harness's overhead and accuracy, the validity checks, the comparison verdict rates) and
//!   rewrites the generated part of `docs/performance.md`. It is a benchmark, not a test: CI
//!   does not run it.
//! * `cargo xtask compare [--rounds N] [--comparisons N]`: knotmeter against divan, criterion
//!   and tango-bench on the same workloads (the `comparisons/` workspace), written to
//!   `docs/comparison.md`. A benchmark too: CI only builds the workspace. `cargo xtask compare
//!   rerun [--runs N] [--quick] [--write]`: whether the interval knotmeter, criterion, zenbench
//!   and divan report holds where a rerun lands, printed, and with `--write` written to
//!   `docs/comparison.md`.
//! * `cargo xtask package [--no-verify]`: fails when a crate meant for crates.io would not
//!   publish (its metadata, its files, `cargo package` of them all, and with no flag a build of
//!   each from its package). CI runs it with `--no-verify`.
//! * `cargo xtask compare-builds [--runs N] [--time SECS] [--no-load] [--no-before-after] [--write]`:
//!   `knotmeter compare` on a fixture repository whose differences are known, against
//!   before/after through the history and in-binary groups, written to `docs/compare.md`.
//! * `cargo xtask build-time --before REV [--rounds N]`: the README's first command, cold on a
//!   fresh clone, at `REV` and at `HEAD`, beside `cargo bench -p quickstart`, written to
//!   `docs/performance.md`. A benchmark of the build: CI does not run it.
//! * `cargo xtask counts [--runs N] [--write]`: what `--measure instructions` promises (the
//!   same count every run, identical code `same`, 1% more work `slower`) and what it costs,
//!   printed, and with `--write` written to `docs/instructions.md`; `cargo xtask counts
//!   gungraun [--runs N] [--write]`: the same workloads counted by gungraun beside knotmeter,
//!   written to `docs/comparison.md`. CI does not run them.
//! * `cargo xtask calibration [--runs N] [--trials T] [--plus10 CASE[,CASE…]] [--scenario quiet|busy]
//!   [--no-experiment] [--quick] [--write]`: the calibration benchmark of the
//!   measurement: `examples/calibration`'s realistic bodies run as fresh processes, each run's
//!   intervals and verdicts held against the others', printed, and with `--write` written to
//!   `docs/calibration.md`. A benchmark, not a test: CI does not run it.
//! * `cargo xtask cold-bench [--rounds N] [--write]`: a cold `cargo bench --no-run` of a
//!   one-file crate with each harness (divan, criterion, zenbench, knotmeter), written to
//!   `docs/performance.md`. A benchmark of the build: CI does not run it.
//! * `cargo xtask drift [--runs N] [--write]`: what moves whole runs of the calibration bench
//!   binary, and how much of it a measure of the machine taken with each run explains, printed,
//!   and with `--write` written to `docs/calibration.md`. A benchmark: CI does not run it.
//!
//! Every section of `docs/` these commands write is stamped with the commit measured, and
//! `cargo test` fails when a later commit changed what its figures depend on (`stamp`).
//! `cargo xtask stale` lists the sections that are, each with the command that measures it
//! again; `cargo xtask stale --run` runs those commands one after another.

mod build_time;
mod calibration;
mod cargo;
mod cold_bench;
mod compare;
mod compare_builds;
mod counts;
mod docs;
mod drift;
mod function_length;
mod module_cycles;
mod package;
mod perf;
mod save_loop;
mod sources;
mod stamp;
mod stats;
mod test_layout;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("perf") => perf::run(&args[1..]),
        Some("compare") => compare::run(&args[1..]),
        Some("package") => package::run(&args[1..]),
        Some("compare-builds") => compare_builds::run(&args[1..]),
        Some("build-time") => build_time::run(&args[1..]),
        Some("calibration") => calibration::run(&args[1..]),
        Some("save-loop") => save_loop::run(&args[1..]),
        Some("drift") => drift::run(&args[1..]),
        Some("cold-bench") => cold_bench::run(&args[1..]),
        Some("counts") => counts::run(&args[1..]),
        Some("stale") => stamp::stale::run(&args[1..]),
        _ => Err(
            "usage: cargo xtask perf [--rounds N] [--pair-runs N] | compare [--rounds N] \
             [--comparisons N] | compare rerun [--runs N] [--quick] [--write] | package [--no-verify] \
             | compare-builds [--runs N] [--time SECS] [--no-load] \
             [--no-before-after] [--write] | build-time --before REV [--rounds N] | calibration [--runs N] [--trials T] [--plus10 CASE[,CASE…]] [--scenario quiet|busy] [--no-experiment] [--quick] [--write] | save-loop --before REV [--saves N] [--write] | drift [--runs N] [--write] | cold-bench [--rounds N] [--write] | counts [gungraun] [--runs N] [--write] | stale [--run]"
                .to_owned(),
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("xtask: {err}");
            ExitCode::FAILURE
        }
    }
}
