//! GitHub-flavoured Markdown, to paste into a pull request. The bench binary's
//! `--format markdown` and `knotmeter run --format markdown` both write [`document`].
//!
//! The document is the manifest line, run warnings as quotes, one table row per measured case
//! (`| benchmark | estimate | ± | 95% interval | ops/s | samples | change |
//! verdict |`, with an `allocations` column before `change` when any case counted them), a
//! "Scaling" list of each benchmark's complexity with its notes, lists of warnings and of cases
//! without a result, and the totals. A case whose outcome is `warned` has its label marked `⚠`;
//! one warned `optimized_away` shows `≈ 0 (indistinguishable from empty)` and no interval or
//! rate. Warnings read `⚠`, informational notes `ℹ`. The verdict says what it is against.
//!
//! Case labels are code spans; in table cells `|` is escaped as `\|` (GitHub honours that
//! inside code spans too) and line breaks become `<br>`. List items keep to one line.

use knotmeter_protocol::{BenchSummary, Comparison, Manifest, Measure, Outcome, Severity};

use crate::csv::Row;
use crate::shown::shown;
use crate::tally::Tally;
use crate::text::{
    allocations_text, case_label, complexity_text, interval_cell, machine_moves, manifest_line,
    optimized_away, ratio_text, samples_text, warning_mark,
};
use crate::units::{format_rate, measure_text, ops_per_sec, MISSING};

/// A run as the Markdown document describes it.
#[derive(Debug, Clone, Copy)]
pub struct Run<'a> {
    /// Where and how it was measured.
    pub manifest: &'a Manifest,
    /// Every case, in run order.
    pub rows: &'a [Row<'a>],
    /// The analyses of the benchmarks with `args`.
    pub benches: &'a [BenchSummary],
    /// Wall time of the whole run, in nanoseconds.
    pub wall_ns: f64,
    /// Whether the run was cancelled before every case ran.
    pub cancelled: bool,
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

/// The whole document.
pub fn document(run: &Run<'_>) -> String {
    let mut doc = String::new();
    let manifest = run.manifest;
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
    let measured: Vec<_> = run
        .rows
        .iter()
        .filter_map(|row| match row {
            Row::Measured { result, bench } => Some((*result, *bench)),
            Row::NotMeasured { .. } => None,
        })
        .collect();
    if !measured.is_empty() {
        doc.push_str(&results_table(&measured));
        doc.push('\n');
    }
    // What the before/after ratios are relative to, once per run compared against, naming
    // the cases unless it holds for every ratio against that run.
    let compared: Vec<(&str, &Comparison)> = measured
        .iter()
        .filter_map(|(result, _)| Some((result.id.as_str(), result.comparison.as_ref()?)))
        .collect();
    for (text, ids) in machine_moves(&compared) {
        let sentence = match ids {
            None => format!("Before/after ratios are {text}."),
            Some(ids) => {
                let cases: Vec<String> = ids.iter().map(|id| code(case_label(id))).collect();
                format!("The before/after ratio of {} is {text}.", cases.join(", "))
            }
        };
        doc.push_str(&one_line(&sentence));
        doc.push_str("\n\n");
    }
    doc.push_str(&scaling_section(run.benches));
    let warned = measured.iter().flat_map(|(result, _)| {
        let label = case_label(&result.id);
        // Notes that only describe how the samples fell are for the details, not the page.
        result
            .warnings
            .iter()
            .filter(|w| !crate::DETAIL_ONLY.contains(&w.code.as_str()))
            .map(move |warning| {
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
    let mut tally = Tally::default();
    let mut failed = Vec::new();
    for row in run.rows {
        match row {
            Row::Measured { result, bench } => tally.measured(shown(result, *bench).outcome),
            Row::NotMeasured {
                id, status, why, ..
            } => {
                match *status {
                    "errored" => tally.errored += 1,
                    "skipped" => tally.skipped += 1,
                    _ => tally.failed += 1,
                }
                failed.push(format!("{} ({status}): {why}", code(case_label(id))));
            }
        }
    }
    push_list(&mut doc, "Not measured", failed.into_iter());
    doc.push_str(&format!(
        "**{}**\n",
        tally.closing_line(run.wall_ns, run.cancelled)
    ));
    doc
}

/// The results table; the `allocations` column appears only when some case counted them.
fn results_table(results: &[(&knotmeter_protocol::BenchResult, Option<&BenchSummary>)]) -> String {
    let allocations = results.iter().any(|(r, _)| r.allocations.is_some());
    let mut head = vec![
        ("benchmark", ":--"),
        ("estimate", "--:"),
        ("±", "--:"),
        ("95% interval", "--:"),
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
    for (result, bench) in results {
        table.push_str(&result_row(result, *bench, allocations));
    }
    table
}

/// The table row of one result, with an allocations cell when `allocations` is true.
fn result_row(
    result: &knotmeter_protocol::BenchResult,
    bench: Option<&BenchSummary>,
    allocations: bool,
) -> String {
    let estimate = &result.estimate;
    let shown = shown(result, bench);
    let (change, verdict) = match (&result.comparison, &shown.verdict) {
        (Some(comparison), Some(verdict)) => (ratio_text(comparison), verdict.clone()),
        _ if result.baseline => ("baseline".to_owned(), MISSING.to_owned()),
        _ => (MISSING.to_owned(), MISSING.to_owned()),
    };
    let label = match shown.outcome {
        Outcome::Passed => code(case_label(&result.id)),
        Outcome::Warned | Outcome::Partial => format!("⚠ {}", code(case_label(&result.id))),
    };
    let mut cells = if optimized_away(result) {
        vec![
            label,
            shown.figure.clone(),
            MISSING.to_owned(),
            MISSING.to_owned(),
            MISSING.to_owned(),
        ]
    } else {
        vec![
            label,
            shown.figure.clone(),
            interval_cell(result),
            format!(
                "{} – {}",
                measure_text(estimate.low_ns, result.measure),
                measure_text(estimate.high_ns, result.measure)
            ),
            ops_per_sec(estimate.median_ns)
                .filter(|_| result.measure == Measure::Time)
                .map_or_else(|| MISSING.to_owned(), format_rate),
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

/// The "Scaling" list: per benchmark its complexity, and its warnings and notes as nested
/// items; empty when no analysis has anything to say.
pub fn scaling_section(benches: &[BenchSummary]) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_escape_pipes_and_line_breaks_and_code_spans_fence_backticks() {
        assert_eq!(cell("a|b\nc\r\nd"), "a\\|b<br>c<br>d");
        assert_eq!(code("x`y"), "`` x`y ``");
        assert_eq!(code("xy"), "`xy`");
        assert_eq!(one_line("two\n  lines"), "two lines");
    }
}
