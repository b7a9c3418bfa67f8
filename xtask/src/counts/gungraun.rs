//! `cargo xtask counts gungraun [--runs N] [--write]`: the workloads of `examples/counts`
//! counted by knotmeter (`--measure instructions`) and by gungraun (formerly iai-callgrind,
//! `comparisons/gungraun`, the same functions from the quickstart), side by side: each one's
//! instructions per operation and its wall time per case and per suite, N runs each. Printed,
//! and with `--write` written to `docs/comparison.md`.
//!
//! gungraun needs its runner, `gungraun-runner`, of the library's version on `PATH`: when it is
//! not, it is installed with `cargo install` first (about three and a half minutes here).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::Value;

use super::render::{count, range};
use super::{bench_binary, counted};
use crate::stamp::sections::COUNTS_GUNGRAUN;
use crate::{cargo, docs, stamp};

const USAGE: &str = "usage: cargo xtask counts gungraun [--runs N] [--write]";
/// The gungraun version of `comparisons/gungraun/Cargo.toml`, which its runner must match.
const GUNGRAUN: &str = "0.20.0";
/// The workloads both count, in `examples/counts`' names (gungraun's functions are named alike).
const WORKLOADS: [&str; 5] = [
    "chain_1000",
    "chain_2000",
    "chain_2020",
    "fnv1a_4k",
    "sort_unstable_1000",
];

/// One harness's figures for one workload, over the runs.
#[derive(Default)]
struct Figures {
    /// Instructions per operation (knotmeter) or per call (gungraun), each run's.
    counts: Vec<f64>,
    /// Wall seconds of the case, each run's.
    seconds: Vec<f64>,
    /// knotmeter's overhead per operation subtracted (its empty body), each run's.
    overhead: Vec<f64>,
}

/// Measures and prints (and with `--write` stores) the section.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let (runs, write) = docs::runs_and_write(args, 3, 1, USAGE)?;
    let stamp = write.then(|| stamp::take(&COUNTS_GUNGRAUN)).transpose()?;
    ensure_runner()?;
    eprintln!("building examples/counts and comparisons/gungraun (release)…");
    let knotmeter = bench_binary(&["-p", "counts", "--bench", "counts"], "counts")?;
    let manifest = cargo::root().join("comparisons/gungraun/Cargo.toml");
    let manifest = manifest.to_string_lossy();
    cargo::build(&[
        "bench",
        "--no-run",
        "--manifest-path",
        &manifest,
        "--bench",
        "gungraun",
    ])?;
    let sitting = docs::Sitting::begin(runs)?;
    let (mut ours, mut theirs) = (BTreeMap::new(), BTreeMap::new());
    let (mut our_suite, mut their_suite) = (Vec::new(), Vec::new());
    for i in 1..=runs {
        let (report, seconds) = counted(&knotmeter)?;
        our_suite.push(seconds);
        for r in &report.results {
            let name = r.id.rsplit("::").next().unwrap_or(&r.id).to_owned();
            let f: &mut Figures = ours.entry(name).or_default();
            f.counts.push(r.estimate.median_ns);
            f.seconds.push(r.wall_ns / 1e9);
            f.overhead.push(r.overhead.per_op_ns);
        }
        let seconds = gungraun_run(&manifest, &mut theirs)?;
        their_suite.push(seconds);
        eprintln!(
            "run {i}/{runs}: knotmeter {:.2} s, gungraun {seconds:.2} s",
            our_suite[i - 1]
        );
    }
    let text = format!(
        "{}\n{}{}\n",
        COUNTS_GUNGRAUN.begin(),
        section(&sitting.end(), &ours, &theirs, (&our_suite, &their_suite)),
        COUNTS_GUNGRAUN.end()
    );
    print!("{text}");
    if let Some(stamp) = stamp {
        docs::write_section(
            &cargo::root().join(COUNTS_GUNGRAUN.page),
            (&COUNTS_GUNGRAUN.begin(), &COUNTS_GUNGRAUN.end()),
            &stamp.seal(&text)?,
            "# Comparison\n\n",
        )?;
    }
    Ok(())
}

/// `gungraun-runner` of [`GUNGRAUN`]'s version, installed when it is missing or another.
fn ensure_runner() -> Result<(), String> {
    let have = Command::new("gungraun-runner")
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    if have.split_whitespace().nth(1) == Some(GUNGRAUN) {
        return Ok(());
    }
    eprintln!("installing gungraun-runner {GUNGRAUN} (cargo install, a few minutes)…");
    let status = Command::new(cargo::program())
        .args([
            "install",
            "gungraun-runner",
            "--version",
            GUNGRAUN,
            "--locked",
        ])
        .status()
        .map_err(|e| format!("cannot run cargo install: {e}"))?;
    if !status.success() {
        return Err(format!(
            "cargo install gungraun-runner {GUNGRAUN} failed ({status})"
        ));
    }
    Ok(())
}

/// One run of gungraun's suite (`cargo bench -- --output-format=json`): each benchmark's
/// instructions and wall time added to `figures`; the suite's wall time in seconds.
fn gungraun_run(manifest: &str, figures: &mut BTreeMap<String, Figures>) -> Result<f64, String> {
    let started = Instant::now();
    let out = Command::new(cargo::program())
        .args([
            "bench",
            "-q",
            "--manifest-path",
            manifest,
            "--bench",
            "gungraun",
            "--",
        ])
        .arg("--output-format=json")
        .current_dir(cargo::root())
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run gungraun's suite: {e}"))?;
    let seconds = started.elapsed().as_secs_f64();
    if !out.status.success() {
        return Err(format!(
            "gungraun's suite failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(summary) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let name = summary["function_name"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let instructions = summary["profiles"]
            .as_array()
            .and_then(|p| p.iter().find(|p| p["tool"] == "Callgrind"))
            .and_then(|p| p["data"]["total"]["metrics"]["Ir"]["values"]["new"].as_f64())
            .ok_or_else(|| format!("gungraun's summary of {name} has no instruction count"))?;
        let f = figures.entry(name).or_default();
        f.counts.push(instructions);
        f.seconds
            .push(summary["duration_ns"].as_f64().unwrap_or(f64::NAN) / 1e9);
    }
    Ok(seconds)
}

/// The section between its markers (without them).
fn section(
    sitting: &docs::Sitting,
    ours: &BTreeMap<String, Figures>,
    theirs: &BTreeMap<String, Figures>,
    (our_suite, their_suite): (&[f64], &[f64]),
) -> String {
    let mut s = String::new();
    let _ =
        writeln!(
        s,
        "{}, with Debian's valgrind and gungraun {GUNGRAUN}: the workloads of `examples/counts` \
         and `comparisons/gungraun` (the quickstart's functions in both), each suite run {} \
         times, built once beforehand.\n",
        sitting.measured_with(&format!("cargo xtask counts gungraun --runs {}", sitting.runs)),
        sitting.runs,
    );
    let _ = writeln!(
        s,
        "| workload | knotmeter: instructions per operation | its empty body, subtracted | \
         gungraun: instructions per call | knotmeter: s per case | gungraun: s per case |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|");
    let secs = |v: f64| format!("{v:.2}");
    let empty = Figures::default();
    for name in WORKLOADS {
        let (k, g) = (
            ours.get(name).unwrap_or(&empty),
            theirs.get(name).unwrap_or(&empty),
        );
        let _ = writeln!(
            s,
            "| `{name}` | {} | {} | {} | {} | {} |",
            range(k.counts.iter().copied(), count),
            range(k.overhead.iter().copied(), count),
            range(g.counts.iter().copied(), count),
            range(k.seconds.iter().copied(), secs),
            range(g.seconds.iter().copied(), secs),
        );
    }
    let _ = writeln!(
        s,
        "| the whole suite (wall, its process included) | | | | {} s ({} cases) | {} s \
         (through `cargo bench`) |",
        range(our_suite.iter().copied(), secs),
        ours.len(),
        range(their_suite.iter().copied(), secs),
    );
    s
}
