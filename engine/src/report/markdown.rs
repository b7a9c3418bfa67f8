//! `--format markdown`: a GitHub-flavoured summary to paste into a pull request, written
//! when the run finishes.
//!
//! The document is the manifest line, run warnings as quotes, one table row per measured
//! case (`| benchmark | median | 95% CI | ops/s | samples | change | verdict |`, with an
//! `allocations` column before `change` when any case counted them), a "Scaling" list of
//! each benchmark's complexity fit with its notes, lists of result warnings and of failures,
//! and the totals. `change` and `verdict` come from `case_compared`, which patches the kept
//! results. A case warned `optimized_away` shows `≈ 0 (indistinguishable from empty)` and no
//! interval or rate, its label marked `⚠`. Warnings read `⚠`, informational notes `ℹ`.
//!
//! Case labels are code spans; in table cells `|` is escaped as `\|` (GitHub honours that
//! inside code spans too) and line breaks become `<br>`. List items keep to one line.

use std::io::{self, Write};

use knotmeter_protocol::{BenchResult, BenchSummary, Report, RunSummary, Severity};

use super::collect::Finish;
use super::text::{
    allocations_text, case_label, complexity_text, failure_text, manifest_line, optimized_away,
    ratio_text, samples_text, summary_line, verdict_word, warning_mark, EMPTY_ESTIMATE,
};
use super::units::{format_duration_ns, format_rate, ops_per_sec, MISSING};

/// Writes the collected run (see [`super::collect::AtEnd`]) as one Markdown document.
pub(crate) struct Markdown {
    /// Where the document goes.
    out: Box<dyn Write + Send>,
}

/// `text` made safe for a table cell: `|` escaped, line breaks as `<br>`.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
        .replace("\r\n", "<br>")
        .replace('\n', "<br>")
}

/// `text` on one line, for a list item.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` as an inline code span, fenced with enough backticks for the ones it holds.
fn code(text: &str) -> String {
    if text.contains('`') {
        format!("`` {text} ``")
    } else {
        format!("`{text}`")
    }
}

/// The results table; the `allocations` column appears only when some case counted them.
fn results_table(results: &[BenchResult]) -> String {
    let allocations = results.iter().any(|result| result.allocations.is_some());
    let mut head = vec![
        ("benchmark", ":--"),
        ("median", "--:"),
        ("95% CI", "--:"),
        ("ops/s", "--:"),
        ("samples", "--:"),
    ];
    if allocations {
        head.push(("allocations", "--:"));
    }
    head.extend([("change", ":--"), ("verdict", ":--")]);
    let titles: Vec<&str> = head.iter().map(|(title, _)| *title).collect();
    let aligns: Vec<&str> = head.iter().map(|(_, align)| *align).collect();
    let mut table = format!("| {} |\n| {} |\n", titles.join(" | "), aligns.join(" | "));
    for result in results {
        table.push_str(&result_row(result, allocations));
    }
    table
}

/// The table row of one result, with an allocations cell when `allocations` is true.
fn result_row(result: &BenchResult, allocations: bool) -> String {
    let estimate = &result.estimate;
    let (change, verdict) = match &result.comparison {
        Some(comparison) => (
            format!(
                "{} vs {}",
                ratio_text(comparison),
                code(case_label(&comparison.against))
            ),
            verdict_word(comparison.verdict).to_owned(),
        ),
        None if result.baseline => ("baseline".to_owned(), MISSING.to_owned()),
        None => (MISSING.to_owned(), MISSING.to_owned()),
    };
    let mut cells = if optimized_away(result) {
        vec![
            format!("⚠ {}", code(case_label(&result.id))),
            EMPTY_ESTIMATE.to_owned(),
            MISSING.to_owned(),
            MISSING.to_owned(),
        ]
    } else {
        vec![
            code(case_label(&result.id)),
            format_duration_ns(estimate.median_ns),
            format!(
                "{} – {}",
                format_duration_ns(estimate.low_ns),
                format_duration_ns(estimate.high_ns)
            ),
            ops_per_sec(estimate.median_ns).map_or_else(|| MISSING.to_owned(), format_rate),
        ]
    };
    cells.push(samples_text(result.samples, result.ops_per_sample));
    if allocations {
        let text = result.allocations.as_ref().map(allocations_text);
        cells.push(text.unwrap_or_else(|| MISSING.to_owned()));
    }
    cells.extend([change, verdict]);
    let cells: Vec<String> = cells.iter().map(|text| cell(text)).collect();
    format!("| {} |\n", cells.join(" | "))
}

impl Markdown {
    /// A reporter writing its document to `out`.
    pub(crate) fn new(out: Box<dyn Write + Send>) -> Self {
        Self { out }
    }
}

/// The whole document for the collected run.
fn document(report: &Report, summary: &RunSummary) -> String {
    let mut doc = String::new();
    let manifest = &report.manifest;
    doc.push_str(&one_line(&manifest_line(manifest)));
    doc.push_str("\n\n");
    for warning in &manifest.warnings {
        let title = match warning.severity {
            Severity::Warning => "Warning",
            Severity::Info => "Note",
        };
        let text = format!("> **{title}** {}: {}", code(&warning.code), warning.message);
        doc.push_str(&one_line(&text));
        doc.push_str("\n\n");
    }
    if !report.results.is_empty() {
        doc.push_str(&results_table(&report.results));
        doc.push('\n');
    }
    doc.push_str(&scaling_section(&report.benches));
    let warned = report.results.iter().flat_map(|result| {
        let label = case_label(&result.id);
        result.warnings.iter().map(move |warning| {
            format!(
                "{} {} {}: {}",
                code(label),
                warning_mark(warning.severity),
                code(&warning.code),
                warning.message
            )
        })
    });
    push_list(&mut doc, "Warnings", warned);
    let failed = report.failures.iter().map(|failure| {
        format!(
            "{}: {}",
            code(case_label(&failure.id)),
            failure_text(failure)
        )
    });
    push_list(&mut doc, "Failures", failed);
    doc.push_str(&format!("**{}**\n", summary_line(summary)));
    doc
}

/// The "Scaling" list: per benchmark its complexity fit, and its warnings and notes as
/// nested items; empty when no analysis has anything to say.
fn scaling_section(benches: &[BenchSummary]) -> String {
    let mut items = String::new();
    for bench in benches {
        if bench.complexity.is_none() && bench.warnings.is_empty() {
            continue;
        }
        let fit = match &bench.complexity {
            Some(fit) => complexity_text(fit),
            None => "no complexity fit".to_owned(),
        };
        let head = format!("{}: {fit}", code(case_label(&bench.id)));
        items.push_str(&format!("- {}\n", one_line(&head)));
        for warning in &bench.warnings {
            let mark = warning_mark(warning.severity);
            let note = format!("{mark} {}: {}", code(&warning.code), warning.message);
            items.push_str(&format!("  - {}\n", one_line(&note)));
        }
    }
    if items.is_empty() {
        return items;
    }
    format!("**Scaling**\n\n{items}\n")
}

/// Appends `**title**` and a bullet per item, unless there are none.
fn push_list(doc: &mut String, title: &str, items: impl Iterator<Item = String>) {
    let items: Vec<String> = items
        .map(|item| format!("- {}\n", one_line(&item)))
        .collect();
    if !items.is_empty() {
        doc.push_str(&format!("**{title}**\n\n{}\n", items.concat()));
    }
}

impl Finish for Markdown {
    fn finish(&mut self, report: Report, summary: &RunSummary) -> io::Result<()> {
        self.out.write_all(document(&report, summary).as_bytes())?;
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::super::collect::AtEnd;
    use super::super::{fixtures, Format, Reporter};
    use super::*;

    /// The number of `|` in `line` that are not escaped, i.e. cell borders.
    fn borders(line: &str) -> usize {
        line.replace("\\|", "").matches('|').count()
    }

    #[test]
    fn writes_a_table_row_per_result_with_escaped_pipes() {
        let text = fixtures::run(Format::Markdown, false);
        let rows: Vec<&str> = text.lines().filter(|line| line.starts_with('|')).collect();
        assert_eq!(rows.len(), 2 + fixtures::results().len());
        assert_eq!(
            rows[0],
            "| benchmark | median | 95% CI | ops/s | samples | allocations | change | verdict |"
        );
        assert!(rows.iter().all(|row| borders(row) == 9), "{rows:#?}");
        assert_eq!(
            rows[2],
            "| `chain_n/1000` | 12.2 ns | 12.2 ns – 12.3 ns | 81 632 653 | 1 200 × 4 096 | — | \
             0.81× [0.75, 0.88] vs `run 12` | faster |"
        );
        assert_eq!(
            rows[5],
            "| `sort_radix` | 1.27 µs | 1.26 µs – 1.28 µs | 788 644 | 1 200 × 4 096 | — | \
             1.03× [1.01, 1.05] vs `sort_std` | slower |"
        );
        assert!(rows[4].ends_with("| baseline | — |"));
    }

    #[test]
    fn a_body_optimised_away_is_marked_and_shows_no_figures() {
        let text = fixtures::run(Format::Markdown, false);
        let row = text.lines().find(|line| line.contains("pair/")).unwrap();
        assert_eq!(
            row,
            "| ⚠ `pair/(1,\"x\\|y\")` | ≈ 0 (indistinguishable from empty) | — | — | \
             1 200 × 4 096 | 3 allocs/op (96 B) | 1.00× [0.97, 1.03] vs `run 12` | same |"
        );
        assert!(!text.contains("0.31 ns"));
        assert!(!text.contains("3 200 000 000"));
    }

    #[test]
    fn lists_manifest_warnings_failures_and_totals() {
        let text = fixtures::run(Format::Markdown, false);
        assert!(text.starts_with("knotmeter 0.1.0 · rustc 1.95.0 · release (opt-level 3)"));
        assert!(text.contains(
            "\n\n> **Warning** `debug_build`: the bench target was built without \
             optimisations: run `cargo bench`\n\n"
        ));
        assert!(text.contains(
            "**Warnings**\n\n- `pair/(1,\"x|y\")` ⚠ `optimized_away`: the body cannot be \
             told apart from an empty one | return the result\n- `sort_radix` ⚠ `high_noise`: \
             the middle half of the samples spans 25% of the median | close other programs\n\n"
        ));
        assert!(text.contains(
            "**Failures**\n\n- `boom`: panicked at src/lib.rs:3:5: boom, with a comma\n"
        ));
        assert!(text.ends_with("\n**4 passed, 1 failed in 8.40 s**\n"));
    }

    #[test]
    fn scaling_lists_each_fit_with_its_notes() {
        let text = fixtures::run(Format::Markdown, false);
        assert!(text.contains(
            "|\n\n**Scaling**\n\n- `chain_n`: O(n) (runner-up O(n log n), not \
             distinguishable)\n  - ℹ `sublinear_scaling`: the cost grows as n^0.42 between \
             n = 10 and n = 1000\n\n**Warnings**"
        ));
        let mut quiet = fixtures::summaries()[0].clone();
        quiet.complexity = None;
        assert_eq!(
            scaling_section(std::slice::from_ref(&quiet)),
            "**Scaling**\n\n- `chain_n`: no complexity fit\n  - ℹ `sublinear_scaling`: the \
             cost grows as n^0.42 between n = 10 and n = 1000\n\n"
        );
        quiet.warnings.clear();
        assert_eq!(scaling_section(&[quiet]), "");
    }

    #[test]
    fn info_notes_in_the_manifest_are_not_warnings() {
        let buf = fixtures::SharedBuf::default();
        let mut markdown = AtEnd::new(Markdown::new(Box::new(buf.clone())));
        let mut manifest = fixtures::manifest();
        manifest.warnings = vec![knotmeter_protocol::Warning::info("tsc", "timer is the TSC")];
        markdown.run_started(&manifest, &[]).unwrap();
        markdown.run_finished(&fixtures::summary()).unwrap();
        assert!(buf
            .text()
            .contains("\n\n> **Note** `tsc`: timer is the TSC\n\n"));
    }

    #[test]
    fn writes_nothing_until_the_run_finishes_and_drops_empty_sections() {
        let buf = fixtures::SharedBuf::default();
        let mut markdown = AtEnd::new(Markdown::new(Box::new(buf.clone())));
        markdown.run_started(&fixtures::manifest(), &[]).unwrap();
        let mut result = fixtures::results()[0].clone();
        result.estimate.median_ns = 0.0;
        markdown.case_finished(&result).unwrap();
        assert_eq!(buf.text(), "");
        markdown.run_finished(&fixtures::summary()).unwrap();
        let text = buf.text();
        assert!(!text.contains("allocations"));
        assert!(!text.contains("**Failures**"));
        assert!(!text.contains("**Scaling**"));
        assert!(
            text.contains("| `chain_n/1000` | 0 ns | 12.2 ns – 12.3 ns | — |"),
            "{text}"
        );
    }

    #[test]
    fn cells_escape_pipes_and_line_breaks_and_code_spans_fence_backticks() {
        assert_eq!(cell("a|b\nc\r\nd"), "a\\|b<br>c<br>d");
        assert_eq!(code("x`y"), "`` x`y ``");
        assert_eq!(code("xy"), "`xy`");
        assert_eq!(one_line("two\n  lines"), "two lines");
    }
}
