//! The engine's own figures (the foundation issue's targets), measured side by side.
//!
//! Each round runs the engine's self-benchmark (`engine/benches/harness.rs`) and the
//! harness-free reference (`engine/examples/chain_reference.rs`) back to back, so both see
//! the same machine state. The figures are ratios and spreads taken within the run; the
//! absolute times are printed for context only.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use knotmeter_protocol::{BenchResult, Report};

use super::{join, json_report, median, met, spread};

/// The executables the engine section needs.
pub(super) struct Binaries {
    /// `engine/benches/harness.rs`.
    pub(super) harness: PathBuf,
    /// `engine/examples/chain_reference.rs`.
    pub(super) reference: PathBuf,
    /// `examples/quickstart/benches/quickstart.rs`.
    pub(super) quickstart: PathBuf,
}

/// Measures the engine's own figures over `rounds` rounds; returns the markdown section.
pub(super) fn section(bins: &Binaries, rounds: usize) -> Result<String, String> {
    let mut reports = Vec::new();
    let mut reference_ns = Vec::new();
    for round in 1..=rounds {
        eprintln!("engine: round {round}/{rounds}");
        reports.push(json_report(&bins.harness, &[])?);
        reference_ns.push(reference_step_ns(&bins.reference)?);
    }
    eprintln!("engine: a default run of the quickstart benches…");
    let started = Instant::now();
    let quick_report = json_report(&bins.quickstart, &[])?;
    let default_run_s = started.elapsed().as_secs_f64();
    Ok(render(
        &reports,
        &reference_ns,
        &quick_report,
        default_run_s,
    ))
}

fn reference_step_ns(executable: &Path) -> Result<f64, String> {
    let out = Command::new(executable)
        .output()
        .map_err(|e| format!("cannot run the reference: {e}"))?;
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .map_err(|e| format!("the reference printed no number: {e}"))
}

fn case<'r>(report: &'r Report, id: &str) -> &'r BenchResult {
    report
        .results
        .iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("the self-benchmark has no case {id}"))
}

fn render(reports: &[Report], reference_ns: &[f64], quick: &Report, default_run_s: f64) -> String {
    let manifest = &reports[0].manifest;
    let mut s = String::new();
    let _ = writeln!(s, "## Engine\n");
    let _ = writeln!(
        s,
        "Measured by `cargo xtask perf` ({} rounds) on {} × {} cores, {}, timer `{}` \
         (precision {:.1} ns, read {:.1} ns), git {}.\n",
        reports.len(),
        manifest.cpu,
        manifest.cores,
        manifest.rustc,
        manifest.timer.kind,
        manifest.timer.precision_ns,
        manifest.timer.read_cost_ns,
        manifest
            .git_commit
            .as_deref()
            .map_or("(none)", |c| &c[..c.len().min(10)]),
    );
    let _ = writeln!(s, "| figure | target | measured | |");
    let _ = writeln!(s, "|---|---|---|---|");

    let empty: Vec<f64> = reports
        .iter()
        .map(|r| case(r, "harness::empty").estimate.median_ns)
        .collect();
    let worst_empty = empty.iter().copied().fold(0.0, |a: f64, b| a.max(b.abs()));
    let _ = writeln!(
        s,
        "| corrected estimate of an empty body | within ±0.1 ns of zero | {} ns | {} |",
        join(&empty, 3),
        met(worst_empty <= 0.1)
    );
    let overhead: Vec<f64> = reports
        .iter()
        .map(|r| case(r, "harness::empty").overhead.per_op_ns)
        .collect();
    let worst_overhead = overhead.iter().copied().fold(0.0, f64::max);
    let _ = writeln!(
        s,
        "| harness overhead per operation | ≤ 1 ns | {} ns | {} |",
        join(&overhead, 3),
        met(worst_overhead <= 1.0)
    );

    let reference = median(reference_ns);
    let sizes = [
        (1_000.0, "harness::chain_n/1_000"),
        (10_000.0, "harness::chain_n/10_000"),
        (100_000.0, "harness::chain_n/100_000"),
    ];
    let per_step: Vec<f64> = sizes
        .iter()
        .map(|(n, id)| {
            median(
                &reports
                    .iter()
                    .map(|r| case(r, id).estimate.median_ns / n)
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    let flat = spread(&per_step);
    let off = per_step
        .iter()
        .map(|p| (p / reference - 1.0).abs())
        .fold(0.0, f64::max);
    let _ = writeln!(
        s,
        "| `chain(n)` per step, n = 1000, 10000, 100000 | constant within 3% | {} ns (spread {:.2}%) | {} |",
        join(&per_step, 4),
        flat * 100.0,
        met(flat <= 0.03)
    );
    let _ = writeln!(
        s,
        "| … against the harness-free reference `chain(20_000_000)` | within 3% | reference {:.4} ns/step; largest deviation {:.2}% | {} |",
        reference,
        off * 100.0,
        met(off <= 0.03)
    );
    let chain_1000: Vec<f64> = reports
        .iter()
        .map(|r| case(r, "harness::chain_n/1_000").estimate.median_ns)
        .collect();
    let first_three = &chain_1000[..chain_1000.len().min(3)];
    let run_spread = spread(first_three);
    let _ = writeln!(
        s,
        "| spread of `chain(1000)`'s median over 3 runs of the binary | ≤ 2% | {:.2}% ({} ns; over all {} runs {:.2}%) | {} |",
        run_spread * 100.0,
        join(first_three, 1),
        chain_1000.len(),
        spread(&chain_1000) * 100.0,
        met(run_spread <= 0.02)
    );
    let _ = writeln!(
        s,
        "| (context) spread of the harness-free reference over {} runs | — | {:.2}% | |",
        reference_ns.len(),
        spread(reference_ns) * 100.0
    );
    let _ = writeln!(
        s,
        "| a default run of {} cases (`examples/quickstart`) | under 15 s | {:.2} s | {} |",
        quick.results.len(),
        default_run_s,
        met(default_run_s < 15.0)
    );
    let _ = writeln!(
        s,
        "\nEach round runs `engine/benches/harness.rs` with `--format json` and then \
         `engine/examples/chain_reference.rs` (the fastest of five timed calls of \
         `chain(20_000_000)`, after one untimed call), alternating, so both see the same machine. \
         Spreads are (max − min) / mean. Where the harness-free reference varies between runs as \
         much as the benchmark does, the spread is the machine's (process placement, frequency, \
         neighbours), which no harness can average away inside one process."
    );
    s
}
