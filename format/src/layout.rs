//! Results as the daemon's surfaces lay them out: the run output per case and per benchmark,
//! the hover, and the lines of `knotmeter run`. What a result, a verdict or a warning reads
//! like is [`crate::text`]'s, as in the engine's reporters; this module only arranges it.

use crate::shown;
use crate::text::{
    case_label, complexity_text, interval_cell, machine_text, optimized_away, verdict_text,
    warning_text,
};
use crate::units::MISSING;
use knotmeter_protocol::{BenchResult, BenchSummary, Comparison};

pub use crate::text::manifest_line;

/// The account of one finished case for the run output: its id, then the details.
pub fn result_text(result: &BenchResult, bench: Option<&BenchSummary>) -> String {
    let detail = shown(result, bench).detail;
    let indented: Vec<String> = detail.lines().map(|line| format!("  {line}")).collect();
    format!("{}\n{}", result.id, indented.join("\n"))
}

/// A benchmark's analysis for the run output: its complexity and scaling notes.
pub fn bench_text(summary: &BenchSummary) -> String {
    let mut text = format!("{}: scaling", summary.id);
    match &summary.complexity {
        Some(fit) => text.push_str(&format!(" {}", complexity_text(fit))),
        None => text.push_str(" (no complexity fit)"),
    }
    for warning in &summary.warnings {
        text.push_str(&format!("\n  {}", warning_text(warning)));
    }
    text
}

/// A comparison decided at the end of the run, for the run output:
/// `quickstart::sort_unstable: 1.0% slower than sort_stable (ratio 1.010 [1.006, 1.015])`.
pub fn compared_text(id: &str, comparison: &Comparison) -> String {
    let machine = machine_text(comparison)
        .map(|text| format!("; {text}"))
        .unwrap_or_default();
    format!(
        "{id}: {} (ratio {:.3} [{:.3}, {:.3}]{machine})",
        verdict_text(comparison),
        comparison.ratio,
        comparison.low,
        comparison.high
    )
}

/// The hover of a benchmark (all its cases) or of one case, in Markdown. `results` are the
/// cases' last results, each with its argument text when the benchmark has `args`.
pub fn hover(
    title: &str,
    results: &[(Option<&str>, &BenchResult)],
    bench: Option<&BenchSummary>,
    one_case: bool,
) -> String {
    let mut md = format!("**{title}**\n\n");
    match results {
        [] => md.push_str("Not measured yet: use ▶ Run.\n"),
        [(_, result)] => md.push_str(&case_markdown(result, bench)),
        _ => md.push_str(&cases_table(results, bench)),
    }
    if let (Some(bench), false) = (bench, one_case) {
        md.push_str(&scaling_markdown(bench));
    }
    md
}

/// One case in full: the headline and verdict in bold, then every detail on its own line.
fn case_markdown(result: &BenchResult, bench: Option<&BenchSummary>) -> String {
    let shown = shown(result, bench);
    let mut lines = shown.detail.lines();
    let headline = lines.next().unwrap_or_default();
    let mut md = format!("**{}**", escape(headline));
    if let Some(verdict) = &shown.verdict {
        md.push_str(&format!(" · {}", escape(verdict)));
    }
    md.push_str("\n\n");
    let rest: Vec<String> = lines.map(escape).collect();
    md.push_str(&rest.join("  \n"));
    md.push('\n');
    md
}

/// Several cases of an `args` benchmark: a table of figures, spreads and verdicts, then each
/// case's own warnings and notes.
fn cases_table(results: &[(Option<&str>, &BenchResult)], bench: Option<&BenchSummary>) -> String {
    let mut md = String::from("| case | estimate | ± | verdict |\n|---|---:|---:|---|\n");
    let mut notes = Vec::new();
    for (label, result) in results {
        let label = label.map_or_else(|| case_label(&result.id).to_owned(), str::to_owned);
        let shown = shown(result, bench);
        let spread = if optimized_away(result) {
            MISSING.to_owned()
        } else {
            interval_cell(result)
        };
        md.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            label.replace('|', "\\|"),
            escape(&shown.figure),
            escape(&spread),
            escape(shown.verdict.as_deref().unwrap_or(MISSING)),
        ));
        for note in shown.notes.iter().filter(|n| !n.bench) {
            notes.push(format!("`{label}`: {}", escape(&note.text)));
        }
    }
    if !notes.is_empty() {
        md.push('\n');
        md.push_str(&notes.join("  \n"));
        md.push('\n');
    }
    md
}

/// The benchmark's complexity and its scaling notes.
fn scaling_markdown(bench: &BenchSummary) -> String {
    let mut md = String::new();
    if let Some(fit) = &bench.complexity {
        md.push_str(&format!(
            "\n**Scaling**: {}\n",
            escape(&complexity_text(fit))
        ));
    }
    for warning in &bench.warnings {
        md.push_str(&format!("\n{}\n", escape(&warning_text(warning))));
    }
    md
}

/// `text` with the characters Markdown would take for emphasis or tables escaped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '_' | '|' | '<' | '>' | '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_emphasis_is_escaped() {
        assert_eq!(escape("a_b *c* [d]"), "a\\_b \\*c\\* \\[d\\]");
    }
}
