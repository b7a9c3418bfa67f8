//! The honest-measurement targets: bodies that measure nothing are flagged in every run, real
//! work never is, `chain(n)` is reported O(n) and the flat closed form O(1) in every run (the
//! class must not flip between reruns), and `--quick` still reaches ±3% at the cost its budget
//! says per case.

use std::fmt::Write as _;
use std::path::Path;

use knotmeter_protocol::{BenchResult, Report};

use super::{json_report, met, timed_json_report};

/// What `--quick` promises per case: 100 ms of budget, and the rounds' workers to start.
const QUICK_PER_CASE_S: f64 = 0.15;

const NOTHING: [&str; 3] = [
    "nothing::empty",
    "nothing::discarded_loop",
    "nothing::constant_folded",
];

fn flagged(r: &BenchResult) -> bool {
    r.warnings.iter().any(|w| w.code == "optimized_away")
}

fn is_nothing(r: &BenchResult) -> bool {
    NOTHING.iter().any(|n| r.id.ends_with(n))
}

/// Runs the honesty fixture `rounds` times at default settings and `rounds` times with
/// `--quick`; returns the markdown section.
pub(super) fn section(honesty: &Path, rounds: usize) -> Result<String, String> {
    let mut full = Vec::new();
    let mut quick = Vec::new();
    let mut quick_per_case = Vec::new();
    for round in 1..=rounds {
        eprintln!("honesty: round {round}/{rounds}");
        full.push(json_report(honesty, &[])?);
        let (report, took) = timed_json_report(honesty, &["--quick"])?;
        quick_per_case.push(took.as_secs_f64() / report.results.len().max(1) as f64);
        quick.push(report);
    }
    Ok(render(&full, &quick, &quick_per_case))
}

fn render(full: &[Report], quick: &[Report], quick_per_case: &[f64]) -> String {
    let all = || full.iter().chain(quick).flat_map(|r| &r.results);
    let nothing: Vec<&BenchResult> = all().filter(|r| is_nothing(r)).collect();
    let nothing_flagged = nothing.iter().filter(|r| flagged(r)).count();
    let real: Vec<&BenchResult> = all()
        .filter(|r| r.id.contains("::real::") || r.id.contains("::chain_n/"))
        .collect();
    let real_flagged: Vec<&str> = real
        .iter()
        .filter(|r| flagged(r))
        .map(|r| r.id.as_str())
        .collect();
    let complexities: Vec<String> = full
        .iter()
        .chain(quick)
        .filter_map(|r| {
            r.benches
                .iter()
                .find(|b| b.id.ends_with("::chain_n"))?
                .complexity
                .as_ref()
                .map(|c| c.best.clone())
        })
        .collect();
    let linear = complexities.iter().filter(|c| *c == "O(n)").count();
    let flat_classes: Vec<String> = full
        .iter()
        .chain(quick)
        .filter_map(|r| {
            r.benches
                .iter()
                .find(|b| b.id.ends_with("::closed_form"))?
                .complexity
                .as_ref()
                .map(|c| c.best.clone())
        })
        .collect();
    let constant = flat_classes.iter().filter(|c| *c == "O(1)").count();
    let mut others: Vec<&str> = flat_classes
        .iter()
        .map(String::as_str)
        .filter(|c| *c != "O(1)")
        .collect();
    others.sort_unstable();
    others.dedup();
    let flat = full
        .iter()
        .chain(quick)
        .filter(|r| {
            r.benches.iter().any(|b| {
                b.id.ends_with("::closed_form")
                    && b.warnings.iter().any(|w| w.code == "flat_scaling")
            })
        })
        .count();
    let quick_real: Vec<&BenchResult> = quick
        .iter()
        .flat_map(|r| &r.results)
        .filter(|r| r.id.contains("::real::"))
        .collect();
    let worst_precision = quick_real
        .iter()
        .filter_map(|r| r.precision)
        .fold(0.0, f64::max);

    let runs = full.len() + quick.len();
    let mut s = String::new();
    let _ = writeln!(s, "## Honest measurement\n");
    let _ = writeln!(
        s,
        "Measured by `cargo xtask perf`: the fixture `tests/src/bin/honesty.rs`, {} runs at default \
         settings and {} with `--quick`.\n",
        full.len(),
        quick.len()
    );
    let _ = writeln!(s, "| case | target | measured | |");
    let _ = writeln!(s, "|---|---|---|---|");
    let _ = writeln!(
        s,
        "| bodies that measure nothing (empty, discarded loop, constant expression) | 100% flagged `optimized_away` | {nothing_flagged} of {} ({runs} runs) | {} |",
        nothing.len(),
        met(nothing_flagged == nothing.len() && !nothing.is_empty())
    );
    let _ = writeln!(
        s,
        "| closed-form loop `(0..n).sum()`, n = 100..100 000 | flagged `flat_scaling` | {flat} of {runs} runs | {} |",
        met(flat == runs)
    );
    let _ = writeln!(
        s,
        "| real work from {:.1} ns to {:.1} µs | 0 flags | {} flags in {} results{} | {} |",
        real.iter()
            .map(|r| r.estimate.median_ns)
            .fold(f64::MAX, f64::min),
        real.iter()
            .map(|r| r.estimate.median_ns)
            .fold(0.0, f64::max)
            / 1000.0,
        real_flagged.len(),
        real.len(),
        if real_flagged.is_empty() {
            String::new()
        } else {
            format!(" ({})", real_flagged.join(", "))
        },
        met(real_flagged.is_empty())
    );
    let _ = writeln!(
        s,
        "| `chain(n)`, n = 100..10 000 | reported as O(n) in every run | O(n) in {linear} of {} runs | {} |",
        complexities.len(),
        met(linear == complexities.len() && !complexities.is_empty())
    );
    let _ = writeln!(
        s,
        "| the same closed form, its complexity | reported O(1) in every run | O(1) in {constant} of {} runs{} | {} |",
        flat_classes.len(),
        if others.is_empty() {
            String::new()
        } else {
            format!(" (also {})", others.join(", "))
        },
        met(constant == flat_classes.len() && !flat_classes.is_empty())
    );
    let _ = writeln!(
        s,
        "| `--quick` on real work from about 3 ns to 10 µs | interval between rounds within ±3% | worst ±{:.2}% over {} results | {} |",
        worst_precision * 100.0,
        quick_real.len(),
        met(worst_precision <= 0.03 && !quick_real.is_empty())
    );
    let worst = quick_per_case.iter().copied().fold(0.0_f64, f64::max);
    let _ = writeln!(
        s,
        "| a `--quick` run, its wall time per case (every round's worker included) | ≤ {QUICK_PER_CASE_S} s | worst {worst:.3} s over {} runs | {} |",
        quick_per_case.len(),
        met(worst <= QUICK_PER_CASE_S && !quick_per_case.is_empty())
    );
    s
}
