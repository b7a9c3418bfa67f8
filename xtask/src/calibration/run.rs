//! Running the calibration bench binary as fresh processes and reading its `--format json`
//! report (docs/json-format.md) as plain JSON: only the documented fields the calibration
//! needs, so that it reads whatever engine built the binary.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// A group comparison or a before/after comparison, as a result's `comparison` carries it.
pub(super) struct Comparison {
    /// What the case was compared with: the baseline's id, `run N`, `baseline NAME`.
    pub(super) against: String,
    /// `group`, `history` or `builds`; None from engines that predate the field.
    pub(super) kind: Option<String>,
    /// This case's time over the other side's.
    pub(super) ratio: f64,
    /// The ratio's 95% interval, low end.
    pub(super) low: f64,
    /// The ratio's 95% interval, high end.
    pub(super) high: f64,
    /// `faster`, `slower` or `same`.
    pub(super) verdict: String,
}

impl Comparison {
    /// Whether this is a before/after comparison against a stored run.
    pub(super) fn is_history(&self) -> bool {
        match &self.kind {
            Some(kind) => kind == "history",
            None => self.against.starts_with("run "),
        }
    }
}

/// One case of one run.
pub(super) struct Case {
    /// The case id (`calibration::sort_stable`).
    pub(super) id: String,
    /// The comparison group, if any.
    pub(super) group: Option<String>,
    /// Whether the case is its group's baseline.
    pub(super) baseline: bool,
    /// `estimate.median_ns`.
    pub(super) median: f64,
    /// `estimate.low_ns` and `estimate.high_ns`.
    pub(super) interval: (f64, f64),
    /// `comparison`, when there was one.
    pub(super) comparison: Option<Comparison>,
    /// `raw.workload_ns`, per operation, in time order.
    pub(super) workload: Vec<f64>,
    /// `raw.baseline_ns`, per operation, in time order.
    pub(super) baseline_ns: Vec<f64>,
}

/// One run: its cases in the order the report lists them.
pub(super) type Run = Vec<Case>;

/// The calibration bench binary and what it offers.
pub(super) struct Binary {
    /// The executable.
    pub(super) path: PathBuf,
    /// `--quick` is passed to every run but the long one of the experiment.
    pub(super) quick: bool,
    /// Its `--help` lists `--processes` (the engine measures in several worker processes).
    pub(super) processes: bool,
}

impl Binary {
    /// The binary at `path`, with `--help` read for a `--processes` flag.
    pub(super) fn probe(path: PathBuf, quick: bool) -> Result<Self, String> {
        let out = Command::new(&path)
            .arg("--help")
            .output()
            .map_err(|e| format!("cannot run {}: {e}", path.display()))?;
        let help = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
        let processes = help.contains("--processes");
        Ok(Self {
            path,
            quick,
            processes,
        })
    }

    /// The settings every run gets: `--quick` when asked for, and `--processes 1` for a
    /// single-process measurement when the binary has the flag.
    pub(super) fn settings(&self, single_process: bool) -> Vec<String> {
        let mut args = Vec::new();
        if self.quick {
            args.push("--quick".to_owned());
        }
        if single_process && self.processes {
            args.extend(["--processes".to_owned(), "1".to_owned()]);
        }
        args
    }

    /// Runs the binary once as `prefix… BINARY --bench --format json ARGS…`, with `--no-history`
    /// or with `KNOTMETER_HISTORY` set to `history`, and reads its report.
    pub(super) fn measure(
        &self,
        prefix: &[String],
        args: &[String],
        history: Option<&Path>,
    ) -> Result<Run, String> {
        let mut command = match prefix.split_first() {
            Some((program, rest)) => {
                let mut c = Command::new(program);
                c.args(rest).arg(&self.path);
                c
            }
            None => Command::new(&self.path),
        };
        command.args(["--bench", "--format", "json"]).args(args);
        match history {
            Some(file) => command.env("KNOTMETER_HISTORY", file),
            None => command.arg("--no-history"),
        };
        let shown = format!(
            "{}{} {}",
            prefix.iter().map(|p| format!("{p} ")).collect::<String>(),
            self.path.display(),
            args.join(" ")
        );
        let out = command
            .output()
            .map_err(|e| format!("cannot run {shown}: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "{shown} failed ({}):\n{}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        parse(&out.stdout).map_err(|e| format!("{shown}: {e}"))
    }
}

/// Whether `program args…` runs and succeeds (a tool's presence, and that it works here).
pub(super) fn works(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The cases of a `--format json` report.
pub(super) fn parse(stdout: &[u8]) -> Result<Run, String> {
    let doc: Value =
        serde_json::from_slice(stdout).map_err(|e| format!("printed no JSON report: {e}"))?;
    doc["results"]
        .as_array()
        .ok_or("the report has no `results`")?
        .iter()
        .map(case)
        .collect()
}

/// One entry of `results[]`.
fn case(v: &Value) -> Result<Case, String> {
    let id = v["id"].as_str().ok_or("a result without an id")?.to_owned();
    let number = |field: &Value, name: &str| {
        field
            .as_f64()
            .ok_or_else(|| format!("{id}: no number at `{name}`"))
    };
    let estimate = &v["estimate"];
    let comparison = match &v["comparison"] {
        Value::Null => None,
        c => Some(Comparison {
            against: c["against"].as_str().unwrap_or_default().to_owned(),
            kind: c["kind"].as_str().map(str::to_owned),
            ratio: number(&c["ratio"], "comparison.ratio")?,
            low: number(&c["low"], "comparison.low")?,
            high: number(&c["high"], "comparison.high")?,
            verdict: c["verdict"].as_str().unwrap_or("unknown").to_owned(),
        }),
    };
    let samples = |field: &Value| -> Vec<f64> {
        field
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default()
    };
    Ok(Case {
        group: v["group"].as_str().map(str::to_owned),
        baseline: v["baseline"].as_bool().unwrap_or(false),
        median: number(&estimate["median_ns"], "estimate.median_ns")?,
        interval: (
            number(&estimate["low_ns"], "estimate.low_ns")?,
            number(&estimate["high_ns"], "estimate.high_ns")?,
        ),
        comparison,
        workload: samples(&v["raw"]["workload_ns"]),
        baseline_ns: samples(&v["raw"]["baseline_ns"]),
        id,
    })
}

/// Each case's results across `runs`, in run order (runs that lack the case are skipped),
/// the cases in the order they first appear.
pub(super) fn by_case(runs: &[Run]) -> Vec<(&str, Vec<&Case>)> {
    let mut cases: Vec<(&str, Vec<&Case>)> = Vec::new();
    for case in runs.iter().flatten() {
        match cases.iter_mut().find(|(id, _)| *id == case.id) {
            Some((_, list)) => list.push(case),
            None => cases.push((&case.id, vec![case])),
        }
    }
    cases
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = r#"{"version": 1, "manifest": {}, "failures": [], "benches": [],
      "results": [
        {"id": "c::a", "group": null, "baseline": false,
         "estimate": {"median_ns": 10.0, "low_ns": 9.5, "high_ns": 10.5, "mean_ns": 10.1},
         "comparison": {"against": "run 3", "ratio": 1.01, "low": 0.99, "high": 1.03,
                        "p_value": 0.4, "verdict": "same", "kind": "history"},
         "raw": {"workload_ns": [11.0, 12.0], "baseline_ns": [1.0, 1.0]}},
        {"id": "c::b", "group": "g", "baseline": true,
         "estimate": {"median_ns": 20.0, "low_ns": 19.0, "high_ns": 21.0, "mean_ns": 20.0},
         "comparison": null, "raw": {"workload_ns": [], "baseline_ns": []}}]}"#;

    #[test]
    fn the_report_fields_are_read_by_their_documented_names() {
        let run = parse(REPORT.as_bytes()).unwrap();
        assert_eq!(run.len(), 2);
        assert_eq!(run[0].interval, (9.5, 10.5));
        let c = run[0].comparison.as_ref().unwrap();
        assert!(c.is_history() && c.verdict == "same" && c.ratio == 1.01);
        assert_eq!(run[0].workload, vec![11.0, 12.0]);
        assert!(run[1].baseline && run[1].group.as_deref() == Some("g"));
        assert!(run[1].comparison.is_none());
        assert!(parse(b"{}").is_err());
    }

    #[test]
    fn cases_are_gathered_across_runs_in_order() {
        let runs = vec![
            parse(REPORT.as_bytes()).unwrap(),
            parse(REPORT.as_bytes()).unwrap(),
        ];
        let cases = by_case(&runs);
        assert_eq!(cases.len(), 2);
        assert_eq!((cases[0].0, cases[0].1.len()), ("c::a", 2));
    }

    #[test]
    fn a_comparison_without_kind_is_before_after_when_against_a_stored_run() {
        let older = |against: &str| Comparison {
            against: against.into(),
            kind: None,
            ratio: 1.0,
            low: 1.0,
            high: 1.0,
            verdict: "same".into(),
        };
        assert!(older("run 7").is_history());
        assert!(!older("c::base").is_history());
    }
}
