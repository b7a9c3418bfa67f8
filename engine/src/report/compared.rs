//! The pretty reporter's closing comparison tables, printed once every comparison is final.
//!
//! A comparison of a group member against another case of its group goes into that group's
//! table, `group NAME (baseline LABEL)`; any other comparison (a case against an earlier
//! stored run) goes into `against the previous run (RUN)`, one table per run compared
//! against. Group tables come first, in the order their first comparison arrived; rows keep
//! run order. Columns: member, ratio with its 95% interval, change, verdict (with what it is
//! against: `3.4% slower than sort_std`) and corrected p-value. The verdict is the
//! comparison's own, worded by knotmeter-format and colored; nothing here decides one.

use std::collections::HashMap;

use knotmeter_protocol::{Comparison, Verdict};

use knotmeter_format::text::{
    case_label, change_text, machine_moves, p_value_text, ratio_text, verdict_text,
};

use super::style::{Painter, Tone};
use super::table::{Align, Column, Table, GAP};

/// Indentation of a table under its title.
const INDENT: &str = "  ";

/// The color of a verdict: green faster, red slower, dim same.
pub(crate) fn verdict_tone(verdict: Verdict) -> Tone {
    match verdict {
        Verdict::Faster => Tone::Good,
        Verdict::Slower => Tone::Bad,
        Verdict::Same => Tone::Dim,
    }
}

/// Each case's group, by case id.
type Groups = HashMap<String, Option<String>>;

/// One table of the section: its title and rows.
struct Section<'a> {
    /// Whether it holds a group's members (group tables come first).
    group: bool,
    /// The heading.
    title: String,
    /// The case ids and comparisons, in run order.
    rows: Vec<&'a (String, Comparison)>,
}

/// The title of the table the comparison of case `id` belongs in, and whether that table is
/// a group's.
fn title(id: &str, comparison: &Comparison, groups: &Groups) -> (bool, String) {
    let group_of = |id: &str| groups.get(id).cloned().flatten();
    let against = &comparison.against;
    match group_of(id) {
        Some(group) if group_of(against).as_ref() == Some(&group) => {
            let baseline = case_label(against);
            (true, format!("group {group} (baseline {baseline})"))
        }
        _ => (false, format!("against the previous run ({against})")),
    }
}

/// The lines of the comparison section for `compared` (case ids with their comparisons, in
/// run order), each table preceded by an empty line; `groups` gives each case's group.
/// Nothing without comparisons.
pub(crate) fn section(
    compared: &[(String, Comparison)],
    groups: &Groups,
    painter: Painter,
) -> Vec<String> {
    let mut sections: Vec<Section> = Vec::new();
    for entry in compared {
        let (group, title) = title(&entry.0, &entry.1, groups);
        match sections.iter_mut().find(|section| section.title == title) {
            Some(section) => section.rows.push(entry),
            None => sections.push(Section {
                group,
                title,
                rows: vec![entry],
            }),
        }
    }
    sections.sort_by_key(|section| !section.group);
    let mut lines = Vec::new();
    for section in sections {
        lines.push(String::new());
        lines.push(painter.paint(Tone::Bold, &section.title));
        // Every ratio against one run taken relative to the machine is relative to the same
        // move of it; a case compared without the probe is named apart.
        let rows: Vec<(&str, &Comparison)> = section
            .rows
            .iter()
            .map(|(id, c)| (id.as_str(), c))
            .collect();
        for (text, ids) in machine_moves(&rows) {
            let text = match ids {
                None => text,
                Some(ids) => {
                    let cases: Vec<&str> = ids.into_iter().map(case_label).collect();
                    format!("{}: {text}", cases.join(", "))
                }
            };
            lines.push(format!("{INDENT}{}", painter.paint(Tone::Dim, &text)));
        }
        lines.extend(table_lines(&section.rows, painter));
    }
    lines
}

/// The header, rule and rows of one table, indented.
fn table_lines(rows: &[&(String, Comparison)], painter: Painter) -> Vec<String> {
    let cells: Vec<[String; 5]> = rows
        .iter()
        .map(|(id, comparison)| {
            [
                case_label(id).to_owned(),
                ratio_text(comparison),
                change_text(comparison),
                verdict_text(comparison),
                p_value_text(comparison.p_value),
            ]
        })
        .collect();
    let width = |index: usize| {
        let widths = cells.iter().map(|row| row[index].chars().count());
        widths.max().unwrap_or(0)
    };
    let table = Table::new(vec![
        Column::new("member", width(0), Align::Left),
        Column::new("ratio [95% CI]", width(1), Align::Left),
        Column::new("change", width(2), Align::Right),
        Column::new("verdict", width(3), Align::Left),
        Column::new("p", width(4), Align::Right),
    ]);
    let mut lines = vec![
        format!("{INDENT}{}", painter.paint(Tone::Bold, &table.header())),
        format!("{INDENT}{}", painter.paint(Tone::Dim, &table.rule())),
    ];
    for (row, (_, comparison)) in cells.iter().zip(rows) {
        let padded: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(index, text)| table.cell(index, text))
            .collect();
        let word = &row[3];
        let verdict = painter.paint(verdict_tone(comparison.verdict), word);
        let verdict = format!("{verdict}{}", &padded[3][word.len()..]);
        let joined = [&padded[0], &padded[1], &padded[2], &verdict, &padded[4]];
        lines.push(format!("{INDENT}{}", joined.map(String::as_str).join(GAP)));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::super::fixtures;
    use super::*;

    /// Every case of the sample run with its group.
    fn groups() -> Groups {
        let cases = fixtures::cases().into_iter();
        cases.map(|case| (case.id, case.group)).collect()
    }

    #[test]
    fn group_tables_come_first_then_one_table_per_run() {
        let lines = section(&fixtures::comparisons(), &groups(), Painter::new(false));
        let expected = [
            "",
            "group sorting (baseline sort_std)",
            "  member      ratio [95% CI]      change  verdict                         p",
            "  ──────────  ──────────────────  ──────  ─────────────────────────  ──────",
            "  sort_radix  1.03× [1.01, 1.05]   +3.4%  3.4% slower than sort_std  <0.001",
            "",
            "against the previous run (run 12)",
            "  member          ratio [95% CI]      change  verdict                       p",
            "  ──────────────  ──────────────────  ──────  ────────────────────────  ─────",
            "  chain_n/1000    0.81× [0.75, 0.88]  -18.8%  18.8% faster than run 12  0.002",
            "  pair/(1,\"x|y\")  1.00× [0.97, 1.03]   +0.0%  same as run 12            0.500",
        ];
        assert_eq!(lines, expected, "\n{}", lines.join("\n"));
    }

    #[test]
    fn verdicts_are_colored_without_shifting_columns() {
        let lines = section(&fixtures::comparisons(), &groups(), Painter::new(true));
        assert!(
            lines[4].ends_with("+3.4%  \x1b[31m3.4% slower than sort_std\x1b[0m  <0.001"),
            "{lines:?}"
        );
        assert!(lines[10].contains("  \x1b[2msame as run 12\x1b[0m            0.500"));
        assert!(section(&[], &groups(), Painter::new(true)).is_empty());
    }

    #[test]
    fn a_group_member_compared_with_history_goes_to_the_history_table() {
        let mut compared = fixtures::comparisons();
        compared[2].1.against = "run 12".to_owned();
        let lines = section(&compared, &groups(), Painter::new(false));
        assert_eq!(lines[1], "against the previous run (run 12)");
        assert_eq!(lines.len(), 7);
        assert!(lines[6].starts_with("  sort_radix "));
    }
}
