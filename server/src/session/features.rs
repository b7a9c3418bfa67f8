//! The standard LSP features, computed from the tree and the last results: code lenses,
//! inlay hints, hovers and diagnostics. Pure functions: the session owns the state and calls
//! them. Every text is knotmeter-format's presentation of the result (its line, figure,
//! notes), the one the terminal and the editor extension show too.

use std::collections::HashMap;
use std::path::Path;

use knotmeter_format::shown;
use knotmeter_protocol::editor::{self, Problems, RunParams, RUN_COMMAND};
use knotmeter_protocol::{BenchResult, BenchSummary, Severity};
use tower_lsp_server::ls_types::{
    CodeLens, Command, Diagnostic, DiagnosticSeverity, Hover, HoverContents, InlayHint,
    InlayHintLabel, InlayHintTooltip, MarkupContent, MarkupKind, NumberOrString, Position, Range,
};

use crate::cargo_build::CompilerError;
use crate::discovery::{Bench, Tree};
use crate::stored;
use knotmeter_format::layout;

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

/// Whether `p` is on one of the lines of `r`: a benchmark's hover covers its whole signature
/// line, where editors put an inline result after the text.
fn on_lines(r: editor::Range, p: Position) -> bool {
    r.start.line <= p.line && p.line <= r.end.line
}

/// A "▶ Run", a "⇄ Compare with base" and a "◔ Profile" lens on each benchmark (the second runs
/// `knotmeter compare` against the default base, the third `knotmeter profile` on each of its
/// cases), and after a run one lens per case with its line: the
/// figure with its spread between runs, the verdict and the warnings.
pub fn code_lenses(
    tree: &Tree,
    results: &Results,
    summaries: &Summaries,
    file: &Path,
) -> Vec<CodeLens> {
    let mut lenses = Vec::new();
    for bench in tree.benches_in(file) {
        let at = range(bench.name_range);
        let include = Some(vec![bench.id.clone()]);
        let runs = [
            ("▶ Run", RunParams::default()),
            (
                "⇄ Compare with base",
                RunParams {
                    compare: Some(String::new()),
                    ..RunParams::default()
                },
            ),
            (
                "◔ Profile",
                RunParams {
                    profile: Some(true),
                    ..RunParams::default()
                },
            ),
        ];
        for (title, params) in runs {
            let params = RunParams {
                include: include.clone(),
                ..params
            };
            lenses.push(CodeLens {
                range: at,
                command: Some(Command {
                    title: title.into(),
                    command: RUN_COMMAND.into(),
                    arguments: Some(vec![serde_json::to_value(params).expect("serialisable")]),
                }),
                data: None,
            });
        }
        let summary = summaries.get(&bench.id);
        for (label, result) in leaf_results(bench, results) {
            let line = shown(result, summary).line;
            // A stored result's line ends with when it was stored.
            let title = match label {
                Some(arg) => format!("{arg}: {line}"),
                None => line,
            };
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

/// The last figure after each benchmark's opening brace, and after each `args` value: the
/// median, or `≈ 0 (indistinguishable from empty)`, with `⚠` when a warning makes it suspect.
pub fn inlay_hints(
    tree: &Tree,
    results: &Results,
    summaries: &Summaries,
    file: &Path,
) -> Vec<InlayHint> {
    let mut hints = Vec::new();
    let hint = |at: editor::Position, result: &BenchResult, bench: &Bench| InlayHint {
        position: position(at),
        label: InlayHintLabel::String({
            let shown = shown(result, summaries.get(&bench.id));
            let mark = match shown.outcome {
                knotmeter_protocol::Outcome::Passed => "",
                _ => " ⚠",
            };
            let stored = if result.stored_at.is_some() {
                " (stored)"
            } else {
                ""
            };
            format!("⏱ {}{mark}{stored}", shown.figure)
        }),
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
                hints.push(hint(bench.header_range.end, result, bench));
            }
        } else {
            for case in &bench.cases {
                if let Some(result) = results.get(&case.id) {
                    hints.push(hint(case.range.end, result, bench));
                }
            }
        }
    }
    hints
}

/// Over a benchmark's attribute or signature lines (or a case's argument): its results, the
/// details of one case or a table of them, with the scaling analysis and every note. The one
/// hover of a benchmark: the editor extension shows no other.
pub fn hover(
    tree: &Tree,
    results: &Results,
    summaries: &Summaries,
    file: &Path,
    at: Position,
) -> Option<Hover> {
    let bench = tree
        .benches_in(file)
        .find(|b| on_lines(b.header_range, at))?;
    let case = bench.cases.iter().find(|c| contains(c.range, at));
    let shown: Vec<(Option<&str>, &BenchResult)> = match case {
        Some(case) => results
            .get(&case.id)
            .map(|r| (Some(case.arg.as_str()), r))
            .into_iter()
            .collect(),
        None => leaf_results(bench, results),
    };
    let title = case.map_or(&bench.id, |c| &c.id);
    let mut value = layout::hover(title, &shown, summaries.get(&bench.id), case.is_some());
    if let Some(note) = shown.iter().find_map(|(_, r)| stored::stored_note(r)) {
        let from =
            format!("\n\n_From the history ({note}); not measured since knotmeter started._\n\n");
        value = value.replacen("\n\n", &from, 1);
    }
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: Some(range(case.map_or(bench.header_range, |c| c.range))),
    })
}

/// The diagnostics of `file`: compiler errors of the last build, and the notes of the last
/// results at their benchmark's name, as `problems` says: warnings only by default (never an
/// informational note, and never the `partial` warning of a cancelled run, which is no
/// problem of the code).
pub fn diagnostics(
    tree: &Tree,
    results: &Results,
    summaries: &Summaries,
    errors: &[CompilerError],
    problems: Problems,
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
    if problems == Problems::Off {
        return out;
    }
    for bench in tree.benches_in(file) {
        let summary = summaries.get(&bench.id);
        let case_notes = leaf_results(bench, results)
            .into_iter()
            .filter(|(_, result)| !result.partial)
            .flat_map(|(label, result)| {
                let notes = shown(result, None).notes;
                notes
                    .into_iter()
                    .map(move |n| (label, n.severity, n.code, n.text))
            });
        // The benchmark's notes once, not once per case.
        let bench_notes = summary.into_iter().flat_map(|s| {
            s.warnings
                .iter()
                .map(|w| (None, w.severity, w.code.clone(), w.message.clone()))
        });
        for (label, severity, code, text) in case_notes.chain(bench_notes) {
            let severity = match (severity, problems) {
                (Severity::Warning, _) => DiagnosticSeverity::WARNING,
                (Severity::Info, Problems::All) => DiagnosticSeverity::INFORMATION,
                (Severity::Info, _) => continue,
            };
            let message = text
                .strip_prefix("⚠ ")
                .or_else(|| text.strip_prefix("ℹ "))
                .and_then(|t| t.strip_prefix(&format!("{code}: ")))
                .unwrap_or(&text);
            let subject = label.map_or(String::new(), |arg| format!("({arg}) "));
            out.push(Diagnostic {
                range: range(bench.name_range),
                severity: Some(severity),
                code: Some(NumberOrString::String(code.clone())),
                source: Some("knotmeter".into()),
                message: format!("{subject}{message}"),
                ..Diagnostic::default()
            });
        }
    }
    out
}
