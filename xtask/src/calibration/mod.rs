//! `cargo xtask calibration`: the calibration benchmark of the measurement. The bench binary of
//! `examples/calibration` (realistic bodies) is run as fresh processes, in two scenarios (the
//! machine quiet, and one core kept busy), and what each run claims is held against what the
//! other runs measured: its intervals and group ratios, its before/after verdicts on unchanged
//! code, whether a +10% change reads `slower`, what a run costs; and an experiment on what
//! moves a median between processes. The report ends with issue 20's targets, met or not; it is
//! printed, and with `--write` replaces its section of `docs/calibration.md`.
//!
//! `scenario.rs` runs one scenario (`busy.rs` is its load, `trials.rs` the +10% trials,
//! `experiment.rs` the experiment, `run.rs` one process, `report.rs` its JSON); `figures.rs`
//! and `stats.rs` compute the figures, `targets.rs` holds them against the targets, `render/`
//! writes the markdown.

mod busy;
mod experiment;
mod figures;
mod options;
mod reference;
mod render;
mod report;
mod run;
mod scenario;
mod stats;
mod targets;
mod trials;

use std::process::Command;

use crate::stamp::sections::CALIBRATION;
use crate::{cargo, docs, stamp};
use options::Options;
use run::Binary;

const SECTION_BEGIN: &str = "<!-- xtask calibration: begin -->";
const SECTION_END: &str = "<!-- xtask calibration: end -->";
const NEW_PAGE: &str = "# Calibration\n\nHow far the measurement's claims hold against reruns: \
`cargo xtask calibration` runs the realistic bodies of `examples/calibration` as fresh \
processes and checks each run's intervals, group ratios and verdicts against the other runs. \
The section below is generated; `cargo xtask calibration --write` replaces it.\n";

/// Where, when and how the report was measured.
pub(super) struct Context {
    /// The command as typed (`cargo xtask calibration --runs 10`).
    command: String,
    /// `git rev-parse --short HEAD`, with `+ uncommitted changes` when the figures'
    /// dependencies are.
    commit: String,
    /// UTC date and time at the start.
    date: String,
    /// `nproc`.
    nproc: usize,
    /// Runs per measurement.
    runs: usize,
    /// Trials per +10% change.
    trials: usize,
    /// Every run was `--quick`.
    quick: bool,
    /// What each kind of run is, and its command as shown.
    commands: Vec<(String, String)>,
}

/// Runs the calibration and prints (and with `--write` stores) its report.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let options = Options::parse(args)?;
    // Printing alone measures any tree; writing stamps the page, so it needs a clean one.
    let stamp = options
        .write
        .then(|| stamp::take(&CALIBRATION))
        .transpose()?;
    eprintln!("building the calibration benchmarks (release)…");
    let built = cargo::build(&[
        "bench",
        "--no-run",
        "-p",
        "calibration",
        "--bench",
        "calibration",
    ])?;
    let bin = Binary::probe(cargo::find(&built, "calibration")?, options.quick)?;
    let context = Context {
        command: ["cargo xtask calibration".to_owned()]
            .into_iter()
            .chain(args.iter().cloned())
            .collect::<Vec<_>>()
            .join(" "),
        commit: commit(),
        date: output("date", &["-u", "+%Y-%m-%d %H:%M UTC"]).unwrap_or_else(|| "unknown".into()),
        nproc: output("nproc", &[])
            .and_then(|n| n.parse().ok())
            .unwrap_or(1),
        runs: options.runs,
        trials: options.trials,
        quick: options.quick,
        commands: scenario::commands(&bin, &options),
    };
    let mut measured = Vec::new();
    for &s in &options.scenarios {
        measured.push(scenario::measure(&bin, &options, s, context.nproc)?);
    }
    let text = render::report(&context, &measured);
    print!("{text}");
    if let Some(stamp) = stamp {
        let section = format!("{SECTION_BEGIN}\n{text}{SECTION_END}\n");
        docs::write_section(
            &cargo::root().join("docs/calibration.md"),
            (SECTION_BEGIN, SECTION_END),
            &stamp.seal(&section)?,
            NEW_PAGE,
        )?;
    }
    Ok(())
}

/// The commit measured, `abc1234`, or `abc1234 + uncommitted changes` when a path the figures
/// depend on has some (only when printing: `--write` refuses such a tree).
fn commit() -> String {
    let hash = output("git", &["rev-parse", "--short", "HEAD"]).unwrap_or_else(|| "unknown".into());
    let status = [&["status", "--porcelain", "--"], &CALIBRATION.paths()[..]].concat();
    match output("git", &status) {
        Some(status) if !status.is_empty() => format!("{hash} + uncommitted changes"),
        _ => hash,
    }
}

/// The trimmed standard output of `program args…` run in the repository root, when it succeeds.
fn output(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program)
        .args(args)
        .current_dir(cargo::root())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}
