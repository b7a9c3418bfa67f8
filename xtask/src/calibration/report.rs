//! The bench binary's `--format json` report (docs/json-format.md), read as plain JSON: only the
//! documented fields the calibration needs, so that it reads whatever engine built the binary.

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

    /// Whether this is a group member's comparison with its baseline, paired in one run.
    pub(super) fn is_group(&self) -> bool {
        match &self.kind {
            Some(kind) => kind == "group",
            None => !self.is_history() && !self.against.starts_with("baseline "),
        }
    }
}

/// One case of one run.
pub(super) struct Case {
    /// The case id (`calibration::sort_stable`).
    pub(super) id: String,
    /// The comparison group, if any.
    pub(super) group: Option<String>,
    /// `estimate.median_ns`.
    pub(super) median: f64,
    /// `estimate.low_ns` and `estimate.high_ns`.
    pub(super) interval: (f64, f64),
    /// `comparison`, when there was one.
    pub(super) comparison: Option<Comparison>,
    /// `rounds.medians_ns`: each round's median; empty when the result has no rounds (one
    /// round, `--rounds 1`).
    pub(super) rounds: Vec<f64>,
    /// `rounds.widened`: the interval was widened to the spread between runs the history learnt.
    pub(super) widened: bool,
    /// `reproducibility.spread`: how far the history says the next run's median may land.
    pub(super) spread: Option<f64>,
    /// `raw.workload_ns`, per operation, in time order.
    pub(super) workload: Vec<f64>,
    /// `raw.baseline_ns`, per operation, in time order.
    pub(super) baseline_ns: Vec<f64>,
}

impl Case {
    /// The benchmark's name: the id without its target segment (`sort_stable`).
    pub(super) fn name(&self) -> &str {
        short(&self.id)
    }
}

/// One run of the bench binary: its cases in the order the report lists them, and how long the
/// process took.
pub(super) struct Run {
    /// The cases.
    pub(super) cases: Vec<Case>,
    /// The process's wall time, from its start to its exit, in seconds.
    pub(super) wall_s: f64,
}

impl Run {
    /// The case of benchmark `name`.
    pub(super) fn find(&self, name: &str) -> Option<&Case> {
        self.cases.iter().find(|c| c.name() == name)
    }

    /// The wall time per case, in seconds (NaN without cases).
    pub(super) fn per_case_s(&self) -> f64 {
        if self.cases.is_empty() {
            return f64::NAN;
        }
        self.wall_s / self.cases.len() as f64
    }
}

/// The id without its target segment (`sort_stable` for `calibration::sort_stable`).
pub(super) fn short(id: &str) -> &str {
    id.split_once("::").map_or(id, |(_, rest)| rest)
}

/// The cases of a `--format json` report.
pub(super) fn parse(stdout: &[u8]) -> Result<Vec<Case>, String> {
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
    let numbers = |field: &Value| -> Vec<f64> {
        field
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default()
    };
    Ok(Case {
        group: v["group"].as_str().map(str::to_owned),
        median: number(&estimate["median_ns"], "estimate.median_ns")?,
        interval: (
            number(&estimate["low_ns"], "estimate.low_ns")?,
            number(&estimate["high_ns"], "estimate.high_ns")?,
        ),
        comparison,
        rounds: numbers(&v["rounds"]["medians_ns"]),
        widened: v["rounds"]["widened"].as_bool().unwrap_or(false),
        spread: v["reproducibility"]["spread"].as_f64(),
        workload: numbers(&v["raw"]["workload_ns"]),
        baseline_ns: numbers(&v["raw"]["baseline_ns"]),
        id,
    })
}

/// Each case's results across `runs`, in run order (runs that lack the case are skipped),
/// the cases in the order they first appear.
pub(super) fn by_case<'r>(
    runs: impl IntoIterator<Item = &'r Run>,
) -> Vec<(&'r str, Vec<&'r Case>)> {
    let mut cases: Vec<(&str, Vec<&Case>)> = Vec::new();
    for case in runs.into_iter().flat_map(|r| &r.cases) {
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
         "reproducibility": {"spread": 0.031, "runs": 5, "runs_needed": 5},
         "rounds": {"medians_ns": [9.8, 10.2, 10.0], "processes": 3, "widened": true},
         "raw": {"workload_ns": [11.0, 12.0], "baseline_ns": [1.0, 1.0]}},
        {"id": "c::b", "group": "g", "baseline": true,
         "estimate": {"median_ns": 20.0, "low_ns": 19.0, "high_ns": 21.0, "mean_ns": 20.0},
         "comparison": null, "reproducibility": null,
         "raw": {"workload_ns": [], "baseline_ns": []}}]}"#;

    fn run() -> Run {
        Run {
            cases: parse(REPORT.as_bytes()).unwrap(),
            wall_s: 3.0,
        }
    }

    #[test]
    fn the_report_fields_are_read_by_their_documented_names() {
        let run = run();
        let [a, b] = &run.cases[..] else {
            panic!("two cases")
        };
        assert_eq!(a.interval, (9.5, 10.5));
        let c = a.comparison.as_ref().unwrap();
        assert!(c.is_history() && !c.is_group() && c.verdict == "same" && c.ratio == 1.01);
        assert_eq!(a.workload, vec![11.0, 12.0]);
        assert_eq!(b.group.as_deref(), Some("g"));
        assert!(b.comparison.is_none());
        assert!(parse(b"{}").is_err());
    }

    #[test]
    fn rounds_widening_and_the_learnt_spread_are_read_and_absent_when_not_reported() {
        let run = run();
        let (a, b) = (&run.cases[0], &run.cases[1]);
        assert_eq!(a.rounds, vec![9.8, 10.2, 10.0]);
        assert!(a.widened);
        assert_eq!(a.spread, Some(0.031));
        // `--rounds 1` reports no rounds; without a history there is no spread.
        assert!(b.rounds.is_empty() && !b.widened && b.spread.is_none());
        assert_eq!(run.find("b").map(|c| c.id.as_str()), Some("c::b"));
        assert_eq!(run.per_case_s(), 1.5);
    }

    #[test]
    fn cases_are_gathered_across_runs_in_order() {
        let runs = vec![run(), run()];
        let cases = by_case(&runs);
        assert_eq!(cases.len(), 2);
        assert_eq!((cases[0].0, cases[0].1.len()), ("c::a", 2));
    }

    #[test]
    fn a_comparison_without_kind_is_told_by_what_it_is_against() {
        let older = |against: &str| Comparison {
            against: against.into(),
            kind: None,
            ratio: 1.0,
            low: 1.0,
            high: 1.0,
            verdict: "same".into(),
        };
        assert!(older("run 7").is_history() && !older("run 7").is_group());
        assert!(!older("c::base").is_history() && older("c::base").is_group());
        assert!(!older("baseline main").is_group());
        assert_eq!(short("calibration::sort_stable"), "sort_stable");
    }
}
