//! Reading what each harness reported: every case's central estimate and the interval around
//! it, and the verdicts of its before/after comparisons. Nothing is computed here that the
//! harness did not state.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use super::super::harness::{
    criterion_verdicts, divan_medians, verdict_from_word, Harness, Verdict,
};
use super::super::process::Outcome;
use super::invoke::criterion_home;
use super::CASES;

/// What one run of a harness reported for one case.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Reported {
    /// The central estimate per operation, in nanoseconds.
    pub(super) ns: f64,
    /// The interval the harness reports around it, in nanoseconds; `None`: it reports none.
    pub(super) interval: Option<(f64, f64)>,
}

/// One run's reports, by case.
pub(super) type Report = BTreeMap<String, Reported>;

/// A before/after verdict on unchanged code, in knotmeter's words where they fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Call {
    Faster,
    Slower,
    Same,
    /// zenbench: the interval settles neither a change nor equivalence within its margin.
    Inconclusive,
    /// zenbench: the comparison was refused (a flagged resource check, a placement change).
    Invalid,
}

/// What a before/after run did.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Compared {
    /// It compared nothing and stored its result to compare with (`false`: it tried to, and
    /// the harness refused).
    Stored(bool),
    /// Its verdicts, with their cases.
    Calls(Vec<(String, Call)>),
}

/// The estimates and intervals of a run of `harness`; an error names a missing case.
pub(super) fn report(
    harness: Harness,
    outcome: &Outcome,
    scratch: &Path,
) -> Result<Report, String> {
    let report = match harness {
        Harness::Knotmeter => knotmeter(&outcome.stdout)?,
        Harness::Criterion => criterion(&criterion_home(scratch))?,
        Harness::Zenbench => zenbench(&outcome.stdout)?,
        Harness::Divan | Harness::Tango => divan(&outcome.stdout),
    };
    match CASES.iter().find(|c| !report.contains_key(**c)) {
        Some(missing) => Err(format!(
            "{}'s output has no estimate for {missing}:\n{}",
            harness.name(),
            outcome.stdout
        )),
        None => Ok(report),
    }
}

/// The before/after verdicts of a run of `harness`.
pub(super) fn compared(harness: Harness, outcome: &Outcome) -> Result<Compared, String> {
    let calls = match harness {
        Harness::Knotmeter => knotmeter_calls(&outcome.stdout)?,
        Harness::Criterion => criterion_verdicts(&outcome.stdout)
            .into_iter()
            .filter_map(|(id, v)| Some((id.strip_prefix("rerun/")?.to_owned(), call(v))))
            .collect(),
        Harness::Zenbench => return Ok(zenbench_compared(&outcome.stderr)),
        Harness::Divan | Harness::Tango => Vec::new(),
    };
    Ok(if calls.is_empty() {
        Compared::Stored(true)
    } else {
        Compared::Calls(calls)
    })
}

fn call(verdict: Verdict) -> Call {
    match verdict {
        Verdict::Faster => Call::Faster,
        Verdict::Slower => Call::Slower,
        Verdict::Same => Call::Same,
    }
}

/// The case of a knotmeter result id (`with_knotmeter::rerun::chain_n/100` → `chain_n/100`).
fn knotmeter_case(result: &Value) -> Option<String> {
    let id = result["id"].as_str()?;
    id.split_once("rerun::").map(|(_, case)| case.to_owned())
}

/// knotmeter's `--format json` report: `estimate.{median_ns, low_ns, high_ns}` per result.
fn knotmeter(stdout: &str) -> Result<Report, String> {
    let report: Value = serde_json::from_str(stdout)
        .map_err(|e| format!("knotmeter printed no JSON report: {e}\n{stdout}"))?;
    let mut cases = Report::new();
    for result in report["results"].as_array().into_iter().flatten() {
        let Some(case) = knotmeter_case(result) else {
            continue;
        };
        let estimate = &result["estimate"];
        let number = |key: &str| {
            estimate[key]
                .as_f64()
                .ok_or_else(|| format!("knotmeter's result {case} has no estimate.{key}"))
        };
        let reported = Reported {
            ns: number("median_ns")?,
            interval: Some((number("low_ns")?, number("high_ns")?)),
        };
        cases.insert(case, reported);
    }
    Ok(cases)
}

/// knotmeter's before/after verdicts: `comparison.verdict` of every result compared with the
/// history (a result without a comparison had nothing stored to compare with).
fn knotmeter_calls(stdout: &str) -> Result<Vec<(String, Call)>, String> {
    let report: Value = serde_json::from_str(stdout)
        .map_err(|e| format!("knotmeter printed no JSON report: {e}\n{stdout}"))?;
    let mut calls = Vec::new();
    for result in report["results"].as_array().into_iter().flatten() {
        let comparison = &result["comparison"];
        let history = comparison["kind"].is_null() || comparison["kind"] == "history";
        let (Some(case), Some(word)) = (knotmeter_case(result), comparison["verdict"].as_str())
        else {
            continue;
        };
        if history {
            calls.push((case, call(verdict_from_word(word)?)));
        }
    }
    Ok(calls)
}

/// criterion's headline of each case, as it prints it (`time: [low estimate high]`): the slope
/// of its linear sampling where it has one, else the mean, with its 95% bootstrap interval, from
/// `<home>/rerun/<case>/new/estimates.json`.
fn criterion(home: &Path) -> Result<Report, String> {
    let mut cases = Report::new();
    for case in CASES {
        let path = home.join("rerun").join(case).join("new/estimates.json");
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let estimates: Value = serde_json::from_str(&text)
            .map_err(|e| format!("{} is not JSON: {e}", path.display()))?;
        let typical = match &estimates["slope"] {
            Value::Null => &estimates["mean"],
            slope => slope,
        };
        let number = |value: &Value| {
            value
                .as_f64()
                .ok_or_else(|| format!("{} has no typical estimate", path.display()))
        };
        let interval = &typical["confidence_interval"];
        let reported = Reported {
            ns: number(&typical["point_estimate"])?,
            interval: Some((
                number(&interval["lower_bound"])?,
                number(&interval["upper_bound"])?,
            )),
        };
        cases.insert(case.to_owned(), reported);
    }
    Ok(cases)
}

/// zenbench's `--format=json` result: per benchmark, `summary.mean` (the mean its table shows)
/// and `mean_ci.{lower, upper}`, its bootstrap 95% interval of that mean.
fn zenbench(stdout: &str) -> Result<Report, String> {
    let json = stdout.find('{').map_or(stdout, |at| &stdout[at..]);
    let result: Value = serde_json::from_str(json)
        .map_err(|e| format!("zenbench printed no JSON result: {e}\n{stdout}"))?;
    let mut cases = Report::new();
    for group in result["comparisons"].as_array().into_iter().flatten() {
        for bench in group["benchmarks"].as_array().into_iter().flatten() {
            let name = bench["name"].as_str().unwrap_or_default().to_owned();
            let ci = &bench["mean_ci"];
            let ns = bench["summary"]["mean"]
                .as_f64()
                .ok_or_else(|| format!("zenbench's result {name} has no mean"))?;
            let interval = ci["lower"].as_f64().zip(ci["upper"].as_f64());
            cases.insert(name, Reported { ns, interval });
        }
    }
    Ok(cases)
}

/// divan's table: the median column of each `rerun` row; divan reports no interval.
fn divan(stdout: &str) -> Report {
    divan_medians(stdout)
        .into_iter()
        .filter_map(|(path, ns)| {
            let case = path.strip_prefix("rerun/")?.to_owned();
            Some((case, Reported { ns, interval: None }))
        })
        .collect()
}

/// What a zenbench confirmation did, from its standard error: stored its baseline (or was
/// refused), or compared with it: one `group::bench: +0.12% [-0.5%, +0.8%] verdict (method)`
/// line per case; a case without one got no decision (its comparison was invalid).
fn zenbench_compared(stderr: &str) -> Compared {
    if stderr.contains("[zenbench] baseline '") && stderr.contains("' saved to") {
        return Compared::Stored(true);
    }
    if stderr.contains("cannot promote baseline") {
        return Compared::Stored(false);
    }
    let decided: BTreeMap<&str, Call> = stderr.lines().filter_map(zenbench_decision).collect();
    let calls = CASES
        .iter()
        .map(|case| {
            let verdict = decided.get(case).copied().unwrap_or(Call::Invalid);
            ((*case).to_owned(), verdict)
        })
        .collect();
    Compared::Calls(calls)
}

/// A decision line of zenbench's baseline comparison: (case, verdict).
fn zenbench_decision(line: &str) -> Option<(&str, Call)> {
    let (key, rest) = line.trim().split_once(": ")?;
    let (group, _bench) = key.split_once("::")?;
    let word = rest.split("] ").nth(1)?.split_whitespace().next()?;
    let verdict = match word {
        "improvement" => Call::Faster,
        "regression" => Call::Slower,
        "equivalent" | "non_inferior" => Call::Same,
        "inconclusive" => Call::Inconclusive,
        "invalid" | "exploratory" => Call::Invalid,
        _ => return None,
    };
    Some((group, verdict))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_knotmeter_estimates_intervals_and_history_verdicts() {
        let stdout = r#"{"results": [
            {"id": "with_knotmeter::rerun::chain_n/100",
             "estimate": {"median_ns": 120.0, "low_ns": 119.0, "high_ns": 122.0},
             "comparison": {"against": "run 1", "verdict": "slower", "kind": "history"}},
            {"id": "with_knotmeter::rerun::sort_1000",
             "estimate": {"median_ns": 5000.0, "low_ns": 4990.0, "high_ns": 5010.0},
             "comparison": {"against": "run 1", "verdict": "same"}},
            {"id": "with_knotmeter::single::empty",
             "estimate": {"median_ns": 0.0, "low_ns": 0.0, "high_ns": 0.0}}
        ]}"#;
        let report = knotmeter(stdout).unwrap();
        assert_eq!(report.len(), 2);
        let chain = Reported {
            ns: 120.0,
            interval: Some((119.0, 122.0)),
        };
        assert_eq!(report["chain_n/100"], chain);
        assert_eq!(
            knotmeter_calls(stdout).unwrap(),
            [
                ("chain_n/100".to_owned(), Call::Slower),
                ("sort_1000".to_owned(), Call::Same)
            ]
        );
    }

    #[test]
    fn reads_zenbench_means_and_their_intervals() {
        let stdout = r#"{"comparisons": [
            {"group_name": "parse_csv", "benchmarks": [{"name": "parse_csv",
             "summary": {"mean": 1850.5, "median": 1840.0},
             "mean_ci": {"lower": 1840.0, "median": 1850.0, "upper": 1862.0}}]},
            {"group_name": "hash_map", "benchmarks": [{"name": "hash_map",
             "summary": {"mean": 17000.0}}]}
        ]}"#;
        let report = zenbench(stdout).unwrap();
        assert_eq!(report["parse_csv"].ns, 1850.5);
        assert_eq!(report["parse_csv"].interval, Some((1840.0, 1862.0)));
        assert_eq!(report["hash_map"].interval, None);
    }

    #[test]
    fn reads_zenbench_baseline_decisions_and_marks_undecided_cases_invalid() {
        let stderr = "\
  Promotion eligible=false
  chain_n/100::chain_n/100: +0.1234% [-0.5000%, +0.7000%] equivalent (welch_log_mean)
  sort_1000::sort_1000: +3.0000% [+1.5000%, +4.5000%] regression (welch_log_mean)
  parse_csv::parse_csv: -0.2000% [-1.9000%, +1.5000%] inconclusive (welch_log_mean)
  hash_map::hash_map: -2.5000% [-3.0000%, -2.0000%] improvement (welch_log_mean)
";
        let Compared::Calls(calls) = zenbench_compared(stderr) else {
            panic!("a comparison run was read as a stored baseline");
        };
        let verdicts: Vec<Call> = calls.iter().map(|(_, v)| *v).collect();
        assert_eq!(
            verdicts,
            [
                Call::Same,
                Call::Invalid,
                Call::Slower,
                Call::Inconclusive,
                Call::Faster
            ]
        );
        assert_eq!(calls[1].0, "chain_n/10000");
        let saved = "[zenbench] baseline 'previous' saved to .zenbench/baselines/previous.json\n";
        assert_eq!(zenbench_compared(saved), Compared::Stored(true));
        let refused = "[zenbench] cannot promote baseline: flagged rounds\n";
        assert_eq!(zenbench_compared(refused), Compared::Stored(false));
    }

    #[test]
    fn reads_criterions_headline_slope_or_else_its_mean() {
        let home = std::env::temp_dir().join(format!("xtask-rerun-{}", std::process::id()));
        for (i, case) in CASES.iter().enumerate() {
            let dir = home.join("rerun").join(case).join("new");
            std::fs::create_dir_all(&dir).unwrap();
            let estimate = |ns: f64| {
                format!(
                    r#"{{"point_estimate": {ns}, "confidence_interval":
                        {{"confidence_level": 0.95, "lower_bound": {}, "upper_bound": {}}}}}"#,
                    ns - 1.0,
                    ns + 2.0
                )
            };
            let slope = if i == 0 {
                estimate(50.0)
            } else {
                "null".into()
            };
            let json = format!(
                r#"{{"mean": {}, "median": {}, "slope": {slope}}}"#,
                estimate(100.0),
                estimate(90.0)
            );
            std::fs::write(dir.join("estimates.json"), json).unwrap();
        }
        let report = criterion(&home).unwrap();
        std::fs::remove_dir_all(&home).unwrap();
        assert_eq!(report[CASES[0]].ns, 50.0);
        assert_eq!(report[CASES[0]].interval, Some((49.0, 52.0)));
        assert_eq!(report[CASES[1]].ns, 100.0);
        assert_eq!(report[CASES[1]].interval, Some((99.0, 102.0)));
    }

    #[test]
    fn reads_divans_nested_rerun_rows_without_an_interval() {
        let table = "\
with_divan              fastest       │ slowest       │ median        │ mean          │ samples │ iters
├─ chain_n                            │               │               │               │         │
│  ╰─ 10                5.18 ns       │ 5.298 ns      │ 5.2 ns        │ 5.198 ns      │ 100     │ 51200
╰─ rerun                              │               │               │               │         │
   ├─ chain_n                         │               │               │               │         │
   │  ╰─ 100            118.1 ns      │ 130.2 ns      │ 120.5 ns      │ 121.1 ns      │ 100     │ 3200
   ╰─ sort_1000         5.367 µs      │ 116.7 µs      │ 5.448 µs      │ 6.886 µs      │ 100     │ 100
";
        let report = divan(table);
        assert_eq!(report.len(), 2);
        assert_eq!(report["chain_n/100"].ns, 120.5);
        assert_eq!(report["sort_1000"].ns, 5_448.0);
        assert!(report.values().all(|r| r.interval.is_none()));
    }
}
