//! The presentation of one measured case: [`shown`] turns a result (and its benchmark's
//! analysis, once known) into the [`Shown`] every surface renders.
//!
//! The decisions live here and nowhere else:
//!
//! * a body warned `optimized_away` shows [`EMPTY_ESTIMATE`], never a number;
//! * the `±` beside the figure is the 95% interval of the estimate over the rounds it was
//!   measured in, each in a fresh process (`±1.8%`): where a rerun should land; one sentence of
//!   the details says so. A figure without such an interval (one round, or a result stored by
//!   an engine that measured in one stretch) shows no `±`, and its details say why;
//! * notes that describe the distribution rather than change what to conclude (`outliers`,
//!   `multimodal`, `wide_interval`, `in_process`: [`DETAIL_ONLY`]) are in the details only,
//!   with no mark on the line, in a table or in the Problems view;
//! * a warning of severity `warning`, the case's own or its benchmark's, makes the outcome
//!   [`Outcome::Warned`] (never a pass); a note of severity `info` is `ℹ` and changes nothing;
//! * a verdict always says what it is against: `1.0% slower than sort_std`;
//! * a result read back from the history says when it was stored, at the end of its line.

use knotmeter_protocol::{
    BenchResult, BenchSummary, Measure, Outcome, Severity, Shown, ShownNote, Warning,
};

use crate::text::{
    allocations_text, cache_text, complexity_text, history_spread_text, interval_mark,
    interval_sentence, machine_text, optimized_away, rounds_of, stored_note, verdict_text,
    warning_text, EMPTY_ESTIMATE,
};
use crate::units::{
    format_rate, format_throughput, group_digits, measure_text, ops_per_sec, MISSING,
};

/// The warning code of a result cut short by a cancel (the outcome says it already).
const PARTIAL: &str = "partial";

/// Notes that describe how the samples fell rather than change what a user should conclude:
/// they fired on nearly every case, and a mark on every row says nothing. They are in the
/// details.
pub const DETAIL_ONLY: &[&str] = &["outliers", "multimodal", "wide_interval", "in_process"];

/// Everything shown for `result`; `bench` is the analysis of its benchmark across its `args`
/// cases, when it is known.
pub fn shown(result: &BenchResult, bench: Option<&BenchSummary>) -> Shown {
    let all = notes(result, bench);
    let outcome = if result.partial {
        Outcome::Partial
    } else if all.iter().any(|n| n.severity == Severity::Warning) {
        Outcome::Warned
    } else {
        Outcome::Passed
    };
    let figure = figure(result);
    let spread = interval_mark(result).unwrap_or_default();
    let headline = if spread.is_empty() {
        figure.clone()
    } else {
        format!("{figure} {spread}")
    };
    let verdict = result.comparison.as_ref().map(verdict_text);
    let mut line = vec![headline.clone()];
    line.extend(verdict.clone());
    let codes: Vec<&str> = all
        .iter()
        .filter(|n| n.severity == Severity::Warning && n.code != PARTIAL)
        .map(|n| n.code.as_str())
        .collect();
    if !codes.is_empty() {
        line.push(format!("⚠ {}", codes.join(", ")));
    }
    if result.partial {
        line.push("partial (the run was cancelled)".to_owned());
    }
    line.extend(stored_note(result));
    Shown {
        outcome,
        detail: detail(result, &headline, verdict.as_deref(), &all),
        figure,
        spread,
        headline,
        verdict,
        notes: all
            .into_iter()
            .filter(|n| !DETAIL_ONLY.contains(&n.code.as_str()))
            .collect(),
        scaling: bench
            .and_then(|b| b.complexity.as_ref())
            .map(complexity_text),
        line: line.join(" · "),
    }
}

/// The median per operation, or [`EMPTY_ESTIMATE`] for a body optimised away: a time as it
/// is (`5.52 µs`), a count with its unit per operation (`5 515 instr/op`, `1.23 M instr/op`),
/// since a bare count does not say what it counts.
pub fn figure(result: &BenchResult) -> String {
    if optimized_away(result) {
        EMPTY_ESTIMATE.to_owned()
    } else {
        match result.measure {
            Measure::Time => measure_text(result.estimate.median_ns, result.measure),
            Measure::Instructions => {
                format!(
                    "{}/op",
                    measure_text(result.estimate.median_ns, result.measure)
                )
            }
        }
    }
}

/// The case's warnings, then its benchmark's, each as one line.
fn notes(result: &BenchResult, bench: Option<&BenchSummary>) -> Vec<ShownNote> {
    let note = |warning: &Warning, bench: bool| ShownNote {
        severity: warning.severity,
        code: warning.code.clone(),
        text: warning_text(warning),
        bench,
    };
    let own = result.warnings.iter().map(|w| note(w, false));
    let analysis = bench
        .into_iter()
        .flat_map(|b| b.warnings.iter().map(|w| note(w, true)));
    own.chain(analysis).collect()
}

/// The whole account of a case, one fact per line.
fn detail(
    result: &BenchResult,
    headline: &str,
    verdict: Option<&str>,
    notes: &[ShownNote],
) -> String {
    let e = &result.estimate;
    let q = &result.quantiles;
    let o = &result.overhead;
    let unit = |value: f64| measure_text(value, result.measure);
    let mut lines = vec![headline.to_owned()];
    if !optimized_away(result) && result.measure == Measure::Instructions {
        lines.push(format!(
            "{}; mean {}",
            interval_sentence(result),
            unit(e.mean_ns)
        ));
        lines.extend(result.cache.as_ref().map(cache_text));
    } else if !optimized_away(result) {
        // A declared throughput (criterion's `Throughput`) replaces operations per second.
        let rate = result
            .throughput
            .as_ref()
            .and_then(format_throughput)
            .unwrap_or_else(|| {
                let ops = ops_per_sec(e.median_ns).map_or_else(|| MISSING.to_owned(), format_rate);
                format!("{ops} ops/s")
            });
        lines.push(format!(
            "{}; mean {}; {rate}",
            interval_sentence(result),
            unit(e.mean_ns),
        ));
        lines.extend(history_spread_text(result.reproducibility.as_ref()));
    }
    if let (Some(comparison), Some(verdict)) = (&result.comparison, verdict) {
        let p = if comparison.p_value < 0.001 {
            "p < 0.001".to_owned()
        } else if comparison.p_value.is_finite() {
            format!("p = {:.3}", comparison.p_value)
        } else {
            "p unknown".to_owned()
        };
        lines.push(format!(
            "{verdict}: ratio {:.3} [{:.3}, {:.3}], {p}",
            comparison.ratio, comparison.low, comparison.high
        ));
        lines.extend(machine_text(comparison));
    } else if let Some(why) = not_compared(result) {
        lines.push(why.to_owned());
    }
    let spread = if optimized_away(result) {
        String::new()
    } else {
        format!(
            "; quartiles {} – {}; {} outliers (kept)",
            unit(q.q1_ns),
            unit(q.q3_ns),
            q.outliers
        )
    };
    let rounds = match rounds_of(result) {
        0 => String::new(),
        1 => "1 round: ".to_owned(),
        n => format!("{n} rounds: "),
    };
    lines.push(format!(
        "{rounds}{} samples × {} operations{spread}; cold first call {}",
        group_digits(result.samples),
        group_digits(result.ops_per_sample),
        unit(result.cold_ns),
    ));
    lines.push(format!(
        "overhead {} per operation subtracted (drift {}, {} of {} samples capped at zero)",
        unit(o.per_op_ns),
        o.drift.map_or_else(|| MISSING.to_owned(), unit),
        group_digits(o.capped),
        group_digits(result.samples),
    ));
    if let Some(allocations) = &result.allocations {
        lines.push(allocations_text(allocations));
    }
    lines.extend(notes.iter().map(|n| n.text.clone()));
    lines.join("\n")
}

/// Why a result has no comparison, where that is known from the result alone. A group
/// member's comparison, and a comparison against history, arrive after every case of the run
/// has finished; until then nothing is said.
fn not_compared(result: &BenchResult) -> Option<&'static str> {
    if optimized_away(result) {
        Some("not compared: the body is indistinguishable from empty")
    } else if result.partial {
        Some("not compared: the result is partial")
    } else if result.group.is_some() && !result.baseline {
        None
    } else if result.reproducibility.as_ref().is_some_and(|r| r.runs == 0) {
        Some("no earlier run on this machine in this mode to compare against")
    } else {
        None
    }
}
