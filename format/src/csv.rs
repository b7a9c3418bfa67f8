//! CSV: a header, then one RFC 4180 row per case in run order. The bench binary's
//! `--format csv` and `knotmeter run --format csv` both write [`document`].
//!
//! Columns, in order:
//!
//! `id,status,name,args,group,baseline,median_ns,low_ns,high_ns,mean_ns,precision,`
//! `ops_per_sec,samples,ops_per_sample,overhead_ns,overhead_drift_ns,capped,cold_ns,`
//! `allocs_per_op,alloc_bytes_per_op,warnings,comparison_against,ratio,ratio_low,`
//! `ratio_high,p_value,verdict,failure,spread_between_runs,runs_stored,rounds,machine_ratio,`
//! `measure`
//!
//! * `measure` is `time` or `instructions` (`--measure instructions`): in a count every
//!   column named `…_ns` holds instructions per operation, `low_ns` and `high_ns` are the
//!   smallest and largest of its repetitions, and `ops_per_sec` is empty (a count has no rate).
//!   It is the last column, so that readers of the columns before it read them as they did.
//! * `status` is `ok`, `warned` (a warning of the case or of its benchmark says the figure
//!   may be wrong), `partial` (cut short by a cancel) or `failed`; `knotmeter run` adds
//!   `errored` (could not be built or run) and `skipped` (not measured).
//! * A case without a result fills `id`, `status`, the descriptive columns where known
//!   (`name`, `args`, `group`, `baseline`) and `failure` (`panicked at file:line:col: msg`);
//!   every measurement column is empty. `failure` is empty for measured cases.
//! * A body warned `optimized_away` has empty `median_ns` … `ops_per_sec`: no number was
//!   measured there. Its raw figures stay in `--format json`.
//! * `allocs_per_op` and `alloc_bytes_per_op` are empty unless allocations were counted.
//! * `warnings` holds the codes of the case's warnings and of its benchmark's, joined with
//!   `;`. Comparison columns are empty for a case that was not compared; `verdict` is
//!   `faster`, `slower` or `same`.
//! * `median_ns`, `low_ns`, `high_ns` are the estimate and its 95% interval over the case's
//!   rounds (each in a fresh process), `precision` the interval's larger side relative to the
//!   estimate (the `±` every surface shows), `rounds` how many rounds it rests on (empty for a
//!   result measured in one stretch by an older engine).
//! * `machine_ratio` is set for a before/after comparison taken relative to the machine's
//!   probe: the probe's time in this run over its time in the run compared against (1.05: the
//!   machine ran 5% slower now); `ratio` is then the case's change less the machine's.
//! * `spread_between_runs` is how far the case's estimate moved between stored runs, learnt
//!   from the history (empty until known); `runs_stored` the comparable earlier runs it came
//!   from.
//! * Numbers are plain (no digit grouping): times with 3 decimals in nanoseconds, `precision`
//!   and `spread_between_runs` as fractions with 6 decimals, ratios with 4 decimals,
//!   `p_value` at full precision. A number that is not finite is an empty field.
//! * Fields containing a comma, a double quote, CR or LF are quoted, with quotes doubled.
//!   Rows end with CRLF, as RFC 4180 says.

use knotmeter_protocol::{BenchResult, BenchSummary, Comparison, ListEntry, Measure, Outcome};

use crate::shown::shown;
use crate::text::{optimized_away, rounds_of};
use crate::units::ops_per_sec;

/// The header row.
pub const HEADER: &[&str] = &[
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
    "spread_between_runs",
    "runs_stored",
    "rounds",
    "machine_ratio",
    "measure",
];

/// One case of a run, as a row describes it.
#[derive(Debug, Clone, Copy)]
pub enum Row<'a> {
    /// A case with a result, and the analysis of its benchmark when there is one.
    Measured {
        /// The result, with its final comparison.
        result: &'a BenchResult,
        /// The analysis of its benchmark across its `args` cases.
        bench: Option<&'a BenchSummary>,
    },
    /// A case without a result.
    NotMeasured {
        /// The case id.
        id: &'a str,
        /// `failed`, `errored` or `skipped`.
        status: &'a str,
        /// What the case is, where known.
        case: Option<&'a ListEntry>,
        /// Why it has no result: `panicked at src/lib.rs:3:5: boom`.
        why: &'a str,
    },
}

/// The whole table: the header and one row per entry of `rows`, in their order.
pub fn document(rows: &[Row<'_>]) -> String {
    let mut text = record(HEADER);
    for row in rows {
        let fields = match row {
            Row::Measured { result, bench } => measured(result, *bench),
            Row::NotMeasured {
                id,
                status,
                case,
                why,
            } => not_measured(id, status, *case, why),
        };
        text.push_str(&record(&fields));
    }
    text
}

/// One record of fields, quoted, with its CRLF.
fn record<S: AsRef<str>>(fields: &[S]) -> String {
    let line: Vec<String> = fields.iter().map(|field| quote(field.as_ref())).collect();
    format!("{}\r\n", line.join(","))
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
fn measured(result: &BenchResult, bench: Option<&BenchSummary>) -> Vec<String> {
    let estimate = &result.estimate;
    let alloc = result.allocations.as_ref();
    let shown = shown(result, bench);
    let codes: Vec<&str> = shown.notes.iter().map(|n| n.code.as_str()).collect();
    let status = match shown.outcome {
        Outcome::Passed => "ok",
        Outcome::Warned => "warned",
        Outcome::Partial => "partial",
    };
    let empty = optimized_away(result);
    let time = |ns: f64| if empty { String::new() } else { number(ns, 3) };
    let reproducibility = result.reproducibility.as_ref();
    let mut fields = vec![
        result.id.clone(),
        status.to_owned(),
        result.name.clone(),
        result.args.clone().unwrap_or_default(),
        result.group.clone().unwrap_or_default(),
        result.baseline.to_string(),
        time(estimate.median_ns),
        time(estimate.low_ns),
        time(estimate.high_ns),
        time(estimate.mean_ns),
        result
            .precision
            .filter(|_| !empty)
            .map_or_else(String::new, |p| number(p, 6)),
        ops_per_sec(estimate.median_ns)
            .filter(|_| !empty && result.measure == Measure::Time)
            .map_or_else(String::new, |rate| number(rate, 3)),
        result.samples.to_string(),
        result.ops_per_sample.to_string(),
        number(result.overhead.per_op_ns, 3),
        result
            .overhead
            .drift
            .map_or_else(String::new, |drift| number(drift, 3)),
        result.overhead.capped.to_string(),
        number(result.cold_ns, 3),
        alloc.map_or_else(String::new, |a| number(a.per_op, 3)),
        alloc.map_or_else(String::new, |a| number(a.bytes_per_op, 3)),
        codes.join(";"),
    ];
    fields.extend(comparison_fields(result.comparison.as_ref()));
    fields.push(String::new());
    fields.push(
        reproducibility
            .and_then(|r| r.spread)
            .map_or_else(String::new, |s| number(s, 6)),
    );
    fields.push(reproducibility.map_or_else(String::new, |r| r.runs.to_string()));
    fields.push(match rounds_of(result) {
        0 => String::new(),
        n => n.to_string(),
    });
    fields.push(
        result
            .comparison
            .as_ref()
            .and_then(|c| c.machine)
            .map_or_else(String::new, |m| number(m, 4)),
    );
    fields.push(result.measure.as_str().to_owned());
    fields
}

/// The fields of a case without a result, in [`HEADER`] order.
fn not_measured(id: &str, status: &str, case: Option<&ListEntry>, why: &str) -> Vec<String> {
    let mut fields = vec![String::new(); HEADER.len()];
    fields[0] = id.to_owned();
    fields[1] = status.to_owned();
    if let Some(case) = case {
        fields[2] = case.name.clone();
        fields[3] = case.args.clone().unwrap_or_default();
        fields[4] = case.group.clone().unwrap_or_default();
        fields[5] = case.baseline.to_string();
    }
    fields[27] = why.to_owned();
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
        comparison.verdict.as_str().to_owned(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_follows_rfc_4180() {
        assert_eq!(quote("plain"), "plain");
        assert_eq!(quote("two\nlines"), "\"two\nlines\"");
        assert_eq!(quote("a,\"b\""), "\"a,\"\"b\"\"\"");
        assert_eq!(HEADER[27], "failure");
        assert_eq!(HEADER[21], "comparison_against");
    }

    #[test]
    fn a_case_without_result_keeps_its_description_and_reason() {
        let text = document(&[Row::NotMeasured {
            id: "q::boom",
            status: "failed",
            case: None,
            why: "panicked at src/lib.rs:3:5: boom, with a comma",
        }]);
        let lines: Vec<&str> = text.split("\r\n").collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(
            lines[1],
            format!(
                "q::boom,failed{}\"panicked at src/lib.rs:3:5: boom, with a comma\",,,,,",
                ",".repeat(26)
            )
        );
    }
}
