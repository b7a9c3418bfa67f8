//! The standard LSP features, computed from the tree and the last results: code lenses,
//! inlay hints, hovers and diagnostics. Pure functions: the session owns the state and calls
//! them.

use std::collections::HashMap;
use std::path::Path;

use knotmeter_protocol::editor::{self, RunParams, RUN_COMMAND};
use knotmeter_protocol::{BenchResult, BenchSummary, Severity};
use tower_lsp_server::ls_types::{
    CodeLens, Command, Diagnostic, DiagnosticSeverity, Hover, HoverContents, InlayHint,
    InlayHintLabel, InlayHintTooltip, MarkupContent, MarkupKind, NumberOrString, Position, Range,
};

use crate::cargo_build::CompilerError;
use crate::discovery::{Bench, Tree};
use crate::format;
use crate::stored;

/// The last result of each leaf id.
pub type Results = HashMap<String, BenchResult>;

/// The last scaling analysis of each `args` benchmark.
pub type Summaries = HashMap<String, BenchSummary>;

/// A protocol range as an LSP range.
pub fn range(r: editor::Range) -> Range {
    Range {
        start: position(r.start),
        end: position(r.end),
    }
}

/// A protocol position as an LSP position.
pub fn position(p: editor::Position) -> Position {
    Position {
        line: p.line,
        character: p.character,
    }
}

fn contains(r: editor::Range, p: Position) -> bool {
    let p = (p.line, p.character);
    (r.start.line, r.start.character) <= p && p <= (r.end.line, r.end.character)
}

/// A "▶ Run" lens on each benchmark, and after a run one lens per case with its median,
/// interval and verdict.
pub fn code_lenses(tree: &Tree, results: &Results, file: &Path) -> Vec<CodeLens> {
    let mut lenses = Vec::new();
    for bench in tree.benches_in(file) {
        let at = range(bench.name_range);
        let params = RunParams {
            include: Some(vec![bench.id.clone()]),
            ..RunParams::default()
        };
        lenses.push(CodeLens {
            range: at,
            command: Some(Command {
                title: "▶ Run".into(),
                command: RUN_COMMAND.into(),
                arguments: Some(vec![serde_json::to_value(params).expect("serialisable")]),
            }),
            data: None,
        });
        for (label, result) in leaf_results(bench, results) {
            let mut title = match label {
                Some(arg) => format!("{arg}: {}", format::one_line(result)),
                None => format::one_line(result),
            };
            if let Some(note) = stored::stored_note(result) {
                title.push_str(&format!(" · {note}"));
            }
            lenses.push(CodeLens {
                range: at,
                command: Some(Command {
                    title,
                    command: String::new(),
                    arguments: None,
                }),
                data: None,
            });
        }
    }
    lenses
}

/// The results of a benchmark's leaves, labelled with the argument for a case.
fn leaf_results<'a>(
    bench: &'a Bench,
    results: &'a Results,
) -> Vec<(Option<&'a str>, &'a BenchResult)> {
    if bench.cases.is_empty() {
        results
            .get(&bench.id)
            .map(|r| (None, r))
            .into_iter()
            .collect()
    } else {
        bench
            .cases
            .iter()
            .filter_map(|c| results.get(&c.id).map(|r| (Some(c.arg.as_str()), r)))
            .collect()
    }
}

/// The last median after each benchmark's opening brace, and after each `args` value.
pub fn inlay_hints(tree: &Tree, results: &Results, file: &Path) -> Vec<InlayHint> {
    let mut hints = Vec::new();
    let hint = |at: editor::Position, result: &BenchResult| InlayHint {
        position: position(at),
        label: InlayHintLabel::String(format!(
            "⏱ {}{}",
            format::duration(result.estimate.median_ns),
            if result.stored_at.is_some() {
                " (stored)"
            } else {
                ""
            }
        )),
        kind: None,
        text_edits: None,
        tooltip: stored::stored_note(result).map(InlayHintTooltip::String),
        padding_left: Some(true),
        padding_right: Some(true),
        data: None,
    };
    for bench in tree.benches_in(file) {
        if bench.cases.is_empty() {
            if let Some(result) = results.get(&bench.id) {
                hints.push(hint(bench.header_range.end, result));
            }
        } else {
            for case in &bench.cases {
                if let Some(result) = results.get(&case.id) {
                    hints.push(hint(case.range.end, result));
                }
            }
        }
    }
    hints
}

/// Over a benchmark's attribute or signature (or a case's argument): the full result table
/// with the overhead diagnostics.
pub fn hover(
    tree: &Tree,
    results: &Results,
    summaries: &Summaries,
    file: &Path,
    at: Position,
) -> Option<Hover> {
    let bench = tree
        .benches_in(file)
        .find(|b| contains(b.header_range, at))?;
    let case = bench.cases.iter().find(|c| contains(c.range, at));
    let shown: Vec<&BenchResult> = match case {
        Some(case) => results.get(&case.id).into_iter().collect(),
        None => leaf_results(bench, results)
            .into_iter()
            .map(|(_, r)| r)
            .collect(),
    };
    let title = format!("**{}**\n\n", case.map_or(&bench.id, |c| &c.id));
    let mut body = if shown.is_empty() {
        "Not measured yet: use ▶ Run.".to_owned()
    } else {
        format::markdown(&shown)
    };
    if let Some(note) = shown.iter().find_map(|r| stored::stored_note(r)) {
        body =
            format!("_From the history ({note}); not measured since knotmeter started._\n\n{body}");
    }
    if let Some(summary) = summaries.get(&bench.id).filter(|_| case.is_none()) {
        if let Some(fit) = &summary.complexity {
            body.push_str(&format!("\n**Scaling**: {}", fit.best));
            if let Some(second) = &fit.runner_up {
                body.push_str(&format!(" (runner-up {second})"));
            }
            body.push('\n');
        }
        for w in &summary.warnings {
            body.push_str(&format!("\n⚠ **{}**: {}\n", w.code, w.message));
        }
    }
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: format!("{title}{body}"),
        }),
        range: Some(range(case.map_or(bench.header_range, |c| c.range))),
    })
}

/// The diagnostics of `file`: compiler errors of the last build, and the validity warnings
/// of the last results at their benchmark's name.
pub fn diagnostics(
    tree: &Tree,
    results: &Results,
    summaries: &Summaries,
    errors: &[CompilerError],
    file: &Path,
) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = errors
        .iter()
        .filter(|e| e.file == file)
        .map(|e| Diagnostic {
            range: range(e.range),
            severity: Some(DiagnosticSeverity::ERROR),
            code: e.code.clone().map(NumberOrString::String),
            source: Some("knotmeter (cargo bench)".into()),
            message: e.message.clone(),
            ..Diagnostic::default()
        })
        .collect();
    for bench in tree.benches_in(file) {
        let warnings = leaf_results(bench, results)
            .into_iter()
            .flat_map(|(label, result)| result.warnings.iter().map(move |w| (label, w)))
            .chain(
                summaries
                    .get(&bench.id)
                    .into_iter()
                    .flat_map(|s| s.warnings.iter().map(|w| (None, w))),
            );
        for (label, warning) in warnings {
            let severity = match warning.severity {
                Severity::Warning => DiagnosticSeverity::WARNING,
                _ => DiagnosticSeverity::INFORMATION,
            };
            let subject = label.map_or(String::new(), |arg| format!("({arg}) "));
            out.push(Diagnostic {
                range: range(bench.name_range),
                severity: Some(severity),
                code: Some(NumberOrString::String(warning.code.clone())),
                source: Some("knotmeter".into()),
                message: format!("{subject}{}", warning.message),
                ..Diagnostic::default()
            });
        }
    }
    out
}
