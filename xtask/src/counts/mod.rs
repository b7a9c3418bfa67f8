//! `cargo xtask counts [--runs N] [--write]`: what `--measure instructions` promises (issue 23),
//! measured on this machine and written to `docs/instructions.md`.
//!
//! With one core kept busy by a spinning shell, the bench binary of `examples/counts` runs N
//! times as fresh processes under `--measure instructions --no-history`: seed 001's
//! `chain(1000)` must count the same every time, the same code at two addresses must read
//! `same`, and `chain(2020)` against `chain(2000)` (1% more work) must read `slower`. Then what
//! it costs: the quickstart's whole bench binary counted three times (its wall time, and the
//! longest case), and the criterion suite of `compat/criterion-fixture` counted once through
//! knotmeter-criterion. `cargo xtask counts gungraun` counts the same workloads with gungraun
//! (`gungraun.rs`).

mod gungraun;
mod render;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use knotmeter_protocol::{Report, Verdict};

use crate::stamp::sections::COUNTS;
use crate::{cargo, docs, stamp};

const USAGE: &str = "usage: cargo xtask counts [--runs N] [--write]";
/// Fresh runs of the quickstart's bench binary, for its cost.
const QUICKSTART_RUNS: usize = 3;

/// One run of `examples/counts`.
pub(super) struct CountsRun {
    /// `chain_1000`'s count per operation, and its smallest and largest repetition.
    pub(super) chain: (f64, f64, f64),
    /// The verdict of `there` against `here`, and its ratio.
    pub(super) address: (Verdict, f64),
    /// The verdict of `chain_2020` against `chain_2000`, and its ratio.
    pub(super) work: (Verdict, f64),
    /// The run's wall time, in seconds, and its slowest case's.
    pub(super) seconds: f64,
    pub(super) slowest_case: f64,
    /// The cases of the run.
    pub(super) cases: usize,
}

/// A whole bench binary counted: its cases, how many were exact, its wall time and its
/// slowest case's, in seconds.
pub(super) struct Suite {
    pub(super) cases: usize,
    pub(super) exact: usize,
    pub(super) failed: usize,
    pub(super) seconds: f64,
    pub(super) slowest_case: f64,
}

/// Measures and prints (and with `--write` stores) the section.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    if args.first().map(String::as_str) == Some("gungraun") {
        return gungraun::run(&args[1..]);
    }
    let (runs, write) = docs::runs_and_write(args, 10, 2, USAGE)?;
    let stamp = write.then(|| stamp::take(&COUNTS)).transpose()?;
    eprintln!("building examples/counts, the quickstart and the criterion suite (release)…");
    let counts = bench_binary(&["-p", "counts", "--bench", "counts"], "counts")?;
    let quickstart = bench_binary(&["-p", "quickstart", "--bench", "quickstart"], "quickstart")?;
    let fixture = cargo::root().join("compat/criterion-fixture/Cargo.toml");
    let suite = bench_binary(
        &[
            "--manifest-path",
            &fixture.to_string_lossy(),
            "--bench",
            "suite",
        ],
        "suite",
    )?;
    let sitting = render::Sitting::begin(runs)?;
    let busy = Spinner::start()?;
    let mut measured = Vec::with_capacity(runs);
    for i in 1..=runs {
        let run = counts_run(&counts)?;
        eprintln!(
            "run {i}/{runs}: chain_1000 {:.1} instr/op, there {:?}, chain_2020 {:?} ({:.4}), {:.2} s",
            run.chain.0, run.address.0, run.work.0, run.work.1, run.seconds
        );
        measured.push(run);
    }
    drop(busy);
    let quickstart: Vec<Suite> = (0..QUICKSTART_RUNS)
        .map(|_| suite_run(&quickstart))
        .collect::<Result<_, _>>()?;
    let criterion = suite_run(&suite)?;
    let text = format!(
        "{}\n{}{}\n",
        COUNTS.begin(),
        render::section(&sitting.end(), &measured, &quickstart, &criterion),
        COUNTS.end()
    );
    print!("{text}");
    if let Some(stamp) = stamp {
        docs::write_section(
            &cargo::root().join(COUNTS.page),
            (&COUNTS.begin(), &COUNTS.end()),
            &stamp.seal(&text)?,
            "# Instruction counts\n\n",
        )?;
    }
    Ok(())
}

/// Builds a bench target (`cargo bench --no-run ARGS`) and returns its executable.
fn bench_binary(args: &[&str], name: &str) -> Result<std::path::PathBuf, String> {
    let built = cargo::build(&[&["bench", "--no-run"], args].concat())?;
    cargo::find(&built, name)
}

/// `binary --bench --measure instructions --no-history --format json`: its report and wall time.
fn counted(binary: &Path) -> Result<(Report, f64), String> {
    let started = Instant::now();
    let out = Command::new(binary)
        .args([
            "--bench",
            "--measure",
            "instructions",
            "--no-history",
            "--format",
            "json",
        ])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    let seconds = started.elapsed().as_secs_f64();
    let report: Report = serde_json::from_slice(&out.stdout).map_err(|e| {
        format!(
            "{} printed no report ({e}):\n{}",
            binary.display(),
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    Ok((report, seconds))
}

fn counts_run(binary: &Path) -> Result<CountsRun, String> {
    let (report, seconds) = counted(binary)?;
    let result = |name: &str| {
        report
            .results
            .iter()
            .find(|r| r.id.rsplit("::").next() == Some(name))
            .ok_or_else(|| format!("the counts run has no result of {name}"))
    };
    let verdict = |name: &str| -> Result<(Verdict, f64), String> {
        let c = result(name)?
            .comparison
            .as_ref()
            .ok_or_else(|| format!("{name} was not compared with its group's baseline"))?;
        Ok((c.verdict, c.ratio))
    };
    let chain = &result("chain_1000")?.estimate;
    Ok(CountsRun {
        chain: (chain.median_ns, chain.low_ns, chain.high_ns),
        address: verdict("there")?,
        work: verdict("chain_2020")?,
        seconds,
        slowest_case: slowest(&report),
        cases: report.results.len() + report.failures.len(),
    })
}

fn suite_run(binary: &Path) -> Result<Suite, String> {
    let (report, seconds) = counted(binary)?;
    Ok(Suite {
        cases: report.results.len() + report.failures.len(),
        exact: report
            .results
            .iter()
            .filter(|r| r.estimate.low_ns == r.estimate.high_ns)
            .count(),
        failed: report.failures.len(),
        seconds,
        slowest_case: slowest(&report),
    })
}

/// The longest wall time of one case of `report`, in seconds.
fn slowest(report: &Report) -> f64 {
    report
        .results
        .iter()
        .map(|r| r.wall_ns / 1e9)
        .fold(0.0, f64::max)
}

/// One core kept busy, by a shell that loops without pause, until dropped.
struct Spinner(Child);

impl Spinner {
    fn start() -> Result<Self, String> {
        Command::new("sh")
            .args(["-c", "while :; do :; done"])
            .spawn()
            .map(Self)
            .map_err(|e| format!("cannot start the busy loop: {e}"))
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
