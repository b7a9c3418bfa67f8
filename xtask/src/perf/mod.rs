//! `cargo xtask perf`: the engine's own figures, measured side by side in one run, written to
//! `docs/performance.md` between markers (other sections of that page are kept).
//!
//! * Engine: the empty body, the harness overhead, `chain(n)` against a harness-free
//!   reference, run-to-run spread, the wall time of a default run.
//! * Honesty: optimised-away bodies flagged, real work never, the complexity of `chain(n)`,
//!   and the precision `--quick` reaches and what it costs per case.
//! * Comparisons: verdict rates of paired A/A and A/B groups, and before/after on unchanged code.

mod comparisons;
mod engine;
mod honesty;

use std::path::Path;
use std::process::Command;

use knotmeter_protocol::Report;

use crate::stamp::sections::PERF;
use crate::stats::median;
use crate::{cargo, docs, stamp};

const SECTION_BEGIN: &str = "<!-- xtask perf: begin -->";
const SECTION_END: &str = "<!-- xtask perf: end -->";
const USAGE: &str = "usage: cargo xtask perf [--rounds N] [--pair-runs N]";

/// Runs every measurement and rewrites the generated part of `docs/performance.md`.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let (mut rounds, mut pair_runs) = (5, 20);
    let mut args = args.iter();
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(USAGE)?;
        let n: usize = value
            .parse()
            .map_err(|_| format!("{flag} takes a number, not {value}"))?;
        match flag.as_str() {
            "--rounds" => rounds = n.max(1),
            "--pair-runs" => pair_runs = n.max(1),
            _ => return Err(USAGE.into()),
        }
    }
    let stamp = stamp::take(&PERF)?;
    eprintln!("building the benchmarks and fixtures (release)…");
    let harness = cargo::build(&["bench", "--no-run", "-p", "knotmeter", "--bench", "harness"])?;
    let quickstart = cargo::build(&[
        "bench",
        "--no-run",
        "-p",
        "quickstart",
        "--bench",
        "quickstart",
    ])?;
    let examples = cargo::build(&[
        "build",
        "--release",
        "-p",
        "knotmeter",
        "--example",
        "chain_reference",
    ])?;
    let fixtures = cargo::build(&["build", "--release", "-p", "knotmeter-tests", "--bins"])?;
    let bins = engine::Binaries {
        harness: cargo::find(&harness, "harness")?,
        reference: cargo::find(&examples, "chain_reference")?,
        quickstart: cargo::find(&quickstart, "quickstart")?,
    };
    let engine = engine::section(&bins, rounds)?;
    let honesty = honesty::section(&cargo::find(&fixtures, "honesty")?, rounds)?;
    let comparisons = comparisons::section(
        &cargo::find(&fixtures, "pairs")?,
        &bins.quickstart,
        pair_runs,
        rounds,
    )?;
    let text = format!("{SECTION_BEGIN}\n{engine}\n{honesty}\n{comparisons}{SECTION_END}\n");
    print!("{text}");
    docs::write_section(
        &cargo::root().join("docs/performance.md"),
        (SECTION_BEGIN, SECTION_END),
        &stamp.seal(&text)?,
        "# Performance\n\n",
    )
}

/// Runs a bench binary with `--bench --format json --no-history` and parses its report.
fn json_report(executable: &Path, extra: &[&str]) -> Result<Report, String> {
    timed_json_report(executable, extra).map(|(report, _)| report)
}

/// [`json_report`], with the wall time of the whole process (every round's worker included).
fn timed_json_report(
    executable: &Path,
    extra: &[&str],
) -> Result<(Report, std::time::Duration), String> {
    let started = std::time::Instant::now();
    let out = Command::new(executable)
        .args(["--bench", "--format", "json", "--no-history"])
        .args(extra)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", executable.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} failed:\n{}",
            executable.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let took = started.elapsed();
    serde_json::from_slice(&out.stdout)
        .map(|report| (report, took))
        .map_err(|e| format!("{} printed no report: {e}", executable.display()))
}

/// (max − min) / mean.
fn spread(values: &[f64]) -> f64 {
    let max = values.iter().copied().fold(f64::MIN, f64::max);
    let min = values.iter().copied().fold(f64::MAX, f64::min);
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    (max - min) / mean
}

/// `values` with `decimals` decimals, joined with " / ".
fn join(values: &[f64], decimals: usize) -> String {
    values
        .iter()
        .map(|v| format!("{v:.decimals$}"))
        .collect::<Vec<_>>()
        .join(" / ")
}

/// The status cell of a target row.
fn met(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "**missed**"
    }
}
