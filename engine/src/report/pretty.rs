//! `--format pretty`: a table for people, streamed one row per case as cases end, with the
//! run's comparisons at the end.
//!
//! `run_started` prints the manifest line, every run warning (`WARNING [code] message`, or
//! `INFO [code] message` for a note) and the table header; the case column is as wide as the
//! longest case label known then. Each case prints one row: label (the id without its crate
//! segment; members of a group are indented under a `group NAME` heading, repeated when the
//! group is interrupted), median per operation with the spread between runs learnt from the
//! history (`±1.2%`, or `±?` while it is not known, explained under the table), throughput,
//! samples × operations per sample, harness overhead and the cold first call. Allocations per
//! operation (when counted), the `baseline` mark of a group's baseline and `(partial)` follow
//! the last column; result warnings (`⚠ code: message`, notes `ℹ code: message`) go on lines
//! under the row. A case warned `optimized_away` shows `≈ 0 (indistinguishable from empty)`
//! and `—` instead of a median and throughput, with that warning first under the row, in bold
//! yellow with color. A failed case prints `label  FAILED: panicked at file:line:col: msg`.
//! The figures and words are knotmeter-format's, as on every other surface.
//!
//! `bench_finished` follows a benchmark's last row with its complexity (`complexity: O(n)`,
//! or the classes it cannot tell apart) and scaling warnings, indented. `case_compared` only
//! collects: `run_finished` prints the comparison tables (see `compared`), the `±?` legend,
//! then the totals, counting warned cases (their own warnings or their benchmark's) apart from
//! passed ones. A case's row is begun before the case runs, and on a
//! terminal shows its progress until the row is complete (see `live`).

use std::collections::{HashMap, HashSet};
use std::io::{self, Write};

use knotmeter_format::text::{
    allocations_text, bench_id, cache_text, case_label, complexity_text, failure_text,
    interval_cell, interval_legend, interval_mark, manifest_line, optimized_away, samples_text,
    warning_text, EMPTY_ESTIMATE, OPTIMIZED_AWAY,
};
use knotmeter_format::units::{format_rate, format_throughput, measure_text, ops_per_sec, MISSING};
use knotmeter_format::{shown, Tally, DETAIL_ONLY};
use knotmeter_protocol::{
    BenchResult, BenchSummary, CaseFailure, Comparison, FailureKind, ListEntry, Manifest, Measure,
    Outcome, RunSummary, Severity, Warning,
};

use super::compared;
use super::live::InProgress;
use super::style::{Painter, Tone};
use super::table::{Align, Column, Table, GAP};
use super::Reporter;
use crate::measure::Progress;

/// Indentation of a group member under its heading.
const MEMBER_INDENT: &str = "  ";
/// Indentation of a benchmark's analysis under its rows (plus [`MEMBER_INDENT`] in a group).
const SUMMARY_INDENT: &str = "    ";

/// The human-readable reporter.
pub(crate) struct Pretty {
    /// Where the text goes.
    out: Box<dyn Write + Send>,
    /// Applies colors when enabled.
    painter: Painter,
    /// The row layout, sized at `run_started`.
    table: Table,
    /// The group of every announced case, by id, to place failed cases.
    groups: HashMap<String, Option<String>>,
    /// The group of the last printed row, to know when a heading is due.
    current_group: Option<String>,
    /// The final comparisons, in the order they arrived, for the closing tables.
    compared: Vec<(String, Comparison)>,
    /// Each measured case's outcome from its own warnings, in run order.
    outcomes: Vec<(String, Outcome)>,
    /// Benchmarks whose analysis carries a warning: their cases count as warned.
    warned_benches: HashSet<String>,
    /// Cases that failed.
    failed: u64,
    /// Cases cancelled before their first sample.
    skipped: u64,
    /// Rows printed with `±?`.
    interval_unknown: usize,
    /// The status line under the finished rows.
    in_progress: InProgress,
}

/// The row layout with a case column `case_width` characters wide.
fn layout(case_width: usize, measure: Measure) -> Table {
    // A count is wider than a time (`122 458 instr` against `122 µs`) and has no rate.
    let (figure, rate, overhead) = match measure {
        Measure::Time => (9, 16, 8),
        Measure::Instructions => (14, 10, 10),
    };
    Table::new(vec![
        Column::new("case", case_width, Align::Left),
        Column::new("estimate", figure, Align::Right),
        Column::new("±", 6, Align::Left),
        Column::new("throughput", rate, Align::Right),
        Column::new("samples × ops", 15, Align::Right),
        Column::new("overhead", overhead, Align::Right),
        Column::new("cold call", figure, Align::Right),
    ])
}

/// The label of a case as its row shows it: indented when it belongs to a group.
fn row_label(id: &str, group: Option<&str>) -> String {
    match group {
        Some(_) => format!("{MEMBER_INDENT}{}", case_label(id)),
        None => case_label(id).to_owned(),
    }
}

impl Pretty {
    /// A reporter writing to `out`, with ANSI colors when `color` is true and a redrawn
    /// in-progress line when `live` is (on a terminal).
    pub(crate) fn new(out: Box<dyn Write + Send>, color: bool, live: bool) -> Self {
        Self {
            out,
            painter: Painter::new(color),
            table: layout(0, Measure::Time),
            groups: HashMap::new(),
            current_group: None,
            compared: Vec::new(),
            outcomes: Vec::new(),
            warned_benches: HashSet::new(),
            failed: 0,
            skipped: 0,
            interval_unknown: 0,
            in_progress: InProgress::new(live),
        }
    }

    /// Prints the `group NAME` heading when `group` differs from the last row's, and
    /// returns the row's label.
    fn open_row(&mut self, id: &str, group: Option<&str>) -> io::Result<String> {
        if self.current_group.as_deref() != group {
            write!(self.out, "{}", self.in_progress.interrupt())?;
            if let Some(name) = group {
                let heading = self.painter.paint(Tone::Bold, &format!("group {name}"));
                writeln!(self.out, "{heading}")?;
            }
            self.current_group = group.map(str::to_owned);
        }
        Ok(row_label(id, group))
    }

    /// The text after the last column: allocations, the baseline mark, a partial mark.
    fn suffix(&self, result: &BenchResult) -> String {
        let mut parts = Vec::new();
        if let Some(allocations) = &result.allocations {
            parts.push(allocations_text(allocations));
        }
        if result.baseline {
            parts.push(self.painter.paint(Tone::Dim, "baseline"));
        }
        if result.partial {
            parts.push(self.painter.paint(Tone::Caution, "(partial)"));
        }
        parts.join(GAP)
    }

    /// Writes `warning` on its own line after `indent`: bold yellow when the body was
    /// optimised away, yellow for other warnings, dim for notes.
    fn warning_line(&mut self, indent: &str, warning: &Warning) -> io::Result<()> {
        let tone = match warning.severity {
            Severity::Info => Tone::Dim,
            Severity::Warning if warning.code == OPTIMIZED_AWAY => Tone::Alarm,
            Severity::Warning => Tone::Caution,
        };
        let line = format!("{indent}{}", warning_text(warning));
        writeln!(self.out, "{}", self.painter.paint(tone, &line))
    }
}

/// The median, spread and throughput cells of `result`; no figures for a body optimised
/// away (its phrase spans the first two).
fn estimate_cells(result: &BenchResult) -> [String; 3] {
    if optimized_away(result) {
        return [EMPTY_ESTIMATE.to_owned(), String::new(), MISSING.to_owned()];
    }
    let median_ns = result.estimate.median_ns;
    // A declared throughput (criterion's `Throughput`) replaces operations per second; a count
    // has no rate.
    let declared = result.throughput.as_ref().and_then(format_throughput);
    let throughput = declared.unwrap_or_else(|| match result.measure {
        Measure::Instructions => MISSING.to_owned(),
        Measure::Time => ops_per_sec(median_ns).map_or_else(
            || MISSING.to_owned(),
            |rate| format!("{} /s", format_rate(rate)),
        ),
    });
    [
        measure_text(median_ns, result.measure),
        interval_cell(result),
        throughput,
    ]
}

impl Reporter for Pretty {
    fn run_started(&mut self, manifest: &Manifest, cases: &[ListEntry]) -> io::Result<()> {
        let case_width = cases
            .iter()
            .map(|case| row_label(&case.id, case.group.as_deref()).chars().count())
            .max()
            .unwrap_or(0);
        self.table = layout(case_width, manifest.measure);
        self.groups = cases
            .iter()
            .map(|case| (case.id.clone(), case.group.clone()))
            .collect();
        writeln!(self.out, "{}", manifest_line(manifest))?;
        for warning in &manifest.warnings {
            let (title, tone) = match warning.severity {
                Severity::Warning => ("WARNING", Tone::Alarm),
                Severity::Info => ("INFO", Tone::Dim),
            };
            let line = format!("{title} [{}] {}", warning.code, warning.message);
            writeln!(self.out, "{}", self.painter.paint(tone, &line))?;
        }
        writeln!(self.out)?;
        writeln!(
            self.out,
            "{}",
            self.painter.paint(Tone::Bold, &self.table.header())
        )?;
        writeln!(
            self.out,
            "{}",
            self.painter.paint(Tone::Dim, &self.table.rule())
        )?;
        self.out.flush()
    }

    fn case_started(&mut self, _id: &str) -> io::Result<()> {
        // Cases are measured in rounds, interleaved: a row is printed when its case finishes.
        Ok(())
    }

    fn progress(&mut self, id: &str, progress: &Progress) -> io::Result<()> {
        match self
            .in_progress
            .progress(case_label(id), progress, self.painter)
        {
            Some(line) => {
                write!(self.out, "{line}")?;
                self.out.flush()
            }
            None => Ok(()),
        }
    }

    fn case_finished(&mut self, result: &BenchResult) -> io::Result<()> {
        self.outcomes
            .push((result.id.clone(), shown(result, None).outcome));
        let empty = optimized_away(result);
        if !empty && interval_mark(result).is_none() {
            self.interval_unknown += 1;
        }
        let group = result.group.clone();
        self.groups.entry(result.id.clone()).or_insert(group);
        let label = self.open_row(&result.id, result.group.as_deref())?;
        let [median, spread, throughput] = estimate_cells(result);
        let mut cells = vec![label.clone(), median];
        // No number was measured: the phrase spans the median and spread columns.
        let median_span = if empty { 2 } else { 1 };
        if !empty {
            cells.push(spread);
        }
        cells.extend([
            throughput,
            samples_text(result.samples, result.ops_per_sample),
            measure_text(result.overhead.per_op_ns, result.measure),
            measure_text(result.cold_ns, result.measure),
        ]);
        let row = self.table.row_spanning(&cells, 1, median_span);
        let suffix = self.suffix(result);
        let line = if suffix.is_empty() {
            row
        } else {
            format!("{row}{GAP}{suffix}")
        };
        write!(self.out, "{}", self.in_progress.interrupt())?;
        writeln!(self.out, "{line}")?;
        let indent = " ".repeat(label.len() - label.trim_start().len() + 2);
        if let Some(cache) = &result.cache {
            writeln!(self.out, "{indent}{}", cache_text(cache))?;
        }
        let (empty, others): (Vec<&Warning>, Vec<&Warning>) = result
            .warnings
            .iter()
            .partition(|warning| warning.code == OPTIMIZED_AWAY);
        // Notes that only describe how the samples fell are for the details (`--format json`
        // and the editor's hover), not for a line under every row.
        for warning in empty
            .into_iter()
            .chain(others)
            .filter(|w| !DETAIL_ONLY.contains(&w.code.as_str()))
        {
            self.warning_line(&indent, warning)?;
        }
        self.out.flush()
    }

    fn case_failed(&mut self, failure: &CaseFailure) -> io::Result<()> {
        if failure.kind == FailureKind::Cancelled {
            self.skipped += 1;
        } else {
            self.failed += 1;
        }
        let group = self.groups.get(&failure.id).cloned().flatten();
        let label = self.open_row(&failure.id, group.as_deref())?;
        let text = format!("FAILED: {}", failure_text(failure));
        let mut lines = text.lines();
        let first = lines.next().unwrap_or_default();
        let line = format!(
            "{}{GAP}{}",
            self.table.cell(0, &label),
            self.painter.paint(Tone::Error, first)
        );
        write!(self.out, "{}", self.in_progress.interrupt())?;
        writeln!(self.out, "{line}")?;
        let indent = " ".repeat(self.table.cell(0, "").len() + GAP.len());
        for line in lines {
            writeln!(
                self.out,
                "{indent}{}",
                self.painter.paint(Tone::Error, line)
            )?;
        }
        self.out.flush()
    }

    fn bench_finished(&mut self, summary: &BenchSummary) -> io::Result<()> {
        if summary
            .warnings
            .iter()
            .any(|w| w.severity == Severity::Warning)
        {
            self.warned_benches.insert(summary.id.clone());
        }
        write!(self.out, "{}", self.in_progress.interrupt())?;
        let member = if self.current_group.is_some() {
            MEMBER_INDENT
        } else {
            ""
        };
        let indent = format!("{member}{SUMMARY_INDENT}");
        if let Some(fit) = &summary.complexity {
            writeln!(self.out, "{indent}complexity: {}", complexity_text(fit))?;
        }
        for warning in &summary.warnings {
            self.warning_line(&indent, warning)?;
        }
        self.out.flush()
    }

    fn case_compared(&mut self, id: &str, comparison: &Comparison) -> io::Result<()> {
        self.compared.push((id.to_owned(), comparison.clone()));
        Ok(())
    }

    fn run_finished(&mut self, summary: &RunSummary) -> io::Result<()> {
        write!(self.out, "{}", self.in_progress.interrupt())?;
        for line in compared::section(&self.compared, &self.groups, self.painter) {
            writeln!(self.out, "{line}")?;
        }
        if self.interval_unknown > 0 {
            writeln!(self.out)?;
            let legend = interval_legend(self.interval_unknown);
            writeln!(self.out, "{}", self.painter.paint(Tone::Dim, &legend))?;
        }
        let mut tally = Tally {
            failed: self.failed,
            skipped: self.skipped,
            ..Tally::default()
        };
        for (id, outcome) in &self.outcomes {
            let outcome = match outcome {
                Outcome::Passed if self.warned_benches.contains(bench_id(id)) => Outcome::Warned,
                other => *other,
            };
            tally.measured(outcome);
        }
        let clean = tally.failed + tally.warned + tally.partial + tally.skipped == 0;
        let tone = if clean && !summary.cancelled {
            Tone::Good
        } else {
            Tone::Error
        };
        writeln!(self.out)?;
        let line = tally.closing_line(summary.wall_ns, summary.cancelled);
        writeln!(self.out, "{}", self.painter.paint(tone, &line))?;
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use knotmeter_protocol::FailureKind;

    use super::super::{fixtures, Format};
    use super::*;

    /// The sample run as it prints without color.
    const EXPECTED: &str = "\
knotmeter 0.1.0 · rustc 1.95.0 · release (opt-level 3) · x86_64-unknown-linux-gnu · Test \
CPU @ 3.0GHz × 8 cores · timer instant (precision 20.0 ns, read 19.0 ns) · git 0123456789
WARNING [debug_build] the bench target was built without optimisations: run `cargo bench`

case             estimate  ±             throughput    samples × ops  overhead  cold \
call
──────────────  ─────────  ──────  ────────────────  ───────────────  ────────  ─────────
chain_n/1000      12.2 ns  ±0.4%      81 632 653 /s    1 200 × 4 096   0.31 ns    1.23 µs
    complexity: O(n) or O(n log n) (cannot be told apart)
    ℹ sublinear_scaling: the cost grows as n^0.42 between n = 10 and n = 1000
pair/(1,\"x|y\")  ≈ 0 (indistinguishable from empty)                 —    1 200 × 4 \
096   0.31 ns    1.23 µs  3 allocs/op (96 B)
  ⚠ optimized_away: the body cannot be told apart from an empty one | return the result
group sorting
  sort_std        1.23 µs  ±?            815 661 /s    1 200 × 4 096   0.31 ns    1.23 µs  \
baseline
  sort_radix      1.27 µs  ±0.4%         788 644 /s    1 200 × 4 096   0.31 ns    1.23 µs
    ⚠ high_noise: the middle half of the samples spans 25% of the median | close other programs
boom            FAILED: panicked at src/lib.rs:3:5: boom, with a comma

group sorting (baseline sort_std)
  member      ratio [95% CI]      change  verdict                         p
  ──────────  ──────────────────  ──────  ─────────────────────────  ──────
  sort_radix  1.03× [1.01, 1.05]   +3.4%  3.4% slower than sort_std  <0.001

against the previous run (run 12)
  member          ratio [95% CI]      change  verdict                       p
  ──────────────  ──────────────────  ──────  ────────────────────────  ─────
  chain_n/1000    0.81× [0.75, 0.88]  -18.8%  18.8% faster than run 12  0.002
  pair/(1,\"x|y\")  1.00× [0.97, 1.03]   +0.0%  same as run 12            0.500

±? (1 case): fewer than two rounds, so no interval between processes (the case says why)

2 passed, 2 warned, 1 failed in 8.40 s
";

    #[test]
    fn prints_the_sample_run_as_a_table() {
        let text = fixtures::run(Format::Pretty, false);
        assert_eq!(text, EXPECTED, "\n{text}");
        assert!(!text.contains('\x1b'));
    }

    #[test]
    fn color_makes_warnings_failures_and_verdicts_stand_out() {
        let text = fixtures::run(Format::Pretty, true);
        assert!(text.contains(
            "\x1b[1;33mWARNING [debug_build] the bench target was built without \
             optimisations: run `cargo bench`\x1b[0m\n"
        ));
        assert!(text.contains("\x1b[1;31mFAILED: panicked at src/lib.rs:3:5:"));
        assert!(text.contains("+3.4%  \x1b[31m3.4% slower than sort_std\x1b[0m  <0.001\n"));
        assert!(text.contains("-18.8%  \x1b[32m18.8% faster than run 12\x1b[0m  0.002\n"));
        assert!(text.contains("\n\x1b[1;33m  ⚠ optimized_away:"));
        assert!(text.contains("\n\x1b[33m    ⚠ high_noise:"));
        assert!(text.contains("\n\x1b[2m    ℹ sublinear_scaling:"));
        let plain: String = text.replace("\x1b[0m", "");
        assert!(plain.contains("chain_n/1000      12.2 ns  ±0.4%"));
        // Warned cases make the totals stand out too.
        assert!(text.ends_with("\x1b[1;31m2 passed, 2 warned, 1 failed in 8.40 s\x1b[0m\n"));
    }

    /// A pretty reporter over `buf`, started with the sample cases.
    fn started(buf: &fixtures::SharedBuf) -> Pretty {
        let mut pretty = Pretty::new(Box::new(buf.clone()), false, false);
        pretty
            .run_started(&fixtures::manifest(), &fixtures::cases())
            .unwrap();
        pretty
    }

    #[test]
    fn a_zero_median_has_no_throughput_and_a_partial_case_says_so() {
        let buf = fixtures::SharedBuf::default();
        let mut pretty = started(&buf);
        let before = buf.text().len();
        let mut result = fixtures::results()[3].clone();
        result.estimate.median_ns = 0.0;
        result.warnings.clear();
        result.partial = true;
        pretty.case_finished(&result).unwrap();
        let text = buf.text()[before..].to_owned();
        assert_eq!(
            text,
            "group sorting\n  sort_radix         0 ns  ±0.4%                  —    1 200 × 4 096   \
             0.31 ns    1.23 µs  (partial)\n"
        );
        assert!(!text.contains("inf"));
    }

    #[test]
    fn a_body_optimised_away_never_shows_a_small_number() {
        let buf = fixtures::SharedBuf::default();
        let mut pretty = started(&buf);
        let before = buf.text().len();
        let mut result = fixtures::results()[1].clone();
        result.allocations = None;
        result.precision = None;
        result
            .warnings
            .insert(0, Warning::new("noisy", "close other programs"));
        pretty.case_finished(&result).unwrap();
        let text = buf.text()[before..].to_owned();
        assert_eq!(
            text,
            "pair/(1,\"x|y\")  ≈ 0 (indistinguishable from empty)                 —    \
             1 200 × 4 096   0.31 ns    1.23 µs\n  ⚠ optimized_away: the body cannot be told \
             apart from an empty one | return the result\n  ⚠ noisy: close other programs\n"
        );
    }

    #[test]
    fn an_analysis_follows_its_rows_indented_and_says_what_it_could_fit() {
        let buf = fixtures::SharedBuf::default();
        let mut pretty = started(&buf);
        pretty.case_finished(&fixtures::results()[3]).unwrap();
        let before = buf.text().len();
        let mut summary = fixtures::summaries()[0].clone();
        if let Some(fit) = &mut summary.complexity {
            fit.distinguishable = true;
        }
        summary.warnings = vec![Warning::new("flat_scaling", "the cost does not grow")];
        pretty.bench_finished(&summary).unwrap();
        summary.complexity = None;
        pretty.bench_finished(&summary).unwrap();
        assert_eq!(
            &buf.text()[before..],
            "      complexity: O(n)\n      \
             ⚠ flat_scaling: the cost does not grow\n      ⚠ flat_scaling: the cost does not \
             grow\n"
        );
    }

    #[test]
    fn comparisons_wait_for_the_end_of_the_run() {
        let buf = fixtures::SharedBuf::default();
        let mut pretty = started(&buf);
        let (id, comparison) = &fixtures::comparisons()[2];
        pretty.case_compared(id, comparison).unwrap();
        let before = buf.text().len();
        assert!(!buf.text().contains("baseline sort_std"));
        pretty.run_finished(&fixtures::summary()).unwrap();
        let lines: Vec<String> = buf.text()[before..].lines().map(str::to_owned).collect();
        assert_eq!(lines[1], "group sorting (baseline sort_std)");
        assert!(lines[4]
            .starts_with("  sort_radix  1.03× [1.01, 1.05]   +3.4%  3.4% slower than sort_std"));
        assert_eq!(lines[6], "nothing ran in 8.40 s");
    }

    #[test]
    fn failures_in_a_group_are_indented_and_long_messages_keep_their_lines() {
        let buf = fixtures::SharedBuf::default();
        let mut pretty = started(&buf);
        let before = buf.text().len();
        let failure = CaseFailure {
            id: "q::sort_std".to_owned(),
            kind: FailureKind::Misuse,
            message: "iter was never called\nsee the docs".to_owned(),
            location: None,
        };
        pretty.case_failed(&failure).unwrap();
        assert_eq!(
            &buf.text()[before..],
            "group sorting\n  sort_std      FAILED: misused: iter was never called\n\
             \x20               see the docs\n"
        );
    }

    #[test]
    fn the_case_column_fits_the_longest_label_and_result_warnings_follow_rows() {
        let buf = fixtures::SharedBuf::default();
        let mut pretty = Pretty::new(Box::new(buf.clone()), false, false);
        let mut manifest = fixtures::manifest();
        manifest.warnings.clear();
        let mut cases = fixtures::cases();
        cases[0].id = "q::a_rather_long_benchmark_name/1000".to_owned();
        pretty.run_started(&manifest, &cases).unwrap();
        let mut result = fixtures::results()[0].clone();
        result
            .warnings
            .push(Warning::new("noisy", "close other programs"));
        pretty.case_finished(&result).unwrap();
        let text = buf.text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1], "");
        let width = "a_rather_long_benchmark_name/1000".len();
        let pad = |label: &str| " ".repeat(width - label.len());
        assert!(lines[2].starts_with(&format!("case{}   estimate", pad("case"))));
        let row = format!("chain_n/1000{}    12.2 ns  ±0.4%", pad("chain_n/1000"));
        assert!(lines[4].starts_with(&row), "{}", lines[4]);
        assert_eq!(lines[5], "  ⚠ noisy: close other programs");
    }

    #[test]
    fn the_summary_notes_a_cancelled_run() {
        let buf = fixtures::SharedBuf::default();
        let mut pretty = Pretty::new(Box::new(buf.clone()), false, false);
        let mut summary = fixtures::summary();
        summary.cancelled = true;
        pretty.run_finished(&summary).unwrap();
        assert_eq!(buf.text(), "\nnothing ran, cancelled after 8.40 s\n");
    }
}
