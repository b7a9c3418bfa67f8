//! What `knotmeter run` and `knotmeter history` print: a run's progress lines and closing table,
//! its CSV and Markdown (the same documents as the bench binary's `--format csv|markdown`,
//! from knotmeter-format), and the history table. Every figure, verdict and mark is
//! knotmeter-format's, as in the editor and in `cargo bench`.

use std::collections::HashMap;

use knotmeter_format::csv::{self, Row};
use knotmeter_format::markdown::{self, Run};
use knotmeter_format::text::{
    bench_id, complexity_text, interval_cell, interval_legend, interval_mark, optimized_away,
    verdict_text, warning_mark, EMPTY_ESTIMATE,
};
use knotmeter_format::units::{format_duration_ns, MISSING};
use knotmeter_format::{shown, Tally};
use knotmeter_protocol::editor::{ItemState, RunStateParams};
use knotmeter_protocol::{BenchSummary, HistoryPoint, ListEntry, Manifest, Outcome, Shown};

use crate::stored::time_text;

/// Everything a run of `knotmeter run` reported, in the order it happened.
#[derive(Debug, Clone, Default)]
pub struct RunRecord {
    /// The final state of each item, in the order they ended.
    pub finals: Vec<RunStateParams>,
    /// The analyses of the benchmarks with `args`, by benchmark id.
    pub summaries: HashMap<String, BenchSummary>,
    /// The cases the bench binaries listed, to describe items without a result.
    pub cases: Vec<ListEntry>,
    /// The first bench binary's manifest.
    pub manifest: Option<Manifest>,
    /// Wall time of the run, in nanoseconds.
    pub wall_ns: f64,
    /// Whether the run was cancelled (Ctrl-C).
    pub cancelled: bool,
}

impl RunRecord {
    /// The analysis of the benchmark of case `id`, if it has one.
    fn bench(&self, id: &str) -> Option<&BenchSummary> {
        self.summaries.get(bench_id(id))
    }

    /// What to show for a final state's result, with its benchmark's analysis.
    pub fn shown(&self, params: &RunStateParams) -> Option<Shown> {
        let result = params.result.as_deref()?;
        Some(shown(result, self.bench(&params.id)))
    }

    /// Attaches the presentation to every final state, now that the analyses and comparisons
    /// are in (for `--format json` and `jsonl`).
    pub fn present(&mut self) {
        let shown: Vec<Option<Shown>> = self.finals.iter().map(|f| self.shown(f)).collect();
        for (params, shown) in self.finals.iter_mut().zip(shown) {
            params.shown = shown.map(Box::new);
            params.bench = self
                .summaries
                .get(bench_id(&params.id))
                .cloned()
                .map(Box::new);
        }
    }

    /// How the items ended, warned items apart from passed ones.
    pub fn tally(&self) -> Tally {
        let mut tally = Tally::default();
        for params in &self.finals {
            match (params.state, self.shown(params)) {
                (ItemState::Passed, Some(shown)) => tally.measured(shown.outcome),
                (ItemState::Passed, None) => tally.passed += 1,
                (ItemState::Failed, _) => tally.failed += 1,
                (ItemState::Errored, _) => tally.errored += 1,
                (ItemState::Skipped, Some(_)) => tally.partial += 1,
                _ => tally.skipped += 1,
            }
        }
        tally
    }

    /// The table printed when the run is over: one row per item, then the complexity of each
    /// `args` benchmark and the `±?` legend. The totals ([`RunRecord::closing_line`]) and the
    /// failure messages in full are the caller's.
    pub fn table(&self) -> String {
        let header = ["case", "result", "estimate", "±", "verdict", "notes"].map(str::to_owned);
        let mut rows = Vec::new();
        let mut unknown = 0;
        for params in &self.finals {
            let Some(result) = params.result.as_deref() else {
                let first = params.message.as_deref().and_then(|m| m.lines().next());
                rows.push([
                    params.id.clone(),
                    state_word(params.state).to_owned(),
                    String::new(),
                    String::new(),
                    String::new(),
                    first.unwrap_or_default().to_owned(),
                ]);
                continue;
            };
            let shown = shown(result, self.bench(&params.id));
            let empty = optimized_away(result);
            if !empty && interval_mark(result).is_none() {
                unknown += 1;
            }
            let mut notes: Vec<String> = shown
                .notes
                .iter()
                .map(|n| format!("{} {}", warning_mark(n.severity), n.code))
                .collect();
            if result.baseline {
                notes.insert(0, "baseline".to_owned());
            }
            rows.push([
                params.id.clone(),
                outcome_word(params.state, shown.outcome).to_owned(),
                shown.figure.clone(),
                if empty {
                    String::new()
                } else {
                    interval_cell(result)
                },
                shown.verdict.clone().unwrap_or_else(|| MISSING.to_owned()),
                notes.join("  "),
            ]);
        }
        let mut text = columns(&header, &rows);
        let mut benches: Vec<&BenchSummary> = self.summaries.values().collect();
        benches.sort_by(|a, b| a.id.cmp(&b.id));
        for bench in benches {
            if let Some(fit) = &bench.complexity {
                text.push_str(&format!("{}: {}\n", bench.id, complexity_text(fit)));
            }
        }
        if unknown > 0 {
            text.push('\n');
            text.push_str(&interval_legend(unknown));
            text.push('\n');
        }
        text
    }

    /// The totals, warned and partial items apart from passed ones: `6 passed, 1 warned,
    /// 1 partial, 2 skipped in 8.40 s`.
    pub fn closing_line(&self) -> String {
        self.tally().closing_line(self.wall_ns, self.cancelled)
    }

    /// The rows of the CSV and Markdown documents, in the order items ended.
    fn rows(&self) -> Vec<Row<'_>> {
        self.finals
            .iter()
            .map(|params| match params.result.as_deref() {
                Some(result) => Row::Measured {
                    result,
                    bench: self.bench(&params.id),
                },
                None => Row::NotMeasured {
                    id: &params.id,
                    status: state_word(params.state),
                    case: self.cases.iter().find(|c| c.id == params.id),
                    why: params.message.as_deref().unwrap_or_default(),
                },
            })
            .collect()
    }

    /// The run as the bench binary's `--format csv` writes it.
    pub fn csv(&self) -> String {
        csv::document(&self.rows())
    }

    /// The run as the bench binary's `--format markdown` writes it; `None` when no bench binary
    /// started (nothing was built), since the document opens with the manifest.
    pub fn markdown(&self) -> Option<String> {
        let manifest = self.manifest.as_ref()?;
        let rows = self.rows();
        let mut benches: Vec<BenchSummary> = self.summaries.values().cloned().collect();
        benches.sort_by(|a, b| a.id.cmp(&b.id));
        Some(markdown::document(&Run {
            manifest,
            rows: &rows,
            benches: &benches,
            wall_ns: self.wall_ns,
            cancelled: self.cancelled,
        }))
    }
}

/// The line printed on standard error when an item ends: `quickstart::chain_1000 passed:
/// 1.39 µs ±0.8% between runs · same as run 12`, or the first line of why it has no result.
pub fn final_line(params: &RunStateParams, shown: Option<&Shown>) -> String {
    let id = &params.id;
    match (shown, params.message.as_deref()) {
        (Some(shown), _) => {
            let word = outcome_word(params.state, shown.outcome);
            format!("{id} {word}: {}", shown.line)
        }
        (None, Some(message)) => {
            let first = message.lines().next().unwrap_or_default();
            format!("{id} {}: {first}", state_word(params.state))
        }
        (None, None) => format!("{id} {}", state_word(params.state)),
    }
}

/// A time budget per case: `100 ms` (`--quick`), `1 s`.
pub(crate) fn budget(ms: u64) -> String {
    match ms {
        0 => "—".to_owned(),
        ms if ms % 1000 == 0 => format!("{} s", ms / 1000),
        ms if ms >= 1000 => format!("{:.1} s", ms as f64 / 1000.0),
        ms => format!("{ms} ms"),
    }
}

/// `knotmeter history ID`: one row per stored result, newest first, with its run's time budget
/// per case (runs with different budgets are not comparable), how the run ended, and the
/// result's warnings.
pub fn history_table(points: &[HistoryPoint]) -> String {
    let header = [
        "run",
        "started (UTC)",
        "budget",
        "median",
        "95% CI (that run)",
        "verdict",
        "run status",
        "commit",
        "notes",
    ]
    .map(str::to_owned);
    let rows: Vec<[String; 9]> = points
        .iter()
        .map(|p| {
            let empty = p.warnings.iter().any(|w| w.code == "optimized_away");
            let (median, interval) = if empty {
                (EMPTY_ESTIMATE.to_owned(), MISSING.to_owned())
            } else {
                (
                    format_duration_ns(p.median_ns),
                    format!(
                        "[{}, {}]",
                        format_duration_ns(p.low_ns),
                        format_duration_ns(p.high_ns)
                    ),
                )
            };
            let mut notes: Vec<String> = Vec::new();
            if let Some(baseline) = &p.baseline {
                notes.push(format!("baseline {baseline}"));
            }
            if p.partial == Some(true) {
                notes.push("partial: cut short by a cancel".to_owned());
            }
            notes.extend(
                p.warnings
                    .iter()
                    .map(|w| format!("{} {}", warning_mark(w.severity), w.code)),
            );
            [
                p.run.0.to_string(),
                time_text(p.timestamp),
                p.budget_ms.map_or_else(|| MISSING.to_owned(), budget),
                median,
                interval,
                // The verdict with what it was against (`4.9% slower than run 1`); the bare
                // word from stores that kept no comparison.
                p.comparison.as_ref().map_or_else(
                    || {
                        p.verdict
                            .map_or(MISSING, knotmeter_protocol::Verdict::as_str)
                            .to_owned()
                    },
                    verdict_text,
                ),
                p.status.map_or(MISSING, |s| s.as_str()).to_owned(),
                p.git_commit
                    .as_deref()
                    .map_or(MISSING, |c| &c[..c.len().min(10)])
                    .to_owned(),
                notes.join("  "),
            ]
        })
        .collect();
    columns(&header, &rows)
}

/// The word for a measured item: `passed`, `warned`, or `partial` (cut short by a cancel).
fn outcome_word(state: ItemState, outcome: Outcome) -> &'static str {
    match (state, outcome) {
        (_, Outcome::Partial) | (ItemState::Skipped, _) => "partial",
        (_, Outcome::Warned) => "warned",
        (_, Outcome::Passed) => "passed",
    }
}

/// A state as the protocol spells it.
fn state_word(state: ItemState) -> &'static str {
    match state {
        ItemState::Enqueued => "enqueued",
        ItemState::Building => "building",
        ItemState::Started => "started",
        ItemState::Passed => "passed",
        ItemState::Failed => "failed",
        ItemState::Errored => "errored",
        ItemState::Skipped => "skipped",
    }
}

/// Rows under a header, each column as wide as its widest cell, the last one unpadded; the
/// third column (a figure) is right-aligned. The phrase of a body optimised away is left out
/// of the widths: it pushes the rest of its own row instead of widening every row.
fn columns<const N: usize>(header: &[String; N], rows: &[[String; N]]) -> String {
    let width = |i: usize| {
        std::iter::once(header)
            .chain(rows)
            .map(|r| &r[i])
            .filter(|cell| cell.as_str() != EMPTY_ESTIMATE)
            .map(|cell| cell.chars().count())
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..N).map(width).collect();
    let mut text = String::new();
    for row in std::iter::once(header).chain(rows) {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(i, cell)| {
                let pad = widths[i].saturating_sub(cell.chars().count());
                match i {
                    _ if i + 1 == N => cell.clone(),
                    2 if N == 6 => format!("{}{cell}", " ".repeat(pad)),
                    _ => format!("{cell}{}", " ".repeat(pad)),
                }
            })
            .collect();
        text.push_str(cells.join("  ").trim_end());
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    #[test]
    fn budgets_read_as_seconds_or_milliseconds() {
        assert_eq!(super::budget(100), "100 ms");
        assert_eq!(super::budget(1000), "1 s");
        assert_eq!(super::budget(2500), "2.5 s");
        assert_eq!(super::budget(0), "—");
    }
}
