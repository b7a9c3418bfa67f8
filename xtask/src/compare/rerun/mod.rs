//! `cargo xtask compare rerun [--runs N] [--quick] [--write]`: does the interval a harness
//! reports hold where a rerun lands?
//!
//! knotmeter, criterion, zenbench and divan time the same realistic bodies (the `rerun` cases of
//! the `comparisons/` workspace). Each harness's bench binary runs N times as a fresh process,
//! the harnesses taking turns in an order that rotates every round. Each run gives the
//! harness's central estimate per case and the interval it reports around it (divan reports
//! none). Over the N runs: how often one run's interval holds another run's estimate
//! (coverage), how wide the intervals are and how far the estimates spread. Where a harness
//! compares a run with an earlier one, a store of its own (fresh for this command) counts how
//! often it calls unchanged code faster or slower. The report is printed, and with `--write`
//! replaces its section of `docs/comparison.md`; every figure in it is measured by this run.

mod invoke;
mod parse;
mod render;
mod stats;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::harness::Harness;
use super::process::{self, Invocation, Outcome};
use crate::{cargo, docs};
use invoke::Binaries;
use parse::{Call, Compared, Report};

const USAGE: &str = "usage: cargo xtask compare rerun [--runs N] [--quick] [--write]";

/// The harnesses of this measurement, in the columns' order: those with an interval first.
const RERUN_HARNESSES: [Harness; 4] = [
    Harness::Knotmeter,
    Harness::Criterion,
    Harness::Zenbench,
    Harness::Divan,
];

/// The cases, in the names this module gives them (each harness's own names are mapped).
const CASES: [&str; 5] = [
    "chain_n/100",
    "chain_n/10000",
    "sort_1000",
    "parse_csv",
    "hash_map",
];

/// The command line's choices.
#[derive(Debug, PartialEq)]
struct Options {
    /// Fresh processes per harness (and per before/after sequence).
    runs: usize,
    /// Each harness at its quickest reasonable setting, where it has one (for trying it out).
    quick: bool,
    /// Write the report into `docs/comparison.md`.
    write: bool,
}

impl Options {
    /// Reads `--runs N` (at least 2), `--quick` and `--write`.
    fn parse(args: &[String]) -> Result<Options, String> {
        let mut options = Options {
            runs: 10,
            quick: false,
            write: false,
        };
        let mut args = args.iter();
        while let Some(flag) = args.next() {
            match flag.as_str() {
                "--runs" => {
                    let value = args.next().ok_or(USAGE)?;
                    options.runs = match value.parse() {
                        Ok(n) if n >= 2 => n,
                        _ => return Err(format!("--runs takes a number from 2 up, not {value}")),
                    };
                }
                "--quick" => options.quick = true,
                "--write" => options.write = true,
                _ => return Err(USAGE.into()),
            }
        }
        Ok(options)
    }
}

/// One harness's before/after comparisons on unchanged code.
#[derive(Debug, Default)]
struct BeforeAfter {
    /// Each verdict, with its case, in run order.
    calls: Vec<(String, Call)>,
    /// Runs that compared nothing: they only stored a result to compare with, or tried to
    /// (zenbench stores a baseline only from a run it accepts).
    setup_runs: usize,
    /// A result to compare with is stored.
    stored: bool,
}

/// Everything measured, for the renderer.
struct Measured {
    /// Per harness, the reports of its runs without a store, in run order.
    runs: BTreeMap<Harness, Vec<Report>>,
    /// Per harness that compares with an earlier run, its verdicts.
    before_after: BTreeMap<Harness, BeforeAfter>,
    /// The command lines: harness, what the run is for, the command.
    commands: Vec<(Harness, &'static str, String)>,
    /// Where, when and how.
    context: Context,
}

/// Where, when and how the report was measured.
struct Context {
    /// The command as typed.
    command: String,
    /// UTC date.
    date: String,
    /// The CPU model.
    cpu: String,
    /// Cores available to this process.
    cores: usize,
    /// `rustc --version`.
    rustc: String,
    /// The commit, with `+ uncommitted changes` when the tree is dirty.
    git: String,
    /// The harnesses' versions from the comparisons workspace's lock file.
    versions: Vec<(String, String)>,
    /// Load averages at the start and at the end.
    load: (String, String),
    /// The whole command's wall time, in seconds.
    total_s: f64,
    /// Runs per harness.
    runs: usize,
    /// Each harness at its quickest setting, not its default.
    quick: bool,
}

/// Builds the bench targets, runs every harness `--runs` times, prints the report and, with
/// `--write`, stores it in `docs/comparison.md`.
pub(super) fn run(args: &[String]) -> Result<(), String> {
    let options = Options::parse(args)?;
    let stamp = options
        .write
        .then(|| crate::stamp::take(&crate::stamp::sections::COMPARISON_RERUN))
        .transpose()?;
    let started = Instant::now();
    let workspace = cargo::root().join("comparisons");
    let binaries = Binaries::build(&workspace)?;
    let scratch = fresh_dir(&workspace.join("target").join("compare-rerun"))?;
    fresh_dir(&invoke::zenbench_dir(&scratch))?;
    let mut measured = Measured {
        runs: BTreeMap::new(),
        before_after: BTreeMap::new(),
        commands: invoke::commands(&binaries, &scratch, options.quick),
        context: context(args, &options),
    };
    for round in 0..options.runs {
        eprintln!("rerun {}/{}", round + 1, options.runs);
        for harness in rotated(round) {
            measure_round(&mut measured, &binaries, &scratch, harness, options.quick)?;
        }
    }
    measured.context.load.1 = docs::loadavg();
    measured.context.total_s = started.elapsed().as_secs_f64();
    let text = render::report(&measured);
    print!("{text}");
    if let Some(stamp) = stamp {
        write_section(&stamp, &text)?;
    }
    Ok(())
}

/// One round of one harness: its run without a store, then its before/after run where it has
/// one (criterion's before/after is its ordinary run: it always compares with its last run).
fn measure_round(
    measured: &mut Measured,
    binaries: &Binaries,
    scratch: &Path,
    harness: Harness,
    quick: bool,
) -> Result<(), String> {
    let invocation = invoke::coverage(harness, binaries, scratch, quick);
    let outcome = run_one(binaries, scratch, harness, &invocation, "")?;
    let report = parse::report(harness, &outcome, scratch)?;
    measured.runs.entry(harness).or_default().push(report);
    if !invoke::compares(harness) {
        return Ok(());
    }
    let before_after = measured.before_after.entry(harness).or_default();
    let outcome = match invoke::before_after(harness, binaries, scratch, quick, before_after.stored)
    {
        Some(invocation) => run_one(binaries, scratch, harness, &invocation, " (before/after)")?,
        None => outcome,
    };
    match parse::compared(harness, &outcome)? {
        Compared::Calls(calls) => before_after.calls.extend(calls),
        Compared::Stored(stored) => {
            before_after.setup_runs += 1;
            before_after.stored |= stored;
        }
    }
    Ok(())
}

/// Runs `invocation` under the `measured` wrapper and says how long it took.
fn run_one(
    binaries: &Binaries,
    scratch: &Path,
    harness: Harness,
    invocation: &Invocation,
    what: &str,
) -> Result<Outcome, String> {
    let outcome = process::run(&binaries.measured, scratch, invocation, &|_| false)?;
    eprintln!("  {:<10} {:>7.2} s{what}", harness.name(), outcome.wall_s);
    Ok(outcome)
}

/// Writes the report between its markers in `docs/comparison.md`.
fn write_section(stamp: &crate::stamp::Stamp, text: &str) -> Result<(), String> {
    let markers = (
        crate::stamp::sections::COMPARISON_RERUN.begin(),
        crate::stamp::sections::COMPARISON_RERUN.end(),
    );
    let section = format!("{}\n{text}{}\n", markers.0, markers.1);
    docs::write_section(
        &cargo::root().join(crate::stamp::sections::COMPARISON_RERUN.page),
        (&markers.0, &markers.1),
        &stamp.seal(&section)?,
        "# knotmeter against divan, criterion, tango-bench and zenbench\n\n",
    )
}

/// The harnesses in an order that rotates with `round`.
fn rotated(round: usize) -> Vec<Harness> {
    let mut order = RERUN_HARNESSES.to_vec();
    order.rotate_left(round % RERUN_HARNESSES.len());
    order
}

/// `dir`, emptied.
fn fresh_dir(dir: &Path) -> Result<PathBuf, String> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    Ok(dir.to_owned())
}

/// Where and when, before anything runs (the end's load and the wall time are filled in last).
fn context(args: &[String], options: &Options) -> Context {
    let lock = cargo::root().join("comparisons/Cargo.lock");
    Context {
        command: std::iter::once("cargo xtask compare rerun".to_owned())
            .chain(args.iter().filter(|a| *a != "--write").cloned())
            .collect::<Vec<_>>()
            .join(" "),
        date: super::today(),
        cpu: super::cpu_model(),
        cores: std::thread::available_parallelism().map_or(0, |n| n.get()),
        rustc: super::command_line("rustc", &["--version"]),
        git: commit(),
        versions: super::harness_versions(&lock, &["criterion", "zenbench", "divan"]),
        load: (docs::loadavg(), String::new()),
        total_s: 0.0,
        runs: options.runs,
        quick: options.quick,
    }
}

/// The commit measured, `abc1234` or `abc1234 + uncommitted changes`.
fn commit() -> String {
    let hash = super::command_line("git", &["rev-parse", "--short=10", "HEAD"]);
    let status = super::command_line("git", &["status", "--porcelain"]);
    if status.is_empty() || status == "unknown" {
        hash
    } else {
        format!("{hash} + uncommitted changes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_default_to_ten_runs_and_refuse_fewer_than_two() {
        let parse = |args: &[&str]| {
            Options::parse(&args.iter().map(|a| (*a).to_owned()).collect::<Vec<_>>())
        };
        let defaults = Options {
            runs: 10,
            quick: false,
            write: false,
        };
        assert_eq!(parse(&[]), Ok(defaults));
        let all = Options {
            runs: 3,
            quick: true,
            write: true,
        };
        assert_eq!(parse(&["--runs", "3", "--quick", "--write"]), Ok(all));
        assert!(parse(&["--runs", "1"]).is_err());
        assert!(parse(&["--runs"]).is_err());
        assert!(parse(&["--rounds", "3"]).is_err());
    }

    #[test]
    fn every_harness_leads_a_round_in_turn() {
        let leaders: Vec<Harness> = (0..4).map(|r| rotated(r)[0]).collect();
        assert_eq!(leaders, RERUN_HARNESSES);
        assert_eq!(rotated(4), rotated(0));
    }
}
