//! The exit status of a comparison, and `--fail-on-regression PCT`, which never passes
//! silently: it names every case it could not compare and why, and fails when it compared
//! nothing.

use std::process::ExitCode;

use knotmeter_protocol::{CompareReport, CompareStatus, Verdict};

/// 130 when cancelled; 1 when a case failed or the gate failed; 0 otherwise. Says why on
/// standard error.
pub fn exit_code(report: &CompareReport, fail_on_regression: Option<f64>) -> ExitCode {
    if report.cancelled {
        return ExitCode::from(130);
    }
    let failed = report
        .cases
        .iter()
        .filter(|c| c.status == CompareStatus::Failed)
        .count();
    if failed > 0 {
        eprintln!("knotmeter: {failed} case(s) failed on one side or both");
    }
    let passes = fail_on_regression.is_none_or(|limit| gate(report, limit));
    if failed > 0 || !passes {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Whether the comparison passes `--fail-on-regression limit`.
pub fn gate(report: &CompareReport, limit: f64) -> bool {
    let flag = format!("--fail-on-regression {limit}");
    let not_compared: Vec<String> = report
        .cases
        .iter()
        .filter(|c| c.comparison.is_none())
        .map(|c| {
            let why = c
                .note
                .as_deref()
                .and_then(|n| n.lines().next())
                .unwrap_or_default();
            format!("{} ({}: {why})", c.id, c.status.as_str().replace('_', " "))
        })
        .collect();
    if !not_compared.is_empty() {
        eprintln!(
            "knotmeter: {flag}: {} of the {} cases were not compared: {}",
            not_compared.len(),
            report.cases.len(),
            not_compared.join("; ")
        );
    }
    let mut passes = true;
    for case in &report.cases {
        let Some(c) = &case.comparison else { continue };
        let change = (c.ratio - 1.0) * 100.0;
        if c.verdict == Verdict::Slower && change > limit {
            eprintln!(
                "knotmeter: regression: {} is {change:.1}% slower than {} (limit {limit}%)",
                case.id, c.against
            );
            passes = false;
        }
    }
    if report.cases.iter().all(|c| c.comparison.is_none()) {
        eprintln!("knotmeter: {flag}: no case was compared, so the gate cannot pass");
        return false;
    }
    passes
}
