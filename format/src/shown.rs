//! The presentation of one measured case: [`shown`] turns a result (and its benchmark's
//! analysis, once known) into the [`Shown`] every surface renders.
//!
//! The decisions live here and nowhere else:
//!
//! * a body warned `optimized_away` shows [`EMPTY_ESTIMATE`], never a number;
//! * the spread beside the figure is the spread between runs learnt from the history
//!   ([`knotmeter_protocol::Reproducibility`]), or a statement that it is not known yet; the
//!   within-run interval of the median appears only in the details, labelled as such;
//! * a warning of severity `warning`, the case's own or its benchmark's, makes the outcome
//!   [`Outcome::Warned`] (never a pass); a note of severity `info` is `ℹ` and changes nothing;
//! * a verdict always says what it is against: `1.0% slower than sort_std`;
//! * a result read back from the history says when it was stored, at the end of its line.

use knotmeter_protocol::{BenchResult, BenchSummary, Outcome, Severity, Shown, ShownNote, Warning};

use crate::text::{
    allocations_text, complexity_text, optimized_away, precision_text, spread_source_text,
    spread_text, stored_note, verdict_text, warning_text, EMPTY_ESTIMATE,
};
use crate::units::{
    format_duration_ns, format_rate, format_throughput, group_digits, ops_per_sec, MISSING,
};

/// The warning code of a result cut short by a cancel (the outcome says it already).
const PARTIAL: &str = "partial";

/// Everything shown for `result`; `bench` is the analysis of its benchmark across its `args`
/// cases, when it is known.
pub fn shown(result: &BenchResult, bench: Option<&BenchSummary>) -> Shown {
    let notes = notes(result, bench);
    let outcome = if result.partial {
        Outcome::Partial
    } else if notes.iter().any(|n| n.severity == Severity::Warning) {
        Outcome::Warned
    } else {
        Outcome::Passed
    };
    let figure = figure(result);
    let spread = if optimized_away(result) {
        String::new()
    } else {
        spread_text(result.reproducibility.as_ref())
    };
    let headline = headline(&figure, result);
    let verdict = result.comparison.as_ref().map(verdict_text);
    let mut line = vec![headline.clone()];
    line.extend(verdict.clone());
    let codes: Vec<&str> = notes
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
        detail: detail(result, &headline, verdict.as_deref(), &notes),
        figure,
        spread,
        headline,
        verdict,
        notes,
        scaling: bench
            .and_then(|b| b.complexity.as_ref())
            .map(complexity_text),
        line: line.join(" · "),
    }
}

/// The median per operation, or [`EMPTY_ESTIMATE`] for a body optimised away.
pub fn figure(result: &BenchResult) -> String {
    if optimized_away(result) {
        EMPTY_ESTIMATE.to_owned()
    } else {
        format_duration_ns(result.estimate.median_ns)
    }
}

/// The figure with the spread between runs: `12.3 ns ±1.2% between runs`, `12.3 ns (spread
/// between runs not known yet: 2 of 5 runs)`, or the figure alone for a body optimised away.
fn headline(figure: &str, result: &BenchResult) -> String {
    if optimized_away(result) {
        return figure.to_owned();
    }
    let reproducibility = result.reproducibility.as_ref();
    let spread = spread_text(reproducibility);
    match reproducibility.and_then(|r| r.spread) {
        Some(_) => format!("{figure} {spread}"),
        None => format!("{figure} ({spread})"),
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
    let mut lines = vec![headline.to_owned()];
    if !optimized_away(result) {
        // A declared throughput (criterion's `Throughput`) replaces operations per second.
        let rate = result
            .throughput
            .as_ref()
            .and_then(format_throughput)
            .unwrap_or_else(|| {
                let ops = ops_per_sec(e.median_ns).map_or_else(|| MISSING.to_owned(), format_rate);
                format!("{ops} ops/s")
            });
        let within = match precision_text(result.precision) {
            text if text.is_empty() => String::new(),
            text => format!(" ({text})"),
        };
        lines.push(format!(
            "this run's median: {}, 95% interval [{}, {}]{within}; mean {}; {rate}",
            format_duration_ns(e.median_ns),
            format_duration_ns(e.low_ns),
            format_duration_ns(e.high_ns),
            format_duration_ns(e.mean_ns),
        ));
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
    } else if let Some(why) = not_compared(result) {
        lines.push(why.to_owned());
    }
    let spread = if optimized_away(result) {
        String::new()
    } else {
        format!(
            "; quartiles {} – {}; {} outliers (kept)",
            format_duration_ns(q.q1_ns),
            format_duration_ns(q.q3_ns),
            q.outliers
        )
    };
    if !optimized_away(result) {
        lines.extend(spread_source_text(result.reproducibility.as_ref()).map(str::to_owned));
    }
    lines.push(format!(
        "{} samples × {} operations{spread}; cold first call {}",
        group_digits(result.samples),
        group_digits(result.ops_per_sample),
        format_duration_ns(result.cold_ns),
    ));
    lines.push(format!(
        "overhead {} per operation subtracted (drift {}, {} of {} samples capped at zero)",
        format_duration_ns(o.per_op_ns),
        o.drift
            .map_or_else(|| MISSING.to_owned(), format_duration_ns),
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
