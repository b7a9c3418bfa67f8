//! `knotmeter history export`: the latest complete result of each case in the formats other
//! tools take, so existing dashboards and services can chart knotmeter's results:
//!
//! * **Bencher Metric Format** (`bmf`, <https://bencher.dev/docs/reference/bencher-metric-format/>):
//!   an object keyed by case id, each with the built-in `latency` measure (nanoseconds): the
//!   median as `value`, its 95% confidence interval as `lower_value` and `upper_value`; a
//!   count (`--measure instructions`) under Bencher's built-in `instructions` measure instead,
//!   its range over the count's repetitions as the bounds.
//! * **github-action-benchmark** (`customSmallerIsBetter`): an array of `{name, unit: "ns",
//!   value, range, extra}`, the median as `value`, the interval in `range`, and in `extra`
//!   the samples behind it and the codes of any warnings; a count with `unit: "instructions"`.
//!
//! Each case's latest result is exported, whichever its measure: a history that holds both
//! times and counts of a case exports the one stored last.
//!
//! Only what was measured is written: results cut short by a cancel are never exported, and
//! a result keeps its warnings' codes where the format has room for them. The document is
//! written whole or not at all (`--output` goes through a temporary file renamed over it).

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use knotmeter_history::{resolve_path, History, HistoryError};
use knotmeter_protocol::{BenchResult, Measure};
use serde_json::{json, Map, Value};

use super::located::history_target_dir;
use crate::cli::{ExportArgs, ExportFormat};

/// `knotmeter history export`. Exit status 1, writing nothing, when the history cannot be
/// read or holds no result to export.
pub fn export(args: ExportArgs) -> anyhow::Result<ExitCode> {
    let path = resolve_path(history_target_dir(args.path).as_deref());
    let results = match read(&path, args.commit.as_deref()) {
        Ok(results) => results,
        Err(e) => {
            eprintln!("knotmeter: nothing was exported: {e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    if results.is_empty() {
        let of_commit = args
            .commit
            .map(|c| format!(" of runs at commit {c}"))
            .unwrap_or_default();
        eprintln!(
            "knotmeter: nothing was exported: {} holds no complete result{of_commit}",
            path.display()
        );
        return Ok(ExitCode::FAILURE);
    }
    let document = match args.format {
        ExportFormat::Bmf => bmf(&results),
        ExportFormat::GithubActionBenchmark => github_action_benchmark(&results),
    };
    let mut text = serde_json::to_string_pretty(&document)?;
    text.push('\n');
    match &args.output {
        Some(file) => {
            write_whole(file, text.as_bytes())?;
            eprintln!(
                "knotmeter: exported {} result(s) to {}",
                results.len(),
                file.display()
            );
        }
        None => std::io::stdout().lock().write_all(text.as_bytes())?,
    }
    Ok(ExitCode::SUCCESS)
}

fn read(path: &Path, commit: Option<&str>) -> Result<Vec<BenchResult>, HistoryError> {
    let history = History::open_read_only(path)?;
    match commit {
        Some(commit) => history.latest_results_at_commit(commit),
        None => history.latest_results(),
    }
}

/// Bencher Metric Format: `{"<id>": {"latency": {"value", "lower_value", "upper_value"}}}`,
/// or `{"<id>": {"instructions": {…}}}` for a count.
pub fn bmf(results: &[BenchResult]) -> Value {
    let mut benchmarks = Map::new();
    for r in results {
        let measure = match r.measure {
            Measure::Time => "latency",
            Measure::Instructions => "instructions",
        };
        let mut figures = Map::new();
        figures.insert(
            measure.to_owned(),
            json!({
                "value": r.estimate.median_ns,
                "lower_value": r.estimate.low_ns,
                "upper_value": r.estimate.high_ns,
            }),
        );
        benchmarks.insert(r.id.clone(), Value::Object(figures));
    }
    Value::Object(benchmarks)
}

/// github-action-benchmark's `customSmallerIsBetter` input.
pub fn github_action_benchmark(results: &[BenchResult]) -> Value {
    let entries = results
        .iter()
        .map(|r| {
            let mut extra = vec![format!(
                "{} samples of {} op(s)",
                r.samples, r.ops_per_sample
            )];
            let codes: Vec<&str> = r.warnings.iter().map(|w| w.code.as_str()).collect();
            if !codes.is_empty() {
                extra.push(format!("warnings: {}", codes.join(", ")));
            }
            let (unit, range) = match r.measure {
                Measure::Time => ("ns", "95% CI"),
                Measure::Instructions => ("instructions", "repetitions"),
            };
            json!({
                "name": r.id,
                "unit": unit,
                "value": r.estimate.median_ns,
                "range": format!("{range} [{}, {}]", r.estimate.low_ns, r.estimate.high_ns),
                "extra": extra.join("; "),
            })
        })
        .collect();
    Value::Array(entries)
}

/// Writes `bytes` to `file` whole or not at all: into a temporary file beside it, then
/// renamed over it.
fn write_whole(file: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    use anyhow::Context;
    let name = file
        .file_name()
        .with_context(|| format!("--output {} names no file", file.display()))?;
    let mut temporary_name = std::ffi::OsString::from(".");
    temporary_name.push(name);
    temporary_name.push(format!(".{}.tmp", std::process::id()));
    let temporary = file.with_file_name(temporary_name);
    let written = std::fs::File::create(&temporary).and_then(|mut f| {
        f.write_all(bytes)?;
        f.sync_all()
    });
    if let Err(e) = written.and_then(|()| std::fs::rename(&temporary, file)) {
        let _ = std::fs::remove_file(&temporary);
        return Err(e).with_context(|| format!("cannot write {}", file.display()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(measure: &str) -> BenchResult {
        serde_json::from_value(json!({
            "id": "q::chain_1000", "name": "chain_1000", "args": null, "group": null,
            "baseline": false, "file": "benches/q.rs", "line": 8, "measure": measure,
            "estimate": {"median_ns": 5515.0, "low_ns": 5515.0, "high_ns": 5515.0, "mean_ns": 5515.0},
            "quantiles": {"min_ns": 5515.0, "p5_ns": 5515.0, "q1_ns": 5515.0, "q3_ns": 5515.0,
                          "p95_ns": 5515.0, "max_ns": 5515.0, "std_dev_ns": 0.0, "outliers": 0},
            "precision": 0.0, "overhead": {"per_op_ns": 3.0, "drift": null, "capped": 0},
            "cold_ns": 5518.0, "ops_per_sample": 512, "samples": 5, "wall_ns": 1e8,
            "partial": false, "warnings": [], "comparison": null, "allocations": null,
            "raw": {"workload_ns": [5518.0], "baseline_ns": [3.0]}
        }))
        .unwrap()
    }

    #[test]
    fn a_count_is_exported_under_its_own_measure_never_as_a_latency() {
        let counted = bmf(&[result("instructions")]);
        assert_eq!(counted["q::chain_1000"]["instructions"]["value"], 5515.0);
        assert!(
            counted["q::chain_1000"].get("latency").is_none(),
            "{counted}"
        );
        let timed = bmf(&[result("time")]);
        assert_eq!(timed["q::chain_1000"]["latency"]["value"], 5515.0);
        let entries = github_action_benchmark(&[result("instructions")]);
        assert_eq!(entries[0]["unit"], "instructions", "{entries}");
        assert_eq!(github_action_benchmark(&[result("time")])[0]["unit"], "ns");
    }
}
