//! A comparison as text: the terminal table (`pretty`), the pull-request comment
//! (`markdown`), and the one phrase every surface uses for a compared case,
//! `+3.1% [2.6, 3.7] slower than main`.
//!
//! Every figure and verdict comes from the report unchanged: the engine decided them.

use std::fmt::Write as _;

use knotmeter_protocol::{CompareReport, ComparedCase, Comparison, Verdict};

use knotmeter_format::compared::compared;

/// The change as a percentage with its 95% interval and the verdict, against the base's
/// label: `+3.1% [2.6, 3.7] slower than main`, `-5.0% [-5.4, -4.6] faster than main`,
/// `+0.2% [-0.3, 0.7] same as main`.
pub fn change(comparison: &Comparison) -> String {
    knotmeter_format::text::builds_change_text(comparison)
}

pub use knotmeter_format::compared::{side, summary};

/// The terminal table.
pub fn pretty(report: &CompareReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} against {}", side(&report.head), side(&report.base));
    let header = [
        "case".to_owned(),
        "base".to_owned(),
        "head".to_owned(),
        "change [95% interval]".to_owned(),
        "verdict".to_owned(),
    ];
    let rows: Vec<[String; 5]> = compared(report)
        .rows
        .into_iter()
        .map(|row| {
            let verdict = row.verdict.map_or(row.outcome, |v| v.as_str().to_owned());
            [row.id, row.base, row.head, row.change, verdict]
        })
        .collect();
    let width = |i: usize| {
        rows.iter()
            .chain(std::iter::once(&header))
            .map(|r| r[i].chars().count())
            .max()
            .unwrap_or(0)
    };
    let w = [width(0), width(1), width(2), width(3)];
    for row in std::iter::once(&header).chain(&rows) {
        let _ = writeln!(
            out,
            "{:<w0$}  {:>w1$}  {:>w2$}  {:<w3$}  {}",
            row[0],
            row[1],
            row[2],
            row[3],
            row[4],
            w0 = w[0],
            w1 = w[1],
            w2 = w[2],
            w3 = w[3]
        );
    }
    let notes: Vec<&ComparedCase> = report.cases.iter().filter(|c| c.note.is_some()).collect();
    if !notes.is_empty() {
        out.push('\n');
        for case in notes {
            let _ = writeln!(
                out,
                "{} ({}): {}",
                case.id,
                case.status.as_str().replace('_', " "),
                case.note.as_deref().unwrap_or_default()
            );
        }
    }
    let _ = writeln!(out, "\n{}", summary(report));
    out
}

/// The pull-request comment: a heading naming both sides, one row per case, the notes, and
/// the machine the figures are from.
pub fn markdown(report: &CompareReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "### knotmeter: {} against {}\n",
        side(&report.head),
        side(&report.base)
    );
    let _ = writeln!(out, "{}\n", summary(report));
    let _ = writeln!(
        out,
        "| case | base | head | change [95% interval] | verdict |"
    );
    let _ = writeln!(out, "|---|---:|---:|---|---|");
    for row in compared(report).rows {
        let (figures, verdict) = match row.verdict {
            Some(Verdict::Same) => (row.change, Verdict::Same.as_str().to_owned()),
            Some(v) => (format!("**{}**", row.change), v.as_str().to_owned()),
            None => (String::new(), row.outcome),
        };
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {figures} | {verdict} |",
            row.id, row.base, row.head
        );
    }
    let notes: Vec<&ComparedCase> = report.cases.iter().filter(|c| c.note.is_some()).collect();
    if !notes.is_empty() {
        out.push('\n');
        for case in notes {
            let note = case.note.as_deref().unwrap_or_default();
            let first = note.lines().next().unwrap_or_default();
            let _ = writeln!(out, "* `{}`: {}", case.id, first.replace('|', "\\|"));
        }
    }
    if let Some(m) = report
        .head
        .manifest
        .as_ref()
        .or(report.base.manifest.as_ref())
    {
        let _ = writeln!(
            out,
            "\n<sub>Paired and interleaved: both builds measured round by round in turn \
             ({} ms budget per case and side, {} cores, {}, {}, {}). A change is called slower \
             or faster only when its whole 95% interval is past the noise threshold, after a \
             Benjamini–Hochberg correction across the cases.</sub>",
            m.budget_ms, m.cores, m.cpu, m.profile, m.rustc
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use knotmeter_protocol::ComparisonKind;

    fn comparison(ratio: f64, low: f64, high: f64, verdict: Verdict) -> Comparison {
        Comparison {
            machine: None,
            against: "main".into(),
            ratio,
            low,
            high,
            p_value: 0.001,
            verdict,
            kind: Some(ComparisonKind::Builds),
        }
    }

    #[test]
    fn the_change_reads_as_the_issue_spells_it() {
        assert_eq!(
            change(&comparison(1.031, 1.026, 1.037, Verdict::Slower)),
            "+3.1% [2.6, 3.7] slower than main"
        );
        assert_eq!(
            change(&comparison(0.95, 0.946, 0.954, Verdict::Faster)),
            "-5.0% [-5.4, -4.6] faster than main"
        );
        assert_eq!(
            change(&comparison(1.002, 0.997, 1.007, Verdict::Same)),
            "+0.2% [-0.3, 0.7] same as main"
        );
    }
}
