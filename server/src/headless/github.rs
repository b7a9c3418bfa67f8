//! `knotmeter run` on GitHub Actions (`GITHUB_ACTIONS=true`): an annotation for each warning,
//! each regression and each case that failed, and a markdown summary of the run appended to
//! `$GITHUB_STEP_SUMMARY`. Results, verdicts, warnings and totals are worded as on every
//! other surface (knotmeter-format's `Shown` and tally): a benchmark's own warning such as
//! `flat_scaling` is annotated on each of its cases, a verdict says what it is against.
//!
//! `knotmeter run` writes them, not the bench binary: it sees every bench binary of the run
//! (one summary, not one per binary), and under it the bench binaries speak `jsonl` on
//! standard output, where a workflow command would be lost. So a run makes each annotation
//! once. They go to standard error, which the runner reads for workflow commands as it reads
//! standard output, so `--format json` stays a clean document.

use std::io::Write;
use std::path::{Path, PathBuf};

use knotmeter_protocol::editor::{ItemState, RunStateParams, SourceLocation};
use knotmeter_protocol::{BenchResult, Measure, Severity, Shown, Verdict};

use crate::terminal::RunRecord;

/// Whether this process runs as a GitHub Actions step.
pub fn on_github_actions() -> bool {
    std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true")
}

/// Writes the annotations to standard error and appends the summary to
/// `$GITHUB_STEP_SUMMARY` (when set); a summary that cannot be written is said, and changes
/// nothing else.
pub fn report(record: &RunRecord) {
    let mut stderr = std::io::stderr().lock();
    for line in annotations(record) {
        let _ = writeln!(stderr, "{line}");
    }
    drop(stderr);
    if let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) {
        if let Err(e) = append(Path::new(&path), &summary(record)) {
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

/// What is shown for a final state's result: the one [`RunRecord::present`] attached, or
/// worked out now.
fn shown_of(record: &RunRecord, item: &RunStateParams) -> Option<Shown> {
    item.shown
        .as_deref()
        .cloned()
        .or_else(|| record.shown(item))
}

/// The workflow commands for a run's final states: `::warning` for each warning (severity
/// `warning`, the case's own or its benchmark's; `info` is not a defect) and each `slower`
/// verdict, `::error` for each case that failed or could not be measured; placed at the
/// benchmark's line when the result names it.
pub fn annotations(record: &RunRecord) -> Vec<String> {
    let mut lines = Vec::new();
    for item in &record.finals {
        let result = item.result.as_deref();
        let place = result.map(place).unwrap_or_default();
        match item.state {
            ItemState::Failed | ItemState::Errored => {
                // A failed case has no result: its place is where the panic or the compiler
                // error is, when the daemon knows it.
                let place = item.location.as_ref().map_or(place, location_place);
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
                let (Some(result), Some(shown)) = (result, shown_of(record, item)) else {
                    continue;
                };
                for note in shown
                    .notes
                    .iter()
                    .filter(|n| n.severity == Severity::Warning)
                {
                    lines.push(command(
                        "warning",
                        &place,
                        &format!("knotmeter: {}", note.code),
                        &format!("{}: {}", result.id, note_message(&note.text, &note.code)),
                    ));
                }
                if let (Some(c), Some(verdict)) = (&result.comparison, &shown.verdict) {
                    if c.verdict == Verdict::Slower {
                        // A count's interval is the range of its repetitions, not a 95% one.
                        let interval = match result.measure {
                            Measure::Time => "95% CI",
                            Measure::Instructions => "counts",
                        };
                        lines.push(command(
                            "warning",
                            &place,
                            "knotmeter: slower",
                            &format!(
                                "{}: {verdict} (ratio {:.3}, {interval} {:.3} to {:.3}, p = {:.3}); \
                                 {}",
                                result.id, c.ratio, c.low, c.high, c.p_value, shown.headline,
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

/// A note's message without its mark and code (`⚠ code: message` → `message`).
fn note_message<'a>(text: &'a str, code: &str) -> &'a str {
    text.split_once(' ')
        .map_or(text, |(_, rest)| rest)
        .strip_prefix(code)
        .and_then(|rest| rest.strip_prefix(": "))
        .unwrap_or(text)
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

/// `file=…,line=…,col=…,` for a place in the sources (1-based, as the runner reads them); an
/// absolute file is made relative to the checkout (`GITHUB_WORKSPACE`, else the current
/// directory), as the runner needs.
fn location_place(location: &SourceLocation) -> String {
    let file = Path::new(&location.file);
    let checkout = std::env::var_os("GITHUB_WORKSPACE")
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok());
    let file = checkout
        .as_deref()
        .and_then(|c| file.strip_prefix(c).ok())
        .unwrap_or(file);
    format!(
        "file={},line={},col={},",
        property(&file.display().to_string()),
        location.line + 1,
        location.character + 1
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

/// The run as markdown for `$GITHUB_STEP_SUMMARY`: the totals, a table of every case with its
/// result or what happened to it, then each warning.
pub fn summary(record: &RunRecord) -> String {
    let mut md = format!(
        "### knotmeter run\n\n{}\n\n| case | result |\n|---|---|\n",
        record.closing_line()
    );
    for item in &record.finals {
        let shown = shown_of(record, item);
        let cell = match (&item.state, &shown) {
            (ItemState::Passed | ItemState::Skipped, Some(shown)) => shown.line.clone(),
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
    for item in &record.finals {
        let Some(shown) = shown_of(record, item) else {
            continue;
        };
        for note in shown
            .notes
            .iter()
            .filter(|n| n.severity == Severity::Warning)
        {
            md.push_str(&format!(
                "\n⚠ `{}` **{}**: {}\n",
                item.id,
                note.code,
                note_message(&note.text, &note.code).replace('\n', " ")
            ));
        }
    }
    md.push('\n');
    md
}

#[cfg(test)]
mod tests {
    use knotmeter_protocol::editor::{ItemState, RunStateParams, SourceLocation};
    use knotmeter_protocol::BenchResult;
    use serde_json::json;

    use super::{annotations, summary};
    use crate::terminal::RunRecord;

    fn record(finals: Vec<RunStateParams>) -> RunRecord {
        let mut record = RunRecord {
            finals,
            wall_ns: 2.5e9,
            ..RunRecord::default()
        };
        record.present();
        record
    }

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
            location: None,
            shown: None,
            bench: None,
        }
    }

    #[test]
    fn warnings_regressions_and_failures_are_annotated_once_at_their_line() {
        let finals = vec![
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
        let mut finals = finals;
        finals[2].location = Some(SourceLocation {
            file: "src/x.rs".into(),
            line: 2,
            character: 4,
        });
        let lines = annotations(&record(finals));
        assert_eq!(lines.len(), 3, "{lines:#?}");
        assert_eq!(
            lines[0],
            "::warning file=benches/a%2Cb.rs,line=8,title=knotmeter%3A imprecise::a::slow: 100%25 sure: no%0Areally"
        );
        assert!(
            lines[1].starts_with("::warning file=benches/a%2Cb.rs,line=8,title=knotmeter%3A slower::a::slow: 25.0%25 slower than baseline main (ratio 1.250, 95%25 CI 1.200 to 1.300, p = 0.001); 100 ns"),
            "{}",
            lines[1]
        );
        assert_eq!(
            lines[2],
            "::error file=src/x.rs,line=3,col=5,title=knotmeter%3A failed::a::boom failed: panicked at src/x.rs:3:5"
        );
    }

    #[test]
    fn the_summary_lists_every_case_and_each_warning() {
        let finals = vec![
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
        let md = summary(&record(finals));
        // The shared totals: a case with a warning is warned, never passed.
        assert!(md.contains("\n1 warned, 1 errored in 2.50 s\n"), "{md}");
        assert!(md.contains("| `a::slow` | 100 ns"), "{md}");
        assert!(md.contains("25.0% slower than baseline main"), "{md}");
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
