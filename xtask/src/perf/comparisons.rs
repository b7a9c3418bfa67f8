//! The comparison targets: verdict rates of paired groups with known differences, and
//! before/after verdicts on unchanged code.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use knotmeter_protocol::{Report, Verdict};

use super::{json_report, met};

/// Runs the pairs fixture `runs` times at default settings, and the quickstart benches
/// `rounds` times against one history; returns the markdown section.
pub(super) fn section(
    pairs: &Path,
    quickstart: &Path,
    runs: usize,
    rounds: usize,
) -> Result<String, String> {
    let mut reports = Vec::new();
    let mut half_threshold = Vec::new();
    for run in 1..=runs {
        eprintln!("comparisons: paired run {run}/{runs}");
        reports.push(json_report(pairs, &[])?);
        half_threshold.push(json_report(pairs, &["--noise-threshold", "0.25", "ab1_"])?);
    }
    let history = std::env::temp_dir().join(format!("knotmeter-perf-{}.db", std::process::id()));
    let mut before_after = Vec::new();
    for round in 1..=rounds {
        eprintln!("comparisons: before/after round {round}/{rounds}");
        before_after.push(with_history(quickstart, &history)?);
    }
    let _ = std::fs::remove_file(&history);
    Ok(render(&reports, &half_threshold, &before_after))
}

fn with_history(executable: &Path, history: &Path) -> Result<Report, String> {
    let out = Command::new(executable)
        .args(["--bench", "--format", "json"])
        .env("KNOTMETER_HISTORY", history)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", executable.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} failed:\n{}",
            executable.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("no report: {e}"))
}

/// How often the member `id` got `verdict`, and the mean wall time of the pair in seconds.
fn rate(reports: &[Report], id: &str, verdict: Verdict) -> (usize, usize, f64) {
    let mut hits = 0;
    let mut total = 0;
    let mut wall = 0.0;
    for report in reports {
        if let Some(r) = report.results.iter().find(|r| r.id.ends_with(id)) {
            if let Some(c) = &r.comparison {
                total += 1;
                wall += r.wall_ns / 1e9;
                if c.verdict == verdict {
                    hits += 1;
                }
            }
        }
    }
    (
        hits,
        total,
        if total > 0 { wall / total as f64 } else { 0.0 },
    )
}

fn render(pairs: &[Report], half_threshold: &[Report], before_after: &[Report]) -> String {
    let (aa, aa_n, aa_wall) = rate(pairs, "::aa_same", Verdict::Same);
    let (half, half_n, half_wall) = rate(half_threshold, "::ab1_plus_1pct", Verdict::Slower);
    let ratios: Vec<f64> = pairs
        .iter()
        .flat_map(|r| &r.results)
        .filter(|r| r.id.ends_with("::ab1_plus_1pct"))
        .filter_map(|r| Some(r.comparison.as_ref()?.ratio))
        .collect();
    let mean_ratio = ratios.iter().sum::<f64>() / ratios.len().max(1) as f64;
    let (ab5, ab5_n, ab5_wall) = rate(pairs, "::ab5_plus_5pct", Verdict::Slower);
    let (ab1, ab1_n, ab1_wall) = rate(pairs, "::ab1_plus_1pct", Verdict::Slower);
    let later = &before_after[1.min(before_after.len())..];
    let verdicts: Vec<(String, Verdict)> = later
        .iter()
        .flat_map(|r| &r.results)
        .filter_map(|r| r.comparison.as_ref().map(|c| (r, c)))
        // Group members are compared with their baseline (sort_unstable is faster than
        // sort_stable, truly); only before/after comparisons against a stored run count here.
        .filter(|(_, c)| c.against.starts_with("run "))
        .map(|(r, c)| (r.id.clone(), c.verdict))
        .collect();
    let false_verdicts: Vec<&(String, Verdict)> = verdicts
        .iter()
        .filter(|(_, v)| *v != Verdict::Same)
        .collect();
    let pct = |hits: usize, n: usize| {
        if n > 0 {
            100.0 * hits as f64 / n as f64
        } else {
            0.0
        }
    };

    let mut s = String::new();
    let _ = writeln!(s, "## Comparisons\n");
    let _ = writeln!(
        s,
        "Measured by `cargo xtask perf`: the fixture `tests/src/bin/pairs.rs` ({} runs at default \
         settings; each pair is measured interleaved in one loop with a budget of 2 s), and the \
         quickstart benches run {} times against one fresh history (unchanged code).\n",
        pairs.len(),
        before_after.len()
    );
    let _ = writeln!(s, "| case | target | measured | |");
    let _ = writeln!(s, "|---|---|---|---|");
    let _ = writeln!(
        s,
        "| A/A pair (the same function twice) | `same` in ≥ 95% of runs | {aa} of {aa_n} ({:.0}%), {aa_wall:.2} s per pair | {} |",
        pct(aa, aa_n),
        met(aa_n > 0 && pct(aa, aa_n) >= 95.0)
    );
    let _ = writeln!(
        s,
        "| true 5% difference | `slower` in every run | {ab5} of {ab5_n}, {ab5_wall:.2} s per pair | {} |",
        met(ab5_n > 0 && ab5 == ab5_n)
    );
    let _ = writeln!(
        s,
        "| true 1% difference, within 2 s for the pair | detected in ≥ 90% of runs | {ab1} of {ab1_n} ({:.0}%), {ab1_wall:.2} s per pair | {} |",
        pct(ab1, ab1_n),
        met(ab1_n > 0 && pct(ab1, ab1_n) >= 90.0 && ab1_wall <= 2.0)
    );
    let _ = writeln!(
        s,
        "| … the same pair with `--noise-threshold 0.25` | detected in ≥ 90% of runs | {half} of {half_n} ({:.0}%), {half_wall:.2} s per pair | {} |",
        pct(half, half_n),
        met(half_n > 0 && pct(half, half_n) >= 90.0 && half_wall <= 2.0)
    );
    let _ = writeln!(
        s,
        "| before/after on unchanged code, over {} runs | no false verdicts | {} of {} verdicts not `same`{} | {} |",
        before_after.len(),
        false_verdicts.len(),
        verdicts.len(),
        if false_verdicts.is_empty() {
            String::new()
        } else {
            format!(" ({})", false_verdicts.iter().map(|(id, v)| format!("{id}: {v:?}")).collect::<Vec<_>>().join(", "))
        },
        met(false_verdicts.is_empty() && !verdicts.is_empty())
    );
    let _ = writeln!(
        s,
        "\nThe 1% pair runs `chain(2020)` against `chain(2000)`: 1% more iterations, measured as a \
         time ratio of {mean_ratio:.4} on average. A verdict needs the whole interval of the \
         ratio over the rounds past the threshold, 0.5% by default (docs/measurement.md, §9). The \
         last row shows the sensitivity beyond the default: the same pair with a 0.25% threshold."
    );
    s
}
