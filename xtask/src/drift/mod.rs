//! `cargo xtask drift [--runs N] [--write]`: what moves whole runs, and what a measure of the
//! machine's speed taken with each run would explain of it (issue 20: a before/after verdict on
//! unchanged code must be `same` from the first comparison, before the history has learnt how
//! far runs move).
//!
//! The bench binary of `examples/calibration` runs N times in a row as fresh processes
//! (`--no-history`), each run between two calls of the harness-free chain reference
//! (`engine/examples/chain_reference.rs`). `figures.rs` computes how far each case's estimate
//! moves between runs, and what is left once the reference, an in-process probe (the
//! `chain_long` case, measured in the same rounds as every other case) or the run's common
//! shift (the median of the other cases) is taken out. It is printed, and with `--write`
//! written to `docs/calibration.md`.

mod figures;
mod render;

use std::path::Path;
use std::process::Command;

use knotmeter_protocol::Report;

use crate::stamp::sections::DRIFT;
use crate::{cargo, docs, stamp};
use figures::Run;

const SECTION_BEGIN: &str = "<!-- xtask drift: begin -->";
const SECTION_END: &str = "<!-- xtask drift: end -->";
const USAGE: &str = "usage: cargo xtask drift [--runs N] [--write]";
/// The case that stands for a probe of the machine inside the bench binary.
const PROBE: &str = "chain_long";

/// Measures the runs and prints (and with `--write` stores) the section.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let (runs, write) = docs::runs_and_write(args, 14, 3, USAGE)?;
    let stamp = write.then(|| stamp::take(&DRIFT)).transpose()?;
    eprintln!("building the calibration benchmarks and the chain reference (release)…");
    let bench = cargo::build(&[
        "bench",
        "--no-run",
        "-p",
        "calibration",
        "--bench",
        "calibration",
    ])?;
    let bench = cargo::find(&bench, "calibration")?;
    let examples = cargo::build(&[
        "build",
        "--release",
        "-p",
        "knotmeter",
        "--example",
        "chain_reference",
    ])?;
    let reference = cargo::find(&examples, "chain_reference")?;
    let sitting = render::Sitting::begin(runs)?;
    let mut measured = Vec::with_capacity(runs);
    for i in 1..=runs {
        let before = reference_ns(&reference)?;
        let (estimates, engine_probe_ns, engine_probe_rounds) = estimates(&bench)?;
        let after = reference_ns(&reference)?;
        eprintln!(
            "run {i}/{runs}: reference {before:.4} and {after:.4} ns per step, the engine's \
             probe {engine_probe_ns:.4}"
        );
        measured.push(Run {
            estimates,
            reference_ns: (before * after).sqrt(),
            engine_probe_ns,
            engine_probe_rounds,
        });
    }
    let figures = figures::compute(&measured, PROBE)?;
    let text = format!(
        "{SECTION_BEGIN}\n{}{SECTION_END}\n",
        render::section(&sitting.end(), &figures, PROBE)
    );
    print!("{text}");
    if let Some(stamp) = stamp {
        docs::write_section(
            &cargo::root().join(DRIFT.page),
            (SECTION_BEGIN, SECTION_END),
            &stamp.seal(&text)?,
            "# Calibration\n\n",
        )?;
    }
    Ok(())
}

/// One call of the chain reference: its nanoseconds per step.
fn reference_ns(reference: &Path) -> Result<f64, String> {
    let out = Command::new(reference)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", reference.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|ns| out.status.success() && *ns > 0.0)
        .ok_or_else(|| format!("{} printed {text:?}", reference.display()))
}

/// One fresh run of the bench binary: each case's estimate, by its name after the last `::`,
/// the engine's probe of the run in nanoseconds per step (NaN when it reported none), and the
/// figures of the probe's rounds.
type Estimates = (std::collections::BTreeMap<String, f64>, f64, Vec<f64>);

fn estimates(bench: &Path) -> Result<Estimates, String> {
    let out = Command::new(bench)
        .args(["--bench", "--format", "json", "--no-history"])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", bench.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} failed ({}):\n{}",
            bench.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let report: Report = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("{} printed no report: {e}", bench.display()))?;
    let estimates = report
        .results
        .iter()
        .map(|r| {
            let name = r.id.rsplit("::").next().unwrap_or(&r.id).to_owned();
            (name, r.estimate.median_ns)
        })
        .collect();
    let probe = report.probe.as_ref().map_or(f64::NAN, |p| p.ns_per_step);
    let rounds = report
        .probe
        .as_ref()
        .map(|p| p.rounds.medians_ns.clone())
        .unwrap_or_default();
    Ok((estimates, probe, rounds))
}
