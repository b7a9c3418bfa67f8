//! The harnesses: how each is invoked for the single cases and for its comparisons, and how its
//! output is read. Every figure comes from what the harness itself reports. Zenbench is measured
//! only by the rerun-coverage phase (`super::rerun`), which invokes it there.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::process::Invocation;

/// The single cases, in the names this module gives them (each harness's own names are mapped).
pub(crate) const CASES: [&str; 7] = [
    "empty",
    "discarded_loop_1000",
    "chain_n/10",
    "chain_n/100",
    "chain_n/1000",
    "chain_n/10000",
    "sort_1000",
];

/// The pairs: name, the environment variable criterion reads the work from, and the extra work
/// of the candidate side (0 for the A/A pair).
pub(crate) const PAIRS: [(&str, &str, u64); 3] = [
    ("aa", "KM_PAIR_AA", 0),
    ("ab1", "KM_PAIR_AB1", 20),
    ("ab5", "KM_PAIR_AB5", 100),
];

/// The base work of every pair (`comparisons/src/lib.rs`).
const PAIR_BASE: u64 = 2_000;

/// The pattern of the rerun-coverage cases' module in divan's paths (which start with the bench
/// target's crate), left out of its single cases (`with_divan.rs`).
pub(super) const RERUN_MODULE: &str = "^with_divan::rerun::";

/// A harness under comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Harness {
    Knotmeter,
    Divan,
    Criterion,
    Tango,
    Zenbench,
}

/// The harnesses of the single cases and the comparisons, in the columns' order.
pub(crate) const HARNESSES: [Harness; 4] = [
    Harness::Knotmeter,
    Harness::Divan,
    Harness::Criterion,
    Harness::Tango,
];

/// A comparison's verdict, in knotmeter's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    Faster,
    Slower,
    Same,
}

/// One case's reported estimate.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Estimate {
    /// The harness's central estimate per operation, in nanoseconds.
    pub(crate) ns: f64,
    /// Whether the harness flagged the case as measuring nothing; `None` when it has no check.
    pub(crate) flagged: Option<bool>,
    /// The step of the printed figure, in nanoseconds, where the harness prints it coarsely
    /// (tango: one decimal, so `1.4 us` is a step of 100 ns); `None` for full precision.
    pub(crate) step_ns: Option<f64>,
}

/// What a run of the single cases reported.
#[derive(Debug, Clone, Default)]
pub(crate) struct SingleReport {
    pub(crate) estimates: BTreeMap<String, Estimate>,
    /// Verdicts of the harness's own before/after comparison with its previous run (the code did
    /// not change, so anything but `Same` is a false positive).
    pub(crate) before_after: Vec<Verdict>,
}

/// The executables of the comparisons workspace.
#[derive(Debug, Clone)]
pub(crate) struct Executables {
    pub(crate) knotmeter: PathBuf,
    pub(crate) divan: PathBuf,
    pub(crate) criterion: PathBuf,
    pub(crate) tango: PathBuf,
    pub(crate) reference: PathBuf,
    pub(crate) measured: PathBuf,
}

impl Harness {
    /// The harness's name, as crates.io spells it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Harness::Knotmeter => "knotmeter",
            Harness::Divan => "divan",
            Harness::Criterion => "criterion",
            Harness::Tango => "tango-bench",
            Harness::Zenbench => "zenbench",
        }
    }

    /// The single cases at default settings, or with `quick` at the quickest reasonable ones.
    /// `None`: the harness has no quicker setting than its default.
    pub(crate) fn single(
        self,
        exes: &Executables,
        scratch: &Path,
        quick: bool,
    ) -> Option<Invocation> {
        let dir = |name: &str| scratch.join(name).to_string_lossy().into_owned();
        Some(match (self, quick) {
            (Harness::Knotmeter, false) => Invocation::new(
                &exes.knotmeter,
                &["--bench", "--format", "jsonl", "single::"],
            )
            .env("KNOTMETER_HISTORY", dir("knotmeter-single.db")),
            (Harness::Knotmeter, true) => Invocation::new(
                &exes.knotmeter,
                &["--bench", "--format", "jsonl", "--quick", "single::"],
            )
            .env("KNOTMETER_HISTORY", dir("knotmeter-quick.db")),
            (Harness::Divan, false) => {
                Invocation::new(&exes.divan, &["--bench", "--skip", RERUN_MODULE])
            }
            (Harness::Divan, true) => return None,
            (Harness::Criterion, false) => Invocation::new(
                &exes.criterion,
                &["--bench", "^(empty|discarded_loop_1000|chain_n/|sort_1000)"],
            )
            .env("CRITERION_HOME", dir("criterion-single")),
            (Harness::Criterion, true) => Invocation::new(
                &exes.criterion,
                &[
                    "--bench",
                    "--quick",
                    "--noplot",
                    "^(empty|discarded_loop_1000|chain_n/|sort_1000)",
                ],
            )
            .env("CRITERION_HOME", dir("criterion-quick")),
            (Harness::Tango, false) => Invocation::new(
                &exes.tango,
                &["--color", "never", "solo", "-f", "single/**"],
            ),
            (Harness::Tango, true) | (Harness::Zenbench, _) => return None,
        })
    }

    /// The settings of [`Harness::single`], for the doc.
    pub(crate) fn settings(self, quick: bool) -> &'static str {
        match (self, quick) {
            (Harness::Knotmeter, false) => "defaults (1 s budget per case, stops at ±1%)",
            (Harness::Knotmeter, true) => "`--quick` (100 ms budget, stops at ±3%)",
            (Harness::Divan, false) => "defaults (100 samples)",
            (Harness::Divan, true) => "= default: divan's defaults already take milliseconds",
            (Harness::Criterion, false) => "defaults (3 s warm-up, 5 s of 100 samples, plots)",
            (Harness::Criterion, true) => "`--quick --noplot`",
            (Harness::Tango, false) => "`solo` at defaults (100 ms per case)",
            (Harness::Tango, true) => "= default: 100 ms per case is tango's own quick setting",
            (Harness::Zenbench, _) => "not measured in this phase",
        }
    }

    /// Whether a line of standard output is the first sign of a finished case.
    pub(crate) fn is_result_line(self, line: &str) -> bool {
        match self {
            Harness::Knotmeter => line.contains("\"event\":\"case_finished\""),
            Harness::Divan => divan_row(line).is_some_and(|(_, _, median)| median.is_some()),
            Harness::Criterion => line.contains("time:"),
            Harness::Tango => line.trim_start().starts_with("single/") || line.contains(" [ "),
            Harness::Zenbench => false,
        }
    }

    /// Reads a run of the single cases.
    pub(crate) fn parse_single(
        self,
        stdout: &str,
        scratch: &Path,
        quick: bool,
    ) -> Result<SingleReport, String> {
        let report = match self {
            Harness::Knotmeter => parse_knotmeter(stdout, "single::")?,
            Harness::Divan => parse_divan(stdout)?,
            Harness::Criterion => parse_criterion(
                stdout,
                &scratch.join(if quick {
                    "criterion-quick"
                } else {
                    "criterion-single"
                }),
            )?,
            Harness::Tango => parse_tango_solo(stdout)?,
            Harness::Zenbench => return Err("zenbench has no single-cases run".into()),
        };
        if let Some(missing) = CASES.iter().find(|c| !report.estimates.contains_key(**c)) {
            return Err(format!(
                "{}'s output has no estimate for {missing}:\n{stdout}",
                self.name()
            ));
        }
        Ok(report)
    }

    /// Comparison number `k` (0-based) of the pairs; `None` when the harness has no comparison.
    ///
    /// knotmeter and tango compare the two sides of a pair inside one run. Criterion compares a
    /// run with its previous run: run `k` sets the candidate work of the A/B pairs to the base
    /// work when `k` is even and to the larger work when `k` is odd, so each run from the second
    /// on is one comparison whose expected direction alternates.
    pub(crate) fn comparison(
        self,
        exes: &Executables,
        scratch: &Path,
        k: usize,
    ) -> Option<Invocation> {
        match self {
            Harness::Knotmeter => Some(
                Invocation::new(&exes.knotmeter, &["--bench", "--format", "json", "pairs::"]).env(
                    "KNOTMETER_HISTORY",
                    scratch.join("knotmeter-pairs.db").to_string_lossy(),
                ),
            ),
            Harness::Divan | Harness::Zenbench => None,
            Harness::Criterion => {
                let mut invocation = Invocation::new(&exes.criterion, &["--bench", "^pair_"]).env(
                    "CRITERION_HOME",
                    scratch.join("criterion-pairs").to_string_lossy(),
                );
                for (_, var, extra) in PAIRS {
                    let work = PAIR_BASE + if k % 2 == 1 { extra } else { 0 };
                    invocation = invocation.env(var, work.to_string());
                }
                Some(invocation)
            }
            Harness::Tango => Some(
                Invocation::new(
                    &exes.tango,
                    &[
                        "--color",
                        "never",
                        "compare",
                        "--strip-baseline",
                        "base/**",
                        "--strip-candidate",
                        "cand/**",
                    ],
                )
                .answer_code(1),
            ),
        }
    }

    /// Runs of [`Harness::comparison`] needed for `n` comparisons of each pair.
    pub(crate) fn comparison_runs(self, n: usize) -> usize {
        match self {
            Harness::Divan | Harness::Zenbench => 0,
            Harness::Criterion => n + 1,
            _ => n,
        }
    }

    /// The verdicts of comparison run `k`, with the verdict a perfect harness would give, per
    /// pair. Empty for criterion's first run, which only sets the baseline.
    pub(crate) fn parse_comparison(
        self,
        stdout: &str,
        k: usize,
    ) -> Result<Vec<(&'static str, Verdict, Verdict)>, String> {
        let expected = |extra: u64| match self {
            Harness::Criterion if extra > 0 && k % 2 == 1 => Verdict::Slower,
            Harness::Criterion if extra > 0 => Verdict::Faster,
            _ if extra > 0 => Verdict::Slower,
            _ => Verdict::Same,
        };
        let found: BTreeMap<String, Verdict> = match self {
            Harness::Knotmeter => {
                let report: serde_json::Value = serde_json::from_str(stdout)
                    .map_err(|e| format!("knotmeter printed no JSON report: {e}"))?;
                let mut found = BTreeMap::new();
                for result in report["results"].as_array().into_iter().flatten() {
                    let id = result["id"].as_str().unwrap_or_default();
                    if let Some(verdict) = result["comparison"]["verdict"].as_str() {
                        let pair = id.rsplit("::").next().unwrap_or(id);
                        let pair = pair.split('_').next().unwrap_or(pair);
                        found.insert(pair.to_owned(), verdict_from_word(verdict)?);
                    }
                }
                found
            }
            Harness::Divan | Harness::Zenbench => return Ok(Vec::new()),
            Harness::Criterion => {
                if k == 0 {
                    return Ok(Vec::new());
                }
                criterion_verdicts(stdout)
                    .into_iter()
                    .filter_map(|(id, v)| id.strip_prefix("pair_").map(|p| (p.to_owned(), v)))
                    .collect()
            }
            Harness::Tango => tango_verdicts(stdout),
        };
        PAIRS
            .iter()
            .map(|(name, _, extra)| {
                found
                    .get(*name)
                    .map(|v| (*name, *v, expected(*extra)))
                    .ok_or_else(|| {
                        format!("{} gave no verdict for pair {name}:\n{stdout}", self.name())
                    })
            })
            .collect()
    }
}

/// knotmeter's verdict word (`faster`, `slower`, `same`).
pub(super) fn verdict_from_word(word: &str) -> Result<Verdict, String> {
    match word {
        "faster" => Ok(Verdict::Faster),
        "slower" => Ok(Verdict::Slower),
        "same" => Ok(Verdict::Same),
        other => Err(format!("unknown verdict {other}")),
    }
}

/// knotmeter's `--format jsonl` events: `case_finished` results and `case_compared` verdicts.
fn parse_knotmeter(stdout: &str, module: &str) -> Result<SingleReport, String> {
    let mut report = SingleReport::default();
    for line in stdout.lines().filter(|l| l.starts_with('{')) {
        let event: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("knotmeter printed bad JSON: {e}"))?;
        let short = |id: &str| id.split_once(module).map(|(_, s)| s.to_owned());
        match event["event"].as_str() {
            Some("case_finished") => {
                let result = &event["result"];
                let id = result["id"].as_str().unwrap_or_default();
                let Some(case) = short(id) else { continue };
                let ns = result["estimate"]["median_ns"]
                    .as_f64()
                    .ok_or_else(|| format!("knotmeter result {id} has no median"))?;
                let flagged = result["warnings"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|w| w["code"] == "optimized_away");
                report.estimates.insert(
                    case,
                    Estimate {
                        ns,
                        flagged: Some(flagged),
                        step_ns: None,
                    },
                );
            }
            Some("case_compared") => {
                if let Some(verdict) = event["comparison"]["verdict"].as_str() {
                    report.before_after.push(verdict_from_word(verdict)?);
                }
            }
            _ => {}
        }
    }
    Ok(report)
}

/// A row of divan's tree table: (depth, name, median column), `None` for other lines.
fn divan_row(line: &str) -> Option<(usize, String, Option<f64>)> {
    // The tree prefix ("├─ ", "│  ╰─ ", "   ├─ " …) is three characters a level.
    let prefix = line
        .chars()
        .take_while(|c| matches!(c, ' ' | '├' | '╰' | '─' | '│'))
        .count();
    if prefix < 3 {
        return None;
    }
    let rest: String = line.chars().skip(prefix).collect();
    let columns: Vec<&str> = rest.split('│').collect();
    if columns.len() != 6 {
        return None;
    }
    let name = columns[0].split("  ").next()?.trim().to_owned();
    Some((prefix / 3 - 1, name, parse_duration(columns[2].trim())))
}

/// divan's table: the median column of each leaf row, by its path in the tree (`chain_n/10`,
/// `rerun/chain_n/100`).
pub(super) fn divan_medians(stdout: &str) -> BTreeMap<String, f64> {
    let mut medians = BTreeMap::new();
    let mut path: Vec<String> = Vec::new();
    for line in stdout.lines() {
        let Some((depth, name, median)) = divan_row(line) else {
            continue;
        };
        path.truncate(depth);
        path.push(name);
        if let Some(ns) = median {
            medians.insert(path.join("/"), ns);
        }
    }
    medians
}

/// divan's table, as a report of the single cases.
fn parse_divan(stdout: &str) -> Result<SingleReport, String> {
    let estimates = divan_medians(stdout)
        .into_iter()
        .map(|(case, ns)| {
            let estimate = Estimate {
                ns,
                flagged: None,
                step_ns: None,
            };
            (case, estimate)
        })
        .collect();
    Ok(SingleReport {
        estimates,
        before_after: Vec::new(),
    })
}

/// criterion: the median point estimate of each case from `<home>/<id>/new/estimates.json`,
/// and its printed before/after verdicts.
fn parse_criterion(stdout: &str, home: &Path) -> Result<SingleReport, String> {
    let mut report = SingleReport::default();
    for case in CASES {
        let path = home.join(case).join("new").join("estimates.json");
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let estimates: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| format!("{} is not JSON: {e}", path.display()))?;
        let ns = estimates["median"]["point_estimate"]
            .as_f64()
            .ok_or_else(|| format!("{} has no median", path.display()))?;
        report.estimates.insert(
            case.to_owned(),
            Estimate {
                ns,
                flagged: None,
                step_ns: None,
            },
        );
    }
    report.before_after = criterion_verdicts(stdout).into_values().collect();
    Ok(report)
}

/// criterion's printed verdict after each benchmark that had a previous result.
pub(super) fn criterion_verdicts(stdout: &str) -> BTreeMap<String, Verdict> {
    let mut verdicts = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut previous_line = "";
    for line in stdout.lines() {
        if let Some(at) = line.find("time:") {
            let id = line[..at].trim();
            let id = if id.is_empty() {
                previous_line.trim()
            } else {
                id
            };
            current = Some(id.to_owned());
        }
        let verdict = if line.contains("Performance has regressed") {
            Some(Verdict::Slower)
        } else if line.contains("Performance has improved") {
            Some(Verdict::Faster)
        } else if line.contains("No change in performance detected")
            || line.contains("Change within noise threshold")
        {
            Some(Verdict::Same)
        } else {
            None
        };
        if let (Some(verdict), Some(id)) = (verdict, &current) {
            verdicts.insert(id.clone(), verdict);
        }
        previous_line = line;
    }
    verdicts
}

/// tango's `solo` lines: `single/<case>  [ min ... mean ... max ]  stddev: …`; the mean is its
/// estimate.
fn parse_tango_solo(stdout: &str) -> Result<SingleReport, String> {
    let mut report = SingleReport::default();
    for line in stdout.lines() {
        let Some(rest) = line.trim_start().strip_prefix("single/") else {
            continue;
        };
        let Some((name, values)) = rest.split_once('[') else {
            continue;
        };
        let values: Vec<&str> = values
            .split(']')
            .next()
            .unwrap_or("")
            .split("...")
            .collect();
        let mean = values.get(1).map_or("", |v| v.trim());
        let ns =
            parse_duration(mean).ok_or_else(|| format!("tango line without a mean: {line}"))?;
        // One decimal in the printed unit.
        let step_ns = parse_duration(&format!("0.1 {}", mean.split_once(' ').map_or("", |u| u.1)));
        report.estimates.insert(
            name.trim().to_owned(),
            Estimate {
                ns,
                flagged: None,
                step_ns,
            },
        );
    }
    Ok(report)
}

/// tango's `compare` lines: `<name>  [ base ... candidate ]  +1.23%*`; the star marks a
/// significant difference.
fn tango_verdicts(stdout: &str) -> BTreeMap<String, Verdict> {
    let mut verdicts = BTreeMap::new();
    for line in stdout.lines() {
        let Some((name, rest)) = line.split_once('[') else {
            continue;
        };
        let Some((_, change)) = rest.split_once(']') else {
            continue;
        };
        let change = change.trim();
        let significant = change.ends_with('*');
        let pct: f64 = match change.trim_end_matches('*').trim_end_matches('%').parse() {
            Ok(pct) => pct,
            Err(_) => continue,
        };
        let verdict = match (significant, pct > 0.0) {
            (false, _) => Verdict::Same,
            (true, true) => Verdict::Slower,
            (true, false) => Verdict::Faster,
        };
        verdicts.insert(name.trim().to_owned(), verdict);
    }
    verdicts
}

/// "5.18 ns", "1.401 µs", "0.2 us", "12 ms", "1.2 s", "286.92 ps" → nanoseconds.
fn parse_duration(text: &str) -> Option<f64> {
    let (value, unit) = text.split_once(' ')?;
    let value: f64 = value.trim().parse().ok()?;
    let scale = match unit.trim() {
        "ps" => 1e-3,
        "ns" => 1.0,
        "µs" | "us" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        _ => return None,
    };
    Some(value * scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_divan_tables() {
        let table = "\
Timer precision: 20 ns
with_divan              fastest       │ slowest       │ median        │ mean          │ samples │ iters
├─ chain_n                            │               │               │               │         │
│  ├─ 10                5.18 ns       │ 5.298 ns      │ 5.2 ns        │ 5.198 ns      │ 100     │ 51200
│  ╰─ 10000             14.01 µs      │ 39.61 µs      │ 14.06 µs      │ 14.69 µs      │ 100     │ 100
├─ empty                0 ns          │ 0.005 ns      │ 0.001 ns      │ 0.001 ns      │ 100     │ 1638400
╰─ sort_1000            5.367 µs      │ 116.7 µs      │ 5.448 µs      │ 6.886 µs      │ 100     │ 100
";
        let report = parse_divan(table).unwrap();
        let got: Vec<(String, f64)> = report
            .estimates
            .iter()
            .map(|(k, v)| (k.clone(), v.ns))
            .collect();
        assert_eq!(
            got,
            [
                ("chain_n/10".to_owned(), 5.2),
                ("chain_n/10000".to_owned(), 14_060.0),
                ("empty".to_owned(), 0.001),
                ("sort_1000".to_owned(), 5_448.0),
            ]
        );
        assert!(Harness::Divan.is_result_line(table.lines().nth(3).unwrap()));
        assert!(!Harness::Divan.is_result_line(table.lines().nth(2).unwrap()));
    }

    #[test]
    fn reads_tango_output() {
        let solo = "single/chain_n/1000                                 [   1.4 us ...   2.0 us ...   2.6 us ]  stddev: 429.9 ns\n";
        let report = parse_tango_solo(solo).unwrap();
        assert_eq!(report.estimates["chain_n/1000"].ns, 2_000.0);
        let step = report.estimates["chain_n/1000"].step_ns.unwrap();
        assert!((step - 100.0).abs() < 1e-9, "{step}");
        let compare = "aa                                                 [   9.8 us ...   8.3 us ]     -15.13%\n\
ab5                                                [   5.2 us ...   6.3 us ]     +20.52%*\n";
        let verdicts = tango_verdicts(compare);
        assert_eq!(verdicts["aa"], Verdict::Same);
        assert_eq!(verdicts["ab5"], Verdict::Slower);
    }

    #[test]
    fn reads_criterion_verdicts() {
        let out = "\
pair_aa                 time:   [2.7 µs 2.8 µs 2.9 µs]
                        change: [-0.5% +0.1% +0.6%] (p = 0.70 > 0.05)
                        No change in performance detected.
a_very_long_benchmark_name_that_wraps
                        time:   [2.7 µs 2.8 µs 2.9 µs]
                        change: [+3.1% +4.9% +6.0%] (p = 0.00 < 0.05)
                        Performance has regressed.
";
        let verdicts = criterion_verdicts(out);
        assert_eq!(verdicts["pair_aa"], Verdict::Same);
        assert_eq!(
            verdicts["a_very_long_benchmark_name_that_wraps"],
            Verdict::Slower
        );
    }
}
