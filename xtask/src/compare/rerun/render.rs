//! The rerun-coverage report, in markdown: where and how it was measured, each case's figures
//! per harness, the before/after verdicts on unchanged code, and the command lines.

use std::fmt::Write as _;

use super::super::harness::Harness;
use super::parse::{Call, Reported};
use super::stats::{summarise, Summary};
use super::{BeforeAfter, Measured, CASES, RERUN_HARNESSES};

/// A figure's row: its label, and its cell from a summary.
type Row = (String, fn(&Summary) -> String);

/// The whole report.
pub(super) fn report(m: &Measured) -> String {
    let mut s = String::new();
    intro(&mut s, m);
    intervals(&mut s, m);
    before_after(&mut s, m);
    commands(&mut s, m);
    s
}

/// Where, when and how.
fn intro(s: &mut String, m: &Measured) {
    let c = &m.context;
    let versions: Vec<String> = std::iter::once(format!("knotmeter {}", env!("CARGO_PKG_VERSION")))
        .chain(c.versions.iter().map(|(n, v)| format!("{n} {v}")))
        .collect();
    let _ = writeln!(s, "## Rerun results\n");
    let _ = writeln!(
        s,
        "Measured by `{}` on {} (UTC), {} × {} cores, {}, git {}. Harnesses: {}. Load average \
         (1, 5, 15 min) {} at the start and {} at the end; the whole command took {:.1} min.{}\n",
        c.command,
        c.date,
        c.cpu,
        c.cores,
        c.rustc,
        c.git,
        versions.join(", "),
        c.load.0,
        c.load.1,
        c.total_s / 60.0,
        if c.quick {
            " Each harness at its quickest setting (`--quick`): not its default."
        } else {
            ""
        }
    );
}

/// The table of each case's figures per harness, and coverage over all cases.
fn intervals(s: &mut String, m: &Measured) {
    let _ = writeln!(s, "### Does the interval hold on a rerun?\n");
    header(s, "| case | figure |", 2);
    let mut pooled = vec![(0, 0); RERUN_HARNESSES.len()];
    for case in CASES {
        let summaries: Vec<Option<Summary>> = RERUN_HARNESSES
            .iter()
            .map(|h| Some(summarise(&case_runs(m, *h, case)?)))
            .collect();
        for (total, summary) in pooled.iter_mut().zip(&summaries) {
            if let Some((inside, pairs)) = summary.and_then(|s| s.coverage) {
                *total = (total.0 + inside, total.1 + pairs);
            }
        }
        case_rows(s, case, &summaries, m.context.runs);
    }
    let cells: Vec<String> = pooled
        .iter()
        .map(|&(inside, pairs)| match pairs {
            0 => "no interval".into(),
            _ => share((inside, pairs)),
        })
        .collect();
    let _ = writeln!(s, "| all cases | coverage | {} |\n", cells.join(" | "));
}

/// The rows of one case: each figure of [`figures`], one cell per harness.
fn case_rows(s: &mut String, case: &str, summaries: &[Option<Summary>], runs: usize) {
    for (i, (figure, cell)) in figures(runs).iter().enumerate() {
        let label = if i == 0 {
            format!("`{case}`")
        } else {
            String::new()
        };
        let cells: Vec<String> = summaries
            .iter()
            .map(|summary| summary.as_ref().map_or("not run".into(), cell))
            .collect();
        let _ = writeln!(s, "| {label} | {figure} | {} |", cells.join(" | "));
    }
}

/// The figures of a case over `runs` runs: label, and the cell from a harness's summary.
fn figures(runs: usize) -> [Row; 5] {
    [
        (format!("estimate: median of {runs} runs"), |s| {
            time(s.median_ns)
        }),
        ("interval: median half-width".into(), |s| {
            s.half_width
                .map_or("no interval".into(), |w| format!("±{}", pct(w)))
        }),
        (
            "coverage: a run's interval holds another run's estimate".into(),
            |s| s.coverage.map_or("no interval".into(), share),
        ),
        (format!("half-range of the {runs} estimates"), |s| {
            format!("±{}", pct(s.half_range))
        }),
        ("half-range / half-width".into(), |s| {
            s.range_over_width()
                .map_or("—".into(), |r| format!("{r:.1}×"))
        }),
    ]
}

/// The reports of every run of `harness` for `case`; `None` when the harness did not run.
fn case_runs(m: &Measured, harness: Harness, case: &str) -> Option<Vec<Reported>> {
    let runs = m.runs.get(&harness)?;
    Some(runs.iter().filter_map(|r| r.get(case).copied()).collect())
}

/// The before/after verdicts on unchanged code, per harness.
fn before_after(s: &mut String, m: &Measured) {
    let _ = writeln!(
        s,
        "### Does unchanged code stay unchanged against an earlier run?\n"
    );
    header(s, "| figure |", 1);
    let cells: Vec<String> = RERUN_HARNESSES
        .iter()
        .map(|h| {
            m.before_after
                .get(h)
                .map_or("no before/after comparison".into(), calls)
        })
        .collect();
    let _ = writeln!(
        s,
        "| verdicts that call it faster or slower | {} |\n",
        cells.join(" | ")
    );
}

/// One harness's verdicts: the share called faster or slower, then those neither same nor
/// changed, and runs refused as the first to compare with.
fn calls(before_after: &BeforeAfter) -> String {
    let count = |wanted: &[Call]| {
        before_after
            .calls
            .iter()
            .filter(|(_, c)| wanted.contains(c))
            .count()
    };
    let total = before_after.calls.len();
    let mut cell = if total == 0 {
        "no verdict".to_owned()
    } else {
        share((count(&[Call::Faster, Call::Slower]), total))
    };
    for (call, what) in [
        (Call::Inconclusive, "inconclusive"),
        (Call::Invalid, "refused"),
    ] {
        let n = count(&[call]);
        if n > 0 {
            let _ = write!(cell, "; {n} {what}");
        }
    }
    let refused = before_after.setup_runs - usize::from(before_after.stored);
    if refused > 0 {
        let _ = write!(
            cell,
            "; {refused} runs refused as the first to compare with"
        );
    }
    cell
}

/// The command lines.
fn commands(s: &mut String, m: &Measured) {
    let _ = writeln!(s, "### The invocations\n");
    for (harness, what, command) in &m.commands {
        let _ = writeln!(
            s,
            "- {} {what}: `{}`",
            harness.name(),
            command.replace('|', "\\|")
        );
    }
}

/// A table's header row: `first` then one column per harness, with its rule (`leading` columns
/// before the harnesses').
fn header(s: &mut String, first: &str, leading: usize) {
    let names: Vec<&str> = RERUN_HARNESSES.iter().map(|h| h.name()).collect();
    let _ = writeln!(s, "{first} {} |", names.join(" | "));
    let _ = writeln!(s, "|{}", "---|".repeat(leading + names.len()));
}

/// `k/n (x%)`.
fn share((k, n): (usize, usize)) -> String {
    format!("{k}/{n} ({:.0}%)", k as f64 / n as f64 * 100.0)
}

/// A relative figure as a percentage, with two decimals below 10%.
fn pct(fraction: f64) -> String {
    if fraction.abs() < 0.1 {
        format!("{:.2}%", fraction * 100.0)
    } else {
        format!("{:.1}%", fraction * 100.0)
    }
}

/// Nanoseconds in the largest unit that keeps the figure at 1 or more.
fn time(ns: f64) -> String {
    match ns {
        ns if ns >= 1e6 => format!("{:.2} ms", ns / 1e6),
        ns if ns >= 1e3 => format!("{:.2} µs", ns / 1e3),
        ns => format!("{ns:.1} ns"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_cells_count_changes_over_every_verdict_and_name_the_rest() {
        let case = |c: Call| ("sort_1000".to_owned(), c);
        let mut before_after = BeforeAfter {
            calls: vec![
                case(Call::Same),
                case(Call::Slower),
                case(Call::Faster),
                case(Call::Inconclusive),
            ],
            setup_runs: 1,
            stored: true,
        };
        assert_eq!(calls(&before_after), "2/4 (50%); 1 inconclusive");
        before_after.setup_runs = 3;
        before_after.calls.push(case(Call::Invalid));
        assert_eq!(
            calls(&before_after),
            "2/5 (40%); 1 inconclusive; 1 refused; 2 runs refused as the first to compare with"
        );
        let never = BeforeAfter {
            calls: Vec::new(),
            setup_runs: 2,
            stored: false,
        };
        assert_eq!(
            calls(&never),
            "no verdict; 2 runs refused as the first to compare with"
        );
    }

    #[test]
    fn figures_are_formatted_by_size() {
        assert_eq!(time(120.04), "120.0 ns");
        assert_eq!(time(14_060.0), "14.06 µs");
        assert_eq!(pct(0.0123), "1.23%");
        assert_eq!(pct(0.25), "25.0%");
        assert_eq!(share((5, 90)), "5/90 (6%)");
    }
}
