//! `cargo xtask calibration [--runs N] [--quick] [--write]`: the calibration benchmark of the
//! measurement. The bench binary of `examples/calibration` (realistic bodies) is run as fresh
//! processes, and what each run claims (its median's interval, its group ratios and verdicts)
//! is held against what the other runs measured; then before/after verdicts on unchanged
//! code, and an experiment on what moves a median between processes. The report is printed,
//! and with `--write` replaces its section of `docs/calibration.md`.

mod experiment;
mod render;
mod run;
mod stats;

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::stamp::sections::CALIBRATION;
use crate::{cargo, docs, stamp};
use run::{Binary, Run};

const SECTION_BEGIN: &str = "<!-- xtask calibration: begin -->";
const SECTION_END: &str = "<!-- xtask calibration: end -->";
const USAGE: &str = "usage: cargo xtask calibration [--runs N] [--quick] [--write]";
const NEW_PAGE: &str = "# Calibration\n\nHow far the measurement's claims hold against reruns: \
`cargo xtask calibration` runs the realistic bodies of `examples/calibration` as fresh \
processes and checks each run's intervals, group ratios and verdicts against the other runs, \
the before/after verdicts on unchanged code, and what moves a median between processes \
(docs/measurement.md says how each figure is measured). The section below is generated; \
`cargo xtask calibration --write` replaces it.\n";

/// The command line's choices.
struct Options {
    /// Fresh processes per measurement (and per arm of the experiment).
    runs: usize,
    /// Pass `--quick` to the bench binary.
    quick: bool,
    /// Write the report into `docs/calibration.md`.
    write: bool,
}

impl Options {
    /// Reads `--runs N`, `--quick` and `--write`.
    fn parse(args: &[String]) -> Result<Self, String> {
        let mut options = Self {
            runs: 10,
            quick: false,
            write: false,
        };
        let mut args = args.iter();
        while let Some(flag) = args.next() {
            match flag.as_str() {
                "--runs" => {
                    let value = args.next().ok_or(USAGE)?;
                    let n: usize = value
                        .parse()
                        .map_err(|_| format!("--runs takes a number, not {value}"))?;
                    options.runs = n.max(2);
                }
                "--quick" => options.quick = true,
                "--write" => options.write = true,
                _ => return Err(USAGE.into()),
            }
        }
        Ok(options)
    }
}

/// Where and when the report was measured.
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
    /// The load averages at the start and at the end.
    load: (String, String),
    /// Fresh processes per measurement.
    runs: usize,
    /// The bench binary lists `--processes`, passed as `--processes 1` to the experiment.
    processes: bool,
}

/// Runs the calibration and prints (and with `--write` stores) its report.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let options = Options::parse(args)?;
    // Printing alone measures any tree; writing stamps the page, so it needs a clean one.
    let stamp = options
        .write
        .then(|| stamp::take(&CALIBRATION))
        .transpose()?;
    let mut context = Context {
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
        load: (docs::loadavg(), String::new()),
        runs: options.runs,
        processes: false,
    };
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
    context.processes = bin.processes;

    let mut repeated = Vec::new();
    for round in 1..=options.runs {
        eprintln!("calibration: run {round}/{}", options.runs);
        repeated.push(bin.measure(&[], &bin.settings(false), None)?);
    }
    let before_after = before_after(&bin, options.runs)?;
    let experiment = experiment::run(&bin, options.runs, context.nproc)?;
    context.load.1 = docs::loadavg();

    let text = render::report(&context, &repeated, &before_after, &experiment);
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

/// `runs` runs against one fresh history file (a directory of its own under the target
/// directory, removed afterwards), each compared with the one before it.
fn before_after(bin: &Binary, runs: usize) -> Result<Vec<Run>, String> {
    let dir = target_dir(&bin.path).join(format!("calibration-history-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let history = dir.join("history.db");
    let mut reports = Vec::new();
    let mut result = Ok(());
    for round in 1..=runs {
        eprintln!("calibration: before/after run {round}/{runs}");
        match bin.measure(&[], &bin.settings(false), Some(&history)) {
            Ok(report) => reports.push(report),
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    result.map(|()| reports)
}

/// The cargo target directory `executable` was built into (the nearest one above it tagged
/// `CACHEDIR.TAG`), or the repository's `target/`.
fn target_dir(executable: &Path) -> PathBuf {
    executable
        .ancestors()
        .find(|d| d.join("CACHEDIR.TAG").is_file())
        .map_or_else(|| cargo::root().join("target"), Path::to_owned)
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

#[cfg(test)]
mod tests {
    use super::Options;

    #[test]
    fn options_default_to_ten_runs_and_refuse_unknown_flags() {
        let parse = |args: &[&str]| {
            Options::parse(&args.iter().map(|a| (*a).to_owned()).collect::<Vec<_>>())
        };
        let o = parse(&[]).unwrap();
        assert_eq!((o.runs, o.quick, o.write), (10, false, false));
        let o = parse(&["--runs", "3", "--quick", "--write"]).unwrap();
        assert_eq!((o.runs, o.quick, o.write), (3, true, true));
        assert!(parse(&["--runs"]).is_err());
        assert!(parse(&["--runs", "x"]).is_err());
        assert!(parse(&["--rounds", "3"]).is_err());
    }
}
