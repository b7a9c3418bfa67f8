//! `knotmeter history`'s comparisons of two builds (`knotmeter compare`), newest first: one
//! line each under the runs, or with `--comparisons` every case with the phrase every surface
//! uses for it, `+3.1% [2.6, 3.7] slower than main` (`knotmeter_format`).

use std::fmt::Write as _;

use knotmeter_protocol::{CompareReport, CompareStatus, ComparedCase};

use crate::builds::render::{change, side, summary};
use crate::stored;

/// When the comparison was measured: its head's bench binary started then (its base's when
/// the head never started), in UTC.
fn started(report: &CompareReport) -> String {
    report
        .head
        .manifest
        .as_ref()
        .or(report.base.manifest.as_ref())
        .map_or_else(|| "—".to_owned(), |m| stored::time_text(m.timestamp))
}

/// `comparison 3, 2026-11-30 19:42: working tree (HEAD 1a2b3c4d5e, uncommitted changes)
/// against main (9f8e7d6c5b)`, and `(cancelled)` for one cut short.
fn heading(report: &CompareReport) -> String {
    format!(
        "comparison {}, {}: {} against {}{}",
        report
            .stored
            .map_or_else(|| "—".to_owned(), |id| id.to_string()),
        started(report),
        side(&report.head),
        side(&report.base),
        if report.cancelled { " (cancelled)" } else { "" }
    )
}

/// One line per comparison: its heading and its counts.
pub(super) fn listing(reports: &[CompareReport]) -> String {
    let mut out = String::from("comparisons of two builds, newest first:\n");
    for report in reports {
        let _ = writeln!(out, "  {}; {}", heading(report), summary(report));
    }
    out.push_str("(`knotmeter history --comparisons` shows each case)\n");
    out
}

/// Every comparison with every case: compared ones with their change, the others with their
/// status and why.
pub(super) fn detailed(reports: &[CompareReport]) -> String {
    let mut out = String::new();
    for (i, report) in reports.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let _ = writeln!(out, "{}", heading(report));
        let width = report
            .cases
            .iter()
            .map(|c| c.id.chars().count())
            .max()
            .unwrap_or(0);
        for case in &report.cases {
            let _ = writeln!(out, "  {:<width$}  {}", case.id, outcome(case));
        }
        let _ = writeln!(out, "  {}", summary(report));
    }
    out
}

/// `+3.1% [2.6, 3.7] slower than main`, or the status and its note: `removed`, `not
/// compared: the body is indistinguishable from the empty body on the base`.
fn outcome(case: &ComparedCase) -> String {
    match (&case.comparison, case.status) {
        (Some(comparison), CompareStatus::Compared) => change(comparison),
        _ => {
            let status = case.status.as_str().replace('_', " ");
            match &case.note {
                Some(note) => format!("{status}: {note}"),
                None => status,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use knotmeter_protocol::{CompareSide, Comparison, ComparisonKind, Verdict};

    use super::*;

    fn report() -> CompareReport {
        let side = |label: &str, commit: &str, dirty: bool| CompareSide {
            label: label.to_owned(),
            commit: Some(commit.to_owned()),
            dirty,
            manifest: None,
        };
        let case = |id: &str, status: CompareStatus, comparison: Option<Comparison>| ComparedCase {
            location: None,
            id: id.to_owned(),
            status,
            base: None,
            head: None,
            comparison,
            note: (status == CompareStatus::Failed)
                .then(|| "the base build's case failed: boom".to_owned()),
        };
        CompareReport {
            version: knotmeter_protocol::VERSION,
            base: side("main", "9f8e7d6c5b4a3", false),
            head: side("working tree", "1a2b3c4d5e6f7", true),
            cases: vec![
                case(
                    "q::chain",
                    CompareStatus::Compared,
                    Some(Comparison {
                        machine: None,
                        against: "main".to_owned(),
                        ratio: 1.031,
                        low: 1.026,
                        high: 1.037,
                        p_value: 1e-6,
                        verdict: Verdict::Slower,
                        kind: Some(ComparisonKind::Builds),
                    }),
                ),
                case("q::parse", CompareStatus::Removed, None),
                case("q::boom", CompareStatus::Failed, None),
            ],
            cancelled: false,
            stored: Some(3),
        }
    }

    #[test]
    fn each_case_reads_as_every_surface_words_it() {
        let text = detailed(&[report()]);
        assert!(
            text.starts_with(
                "comparison 3, —: working tree (HEAD 1a2b3c4d5e, uncommitted changes) against \
                 main (9f8e7d6c5b)\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("  q::chain  +3.1% [2.6, 3.7] slower than main\n"),
            "{text}"
        );
        assert!(text.contains("  q::parse  removed\n"), "{text}");
        assert!(
            text.contains("  q::boom   failed: the base build's case failed: boom\n"),
            "{text}"
        );
        assert!(
            text.contains("1 compared (1 slower, 0 faster, 0 same), 1 removed, 1 failed"),
            "{text}"
        );
    }

    #[test]
    fn the_listing_gives_one_line_per_comparison() {
        let mut older = report();
        older.stored = Some(2);
        older.cancelled = true;
        let text = listing(&[report(), older]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(lines[1].starts_with("  comparison 3, "), "{text}");
        assert!(lines[2].contains("(cancelled); 1 compared"), "{text}");
    }
}
