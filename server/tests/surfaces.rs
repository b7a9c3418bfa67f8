//! The shared presentation fixtures (`format/tests/fixtures/cases.json`) rendered through every
//! surface of the daemon and of `knotmeter run`: code lens, inlay hint, hover, diagnostics,
//! run output, progress line, closing table, CSV and Markdown. Each must show what
//! `format/tests/fixtures/shown.json` says, the file the engine's reporters and the VS Code
//! extension are checked against too: the same figure, spread, verdict and marks everywhere.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use knotmeter_format::layout;
use knotmeter_protocol::editor::{self, ItemState, Problems, RunStateParams};
use knotmeter_protocol::{BenchResult, BenchSummary, Outcome, Severity, Shown};
use knotmeter_server::discovery::{Bench, Case, PackageNode, Part, TargetRef, Tree};
use knotmeter_server::session::features;
use knotmeter_server::terminal::{self, RunRecord};
use serde::Deserialize;
use tower_lsp_server::ls_types::{
    DiagnosticSeverity, HoverContents, InlayHintLabel, NumberOrString, Position,
};

#[derive(Deserialize)]
struct Fixture {
    name: String,
    result: BenchResult,
    bench: Option<BenchSummary>,
}

#[derive(Deserialize)]
struct Fixtures {
    cases: Vec<Fixture>,
}

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../format/tests/fixtures")
}

fn fixtures() -> Vec<Fixture> {
    let text = std::fs::read_to_string(fixtures_dir().join("cases.json")).unwrap();
    serde_json::from_str::<Fixtures>(&text).unwrap().cases
}

fn expected() -> BTreeMap<String, Shown> {
    let text = std::fs::read_to_string(fixtures_dir().join("shown.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

const FILE: &str = "/ws/benches/q.rs";

fn at(line: u32, start: u32, end: u32) -> editor::Range {
    editor::Range {
        start: editor::Position {
            line,
            character: start,
        },
        end: editor::Position {
            line,
            character: end,
        },
    }
}

/// One benchmark per fixture, ten lines apart, each with the fixture's result as its only
/// leaf; its benchmark id is the fixture's name, so no two share an analysis.
struct Editor {
    tree: Tree,
    results: HashMap<String, BenchResult>,
    summaries: HashMap<String, BenchSummary>,
    /// Fixture name → (benchmark's first line, leaf id).
    places: HashMap<String, (u32, String)>,
}

fn editor(fixtures: &[Fixture]) -> Editor {
    let mut benches = Vec::new();
    let mut results = HashMap::new();
    let mut summaries = HashMap::new();
    let mut places = HashMap::new();
    for (index, fixture) in fixtures.iter().enumerate() {
        let line = index as u32 * 10;
        let bench_id = format!("q::{}", fixture.name);
        let mut result = fixture.result.clone();
        let (leaf, cases) = match &result.args {
            Some(arg) => {
                let id = format!("{bench_id}/{arg}");
                let case = Case {
                    id: id.clone(),
                    arg: arg.clone(),
                    range: at(line, 15, 15 + arg.len() as u32),
                };
                (id, vec![case])
            }
            None => (bench_id.clone(), Vec::new()),
        };
        result.id = leaf.clone();
        benches.push(Bench {
            id: bench_id.clone(),
            name: fixture.name.clone(),
            target: TargetRef {
                package: "q".to_owned(),
                target: "q".to_owned(),
            },
            file: PathBuf::from(FILE),
            range: editor::Range {
                start: at(line, 0, 0).start,
                end: at(line + 4, 0, 1).end,
            },
            name_range: at(line + 1, 3, 3 + fixture.name.len() as u32),
            header_range: editor::Range {
                start: at(line, 0, 0).start,
                end: at(line + 1, 0, 40).end,
            },
            cases,
            group: result.group.clone(),
            line: line + 2,
            fingerprint: None,
        });
        results.insert(leaf.clone(), result);
        if let Some(bench) = &fixture.bench {
            let mut bench = bench.clone();
            bench.id = bench_id;
            summaries.insert(bench.id.clone(), bench);
        }
        places.insert(fixture.name.clone(), (line, leaf));
    }
    let target = TargetRef {
        package: "q".to_owned(),
        target: "q".to_owned(),
    };
    let package = PackageNode {
        item: editor::TestItem {
            id: "package:q".to_owned(),
            label: "q".to_owned(),
            kind: editor::ItemKind::Package,
            parent: None,
            uri: None,
            range: None,
            group: None,
            detail: None,
        },
        parts: vec![std::sync::Arc::new(Part::new(target, Vec::new(), benches))],
    };
    let tree = Tree::new(vec![package], Vec::new(), HashMap::new());
    Editor {
        tree,
        results,
        summaries,
        places,
    }
}

/// Markdown as a reader sees it: escapes removed.
fn unescape(markdown: &str) -> String {
    let mut out = String::new();
    let mut chars = markdown.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            _ => out.push(c),
        }
    }
    out
}

#[test]
fn every_editor_feature_shows_the_shared_presentation() {
    let fixtures = fixtures();
    let expected = expected();
    let ed = editor(&fixtures);
    let file = Path::new(FILE);
    let lenses = features::code_lenses(&ed.tree, &ed.results, &ed.summaries, file);
    let hints = features::inlay_hints(&ed.tree, &ed.results, &ed.summaries, file);
    let warnings_only = features::diagnostics(
        &ed.tree,
        &ed.results,
        &ed.summaries,
        &[],
        Problems::Warnings,
        file,
    );
    let everything = features::diagnostics(
        &ed.tree,
        &ed.results,
        &ed.summaries,
        &[],
        Problems::All,
        file,
    );
    let off = features::diagnostics(
        &ed.tree,
        &ed.results,
        &ed.summaries,
        &[],
        Problems::Off,
        file,
    );
    assert!(off.is_empty());
    for fixture in &fixtures {
        let shown = &expected[&fixture.name];
        let (line, leaf) = &ed.places[&fixture.name];
        let name = &fixture.name;
        // Code lens: the one line.
        let titles: Vec<&str> = lenses
            .iter()
            .filter(|l| l.range.start.line == line + 1)
            .filter_map(|l| l.command.as_ref().map(|c| c.title.as_str()))
            .collect();
        assert!(
            titles.iter().any(|t| t.ends_with(&shown.line)),
            "{name}: {titles:?} lack {:?}",
            shown.line
        );
        // Inlay hint: the figure, marked when the outcome is not a pass.
        let mark = if shown.outcome == Outcome::Passed {
            ""
        } else {
            " ⚠"
        };
        let want = format!("⏱ {}{mark}", shown.figure);
        assert!(
            hints
                .iter()
                .any(|h| matches!(&h.label, InlayHintLabel::String(s) if *s == want)),
            "{name}: no hint {want:?}"
        );
        // Hover on the signature line, at its end (where the editor puts its annotation).
        let hover = features::hover(
            &ed.tree,
            &ed.results,
            &ed.summaries,
            file,
            Position::new(line + 1, 80),
        )
        .unwrap_or_else(|| panic!("{name}: no hover at the end of the signature line"));
        let HoverContents::Markup(markup) = hover.contents else {
            panic!("{name}: hover is not markup");
        };
        let text = unescape(&markup.value);
        assert!(text.contains(&shown.headline), "{name}: {text}");
        if let Some(verdict) = &shown.verdict {
            assert!(text.contains(verdict.as_str()), "{name}: {text}");
        }
        for note in &shown.notes {
            assert!(
                text.contains(&note.text),
                "{name}: {text} lacks {}",
                note.text
            );
        }
        // Diagnostics: each warning once at the name, never a note or a cancellation; every
        // note with `all`.
        let codes = |diagnostics: &[tower_lsp_server::ls_types::Diagnostic]| -> Vec<(String, DiagnosticSeverity)> {
            let mut codes: Vec<(String, DiagnosticSeverity)> = diagnostics
                .iter()
                .filter(|d| d.range.start.line == line + 1)
                .map(|d| match &d.code {
                    Some(NumberOrString::String(code)) => (code.clone(), d.severity.unwrap()),
                    other => panic!("{other:?}"),
                })
                .collect();
            codes.sort_by(|a, b| a.0.cmp(&b.0));
            codes
        };
        let partial = shown.outcome == Outcome::Partial;
        let mut want: Vec<(String, DiagnosticSeverity)> = shown
            .notes
            .iter()
            .filter(|n| n.severity == Severity::Warning && !partial)
            .map(|n| (n.code.clone(), DiagnosticSeverity::WARNING))
            .collect();
        want.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(codes(&warnings_only), want, "{name}");
        let mut want_all: Vec<(String, DiagnosticSeverity)> = shown
            .notes
            .iter()
            .filter(|_| !partial)
            .map(|n| {
                let severity = match n.severity {
                    Severity::Warning => DiagnosticSeverity::WARNING,
                    Severity::Info => DiagnosticSeverity::INFORMATION,
                };
                (n.code.clone(), severity)
            })
            .collect();
        want_all.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(codes(&everything), want_all, "{name}");
        // The run output's account of the case: every line of the details.
        let output = layout::result_text(&ed.results[leaf], fixture.bench.as_ref());
        for detail in shown.detail.lines() {
            assert!(output.contains(detail), "{name}: {output} lacks {detail}");
        }
    }
}

/// The run as `knotmeter run` collected it: one final state per fixture.
fn record(fixtures: &[Fixture]) -> RunRecord {
    let mut record = RunRecord {
        wall_ns: 8.4e9,
        ..RunRecord::default()
    };
    for fixture in fixtures {
        let mut result = fixture.result.clone();
        result.id = match &result.args {
            Some(arg) => format!("q::{}/{arg}", fixture.name),
            None => format!("q::{}", fixture.name),
        };
        let state = if fixture.result.partial {
            ItemState::Skipped
        } else {
            ItemState::Passed
        };
        record.finals.push(RunStateParams {
            run_id: 1,
            id: result.id.clone(),
            state,
            result: Some(Box::new(result)),
            message: None,
            location: None,
            shown: None,
            bench: None,
        });
        if let Some(bench) = &fixture.bench {
            let mut bench = bench.clone();
            bench.id = format!("q::{}", fixture.name);
            record.summaries.insert(bench.id.clone(), bench);
        }
    }
    record
}

#[test]
fn knotmeter_run_prints_the_shared_presentation() {
    let fixtures = fixtures();
    let expected = expected();
    let mut record = record(&fixtures);
    let table = record.table();
    let csv = record.csv();
    // Byte for byte the bench binary's `--format csv|markdown` documents for the same run
    // (the engine's report::surfaces checks its side against the same files).
    let read = |name: &str| std::fs::read_to_string(fixtures_dir().join(name)).unwrap();
    assert_eq!(csv, read("run.csv"));
    record.manifest = Some(serde_json::from_str(&read("manifest.json")).unwrap());
    assert_eq!(record.markdown().as_deref(), Some(read("run.md").as_str()));
    record.present();
    for (fixture, params) in fixtures.iter().zip(&record.finals) {
        let shown = &expected[&fixture.name];
        let name = &fixture.name;
        assert_eq!(
            params.shown.as_deref(),
            Some(shown),
            "{name}: --format json|jsonl"
        );
        let line = terminal::final_line(params, params.shown.as_deref());
        assert!(line.ends_with(&shown.line), "{name}: {line}");
        let word = match shown.outcome {
            Outcome::Passed => "passed",
            Outcome::Warned => "warned",
            Outcome::Partial => "partial",
        };
        assert!(line.contains(&format!(" {word}: ")), "{name}: {line}");
        let row = table
            .lines()
            .find(|l| l.starts_with(&format!("{} ", params.id)))
            .unwrap_or_else(|| panic!("{name}: no {word} row in\n{table}"));
        assert!(row.contains(&format!("  {word}  ")), "{name}: {row}");
        assert!(row.contains(&shown.figure), "{name}: {row}");
        assert!(
            row.contains(shown.verdict.as_deref().unwrap_or("—")),
            "{name}: {row}"
        );
        for note in &shown.notes {
            let mark = note.text.split(' ').next().unwrap();
            assert!(
                row.contains(&format!("{mark} {}", note.code)),
                "{name}: {row}"
            );
        }
        let status = match shown.outcome {
            Outcome::Passed => "ok",
            Outcome::Warned => "warned",
            Outcome::Partial => "partial",
        };
        let csv_row = csv
            .lines()
            .find(|l| l.starts_with(&format!("{},", params.id)))
            .unwrap_or_else(|| panic!("{name}: no {status} CSV row in\n{csv}"));
        assert!(
            csv_row.split(',').nth(1) == Some(status),
            "{name}: {csv_row}"
        );
    }
    assert_eq!(
        record.closing_line(),
        "10 passed, 5 warned, 1 partial in 8.40 s"
    );
    // The optimised-away body shows no number anywhere on its row.
    let empty = table
        .lines()
        .find(|l| l.contains("indistinguishable"))
        .unwrap();
    assert!(!empty.contains(" ns"), "{empty}");
}

#[test]
fn the_history_table_never_shows_a_number_for_a_body_optimised_away() {
    let point = |run: i64, budget: u64, warnings| knotmeter_protocol::HistoryPoint {
        run: knotmeter_protocol::HistoryRunId(run),
        timestamp: 1_700_000_000,
        git_commit: Some("0123456789abcdef".to_owned()),
        machine_key: "m".to_owned(),
        baseline: None,
        median_ns: 0.0000153,
        low_ns: 0.0,
        high_ns: 0.00003,
        verdict: None,
        status: Some(knotmeter_protocol::RunStatus::Complete),
        partial: None,
        budget_ms: Some(budget),
        stored_at: None,
        warnings,
        comparison: None,
    };
    let empty = expected()["optimized_away"].notes[0].clone();
    let warning = knotmeter_protocol::Warning::new(empty.code, "nothing measured");
    let table = terminal::history_table(&[point(7, 100, vec![warning]), point(6, 1000, vec![])]);
    let lines: Vec<&str> = table.lines().collect();
    assert!(
        lines[0].starts_with("run  started (UTC)     budget"),
        "{table}"
    );
    assert!(
        lines[1].contains("100 ms  ≈ 0 (indistinguishable from empty)  —"),
        "{table}"
    );
    assert!(lines[1].ends_with("⚠ optimized_away"), "{table}");
    assert!(lines[2].contains("1 s     0.00 ns"), "{table}");
}

#[test]
fn history_verdict_said_slower_without_against_what() {
    // Before: `knotmeter history` printed `slower` for a group member compared with its
    // baseline, and for a case compared with an earlier run alike. Each stored comparison now
    // reads as on every other surface (shown.json).
    let expected = expected();
    let fixtures = fixtures();
    let compared: Vec<&Fixture> = fixtures
        .iter()
        .filter(|f| f.result.comparison.is_some())
        .collect();
    assert!(compared.len() >= 2, "fixtures with comparisons");
    let points: Vec<knotmeter_protocol::HistoryPoint> = compared
        .iter()
        .enumerate()
        .map(|(i, f)| knotmeter_protocol::HistoryPoint {
            run: knotmeter_protocol::HistoryRunId(i as i64 + 1),
            timestamp: 1_700_000_000,
            git_commit: None,
            machine_key: "m".to_owned(),
            baseline: None,
            median_ns: f.result.estimate.median_ns,
            low_ns: f.result.estimate.low_ns,
            high_ns: f.result.estimate.high_ns,
            verdict: f.result.comparison.as_ref().map(|c| c.verdict),
            status: Some(knotmeter_protocol::RunStatus::Complete),
            partial: None,
            budget_ms: Some(1000),
            stored_at: None,
            warnings: Vec::new(),
            comparison: f.result.comparison.clone(),
        })
        .collect();
    let table = terminal::history_table(&points);
    for (fixture, line) in compared.iter().zip(table.lines().skip(1)) {
        let verdict = expected[&fixture.name].verdict.as_deref().unwrap();
        assert!(
            verdict.contains(" than ") || verdict.starts_with("same as "),
            "{verdict}"
        );
        assert!(line.contains(verdict), "{}: {line}", fixture.name);
    }
    // A store that kept no comparison still has the bare word.
    let mut bare = points[0].clone();
    bare.comparison = None;
    let table = terminal::history_table(&[bare.clone()]);
    let word = format!("{:?}", bare.verdict.unwrap()).to_lowercase();
    assert!(table.lines().nth(1).unwrap().contains(&word), "{table}");
}
