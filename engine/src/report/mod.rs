//! Output reporters: the five `--format`s a bench binary can print.
//!
//! The runner picks a [`Format`], builds a [`Reporter`] with [`reporter`] and calls it as the
//! run goes: `run_started`, then per case `case_started`, any number of `progress`, and one of
//! `case_finished` or `case_failed`; `bench_finished` right after the last case of each
//! benchmark with numeric `args`; once every case ran, `case_compared` per compared case (in
//! run order), and finally `run_finished`. Results reach `case_finished` without their
//! comparison: the p-values are corrected across the whole run, so verdicts come only
//! through `case_compared`.
//!
//! * `pretty`: a table for people, streamed row by row, comparisons at the end.
//! * `json`: one [`knotmeter_protocol::Report`] at the end.
//! * `jsonl`: one [`knotmeter_protocol::Event`] per line, flushed per line.
//! * `csv`: one RFC 4180 row per case, written at the end.
//! * `markdown`: a GitHub-flavoured table at the end, for pull requests.
//!
//! Each format has its own module. What a result, a verdict and a warning read like is
//! decided by the knotmeter-format crate, which the daemon uses too: the figure (or `≈ 0
//! (indistinguishable from empty)`), the spread between runs, the verdict against what, the
//! marks and outcomes. Here are only the layouts: the pretty table in `table` and `style`, its
//! closing comparison tables in `compared`, and the collection of the formats written at the
//! end in `collect`.

use std::io::{self, Write};

use knotmeter_protocol::{
    BenchResult, BenchSummary, CaseFailure, Comparison, ListEntry, Manifest, RunSummary,
};

use crate::measure::Progress;

mod collect;
mod compared;
mod csv;
mod json;
mod jsonl;
mod live;
mod markdown;
mod pretty;
mod style;
mod table;

#[cfg(test)]
mod fixtures;
#[cfg(test)]
mod surfaces;

/// An output format selectable with `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// A human-readable table, streamed as cases finish.
    Pretty,
    /// One pretty-printed JSON [`knotmeter_protocol::Report`] at the end of the run.
    Json,
    /// One JSON [`knotmeter_protocol::Event`] per line, as the run goes.
    Jsonl,
    /// Comma-separated values, one row per case.
    Csv,
    /// A GitHub-flavoured Markdown table at the end of the run.
    Markdown,
}

impl Format {
    /// The names [`Format::parse`] accepts, in the order of the enum.
    pub(crate) const NAMES: &[&str] = &["pretty", "json", "jsonl", "csv", "markdown"];

    /// The format named `name` (one of [`Format::NAMES`], ASCII case ignored), if any.
    pub(crate) fn parse(name: &str) -> Option<Format> {
        const ALL: [Format; 5] = [
            Format::Pretty,
            Format::Json,
            Format::Jsonl,
            Format::Csv,
            Format::Markdown,
        ];
        Format::NAMES
            .iter()
            .position(|known| known.eq_ignore_ascii_case(name))
            .map(|index| ALL[index])
    }
}

/// Receives the events of a run and writes them in one output format.
pub(crate) trait Reporter {
    /// The run begins; `cases` are every case that will run, in order.
    fn run_started(&mut self, manifest: &Manifest, cases: &[ListEntry]) -> io::Result<()>;
    /// The case `id` begins.
    fn case_started(&mut self, id: &str) -> io::Result<()>;
    /// The case `id` progressed: after its cold call, then at most every 100 ms or once per
    /// step when steps are longer.
    fn progress(&mut self, id: &str, progress: &Progress) -> io::Result<()>;
    /// A case produced a result.
    fn case_finished(&mut self, result: &BenchResult) -> io::Result<()>;
    /// A case ended without a result.
    fn case_failed(&mut self, failure: &CaseFailure) -> io::Result<()>;
    /// All cases of a benchmark function finished: its scaling analysis (only for benches
    /// whose args are numeric).
    fn bench_finished(&mut self, summary: &BenchSummary) -> io::Result<()>;
    /// After every case ran, before `run_finished`: a case's final comparison (p-value
    /// corrected across the run, verdict decided). Called once per compared case, in run
    /// order.
    fn case_compared(&mut self, id: &str, comparison: &Comparison) -> io::Result<()>;
    /// The run is over; reporters that buffer write everything now.
    fn run_finished(&mut self, summary: &RunSummary) -> io::Result<()>;
}

/// A reporter for `format` writing to `out`. `color` enables ANSI colors and `live` the
/// in-progress line that is redrawn on a terminal (pretty only).
///
/// `out` is the report channel alone (see `crate::output`): nothing else writes to it, and a
/// reporter that flushes once per event hands each event to it in one write.
pub(crate) fn reporter(
    format: Format,
    out: Box<dyn Write + Send>,
    color: bool,
    live: bool,
) -> Box<dyn Reporter + Send> {
    match format {
        Format::Pretty => Box::new(pretty::Pretty::new(out, color, live)),
        Format::Json => Box::new(collect::AtEnd::new(json::Json::new(out))),
        Format::Jsonl => Box::new(jsonl::Jsonl::new(out)),
        Format::Csv => Box::new(collect::AtEnd::new(csv::Csv::new(out))),
        Format::Markdown => Box::new(collect::AtEnd::new(markdown::Markdown::new(out))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_accepts_every_name_and_round_trips_the_order() {
        let parsed: Vec<Format> = Format::NAMES
            .iter()
            .map(|name| Format::parse(name).unwrap())
            .collect();
        assert_eq!(
            parsed,
            [
                Format::Pretty,
                Format::Json,
                Format::Jsonl,
                Format::Csv,
                Format::Markdown
            ]
        );
        assert_eq!(Format::parse("JSONL"), Some(Format::Jsonl));
    }

    #[test]
    fn parse_rejects_unknown_names() {
        assert_eq!(Format::parse("yaml"), None);
        assert_eq!(Format::parse(""), None);
        assert_eq!(Format::parse("json "), None);
    }
}
