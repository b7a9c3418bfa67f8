//! Results as text for people: the code lens and inlay hint (one line), the run output and
//! the hover (a table with the overhead diagnostics), and `knotmeter run`'s table.
//!
//! Every figure comes from the engine's [`BenchResult`] unchanged; this module only chooses
//! units and layout.

use knotmeter_protocol::{BenchResult, Verdict};

/// A duration in nanoseconds with three significant digits and a unit: `812 ps`, `12.3 ns`,
/// `1.23 µs`, `45.6 ms`, `1.20 s`.
pub fn duration(ns: f64) -> String {
    if !ns.is_finite() {
        return "—".into();
    }
    let (value, unit) = match ns.abs() {
        a if a < 1.0 => (ns * 1000.0, "ps"),
        a if a < 1e3 => (ns, "ns"),
        a if a < 1e6 => (ns / 1e3, "µs"),
        a if a < 1e9 => (ns / 1e6, "ms"),
        _ => (ns / 1e9, "s"),
    };
    let digits = match value.abs() {
        v if v >= 100.0 => 0,
        v if v >= 10.0 => 1,
        _ => 2,
    };
    format!("{value:.digits$} {unit}")
}

/// `±1.2%` (`±0.04%` below 0.1%), or nothing when the median is zero.
fn precision(result: &BenchResult) -> String {
    relative(result).map_or(String::new(), |p| {
        let percent = p * 100.0;
        if percent < 0.1 {
            format!(" ±{percent:.2}%")
        } else {
            format!(" ±{percent:.1}%")
        }
    })
}

/// The relative half-width of the median's interval, as the engine reported it.
fn relative(result: &BenchResult) -> Option<f64> {
    result.precision
}

/// The verdict as a word with the ratio: `faster ×0.82`.
pub fn verdict(result: &BenchResult) -> Option<String> {
    let comparison = result.comparison.as_ref()?;
    let word = match comparison.verdict {
        Verdict::Faster => "faster",
        Verdict::Slower => "slower",
        Verdict::Same => "same",
    };
    Some(format!("{word} ×{:.2}", comparison.ratio))
}

/// One line: `1.23 µs [1.20 µs, 1.26 µs] ±2.4% · faster ×0.82`.
pub fn one_line(result: &BenchResult) -> String {
    let e = &result.estimate;
    let mut line = format!(
        "{} [{}, {}]{}",
        duration(e.median_ns),
        duration(e.low_ns),
        duration(e.high_ns),
        precision(result)
    );
    if let Some(verdict) = verdict(result) {
        line.push_str(" · ");
        line.push_str(&verdict);
    }
    if result.partial {
        line.push_str(" · partial");
    }
    line
}

/// A few lines per case for the run's output: the estimate, the spread, the sampling, the
/// overhead diagnostics and the warnings.
pub fn result_text(result: &BenchResult) -> String {
    let e = &result.estimate;
    let q = &result.quantiles;
    let o = &result.overhead;
    let mut text = format!(
        "{}\n  median {}  [{}, {}]{}  mean {}\n  min {}  q1 {}  q3 {}  p95 {}  max {}  outliers {}\n  {} samples × {} ops  cold {}  wall {}\n  overhead {}/op subtracted (drift {}, {} samples capped)",
        result.id,
        duration(e.median_ns),
        duration(e.low_ns),
        duration(e.high_ns),
        precision(result),
        duration(e.mean_ns),
        duration(q.min_ns),
        duration(q.q1_ns),
        duration(q.q3_ns),
        duration(q.p95_ns),
        duration(q.max_ns),
        q.outliers,
        result.samples,
        result.ops_per_sample,
        duration(result.cold_ns),
        duration(result.wall_ns),
        duration(o.per_op_ns),
        duration(o.drift),
        o.capped,
    );
    if let Some(c) = &result.comparison {
        text.push_str(&format!(
            "\n  vs {}: ×{:.3} [{:.3}, {:.3}] p={:.3} → {}",
            c.against,
            c.ratio,
            c.low,
            c.high,
            c.p_value,
            verdict(result).unwrap_or_default()
        ));
    }
    if let Some(a) = &result.allocations {
        text.push_str(&format!(
            "\n  {:.1} allocations, {:.0} bytes per op",
            a.per_op, a.bytes_per_op
        ));
    }
    for warning in &result.warnings {
        text.push_str(&format!(
            "\n  warning [{}]: {}",
            warning.code, warning.message
        ));
    }
    text
}

/// A markdown table of results (the hover), with the overhead diagnostics and warnings.
pub fn markdown(results: &[&BenchResult]) -> String {
    let mut md = String::from(
        "| case | median | 95% interval | mean | samples × ops | overhead/op | cold | verdict |\n\
         |---|---:|---|---:|---:|---:|---:|---|\n",
    );
    for r in results {
        let e = &r.estimate;
        md.push_str(&format!(
            "| `{}` | {}{} | {} – {} | {} | {} × {} | {} | {} | {} |\n",
            r.args.as_deref().unwrap_or(&r.name),
            duration(e.median_ns),
            precision(r),
            duration(e.low_ns),
            duration(e.high_ns),
            duration(e.mean_ns),
            r.samples,
            r.ops_per_sample,
            duration(r.overhead.per_op_ns),
            duration(r.cold_ns),
            verdict(r).unwrap_or_else(|| "—".into()),
        ));
    }
    md.push_str("\n**Overhead**: ");
    let overhead: Vec<String> = results
        .iter()
        .map(|r| {
            format!(
                "`{}` {}/op, drift {}, {} capped",
                r.args.as_deref().unwrap_or(&r.name),
                duration(r.overhead.per_op_ns),
                duration(r.overhead.drift),
                r.overhead.capped
            )
        })
        .collect();
    md.push_str(&overhead.join("; "));
    md.push('\n');
    for r in results {
        for w in &r.warnings {
            md.push_str(&format!(
                "\n⚠ `{}` **{}**: {}\n",
                r.args.as_deref().unwrap_or(&r.name),
                w.code,
                w.message
            ));
        }
        if r.partial {
            md.push_str(&format!(
                "\n`{}` is a partial result (the run was cancelled)\n",
                r.id
            ));
        }
    }
    md
}

/// The run's machine and clock in one line, for the output channel: what every case's
/// overhead figures were measured with.
pub fn manifest_line(manifest: &knotmeter_protocol::Manifest) -> String {
    format!(
        "knotmeter {} · {} · {} (opt-level {}) · {} × {} cores · timer {} (precision {}, read {})",
        manifest.knotmeter_version,
        manifest.rustc,
        manifest.profile,
        manifest.opt_level,
        manifest.cpu,
        manifest.cores,
        manifest.timer.kind,
        duration(manifest.timer.precision_ns),
        duration(manifest.timer.read_cost_ns),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_have_three_significant_digits() {
        assert_eq!(duration(0.8123), "812 ps");
        assert_eq!(duration(12.34), "12.3 ns");
        assert_eq!(duration(1234.0), "1.23 µs");
        assert_eq!(duration(45_600_000.0), "45.6 ms");
        assert_eq!(duration(1.2e9), "1.20 s");
        assert_eq!(duration(f64::NAN), "—");
    }
}
