//! `knotmeter run` on GitHub Actions (`GITHUB_ACTIONS=true`): an annotation for each warning,
//! each regression and each case that failed, and a markdown summary of the run appended to
//! `$GITHUB_STEP_SUMMARY`.
//!
//! `knotmeter run` writes them, not the bench binary: it sees every bench binary of the run
//! (one summary, not one per binary), and under it the bench binaries speak `jsonl` on
//! standard output, where a workflow command would be lost. So a run makes each annotation
//! once. They go to standard error, which the runner reads for workflow commands as it reads
//! standard output, so `--format json` stays a clean document.

use std::io::Write;
use std::path::Path;

use knotmeter_protocol::editor::{ItemState, RunStateParams};
use knotmeter_protocol::{BenchResult, Severity, Verdict};

use crate::format;

/// Whether this process runs as a GitHub Actions step.
pub fn on_github_actions() -> bool {
    std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true")
}

/// Writes the annotations to standard error and appends the summary to
/// `$GITHUB_STEP_SUMMARY` (when set); a summary that cannot be written is said, and changes
/// nothing else.
pub fn report(finals: &[RunStateParams]) {
    let mut stderr = std::io::stderr().lock();
    for line in annotations(finals) {
        let _ = writeln!(stderr, "{line}");
    }
    drop(stderr);
    if let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) {
        if let Err(e) = append(Path::new(&path), &summary(finals)) {
            eprintln!(
                "knotmeter: the step summary could not be written to {}: {e}",
                Path::new(&path).display()
            );
        }
    }
}

fn append(path: &Path, text: &str) -> std::io::Result<()> {
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)?
        .write_all(text.as_bytes())
}

/// The workflow commands for a run's final states: `::warning` for each warning (severity
/// `warning`; `info` is not a defect) and each `slower` verdict, `::error` for each case that
/// failed or could not be measured; placed at the benchmark's line when the result names it.
pub fn annotations(finals: &[RunStateParams]) -> Vec<String> {
    let mut lines = Vec::new();
    for item in finals {
        let result = item.result.as_deref();
        let place = result.map(place).unwrap_or_default();
        match item.state {
            ItemState::Failed | ItemState::Errored => {
                let what = if item.state == ItemState::Failed {
                    "failed"
                } else {
                    "could not be measured"
                };
                let why = item.message.as_deref().unwrap_or("no reason was given");
                lines.push(command(
                    "error",
                    &place,
                    &format!("knotmeter: {what}"),
                    &format!("{} {what}: {why}", item.id),
                ));
            }
            ItemState::Passed => {
                let Some(result) = result else { continue };
                for warning in &result.warnings {
                    if warning.severity != Severity::Warning {
                        continue;
                    }
                    lines.push(command(
                        "warning",
                        &place,
                        &format!("knotmeter: {}", warning.code),
                        &format!("{}: {}", result.id, warning.message),
                    ));
                }
                if let Some(c) = &result.comparison {
                    if c.verdict == Verdict::Slower {
                        lines.push(command(
                            "warning",
                            &place,
                            "knotmeter: slower",
                            &format!(
                                "{} is slower than {}: ×{:.3} (95% CI ×{:.3} to ×{:.3}, p = {:.3}); \
                                 median {} [{}, {}]",
                                result.id,
                                c.against,
                                c.ratio,
                                c.low,
                                c.high,
                                c.p_value,
                                format::duration(result.estimate.median_ns),
                                format::duration(result.estimate.low_ns),
                                format::duration(result.estimate.high_ns),
                            ),
                        ));
                    }
                }
            }
            _ => {}
        }
    }
    lines
}

/// `file=…,line=…,` for a result's benchmark.
fn place(result: &BenchResult) -> String {
    format!(
        "file={},line={},",
        property(&result.file),
        result.line.max(1)
    )
}

/// `::KIND file=…,line=…,title=…::MESSAGE`, escaped as the runner expects.
fn command(kind: &str, place: &str, title: &str, message: &str) -> String {
    format!(
        "::{kind} {place}title={}::{}",
        property(title),
        data(message)
    )
}

/// A command's message: `%`, CR and LF escaped.
fn data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A command's property value: as a message, and `:` and `,` too.
fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

/// The run as markdown for `$GITHUB_STEP_SUMMARY`: a table of every case with its result or
/// what happened to it, then each warning.
pub fn summary(finals: &[RunStateParams]) -> String {
    let count = |state: ItemState| finals.iter().filter(|f| f.state == state).count();
    let mut md = format!(
        "### knotmeter run\n\n{} passed, {} failed, {} errored, {} skipped\n\n\
         | case | median [95% interval] · verdict |\n|---|---|\n",
        count(ItemState::Passed),
        count(ItemState::Failed),
        count(ItemState::Errored),
        count(ItemState::Skipped),
    );
    for item in finals {
        let cell = match (&item.state, item.result.as_deref()) {
            (ItemState::Passed, Some(result)) => format::one_line(result),
            (state, _) => {
                let word = match state {
                    ItemState::Failed => "failed",
                    ItemState::Errored => "errored",
                    ItemState::Skipped => "skipped",
                    _ => "not finished",
                };
                let first = item
                    .message
                    .as_deref()
                    .and_then(|m| m.lines().next())
                    .unwrap_or("");
                if first.is_empty() {
                    format!("**{word}**")
                } else {
                    format!("**{word}**: {first}")
                }
            }
        };
        md.push_str(&format!(
            "| `{}` | {} |\n",
            item.id,
            cell.replace('|', "\\|")
        ));
    }
    for item in finals {
        for w in item.result.iter().flat_map(|r| &r.warnings) {
            if w.severity == Severity::Warning {
                md.push_str(&format!(
                    "\n⚠ `{}` **{}**: {}\n",
                    item.id,
                    w.code,
                    w.message.replace('\n', " ")
                ));
            }
        }
    }
    md.push('\n');
    md
}

#[cfg(test)]
mod tests {
    use knotmeter_protocol::editor::{ItemState, RunStateParams};
    use knotmeter_protocol::BenchResult;
    use serde_json::json;

    use super::{annotations, summary};

    fn result(id: &str, verdict: Option<&str>, warnings: serde_json::Value) -> BenchResult {
        serde_json::from_value(json!({
            "id": id, "name": "x", "args": null, "group": null, "baseline": false,
            "file": "benches/a,b.rs", "line": 8,
            "estimate": {"median_ns": 100.0, "low_ns": 99.0, "high_ns": 101.0, "mean_ns": 100.0},
            "quantiles": {"min_ns": 99.0, "p5_ns": 99.0, "q1_ns": 99.0, "q3_ns": 101.0,
                          "p95_ns": 101.0, "max_ns": 101.0, "std_dev_ns": 0.5, "outliers": 0},
            "precision": 0.01, "overhead": {"per_op_ns": 0.5, "drift": 0.0, "capped": 0},
            "cold_ns": 120.0, "ops_per_sample": 64, "samples": 30, "wall_ns": 1e8,
            "partial": false, "warnings": warnings,
            "comparison": verdict.map(|v| json!({"against": "baseline main", "ratio": 1.25,
                "low": 1.2, "high": 1.3, "p_value": 0.001, "verdict": v})),
            "allocations": null,
            "raw": {"workload_ns": [100.0], "baseline_ns": [0.5]}
        }))
        .unwrap()
    }

    fn item(
        id: &str,
        state: ItemState,
        result: Option<BenchResult>,
        message: Option<&str>,
    ) -> RunStateParams {
        RunStateParams {
            run_id: 1,
            id: id.to_owned(),
            state,
            result: result.map(Box::new),
            message: message.map(str::to_owned),
        }
    }

    #[test]
    fn warnings_regressions_and_failures_are_annotated_once_at_their_line() {
        let finals = [
            item(
                "a::slow",
                ItemState::Passed,
                Some(result(
                    "a::slow",
                    Some("slower"),
                    json!([{"code": "imprecise", "message": "100% sure: no\nreally", "severity": "warning"},
                           {"code": "note", "message": "just so you know", "severity": "info"}]),
                )),
                None,
            ),
            item(
                "a::same",
                ItemState::Passed,
                Some(result("a::same", Some("same"), json!([]))),
                None,
            ),
            item(
                "a::boom",
                ItemState::Failed,
                None,
                Some("panicked at src/x.rs:3:5"),
            ),
            item("a::later", ItemState::Skipped, None, None),
        ];
        let lines = annotations(&finals);
        assert_eq!(lines.len(), 3, "{lines:#?}");
        assert_eq!(
            lines[0],
            "::warning file=benches/a%2Cb.rs,line=8,title=knotmeter%3A imprecise::a::slow: 100%25 sure: no%0Areally"
        );
        assert!(
            lines[1].starts_with("::warning file=benches/a%2Cb.rs,line=8,title=knotmeter%3A slower::a::slow is slower than baseline main: ×1.250 (95%25 CI ×1.200 to ×1.300, p = 0.001); median 100 ns"),
            "{}",
            lines[1]
        );
        assert_eq!(
            lines[2],
            "::error title=knotmeter%3A failed::a::boom failed: panicked at src/x.rs:3:5"
        );
    }

    #[test]
    fn the_summary_lists_every_case_and_each_warning() {
        let finals = [
            item(
                "a::slow",
                ItemState::Passed,
                Some(result(
                    "a::slow",
                    Some("slower"),
                    json!([{"code": "imprecise", "message": "wide | interval", "severity": "warning"}]),
                )),
                None,
            ),
            item(
                "a::boom",
                ItemState::Errored,
                None,
                Some("the bench binary crashed\n(signal 6)"),
            ),
        ];
        let md = summary(&finals);
        assert!(
            md.contains("1 passed, 0 failed, 1 errored, 0 skipped"),
            "{md}"
        );
        assert!(md.contains("| `a::slow` | 100 ns"), "{md}");
        assert!(md.contains("slower ×1.25"), "{md}");
        assert!(
            md.contains("| `a::boom` | **errored**: the bench binary crashed |"),
            "{md}"
        );
        assert!(
            md.contains("⚠ `a::slow` **imprecise**: wide | interval"),
            "{md}"
        );
    }
}
