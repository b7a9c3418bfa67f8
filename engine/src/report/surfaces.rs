//! The shared presentation fixtures (`format/tests/fixtures/cases.json`) through the engine's
//! human formats: pretty, Markdown and CSV must show what `format/tests/fixtures/shown.json`
//! says, the file the daemon's surfaces and the VS Code extension are checked against too.

use std::collections::BTreeMap;

use knotmeter_format::text::bench_id;
use knotmeter_protocol::{
    BenchResult, BenchSummary, ListEntry, Manifest, Outcome, RunSummary, Severity, Shown,
};
use serde::Deserialize;

use super::{fixtures, reporter, Format};

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

/// The fixtures, each under its own id (`q::<name>`, with its argument), in run order.
fn fixtures_with_ids() -> Vec<Fixture> {
    let text = include_str!("../../../format/tests/fixtures/cases.json");
    let mut cases = serde_json::from_str::<Fixtures>(text).unwrap().cases;
    for fixture in &mut cases {
        let bench_id = format!("q::{}", fixture.name);
        fixture.result.id = match &fixture.result.args {
            Some(arg) => format!("{bench_id}/{arg}"),
            None => bench_id.clone(),
        };
        if let Some(bench) = &mut fixture.bench {
            bench.id = bench_id;
        }
    }
    cases
}

fn expected() -> BTreeMap<String, Shown> {
    let text = include_str!("../../../format/tests/fixtures/shown.json");
    serde_json::from_str(text).unwrap()
}

/// The fixtures as one run through `format`: each case finishes, its benchmark's analysis
/// follows, comparisons come at the end.
fn render(format: Format) -> String {
    let fixtures = fixtures_with_ids();
    let buf = fixtures::SharedBuf::default();
    let mut reporter = reporter(format, Box::new(buf.clone()), false, false);
    let entries: Vec<ListEntry> = fixtures
        .iter()
        .map(|f| ListEntry {
            id: f.result.id.clone(),
            bench_id: bench_id(&f.result.id).to_owned(),
            name: f.result.name.clone(),
            args: f.result.args.clone(),
            group: f.result.group.clone(),
            baseline: f.result.baseline,
            file: f.result.file.clone(),
            line: f.result.line,
        })
        .collect();
    let manifest: Manifest =
        serde_json::from_str(include_str!("../../../format/tests/fixtures/manifest.json")).unwrap();
    reporter.run_started(&manifest, &entries).unwrap();
    for fixture in &fixtures {
        // A case finishes before its comparison is final: that comes with `case_compared`.
        let mut result = fixture.result.clone();
        result.comparison = None;
        reporter.case_finished(&result).unwrap();
        if let Some(bench) = &fixture.bench {
            reporter.bench_finished(bench).unwrap();
        }
    }
    for fixture in &fixtures {
        if let Some(comparison) = &fixture.result.comparison {
            reporter
                .case_compared(&fixture.result.id, comparison)
                .unwrap();
        }
    }
    let summary = RunSummary {
        probe: None,
        passed: fixtures.len() as u64,
        failed: 0,
        partial: 0,
        cancelled: false,
        wall_ns: 8.4e9,
    };
    reporter.run_finished(&summary).unwrap();
    buf.text()
}

#[test]
fn pretty_shows_the_shared_presentation() {
    let text = render(Format::Pretty);
    let expected = expected();
    for fixture in fixtures_with_ids() {
        let shown = &expected[&fixture.name];
        let label = knotmeter_format::text::case_label(&fixture.result.id);
        let row = text
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{label} ")))
            .unwrap_or_else(|| panic!("{}: no row in\n{text}", fixture.name));
        assert!(row.contains(&shown.figure), "{}: {row}", fixture.name);
        for note in &shown.notes {
            assert!(text.contains(&note.text), "{}: {}", fixture.name, note.text);
        }
        if let Some(verdict) = &shown.verdict {
            assert!(
                text.contains(verdict.as_str()),
                "{}: {verdict}",
                fixture.name
            );
        }
        if shown.figure.contains("indistinguishable") {
            // The harness's overhead and the cold call were measured; the body's median was not.
            let median =
                knotmeter_format::units::format_duration_ns(fixture.result.estimate.median_ns);
            assert!(!row.contains(&median), "{row}");
        }
    }
    assert!(
        text.ends_with("\n10 passed, 5 warned, 1 partial in 8.40 s\n"),
        "{text}"
    );
}

#[test]
fn markdown_and_csv_show_the_shared_presentation() {
    let markdown = render(Format::Markdown);
    let csv = render(Format::Csv);
    // Byte for byte the documents `knotmeter run --format csv|markdown` prints for the same
    // run (server/tests/surfaces.rs checks its side against the same files).
    if std::env::var_os("UPDATE_EXPECT").is_some_and(|v| !v.is_empty()) {
        let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/../format/tests/fixtures");
        std::fs::write(format!("{fixtures}/run.csv"), &csv).unwrap();
        std::fs::write(format!("{fixtures}/run.md"), &markdown).unwrap();
        return;
    }
    assert_eq!(csv, include_str!("../../../format/tests/fixtures/run.csv"));
    assert_eq!(
        markdown,
        include_str!("../../../format/tests/fixtures/run.md")
    );
    let expected = expected();
    for fixture in fixtures_with_ids() {
        let shown = &expected[&fixture.name];
        let id = &fixture.result.id;
        let label = knotmeter_format::text::case_label(id);
        let row = markdown
            .lines()
            .find(|l| l.contains(&format!("`{label}`")) && l.starts_with('|'))
            .unwrap_or_else(|| panic!("{}: no row in\n{markdown}", fixture.name));
        assert!(row.contains(&shown.figure), "{row}");
        assert!(
            row.contains(shown.verdict.as_deref().unwrap_or("—")),
            "{row}"
        );
        let warned = shown.outcome != Outcome::Passed;
        assert_eq!(row.starts_with("| ⚠ "), warned, "{row}");
        let status = match shown.outcome {
            Outcome::Passed => "ok",
            Outcome::Warned => "warned",
            Outcome::Partial => "partial",
        };
        let csv_row = csv
            .lines()
            .find(|l| l.starts_with(&format!("{id},")))
            .unwrap();
        assert_eq!(csv_row.split(',').nth(1), Some(status), "{csv_row}");
        for note in shown
            .notes
            .iter()
            .filter(|n| n.severity == Severity::Warning)
        {
            assert!(csv_row.contains(&note.code), "{csv_row}");
        }
    }
    assert!(
        markdown.ends_with("**10 passed, 5 warned, 1 partial in 8.40 s**\n"),
        "{markdown}"
    );
}
