//! Phrases shared by the human formats (pretty and markdown): labels, the manifest line,
//! failures, warnings, comparisons, complexity and the closing summary.

use knotmeter_protocol::{
    Allocations, BenchResult, CaseFailure, Comparison, ComplexityFit, FailureKind, Manifest,
    RunSummary, Severity, Verdict, Warning,
};

use super::units::{format_bytes, format_duration_ns, group_digits, MISSING};

/// A case id without its leading crate segment: `quickstart::chain_n/1000` → `chain_n/1000`.
/// A `::` inside the argument text (after the first `/`) is not a path separator.
pub(crate) fn case_label(id: &str) -> &str {
    let path_end = id.find('/').unwrap_or(id.len());
    match id[..path_end].find("::") {
        Some(index) => &id[index + 2..],
        None => id,
    }
}

/// One line describing where and how the run was measured: versions, build, machine, timer.
pub(crate) fn manifest_line(manifest: &Manifest) -> String {
    let rustc = manifest.rustc.split(" (").next().unwrap_or_default();
    let rustc = if rustc.starts_with("rustc") {
        rustc.to_owned()
    } else {
        format!("rustc {rustc}")
    };
    let mut parts = vec![
        format!("knotmeter {}", manifest.knotmeter_version),
        rustc,
        format!("{} (opt-level {})", manifest.profile, manifest.opt_level),
    ];
    if manifest.debug_assertions {
        parts.push("debug assertions on".to_owned());
    }
    parts.push(manifest.target.clone());
    let cpu = if manifest.cpu.is_empty() {
        "unknown cpu"
    } else {
        &manifest.cpu
    };
    parts.push(format!("{cpu} × {} cores", manifest.cores));
    let timer = &manifest.timer;
    parts.push(format!(
        "timer {} (precision {}, read {})",
        timer.kind,
        format_duration_ns(timer.precision_ns),
        format_duration_ns(timer.read_cost_ns)
    ));
    if let Some(commit) = &manifest.git_commit {
        parts.push(format!("git {}", commit.get(..10).unwrap_or(commit)));
    }
    parts.join(" · ")
}

/// What went wrong in a failed case: `panicked at src/lib.rs:3:5: boom`.
pub(crate) fn failure_text(failure: &CaseFailure) -> String {
    let what = match failure.kind {
        FailureKind::Panic => "panicked",
        FailureKind::Cancelled => "cancelled",
        FailureKind::Misuse => "misused",
    };
    match &failure.location {
        Some(location) => format!("{what} at {location}: {}", failure.message),
        None => format!("{what}: {}", failure.message),
    }
}

/// A comparison's ratio and its 95% interval: `1.03× [1.01, 1.05]`.
pub(crate) fn ratio_text(comparison: &Comparison) -> String {
    format!(
        "{:.2}× [{:.2}, {:.2}]",
        comparison.ratio, comparison.low, comparison.high
    )
}

/// The word every format uses for a verdict, as the JSON formats spell it.
pub(crate) fn verdict_word(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Faster => "faster",
        Verdict::Slower => "slower",
        Verdict::Same => "same",
    }
}

/// The relative change of a comparison's ratio: `+3.4%`, `-18.8%` (`—` when not finite).
pub(crate) fn change_text(comparison: &Comparison) -> String {
    let percent = (comparison.ratio - 1.0) * 100.0;
    if percent.is_finite() {
        format!("{percent:+.1}%")
    } else {
        MISSING.to_owned()
    }
}

/// A corrected p-value: `0.012`, `<0.001` below a thousandth, `—` when not a number.
pub(crate) fn p_value_text(p_value: f64) -> String {
    if !p_value.is_finite() {
        MISSING.to_owned()
    } else if p_value < 0.001 {
        "<0.001".to_owned()
    } else {
        format!("{p_value:.3}")
    }
}

/// The code of the warning that says a body cannot be told apart from an empty one.
pub(crate) const OPTIMIZED_AWAY: &str = "optimized_away";

/// What the human formats show instead of the estimate of such a body: a small number
/// there would look confident where nothing was measured.
pub(crate) const EMPTY_ESTIMATE: &str = "≈ 0 (indistinguishable from empty)";

/// Whether `result` carries the [`OPTIMIZED_AWAY`] warning.
pub(crate) fn optimized_away(result: &BenchResult) -> bool {
    result.warnings.iter().any(|w| w.code == OPTIMIZED_AWAY)
}

/// The mark of a warning's severity: `⚠` for a warning, `ℹ` for an informational note.
pub(crate) fn warning_mark(severity: Severity) -> &'static str {
    match severity {
        Severity::Warning => "⚠",
        Severity::Info => "ℹ",
    }
}

/// A warning on one line of its own: `⚠ code: message` or `ℹ code: message`.
pub(crate) fn warning_text(warning: &Warning) -> String {
    format!(
        "{} {}: {}",
        warning_mark(warning.severity),
        warning.code,
        warning.message
    )
}

/// A complexity fit: `O(n) (runner-up O(n log n), distinguishable)`, or
/// `… not distinguishable)`; just the class when nothing else could be fitted.
pub(crate) fn complexity_text(fit: &ComplexityFit) -> String {
    match &fit.runner_up {
        Some(runner_up) => {
            let not = if fit.distinguishable { "" } else { "not " };
            format!("{} (runner-up {runner_up}, {not}distinguishable)", fit.best)
        }
        None => fit.best.clone(),
    }
}

/// Samples times operations per sample, grouped: `1 200 × 4 096`.
pub(crate) fn samples_text(samples: u64, ops_per_sample: u64) -> String {
    format!(
        "{} × {}",
        group_digits(samples),
        group_digits(ops_per_sample)
    )
}

/// The relative half-width of the median's 95% interval: `±0.6%` (empty when unknown).
pub(crate) fn precision_text(precision: Option<f64>) -> String {
    let Some(precision) = precision.filter(|p| p.is_finite() && *p >= 0.0) else {
        return String::new();
    };
    let percent = precision * 100.0;
    if percent < 10.0 {
        format!("±{percent:.1}%")
    } else {
        format!("±{percent:.0}%")
    }
}

/// Allocations per operation and their bytes: `3 allocs/op (96 B)`, `0.50 allocs/op (8 B)`.
pub(crate) fn allocations_text(allocations: &Allocations) -> String {
    let count = allocations.per_op;
    let count = if count.fract() == 0.0 {
        format!("{count:.0}")
    } else {
        format!("{count:.2}")
    };
    format!(
        "{count} allocs/op ({})",
        format_bytes(allocations.bytes_per_op)
    )
}

/// The closing line: `10 passed, 1 failed in 8.40 s`, noting a cancelled run.
pub(crate) fn summary_line(summary: &RunSummary) -> String {
    let counts = if summary.partial > 0 {
        format!(
            "{} passed, {} partial, {} failed",
            summary.passed, summary.partial, summary.failed
        )
    } else {
        format!("{} passed, {} failed", summary.passed, summary.failed)
    };
    let wall = format_duration_ns(summary.wall_ns);
    if summary.cancelled {
        format!("{counts}, cancelled after {wall}")
    } else {
        format!("{counts} in {wall}")
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures;
    use super::*;

    #[test]
    fn labels_drop_only_the_crate_segment() {
        assert_eq!(case_label("quickstart::chain_n/1000"), "chain_n/1000");
        assert_eq!(case_label("q::parsing::parse_csv"), "parsing::parse_csv");
        assert_eq!(case_label("q::f/Foo::new()"), "f/Foo::new()");
        assert_eq!(case_label("lonely"), "lonely");
        assert_eq!(case_label("lonely/a::b"), "lonely/a::b");
    }

    #[test]
    fn manifest_line_names_the_build_machine_and_timer() {
        let line = manifest_line(&fixtures::manifest());
        assert_eq!(
            line,
            "knotmeter 0.1.0 · rustc 1.95.0 · release (opt-level 3) · \
             x86_64-unknown-linux-gnu · Test CPU @ 3.0GHz × 8 cores · \
             timer instant (precision 20.0 ns, read 19.0 ns) · git 0123456789"
        );
    }

    #[test]
    fn failures_read_like_a_panic_message() {
        assert_eq!(
            failure_text(&fixtures::failure("q::boom")),
            "panicked at src/lib.rs:3:5: boom, with a comma"
        );
        let mut cancelled = fixtures::failure("q::x");
        cancelled.kind = FailureKind::Cancelled;
        cancelled.location = None;
        cancelled.message = "run cancelled".to_owned();
        assert_eq!(failure_text(&cancelled), "cancelled: run cancelled");
    }

    #[test]
    fn allocation_phrases() {
        let whole = Allocations {
            per_op: 3.0,
            bytes_per_op: 96.0,
        };
        assert_eq!(allocations_text(&whole), "3 allocs/op (96 B)");
        let fraction = Allocations {
            per_op: 0.5,
            bytes_per_op: 1536.0,
        };
        assert_eq!(allocations_text(&fraction), "0.50 allocs/op (1.50 KiB)");
    }

    #[test]
    fn precision_and_summary_phrases() {
        assert_eq!(precision_text(Some(0.0061)), "±0.6%");
        assert_eq!(precision_text(Some(0.123)), "±12%");
        assert_eq!(precision_text(None), "");
        assert_eq!(precision_text(Some(f64::NAN)), "");
        let mut summary = fixtures::summary();
        assert_eq!(summary_line(&summary), "4 passed, 1 failed in 8.40 s");
        summary.cancelled = true;
        assert_eq!(
            summary_line(&summary),
            "4 passed, 1 failed, cancelled after 8.40 s"
        );
        // A case the cancel cut short is counted apart, never as passed.
        summary.passed = 3;
        summary.partial = 1;
        assert_eq!(
            summary_line(&summary),
            "3 passed, 1 partial, 1 failed, cancelled after 8.40 s"
        );
    }

    #[test]
    fn comparison_phrases_keep_the_verdict_words() {
        let comparison = &fixtures::comparisons()[2].1;
        assert_eq!(ratio_text(comparison), "1.03× [1.01, 1.05]");
        assert_eq!(change_text(comparison), "+3.4%");
        assert_eq!(p_value_text(comparison.p_value), "<0.001");
        assert_eq!(p_value_text(0.0123), "0.012");
        assert_eq!(p_value_text(f64::NAN), "—");
        let words = [Verdict::Faster, Verdict::Slower, Verdict::Same].map(verdict_word);
        assert_eq!(words, ["faster", "slower", "same"]);
    }

    #[test]
    fn warnings_are_marked_by_severity_and_empty_bodies_are_recognised() {
        let results = fixtures::results();
        assert!(optimized_away(&results[1]));
        assert!(!optimized_away(&results[3]));
        assert_eq!(warning_text(&Warning::new("a", "b")), "⚠ a: b");
        assert_eq!(warning_text(&Warning::info("c", "d")), "ℹ c: d");
    }

    #[test]
    fn complexity_names_the_runner_up_and_whether_it_was_beaten() {
        let mut fit = fixtures::summaries()[0].complexity.clone().unwrap();
        assert_eq!(
            complexity_text(&fit),
            "O(n) (runner-up O(n log n), not distinguishable)"
        );
        fit.distinguishable = true;
        assert_eq!(
            complexity_text(&fit),
            "O(n) (runner-up O(n log n), distinguishable)"
        );
        fit.runner_up = None;
        assert_eq!(complexity_text(&fit), "O(n)");
    }
}
