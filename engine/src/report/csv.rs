//! `--format csv`: a header, then one row per case in run order, quoted per RFC 4180.
//!
//! The table is written whole when the run finishes: a row cannot be final before the run's
//! comparisons are (their p-values are corrected across the run), so rows are kept until
//! then and `case_compared` fills their comparison columns.
//!
//! Columns, in order:
//!
//! `id,status,name,args,group,baseline,median_ns,low_ns,high_ns,mean_ns,precision,`
//! `ops_per_sec,samples,ops_per_sample,overhead_ns,overhead_drift_ns,capped,cold_ns,`
//! `allocs_per_op,alloc_bytes_per_op,warnings,comparison_against,ratio,ratio_low,`
//! `ratio_high,p_value,verdict,failure`
//!
//! * `status` is `ok`, `partial` (the run was cancelled while the case was measured) or
//!   `failed`.
//! * A failed case fills `id`, `status`, the descriptive columns known from the case list
//!   (`name`, `args`, `group`, `baseline`) and `failure` (`panicked at file:line:col: msg`);
//!   every measurement column is empty. `failure` is empty for measured cases.
//! * `allocs_per_op` and `alloc_bytes_per_op` are empty unless allocations were counted.
//! * `warnings` holds the warning codes joined with `;`; messages are left to the other
//!   formats. Comparison columns are empty for a case that was not compared; `verdict` is
//!   `faster`, `slower` or `same`.
//! * Numbers are plain (no digit grouping): times with 3 decimals in nanoseconds, `precision`
//!   as a fraction with 6 decimals, ratios with 4 decimals, `p_value` at full precision.
//!   A number that is not finite (ops/s of a zero median) is an empty field.
//! * Fields containing a comma, a double quote, CR or LF are quoted, with quotes doubled.
//!   Rows end with CRLF, as RFC 4180 says.

use std::collections::HashMap;
use std::io::{self, Write};

use knotmeter_protocol::{
    BenchResult, BenchSummary, CaseFailure, Comparison, ListEntry, Manifest, RunSummary,
};

use super::text::{failure_text, verdict_word};
use super::units::ops_per_sec;
use super::Reporter;
use crate::measure::Progress;

/// The header row.
const HEADER: &[&str] = &[
    "id",
    "status",
    "name",
    "args",
    "group",
    "baseline",
    "median_ns",
    "low_ns",
    "high_ns",
    "mean_ns",
    "precision",
    "ops_per_sec",
    "samples",
    "ops_per_sample",
    "overhead_ns",
    "overhead_drift_ns",
    "capped",
    "cold_ns",
    "allocs_per_op",
    "alloc_bytes_per_op",
    "warnings",
    "comparison_against",
    "ratio",
    "ratio_low",
    "ratio_high",
    "p_value",
    "verdict",
    "failure",
];

/// The first comparison column (`comparison_against`); six columns follow from there.
const COMPARISON: usize = 21;

/// Keeps one CSV row per finished or failed case, and writes the table at the end.
pub(crate) struct Csv {
    /// Where the table goes.
    out: Box<dyn Write + Send>,
    /// The cases of the run by id, to describe failed cases.
    cases: HashMap<String, ListEntry>,
    /// The rows in run order, as fields in [`HEADER`] order.
    rows: Vec<Vec<String>>,
}

impl Csv {
    /// A reporter writing its table to `out`.
    pub(crate) fn new(out: Box<dyn Write + Send>) -> Self {
        Self {
            out,
            cases: HashMap::new(),
            rows: Vec::new(),
        }
    }

    /// Writes one record of fields, quoted.
    fn record<S: AsRef<str>>(&mut self, fields: &[S]) -> io::Result<()> {
        let line: Vec<String> = fields.iter().map(|field| quote(field.as_ref())).collect();
        write!(self.out, "{}\r\n", line.join(","))
    }
}

/// `field` as RFC 4180 wants it: quoted, with quotes doubled, when it has `,` `"` CR or LF.
fn quote(field: &str) -> String {
    if field.contains([',', '"', '\r', '\n']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_owned()
    }
}

/// `value` with `decimals` decimals, or empty when it is not finite.
fn number(value: f64, decimals: usize) -> String {
    if value.is_finite() {
        format!("{value:.decimals$}")
    } else {
        String::new()
    }
}

/// The fields of a measured case, in [`HEADER`] order.
fn result_fields(result: &BenchResult) -> Vec<String> {
    let estimate = &result.estimate;
    let alloc = result.allocations.as_ref();
    let codes: Vec<&str> = result.warnings.iter().map(|w| w.code.as_str()).collect();
    let mut fields = vec![
        result.id.clone(),
        if result.partial { "partial" } else { "ok" }.to_owned(),
        result.name.clone(),
        result.args.clone().unwrap_or_default(),
        result.group.clone().unwrap_or_default(),
        result.baseline.to_string(),
        number(estimate.median_ns, 3),
        number(estimate.low_ns, 3),
        number(estimate.high_ns, 3),
        number(estimate.mean_ns, 3),
        result.precision.map_or_else(String::new, |p| number(p, 6)),
        ops_per_sec(estimate.median_ns).map_or_else(String::new, |rate| number(rate, 3)),
        result.samples.to_string(),
        result.ops_per_sample.to_string(),
        number(result.overhead.per_op_ns, 3),
        number(result.overhead.drift, 3),
        result.overhead.capped.to_string(),
        number(result.cold_ns, 3),
        alloc.map_or_else(String::new, |a| number(a.per_op, 3)),
        alloc.map_or_else(String::new, |a| number(a.bytes_per_op, 3)),
        codes.join(";"),
    ];
    fields.extend(comparison_fields(result.comparison.as_ref()));
    fields.push(String::new());
    fields
}

/// The six comparison fields from `comparison_against` on, empty without a comparison.
fn comparison_fields(comparison: Option<&Comparison>) -> [String; 6] {
    let Some(comparison) = comparison else {
        return Default::default();
    };
    [
        comparison.against.clone(),
        number(comparison.ratio, 4),
        number(comparison.low, 4),
        number(comparison.high, 4),
        if comparison.p_value.is_finite() {
            comparison.p_value.to_string()
        } else {
            String::new()
        },
        verdict_word(comparison.verdict).to_owned(),
    ]
}

impl Reporter for Csv {
    fn run_started(&mut self, _manifest: &Manifest, cases: &[ListEntry]) -> io::Result<()> {
        self.cases = cases
            .iter()
            .map(|case| (case.id.clone(), case.clone()))
            .collect();
        Ok(())
    }

    fn case_started(&mut self, _id: &str) -> io::Result<()> {
        Ok(())
    }

    fn progress(&mut self, _id: &str, _progress: &Progress) -> io::Result<()> {
        Ok(())
    }

    fn case_finished(&mut self, result: &BenchResult) -> io::Result<()> {
        self.rows.push(result_fields(result));
        Ok(())
    }

    fn case_failed(&mut self, failure: &CaseFailure) -> io::Result<()> {
        let mut fields = vec![String::new(); HEADER.len()];
        fields[0] = failure.id.clone();
        fields[1] = "failed".to_owned();
        if let Some(case) = self.cases.get(&failure.id) {
            fields[2] = case.name.clone();
            fields[3] = case.args.clone().unwrap_or_default();
            fields[4] = case.group.clone().unwrap_or_default();
            fields[5] = case.baseline.to_string();
        }
        fields[HEADER.len() - 1] = failure_text(failure);
        self.rows.push(fields);
        Ok(())
    }

    fn bench_finished(&mut self, _summary: &BenchSummary) -> io::Result<()> {
        Ok(())
    }

    fn case_compared(&mut self, id: &str, comparison: &Comparison) -> io::Result<()> {
        if let Some(row) = self.rows.iter_mut().find(|row| row[0] == id) {
            let fields = comparison_fields(Some(comparison));
            row[COMPARISON..COMPARISON + fields.len()].clone_from_slice(&fields);
        }
        Ok(())
    }

    fn run_finished(&mut self, _summary: &RunSummary) -> io::Result<()> {
        self.record(HEADER)?;
        for row in std::mem::take(&mut self.rows) {
            self.record(&row)?;
        }
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{fixtures, Format};
    use super::*;

    /// Splits RFC 4180 text into records of fields, undoing the quoting.
    fn parse(text: &str) -> Vec<Vec<String>> {
        let mut records = Vec::new();
        let mut record = Vec::new();
        let mut field = String::new();
        let mut quoted = false;
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match (quoted, c) {
                (true, '"') if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                (true, '"') => quoted = false,
                (true, c) => field.push(c),
                (false, '"') => quoted = true,
                (false, ',') => record.push(std::mem::take(&mut field)),
                (false, '\r') => {}
                (false, '\n') => {
                    record.push(std::mem::take(&mut field));
                    records.push(std::mem::take(&mut record));
                }
                (false, c) => field.push(c),
            }
        }
        assert!(
            field.is_empty() && record.is_empty(),
            "unterminated last row"
        );
        records
    }

    /// The field of `row` in the column named `name`.
    fn column<'a>(row: &'a [String], name: &str) -> &'a str {
        &row[HEADER.iter().position(|known| *known == name).unwrap()]
    }

    #[test]
    fn header_then_one_row_per_case_each_with_every_column() {
        let text = fixtures::run(Format::Csv, false);
        let records = parse(&text);
        assert_eq!(records.len(), 1 + fixtures::cases().len());
        assert_eq!(records[0], HEADER);
        assert!(records.iter().all(|row| row.len() == HEADER.len()));
        let ids: Vec<&str> = records[1..].iter().map(|row| row[0].as_str()).collect();
        let expected: Vec<String> = fixtures::cases().into_iter().map(|c| c.id).collect();
        assert_eq!(ids, expected);
        assert!(text.ends_with("\r\n"));
    }

    #[test]
    fn fields_with_commas_and_quotes_are_quoted_and_round_trip() {
        let text = fixtures::run(Format::Csv, false);
        assert!(
            text.contains("\r\n\"q::pair/(1,\"\"x|y\"\")\",ok,pair,\"(1,\"\"x|y\"\")\","),
            "{text}"
        );
        let records = parse(&text);
        assert_eq!(records[2][0], "q::pair/(1,\"x|y\")");
        assert_eq!(column(&records[2], "args"), "(1,\"x|y\")");
        assert_eq!(quote("plain"), "plain");
        assert_eq!(quote("two\nlines"), "\"two\nlines\"");
    }

    #[test]
    fn measured_rows_hold_plain_numbers() {
        let records = parse(&fixtures::run(Format::Csv, false));
        let chain = &records[1];
        assert_eq!(column(chain, "status"), "ok");
        assert_eq!(column(chain, "median_ns"), "12.250");
        assert_eq!(column(chain, "precision"), "0.004500");
        assert_eq!(column(chain, "ops_per_sec"), "81632653.061");
        assert_eq!(column(chain, "samples"), "1200");
        assert_eq!(column(chain, "ops_per_sample"), "4096");
        assert_eq!(column(chain, "overhead_drift_ns"), "-0.002");
        assert_eq!(column(chain, "cold_ns"), "1234.000");
        assert_eq!(column(chain, "allocs_per_op"), "");
        assert_eq!(column(&records[2], "allocs_per_op"), "3.000");
        assert_eq!(column(&records[2], "alloc_bytes_per_op"), "96.000");
        let radix = &records[4];
        assert_eq!(column(radix, "group"), "sorting");
        assert_eq!(column(radix, "warnings"), "high_noise");
        assert_eq!(column(radix, "comparison_against"), "q::sort_std");
        assert_eq!(column(radix, "ratio"), "1.0340");
        assert_eq!(column(radix, "ratio_high"), "1.0510");
        assert_eq!(column(radix, "p_value"), "0.0001");
        assert_eq!(column(radix, "verdict"), "slower");
        assert_eq!(column(&records[3], "baseline"), "true");
    }

    #[test]
    fn comparison_columns_come_from_case_compared() {
        let records = parse(&fixtures::run(Format::Csv, false));
        assert_eq!(HEADER[COMPARISON], "comparison_against");
        let chain = &records[1];
        assert_eq!(column(chain, "comparison_against"), "run 12");
        assert_eq!(column(chain, "ratio"), "0.8125");
        assert_eq!(column(chain, "ratio_low"), "0.7500");
        assert_eq!(column(chain, "p_value"), "0.002");
        assert_eq!(column(chain, "verdict"), "faster");
        assert_eq!(column(&records[2], "verdict"), "same");
        assert_eq!(column(&records[2], "warnings"), "optimized_away");
        let std = &records[3];
        assert!(HEADER[COMPARISON..HEADER.len() - 1]
            .iter()
            .all(|name| column(std, name).is_empty()));
    }

    #[test]
    fn nothing_is_written_before_the_run_finishes() {
        let buf = fixtures::SharedBuf::default();
        let mut csv = Csv::new(Box::new(buf.clone()));
        csv.run_started(&fixtures::manifest(), &fixtures::cases())
            .unwrap();
        csv.case_finished(&fixtures::results()[0]).unwrap();
        csv.bench_finished(&fixtures::summaries()[0]).unwrap();
        assert_eq!(buf.text(), "");
        csv.run_finished(&fixtures::summary()).unwrap();
        assert_eq!(parse(&buf.text()).len(), 2);
    }

    #[test]
    fn failed_rows_describe_the_case_and_carry_the_failure() {
        let records = parse(&fixtures::run(Format::Csv, false));
        let boom = records.last().unwrap();
        assert_eq!(column(boom, "status"), "failed");
        assert_eq!(column(boom, "name"), "boom");
        assert_eq!(column(boom, "median_ns"), "");
        assert_eq!(
            column(boom, "failure"),
            "panicked at src/lib.rs:3:5: boom, with a comma"
        );
    }

    #[test]
    fn zero_median_leaves_ops_per_sec_empty_and_multiple_warnings_join() {
        let buf = fixtures::SharedBuf::default();
        let mut csv = Csv::new(Box::new(buf.clone()));
        let mut result = fixtures::results()[0].clone();
        result.estimate.median_ns = 0.0;
        result.partial = true;
        result.warnings = vec![
            knotmeter_protocol::Warning::new("a", "x"),
            knotmeter_protocol::Warning::new("b", "y"),
        ];
        csv.case_finished(&result).unwrap();
        csv.run_finished(&fixtures::summary()).unwrap();
        let records = parse(&buf.text());
        assert_eq!(records[0], HEADER);
        assert_eq!(column(&records[1], "ops_per_sec"), "");
        assert_eq!(column(&records[1], "status"), "partial");
        assert_eq!(column(&records[1], "warnings"), "a;b");
    }
}
