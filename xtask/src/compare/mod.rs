//! `cargo xtask compare`: knotmeter, divan, criterion and tango-bench measured side by side on the
//! same workloads, in one run on one machine, written to `docs/comparison.md`. `cargo xtask
//! compare rerun` is a measurement of its own: whether the interval each harness reports holds
//! where a rerun lands (`rerun`).
//!
//! The workloads live in the separate `comparisons/` workspace (one bench target per harness, a
//! harness-free reference and the `measured` wrapper that reads a process's peak memory). The
//! harnesses run alternately, their order rotating every round, so that drift in the machine's
//! state is spread over all of them. Every figure is read from what the harness itself reports.

mod harness;
mod process;
mod render;
mod rerun;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use crate::cargo;
use crate::docs;
use harness::{Executables, Harness, SingleReport, Verdict, HARNESSES};
use process::{Invocation, Outcome};

const USAGE: &str =
    "usage: cargo xtask compare [--rounds N] [--comparisons N] | compare rerun [--runs N] [--quick] [--write]";

/// Everything measured, for the renderer.
pub(crate) struct Measured {
    pub(crate) rounds: usize,
    pub(crate) comparisons: usize,
    /// The harness-free reference's lines (`loop <n>` or `single`, nanoseconds per step), one
    /// set per reference run.
    pub(crate) reference: Vec<BTreeMap<String, f64>>,
    /// Default runs of the single cases, one per round.
    pub(crate) single: BTreeMap<Harness, Vec<(SingleReport, Outcome)>>,
    /// Quick runs of the single cases (absent: the default is the quickest setting).
    pub(crate) quick: BTreeMap<Harness, Vec<(SingleReport, Outcome)>>,
    /// Every comparison verdict: (pair, verdict, the right verdict).
    pub(crate) verdicts: BTreeMap<Harness, Vec<(&'static str, Verdict, Verdict)>>,
    /// The comparison runs, with the number of verdicts each gave.
    pub(crate) comparison_runs: BTreeMap<Harness, Vec<(Outcome, usize)>>,
    pub(crate) commands: Vec<(Harness, &'static str, String)>,
    pub(crate) machine: Machine,
}

/// Where and when.
pub(crate) struct Machine {
    pub(crate) cpu: String,
    pub(crate) cores: usize,
    pub(crate) rustc: String,
    pub(crate) date: String,
    pub(crate) load_start: String,
    pub(crate) load_end: String,
    pub(crate) total_s: f64,
    pub(crate) versions: Vec<(String, String)>,
    pub(crate) git: String,
}

/// Builds the comparisons workspace, measures, and rewrites `docs/comparison.md`; `rerun`
/// first: the rerun-coverage measurement instead.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    if args.first().map(String::as_str) == Some("rerun") {
        return rerun::run(&args[1..]);
    }
    let (rounds, comparisons) = parse_args(args)?;
    let stamp = crate::stamp::take(&crate::stamp::sections::COMPARISON)?;
    let started = Instant::now();
    let load_start = docs::loadavg();
    let date = today();
    let root = cargo::root();
    let workspace = root.join("comparisons");
    let manifest = workspace.join("Cargo.toml");
    let manifest = manifest.to_string_lossy();

    eprintln!("building the comparisons workspace (release)…");
    let benches = cargo::build(&[
        "bench",
        "--no-run",
        "--locked",
        "--manifest-path",
        &manifest,
    ])?;
    let bins = cargo::build(&[
        "build",
        "--release",
        "--bins",
        "--locked",
        "--manifest-path",
        &manifest,
    ])?;
    let exes = Executables {
        knotmeter: cargo::find(&benches, "with_knotmeter")?,
        divan: cargo::find(&benches, "with_divan")?,
        criterion: cargo::find(&benches, "with_criterion")?,
        tango: cargo::find(&benches, "with_tango")?,
        reference: cargo::find(&bins, "reference")?,
        measured: cargo::find(&bins, "measured")?,
    };
    let scratch = workspace.join("target").join("compare");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch)
        .map_err(|e| format!("cannot create {}: {e}", scratch.display()))?;

    let mut measured = Measured {
        rounds,
        comparisons,
        reference: Vec::new(),
        single: BTreeMap::new(),
        quick: BTreeMap::new(),
        verdicts: BTreeMap::new(),
        comparison_runs: BTreeMap::new(),
        commands: Vec::new(),
        machine: Machine {
            cpu: cpu_model(),
            cores: std::thread::available_parallelism().map_or(0, |n| n.get()),
            rustc: command_line("rustc", &["--version"]),
            date,
            load_start,
            load_end: String::new(),
            total_s: 0.0,
            versions: harness_versions(
                &workspace.join("Cargo.lock"),
                &["divan", "criterion", "tango-bench"],
            ),
            git: command_line("git", &["rev-parse", "--short=10", "HEAD"]),
        },
    };
    for harness in HARNESSES {
        for (kind, quick) in [("default", false), ("quick", true)] {
            if let Some(invocation) = harness.single(&exes, &scratch, quick) {
                measured
                    .commands
                    .push((harness, kind, invocation.display()));
            }
        }
        if let Some(invocation) = harness.comparison(&exes, &scratch, 1) {
            measured
                .commands
                .push((harness, "comparison", invocation.display()));
        }
    }

    // The single cases: every harness at default and at quick settings, alternating, with the
    // reference before each round.
    for round in 0..rounds {
        eprintln!("round {}/{rounds}: single cases", round + 1);
        measured.reference.push(reference_steps(&exes.reference)?);
        for harness in rotated(round) {
            for quick in [false, true] {
                let Some(invocation) = harness.single(&exes, &scratch, quick) else {
                    continue;
                };
                let outcome = run_one(&exes, &scratch, harness, &invocation)?;
                let report = harness.parse_single(&outcome.stdout, &scratch, quick)?;
                eprintln!(
                    "  {:<11} {:<7} {:>7.2} s",
                    harness.name(),
                    if quick { "quick" } else { "default" },
                    outcome.wall_s
                );
                let runs = if quick {
                    &mut measured.quick
                } else {
                    &mut measured.single
                };
                runs.entry(harness).or_default().push((report, outcome));
            }
        }
    }
    measured.reference.push(reference_steps(&exes.reference)?);

    // The comparisons: each harness's own, alternating.
    let most = HARNESSES
        .iter()
        .map(|h| h.comparison_runs(comparisons))
        .max()
        .unwrap_or(0);
    for k in 0..most {
        eprintln!("comparison run {}/{most}", k + 1);
        for harness in rotated(k) {
            if k >= harness.comparison_runs(comparisons) {
                continue;
            }
            let Some(invocation) = harness.comparison(&exes, &scratch, k) else {
                continue;
            };
            let outcome = run_one(&exes, &scratch, harness, &invocation)?;
            let verdicts = harness.parse_comparison(&outcome.stdout, k)?;
            eprintln!(
                "  {:<11} {:>7.2} s  {}",
                harness.name(),
                outcome.wall_s,
                verdicts
                    .iter()
                    .map(|(pair, v, _)| format!("{pair} {v:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            measured
                .comparison_runs
                .entry(harness)
                .or_default()
                .push((outcome, verdicts.len()));
            measured
                .verdicts
                .entry(harness)
                .or_default()
                .extend(verdicts);
        }
    }

    measured.machine.load_end = docs::loadavg();
    measured.machine.total_s = started.elapsed().as_secs_f64();
    let text = render::render(&measured);
    print!("{text}");
    docs::write_section(
        &root.join("docs/comparison.md"),
        render::SECTION_MARKERS,
        &stamp.seal(&text)?,
        "# knotmeter against divan, criterion and tango-bench\n\n",
    )
}

fn parse_args(args: &[String]) -> Result<(usize, usize), String> {
    let (mut rounds, mut comparisons) = (4, 10);
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| USAGE.to_owned())?;
        let n: usize = value
            .parse()
            .map_err(|_| format!("{flag} takes a number, not {value}"))?;
        match flag.as_str() {
            "--rounds" if n >= 2 => rounds = n,
            "--comparisons" if n >= 1 => comparisons = n,
            "--rounds" => return Err("--rounds must be at least 2 (spread needs two runs)".into()),
            _ => return Err(USAGE.to_owned()),
        }
    }
    Ok((rounds, comparisons))
}

/// The harnesses in an order that rotates with `round`.
fn rotated(round: usize) -> Vec<Harness> {
    let mut order = HARNESSES.to_vec();
    let len = order.len();
    order.rotate_left(round % len);
    order
}

fn run_one(
    exes: &Executables,
    scratch: &Path,
    harness: Harness,
    invocation: &Invocation,
) -> Result<Outcome, String> {
    process::run(&exes.measured, scratch, invocation, &|line| {
        harness.is_result_line(line)
    })
}

/// The reference's output: `loop <n> <ns>` lines and a `single <ns>` line.
fn reference_steps(exe: &PathBuf) -> Result<BTreeMap<String, f64>, String> {
    let out = std::process::Command::new(exe)
        .output()
        .map_err(|e| format!("cannot run the reference: {e}"))?;
    let mut steps = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let (key, value) = line
            .rsplit_once(' ')
            .ok_or_else(|| format!("the reference printed {line:?}"))?;
        let value: f64 = value
            .parse()
            .map_err(|e| format!("the reference printed {line:?}: {e}"))?;
        steps.insert(key.to_owned(), value);
    }
    if steps.len() != 4 {
        return Err(format!("the reference printed {steps:?}"));
    }
    Ok(steps)
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".into())
}

fn command_line(program: &str, args: &[&str]) -> String {
    std::process::Command::new(program)
        .args(args)
        .current_dir(cargo::root())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_else(|| "unknown".into())
}

/// The versions of the packages `names` in the comparisons workspace's lock file, in the lock's
/// order.
fn harness_versions(lock: &Path, names: &[&str]) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(lock).unwrap_or_default();
    let mut versions = Vec::new();
    let mut name = "";
    for line in text.lines() {
        if let Some(n) = line.strip_prefix("name = ") {
            name = n.trim_matches('"');
        } else if let Some(v) = line.strip_prefix("version = ") {
            if names.contains(&name) {
                versions.push((name.to_owned(), v.trim_matches('"').to_owned()));
            }
        }
    }
    versions
}

/// Today's date (UTC) as YYYY-MM-DD, from the system clock.
fn today() -> String {
    let days = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400) as i64;
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}
