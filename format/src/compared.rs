//! A comparison of two builds as every surface shows it: [`compared`] turns a
//! [`CompareReport`] into the [`ShownComparison`] that `knotmeter compare`'s table, its
//! pull-request comment and the editor's results panel lay out.
//!
//! Every figure and verdict comes from the report unchanged: the engine decided them. A side
//! without a result shows `—`; a body optimised away shows [`crate::text::EMPTY_ESTIMATE`],
//! never a number; a case without a comparison shows no change and says why.

use knotmeter_protocol::{
    CompareReport, CompareSide, CompareStatus, ComparedCase, Comparison, ShownComparedCase,
    ShownComparison, Verdict,
};

use crate::shown::figure;
use crate::units::MISSING;

/// One side in a heading: `main (9f8e7d6c5b)`, `working tree (HEAD 1a2b3c4d5e, uncommitted
/// changes)`.
pub fn side(side: &CompareSide) -> String {
    let commit = side.commit.as_deref().map(short);
    match (commit, side.dirty) {
        (Some(c), true) => format!("{} (HEAD {c}, uncommitted changes)", side.label),
        (Some(c), false) if side.label.starts_with(c) => side.label.clone(),
        (Some(c), false) => format!("{} ({c})", side.label),
        (None, _) => side.label.clone(),
    }
}

fn short(commit: &str) -> &str {
    &commit[..commit.len().min(10)]
}

/// `+3.1% [2.6, 3.7]`: the change of the head's time over the base's in percent, and its 95%
/// interval.
pub fn change_figures(comparison: &Comparison) -> String {
    let percent = |ratio: f64| (ratio - 1.0) * 100.0;
    format!(
        "{:+.1}% [{:.1}, {:.1}]",
        percent(comparison.ratio),
        percent(comparison.low),
        percent(comparison.high)
    )
}

/// The counts: `4 compared (1 slower, 1 faster, 2 same), 1 added`.
pub fn summary(report: &CompareReport) -> String {
    let count = |status: CompareStatus| report.cases.iter().filter(|c| c.status == status).count();
    let verdicts = |v: Verdict| {
        report
            .cases
            .iter()
            .filter(|c| c.comparison.as_ref().is_some_and(|c| c.verdict == v))
            .count()
    };
    let mut parts = vec![format!(
        "{} compared ({} slower, {} faster, {} same)",
        count(CompareStatus::Compared),
        verdicts(Verdict::Slower),
        verdicts(Verdict::Faster),
        verdicts(Verdict::Same)
    )];
    for (status, word) in [
        (CompareStatus::NotCompared, "not compared"),
        (CompareStatus::Added, "added"),
        (CompareStatus::Removed, "removed"),
        (CompareStatus::Failed, "failed"),
        (CompareStatus::Skipped, "skipped"),
    ] {
        let n = count(status);
        if n > 0 {
            parts.push(format!("{n} {word}"));
        }
    }
    parts.join(", ")
}

/// The whole comparison, as every surface shows it.
pub fn compared(report: &CompareReport) -> ShownComparison {
    ShownComparison {
        heading: format!("{} against {}", side(&report.head), side(&report.base)),
        base: report.base.label.clone(),
        rows: report.cases.iter().map(|c| row(c, report)).collect(),
        summary: summary(report),
        cancelled: report.cancelled,
    }
}

/// One case: both figures, the change, the verdict against the base, or why there is none.
fn row(case: &ComparedCase, report: &CompareReport) -> ShownComparedCase {
    let side_figure = |result: &Option<knotmeter_protocol::BenchResult>| {
        result.as_ref().map_or_else(|| MISSING.to_owned(), figure)
    };
    let (change, verdict, outcome) = match &case.comparison {
        Some(c) => (
            change_figures(c),
            Some(c.verdict),
            verdict_against(c.verdict, &c.against),
        ),
        None => (String::new(), None, case.status.as_str().replace('_', " ")),
    };
    let why = match (&case.note, case.status) {
        (Some(note), _) => note.clone(),
        (None, CompareStatus::Added) => {
            format!("not in {}: nothing to compare it with", report.base.label)
        }
        (None, CompareStatus::Removed) => format!("only in {}", report.base.label),
        (None, CompareStatus::Skipped) if report.cancelled => "cancelled".to_owned(),
        (None, _) => String::new(),
    };
    ShownComparedCase {
        id: case.id.clone(),
        status: case.status,
        base: side_figure(&case.base),
        head: side_figure(&case.head),
        change,
        verdict,
        outcome,
        why,
    }
}

/// `slower than main`, `faster than main`, `same as main`.
fn verdict_against(verdict: Verdict, base: &str) -> String {
    match verdict {
        Verdict::Slower => format!("slower than {base}"),
        Verdict::Faster => format!("faster than {base}"),
        Verdict::Same => format!("same as {base}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use knotmeter_protocol::{BenchResult, ComparisonKind, VERSION};

    fn result(median_ns: f64, optimized_away: bool) -> BenchResult {
        let mut r: BenchResult =
            serde_json::from_str(include_str!("../tests/fixtures/example-result.json")).unwrap();
        r.estimate.median_ns = median_ns;
        r.warnings.clear();
        if optimized_away {
            r.warnings.push(knotmeter_protocol::Warning {
                code: crate::text::OPTIMIZED_AWAY.into(),
                message: "empty".into(),
                severity: knotmeter_protocol::Severity::Warning,
            });
        }
        r
    }

    fn case(id: &str, status: CompareStatus) -> ComparedCase {
        ComparedCase {
            location: None,
            id: id.into(),
            status,
            base: None,
            head: None,
            comparison: None,
            note: None,
        }
    }

    fn report() -> CompareReport {
        let side = |label: &str, commit: &str, dirty| CompareSide {
            label: label.into(),
            commit: Some(commit.into()),
            dirty,
            manifest: None,
        };
        let compared = ComparedCase {
            location: None,
            base: Some(result(2410.0, false)),
            head: Some(result(2480.0, false)),
            comparison: Some(Comparison {
                machine: None,
                against: "main".into(),
                ratio: 1.031,
                low: 1.026,
                high: 1.037,
                p_value: 0.001,
                verdict: Verdict::Slower,
                kind: Some(ComparisonKind::Builds),
            }),
            ..case("q::chain_n/1000", CompareStatus::Compared)
        };
        let empty = ComparedCase {
            location: None,
            base: Some(result(0.1, true)),
            head: Some(result(830.0, false)),
            note: Some("the base's body is indistinguishable from an empty one".into()),
            ..case("q::empty", CompareStatus::NotCompared)
        };
        CompareReport {
            version: VERSION,
            base: side("main", "9f8e7d6c5b4a", false),
            head: side("working tree", "1a2b3c4d5e6f", true),
            cases: vec![
                compared,
                empty,
                case("q::parse_json", CompareStatus::Added),
                case("q::parse_csv", CompareStatus::Removed),
            ],
            cancelled: false,
            stored: None,
        }
    }

    #[test]
    fn a_compared_case_reads_with_both_figures_its_interval_and_the_base() {
        let shown = compared(&report());
        assert_eq!(
            shown.heading,
            "working tree (HEAD 1a2b3c4d5e, uncommitted changes) against main (9f8e7d6c5b)"
        );
        let row = &shown.rows[0];
        assert_eq!(
            (
                row.base.as_str(),
                row.head.as_str(),
                row.change.as_str(),
                row.outcome.as_str()
            ),
            ("2.41 µs", "2.48 µs", "+3.1% [2.6, 3.7]", "slower than main")
        );
        assert_eq!(row.verdict, Some(Verdict::Slower));
        assert_eq!(
            shown.summary,
            "1 compared (1 slower, 0 faster, 0 same), 1 not compared, 1 added, 1 removed"
        );
    }

    #[test]
    fn a_case_not_compared_shows_no_change_and_says_why() {
        let shown = compared(&report());
        let empty = &shown.rows[1];
        assert_eq!(empty.base, crate::text::EMPTY_ESTIMATE, "never a number");
        assert_eq!(empty.change, "");
        assert_eq!(empty.verdict, None);
        assert_eq!(empty.outcome, "not compared");
        assert!(empty.why.contains("indistinguishable"), "{}", empty.why);
        let added = &shown.rows[2];
        assert_eq!(
            (added.base.as_str(), added.outcome.as_str()),
            (MISSING, "added")
        );
        assert_eq!(added.why, "not in main: nothing to compare it with");
        assert_eq!(shown.rows[3].why, "only in main");
    }
}
