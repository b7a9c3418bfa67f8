//! `--format csv`: one RFC 4180 row per case in run order, written when the run finishes
//! (a row cannot be final before the run's comparisons are: their p-values are corrected
//! across the run). The columns and their rules are `knotmeter_format::csv`'s, shared with
//! `knotmeter run --format csv`.

use std::io::{self, Write};

use knotmeter_format::csv::document;

use super::collect::{Collected, Finish};

/// Writes the collected run (see [`super::collect::AtEnd`]) as one CSV table.
pub(crate) struct Csv {
    /// Where the table goes.
    out: Box<dyn Write + Send>,
}

impl Csv {
    /// A format writing its table to `out`.
    pub(crate) fn new(out: Box<dyn Write + Send>) -> Self {
        Self { out }
    }
}

impl Finish for Csv {
    fn finish(&mut self, run: Collected) -> io::Result<()> {
        self.out.write_all(document(&run.rows()).as_bytes())?;
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use knotmeter_format::csv::HEADER;

    use super::super::collect::AtEnd;
    use super::super::{fixtures, Format, Reporter};
    use super::*;

    /// The first comparison column (`comparison_against`); six columns follow from there.
    const COMPARISON: usize = 21;

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
            text.contains("\r\n\"q::pair/(1,\"\"x|y\"\")\",warned,pair,\"(1,\"\"x|y\"\")\","),
            "{text}"
        );
        let records = parse(&text);
        assert_eq!(records[2][0], "q::pair/(1,\"x|y\")");
        assert_eq!(column(&records[2], "args"), "(1,\"x|y\")");
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
        // Everything from the comparison on is empty but the runs stored in the history and
        // the measure.
        assert_eq!(column(std, "measure"), "time");
        assert!(HEADER[COMPARISON..]
            .iter()
            .filter(|name| !["runs_stored", "measure"].contains(*name))
            .all(|name| column(std, name).is_empty()));
        assert_eq!(column(std, "runs_stored"), "2");
        assert_eq!(column(chain, "rounds"), "10");
    }

    #[test]
    fn warned_rows_say_so_and_a_body_optimised_away_has_no_figures() {
        let records = parse(&fixtures::run(Format::Csv, false));
        let status: Vec<&str> = records[1..].iter().map(|r| column(r, "status")).collect();
        assert_eq!(status, ["ok", "warned", "ok", "warned", "failed"]);
        let pair = &records[2];
        for name in [
            "median_ns",
            "low_ns",
            "high_ns",
            "mean_ns",
            "precision",
            "ops_per_sec",
        ] {
            assert_eq!(column(pair, name), "", "{name}");
        }
        // The benchmark's notes are listed with the case's own warnings.
        assert_eq!(column(&records[1], "warnings"), "sublinear_scaling");
        assert_eq!(column(&records[1], "spread_between_runs"), "0.012500");
        assert_eq!(column(&records[1], "runs_stored"), "7");
        assert_eq!(column(&records[3], "spread_between_runs"), "");
        assert_eq!(column(&records[3], "runs_stored"), "2");
    }

    #[test]
    fn nothing_is_written_before_the_run_finishes() {
        let buf = fixtures::SharedBuf::default();
        let mut csv = AtEnd::new(Csv::new(Box::new(buf.clone())));
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
        let mut csv = AtEnd::new(Csv::new(Box::new(buf.clone())));
        csv.run_started(&fixtures::manifest(), &[]).unwrap();
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
