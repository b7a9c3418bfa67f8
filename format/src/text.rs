//! Phrases every surface uses: labels, the manifest line, failures, warnings, verdicts,
//! spreads and complexity. The closing summary is [`crate::Tally`]'s.

use knotmeter_protocol::{
    Allocations, BenchResult, CacheSimulation, CaseFailure, Comparison, ComplexityFit, FailureKind,
    Manifest, Measure, Reproducibility, Severity, SpreadSource, Verdict, Warning,
};

use crate::units::{format_bytes, format_duration_ns, group_digits, measure_text, MISSING};

/// A case id without its leading crate segment: `quickstart::chain_n/1000` → `chain_n/1000`.
/// A `::` inside the argument text (after the first `/`) is not a path separator.
pub fn case_label(id: &str) -> &str {
    let path_end = id.find('/').unwrap_or(id.len());
    match id[..path_end].find("::") {
        Some(index) => &id[index + 2..],
        None => id,
    }
}

/// The benchmark id of a case id: `quickstart::chain_n/1000` → `quickstart::chain_n` (an
/// argument's text may hold a `/`, a benchmark id never does).
pub fn bench_id(case_id: &str) -> &str {
    case_id.split('/').next().unwrap_or(case_id)
}

/// One line describing where and how the run was measured: versions, build, machine, timer
/// (or, for a count, callgrind).
pub fn manifest_line(manifest: &Manifest) -> String {
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
    parts.push(match manifest.measure {
        Measure::Time => format!(
            "timer {} (precision {}, read {})",
            timer.kind,
            format_duration_ns(timer.precision_ns),
            format_duration_ns(timer.read_cost_ns)
        ),
        Measure::Instructions => "instructions counted by callgrind".to_owned(),
    });
    if let Some(commit) = &manifest.git_commit {
        parts.push(format!("git {}", commit.get(..10).unwrap_or(commit)));
    }
    parts.join(" · ")
}

/// What went wrong in a failed case: `panicked at src/lib.rs:3:5: boom`.
pub fn failure_text(failure: &CaseFailure) -> String {
    let what = match failure.kind {
        FailureKind::Panic => "panicked",
        FailureKind::Cancelled => "cancelled",
        FailureKind::Misuse => "misused",
        FailureKind::Crashed => "crashed",
        FailureKind::Hung => "hung",
    };
    match &failure.location {
        Some(location) => format!("{what} at {location}: {}", failure.message),
        None => format!("{what}: {}", failure.message),
    }
}

/// A duration for people, in the words a hang is explained with: `120 s`, `1.5 s`, `250 ms`,
/// `2 µs`.
pub fn seconds_text(seconds: f64) -> String {
    if seconds >= 10.0 {
        format!("{seconds:.0} s")
    } else if seconds >= 1.0 {
        format!("{seconds:.1} s").replace(".0 s", " s")
    } else if seconds >= 1e-3 {
        format!("{:.0} ms", seconds * 1e3)
    } else {
        format!("{:.0} µs", seconds * 1e6)
    }
}

/// Why a case was taken for hung, said by whoever killed what measured it (`killed`: `the
/// bench binary`, `the process measuring it`): after `silent` seconds without a word, while its
/// longest step so far took `longest_step` seconds (a case is hung after `factor` times that,
/// and at least `floor` seconds), or, before its first step ended, after the configured limit.
pub fn hung_text(
    silent: f64,
    longest_step: Option<f64>,
    factor: u32,
    floor: f64,
    killed: &str,
) -> String {
    match longest_step {
        Some(step) => format!(
            "hung: nothing heard from it for {} while its longest step so far took {} (a case is \
             taken for hung after {factor}× its longest step, and at least {}); {killed} was \
             killed",
            seconds_text(silent),
            seconds_text(step),
            seconds_text(floor)
        ),
        None => format!(
            "hung: its first step (the cold call) had not ended after {}, the limit set by \
             --case-timeout (caseTimeoutSecs in the editor); {killed} was killed. Raise the limit \
             if one call of this benchmark takes longer",
            seconds_text(silent)
        ),
    }
}

/// A comparison's ratio and its 95% interval: `1.03× [1.01, 1.05]`.
pub fn ratio_text(comparison: &Comparison) -> String {
    format!(
        "{:.2}× [{:.2}, {:.2}]",
        comparison.ratio, comparison.low, comparison.high
    )
}

/// What a comparison was against, as people name it: a baseline case's label (`sort_std`),
/// `run 12`, or `baseline main`.
pub fn against_label(against: &str) -> &str {
    if against.starts_with("run ") || against.starts_with("baseline ") {
        against
    } else {
        case_label(against)
    }
}

/// The verdict as every human surface words it, with what it is against:
/// `3.4% slower than sort_std`, `18.8% faster than run 12`, `2.50× faster than sort_std`
/// (from twice as fast on, a factor reads better than a percentage), `same as run 12`.
/// Changes keep one decimal: the resolution verdict thresholds are applied at.
pub fn verdict_text(comparison: &Comparison) -> String {
    if comparison.kind == Some(knotmeter_protocol::ComparisonKind::Builds) {
        return builds_change_text(comparison);
    }
    let against = against_label(&comparison.against);
    let ratio = comparison.ratio;
    match comparison.verdict {
        Verdict::Same => format!("same as {against}"),
        Verdict::Faster if ratio > 0.0 && ratio <= 0.5 => {
            format!("{:.2}× faster than {against}", 1.0 / ratio)
        }
        Verdict::Faster => format!("{:.1}% faster than {against}", (1.0 - ratio) * 100.0),
        Verdict::Slower if ratio >= 2.0 => format!("{ratio:.2}× slower than {against}"),
        Verdict::Slower => format!("{:.1}% slower than {against}", (ratio - 1.0) * 100.0),
    }
}

/// What a before/after ratio was taken relative to, when both runs measured the machine's
/// probe (`Comparison::machine`): `relative to the machine, which ran 4.9% slower than in run
/// 12`. `None` for a comparison without it.
pub fn machine_text(comparison: &Comparison) -> Option<String> {
    let machine = comparison.machine.filter(|m| m.is_finite() && *m > 0.0)?;
    let against = against_label(&comparison.against);
    let pace = if (machine - 1.0).abs() < 0.0005 {
        "as fast as".to_owned()
    } else if machine > 1.0 {
        format!("{:.1}% slower than", (machine - 1.0) * 100.0)
    } else {
        format!("{:.1}% faster than", (1.0 - machine) * 100.0)
    };
    Some(format!(
        "relative to the machine, which ran {pace} in {against}"
    ))
}

/// Which of `compared` (case ids with their comparisons) were taken relative to the machine,
/// once per move of the machine ([`machine_text`]): each move with the ids of the cases whose
/// ratio is relative to it, or with `None` when that is every comparison against the same run
/// (a run of an engine without the probe, or a case stored before it had one, is compared
/// without it: a sentence about the run must not claim it for them).
pub fn machine_moves<'a>(
    compared: &[(&'a str, &Comparison)],
) -> Vec<(String, Option<Vec<&'a str>>)> {
    let mut moves: Vec<(String, &str, Vec<&'a str>)> = Vec::new();
    for (id, comparison) in compared {
        let Some(text) = machine_text(comparison) else {
            continue;
        };
        match moves.iter_mut().find(|(t, _, _)| *t == text) {
            Some((_, _, ids)) => ids.push(id),
            None => moves.push((text, &comparison.against, vec![id])),
        }
    }
    moves
        .into_iter()
        .map(|(text, against, ids)| {
            let all = compared
                .iter()
                .filter(|(_, c)| c.against == against)
                .count();
            let ids = (ids.len() < all).then_some(ids);
            (text, ids)
        })
        .collect()
}

/// A comparison of the same case in two builds (`knotmeter compare`), as every surface
/// words it: the head's change over the base, its 95% interval, the verdict and the base:
/// `+3.1% [2.6, 3.7] slower than main`.
pub fn builds_change_text(comparison: &Comparison) -> String {
    let verdict = match comparison.verdict {
        Verdict::Slower => "slower than",
        Verdict::Faster => "faster than",
        Verdict::Same => "same as",
    };
    let percent = |ratio: f64| (ratio - 1.0) * 100.0;
    format!(
        "{:+.1}% [{:.1}, {:.1}] {verdict} {}",
        percent(comparison.ratio),
        percent(comparison.low),
        percent(comparison.high),
        comparison.against
    )
}

/// The relative change of a comparison's ratio: `+3.4%`, `-18.8%` (`—` when not finite).
pub fn change_text(comparison: &Comparison) -> String {
    let percent = (comparison.ratio - 1.0) * 100.0;
    if percent.is_finite() {
        format!("{percent:+.1}%")
    } else {
        MISSING.to_owned()
    }
}

/// A corrected p-value: `0.012`, `<0.001` below a thousandth, `—` when not a number.
pub fn p_value_text(p_value: f64) -> String {
    if !p_value.is_finite() {
        MISSING.to_owned()
    } else if p_value < 0.001 {
        "<0.001".to_owned()
    } else {
        format!("{p_value:.3}")
    }
}

/// The code of the warning a case of a comparison run carries when it was measured but not
/// compared with the base (the base does not build, names nothing, or gave no verdict): the
/// head's figure stands, and no surface shows it as a pass.
pub const NOT_COMPARED: &str = "not_compared";

/// The [`NOT_COMPARED`] warning, with why: `the base (main) does not build: error[E0425]: …`.
/// Every surface words it `⚠ not_compared: <why>`.
pub fn not_compared_warning(why: &str) -> Warning {
    Warning {
        code: NOT_COMPARED.to_owned(),
        message: why.to_owned(),
        severity: Severity::Warning,
    }
}

/// The code of the warning that says a body cannot be told apart from an empty one.
pub const OPTIMIZED_AWAY: &str = "optimized_away";

/// What every surface shows instead of the estimate of such a body: a small number there
/// would look confident where nothing was measured.
pub const EMPTY_ESTIMATE: &str = "≈ 0 (indistinguishable from empty)";

/// Whether `result` carries the [`OPTIMIZED_AWAY`] warning.
pub fn optimized_away(result: &BenchResult) -> bool {
    result.warnings.iter().any(|w| w.code == OPTIMIZED_AWAY)
}

/// The mark of a warning's severity: `⚠` for a warning, `ℹ` for an informational note.
pub fn warning_mark(severity: Severity) -> &'static str {
    match severity {
        Severity::Warning => "⚠",
        Severity::Info => "ℹ",
    }
}

/// A warning on one line of its own: `⚠ code: message` or `ℹ code: message`.
pub fn warning_text(warning: &Warning) -> String {
    format!(
        "{} {}: {}",
        warning_mark(warning.severity),
        warning.code,
        warning.message
    )
}

/// A complexity fit: `O(n)` when the best class beats every other, or the classes the data
/// cannot tell apart, simplest first: `O(n) or O(n log n) (cannot be told apart)`.
pub fn complexity_text(fit: &ComplexityFit) -> String {
    let others: Vec<&str> = fit
        .candidates
        .iter()
        .map(String::as_str)
        .filter(|class| *class != fit.best)
        .collect();
    if fit.distinguishable || others.is_empty() {
        return fit.best.clone();
    }
    let mut classes = vec![fit.best.as_str()];
    classes.extend(others);
    let (last, first) = classes.split_last().unwrap_or((&"", &[]));
    format!("{} or {last} (cannot be told apart)", first.join(", "))
}

/// Samples times operations per sample, grouped: `1 200 × 4 096`.
pub fn samples_text(samples: u64, ops_per_sample: u64) -> String {
    format!(
        "{} × {}",
        group_digits(samples),
        group_digits(ops_per_sample)
    )
}

/// A relative half-width past which `±` says nothing a reader can use (`±40998%`): the
/// interval reaches below zero or past twice the estimate, and it is worded as a range.
pub const WIDE_PRECISION: f64 = 1.0;

/// A relative half-width: `±0.6%`, `±12%`, `±<0.1%` below a twentieth of a percent, `over
/// ±100%` from [`WIDE_PRECISION`] on (empty when unknown).
pub fn precision_text(precision: Option<f64>) -> String {
    let Some(precision) = precision.filter(|p| p.is_finite() && *p >= 0.0) else {
        return String::new();
    };
    let percent = precision * 100.0;
    if precision >= WIDE_PRECISION {
        "over ±100%".to_owned()
    } else if percent < 0.05 {
        "±<0.1%".to_owned()
    } else if percent < 10.0 {
        format!("±{percent:.1}%")
    } else {
        format!("±{percent:.0}%")
    }
}

/// How many rounds a result's estimate rests on, when it was measured in rounds.
pub fn rounds_of(result: &BenchResult) -> usize {
    result.rounds.as_ref().map_or(0, |r| r.medians_ns.len())
}

/// The `±` beside a figure: the larger side of its 95% interval over rounds, relative to it
/// (`±1.8%`), or the interval itself (`[120 ns, 330 µs]`) when it is [wide](interval_is_wide);
/// `None` where the figure has no such interval: a body optimised away, a case that got one
/// round (whose interval covers one process and is not shown beside the figure), and a result
/// stored by an engine that measured in one stretch. A count shows `exact` when its
/// repetitions agree, else their range relative to it.
pub fn interval_mark(result: &BenchResult) -> Option<String> {
    if optimized_away(result) {
        return None;
    }
    // A count's range over its repetitions: none when the body is deterministic.
    if result.measure == Measure::Instructions {
        let e = &result.estimate;
        if e.low_ns == e.high_ns {
            return Some("exact".to_owned());
        }
        let text = precision_text(result.precision);
        return (!text.is_empty()).then_some(text);
    }
    if rounds_of(result) < 2 {
        return None;
    }
    if interval_is_wide(result) {
        return Some(interval_span(result));
    }
    let text = precision_text(result.precision);
    (!text.is_empty()).then_some(text)
}

/// Whether a result's interval is too wide for a `±` to say anything (at least
/// [`WIDE_PRECISION`]: it reaches below zero or past twice the estimate), so that it is
/// shown as the range it is.
pub fn interval_is_wide(result: &BenchResult) -> bool {
    result
        .precision
        .is_some_and(|p| p.is_finite() && p >= WIDE_PRECISION)
}

/// The estimate's 95% interval as a range: `[12.1 ns, 12.5 ns]`.
fn interval_span(result: &BenchResult) -> String {
    let e = &result.estimate;
    format!(
        "[{}, {}]",
        measure_text(e.low_ns, result.measure),
        measure_text(e.high_ns, result.measure)
    )
}

/// [`interval_mark`] as a cell of a narrow table: `±?` where there is none (explained once
/// under the table by [`interval_legend`]), `wide` where the interval is [wide](interval_is_wide)
/// (the case's `imprecise` warning under it gives the range).
pub fn interval_cell(result: &BenchResult) -> String {
    if interval_is_wide(result) && interval_mark(result).is_some() {
        return "wide".to_owned();
    }
    interval_mark(result).unwrap_or_else(|| "±?".to_owned())
}

/// The line under a table with `unknown` cells of `±?`.
pub fn interval_legend(unknown: usize) -> String {
    let cases = if unknown == 1 { "case" } else { "cases" };
    format!(
        "±? ({unknown} {cases}): fewer than two rounds, so no interval between processes (the \
         case says why)"
    )
}

/// What a figure's `±` means, in one sentence of its details: `±1.8%: the 95% interval of the
/// estimate, [12.1 ns, 12.5 ns], over 10 rounds, each in a fresh process: where a rerun on this
/// machine should land`.
pub fn interval_sentence(result: &BenchResult) -> String {
    let span = interval_span(result);
    if result.measure == Measure::Instructions {
        return count_sentence(result, &span);
    }
    let rounds = rounds_of(result);
    if interval_is_wide(result) {
        if let Some(mark) = interval_mark(result) {
            return format!(
                "{mark}: the 95% interval of the estimate over {rounds} rounds, too wide for a \
                 ± to mean anything: its rounds disagree by more than the estimate itself \
                 (too few of them, or a machine whose load came and went); a rerun may land \
                 anywhere in it"
            );
        }
    }
    match (interval_mark(result), &result.rounds) {
        (Some(mark), Some(r)) if r.processes > 1 && r.widened => format!(
            "{mark}: the 95% interval of the estimate, {span}, over {rounds} rounds, each in a \
             fresh process, widened to how far whole runs of it move on this machine (learnt \
             from the history): where a rerun on this machine should land"
        ),
        (Some(mark), Some(r)) if r.processes > 1 => match r.machine_sd {
            Some(sd) => format!(
                "{mark}: the 95% interval of the estimate, {span}, over {rounds} rounds, each in \
                 a fresh process, with how far this machine's speed moves between runs \
                 ({:.1}%, learnt from the history): where a rerun on this machine should land",
                sd * 100.0
            ),
            None => format!(
                "{mark}: the 95% interval of the estimate, {span}, over {rounds} rounds, each in \
                 a fresh process: where a rerun on this machine should land"
            ),
        },
        (Some(mark), _) => format!(
            "{mark}: the 95% interval of the estimate, {span}, over {rounds} rounds in one \
             process: what differs between processes is not in it"
        ),
        (None, _) => {
            let within = match precision_text(result.precision) {
                text if text.is_empty() => String::new(),
                text => format!(" ({text})"),
            };
            format!(
                "the median of one process's samples, 95% interval {span}{within}: it covers \
                 that process alone, and a rerun may land outside it"
            )
        }
    }
}

/// What a count's interval is: its repetitions' range, one value when the body is
/// deterministic.
fn count_sentence(result: &BenchResult, span: &str) -> String {
    let e = &result.estimate;
    if e.low_ns == e.high_ns {
        format!(
            "instructions counted by callgrind, the same in each of {} repetitions: exact for \
             this build on this machine",
            result.samples
        )
    } else {
        format!(
            "instructions counted by callgrind, the median of {} repetitions, which ranged over \
             {span}",
            result.samples
        )
    }
}

/// How far the history says this case moves between stored runs on this machine: `between
/// stored runs on this machine: ±4.1%` with what it was learnt from; `None` until enough runs
/// are stored.
pub fn history_spread_text(reproducibility: Option<&Reproducibility>) -> Option<String> {
    let r = reproducibility?;
    let spread = precision_text(r.spread);
    if spread.is_empty() {
        return None;
    }
    let source = spread_source_text(Some(r)).map_or(String::new(), |s| format!(" ({s})"));
    Some(format!(
        "between stored runs on this machine: {spread}, learnt from {} runs{source}; before/after \
         verdicts widen their interval to it",
        r.runs
    ))
}

/// Which earlier runs the spread between runs was learnt from, for a result's details; `None`
/// while it is not known or was not said (a knotmeter that did not record it).
pub fn spread_source_text(reproducibility: Option<&Reproducibility>) -> Option<&'static str> {
    match reproducibility?.learnt_from? {
        SpreadSource::SameCode => Some("of the same commit, without uncommitted changes"),
        SpreadSource::AnyCode => Some(
            "consecutive, whatever their commit: too few runs of one commit without \
             uncommitted changes, so a change between commits counts as noise and it errs wide",
        ),
    }
}

/// A run's measuring mode from its time budget per case: `quick` (100 ms, `--quick`), `full`
/// (1 s, the default), the budget itself for any other (`2.5 s per case`), `—` when unknown.
/// Runs of different budgets are never compared, and charts keep them apart.
pub fn mode_label(budget_ms: Option<u64>) -> String {
    match budget_ms {
        Some(100) => "quick".to_owned(),
        Some(1000) => "full".to_owned(),
        Some(ms) => format!("{} per case", format_duration_ns(ms as f64 * 1e6)),
        None => MISSING.to_owned(),
    }
}

/// A count's cache simulation per operation, with the formula of its cycles: `cache
/// simulation per operation: 7 012 L1 hits, 3 LL hits, 0 RAM hits; about 7 027 cycles (L1 + 5 ×
/// LL + 35 × RAM, gungraun's estimate)`.
pub fn cache_text(cache: &CacheSimulation) -> String {
    let n = |v: f64| group_digits(v.max(0.0).round() as u64);
    format!(
        "cache simulation per operation: {} L1 hits, {} LL hits, {} RAM hits; about {} cycles \
         (L1 + 5 × LL + 35 × RAM, gungraun's estimate)",
        n(cache.l1_hits),
        n(cache.ll_hits),
        n(cache.ram_hits),
        n(cache.estimated_cycles)
    )
}

/// Allocations per operation and their bytes: `3 allocs/op (96 B)`, `0.50 allocs/op (8 B)`.
pub fn allocations_text(allocations: &Allocations) -> String {
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

/// `YYYY-MM-DD HH:MM` of a Unix time, in UTC.
pub fn time_text(seconds: u64) -> String {
    let days = (seconds / 86_400) as i64;
    let of_day = seconds % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}",
        of_day / 3600,
        of_day % 3600 / 60
    )
}

/// `stored 2025-11-30 19:42 UTC`, for a result read back from the history rather than measured
/// since the daemon started.
pub fn stored_note(result: &BenchResult) -> Option<String> {
    result
        .stored_at
        .map(|at| format!("stored {} UTC", time_text(at)))
}

#[cfg(test)]
mod tests {
    use knotmeter_protocol::TimerInfo;

    use super::*;

    fn comparison(against: &str, ratio: f64, verdict: Verdict) -> Comparison {
        Comparison {
            machine: None,
            against: against.to_owned(),
            ratio,
            low: ratio * 0.99,
            high: ratio * 1.01,
            p_value: 0.0001,
            verdict,
            kind: None,
        }
    }

    /// Issue 20: a before/after ratio taken relative to the machine's probe says so, and how
    /// the machine moved, on every surface that shows the ratio; one without says nothing.
    #[test]
    fn a_ratio_relative_to_the_machine_says_how_the_machine_moved() {
        let mut c = comparison("run 12", 1.003, Verdict::Same);
        assert_eq!(machine_text(&c), None);
        assert!(!crate::layout::compared_text("q::a", &c).contains("machine"));
        for (machine, said) in [
            (
                1.049,
                "relative to the machine, which ran 4.9% slower than in run 12",
            ),
            (
                0.952,
                "relative to the machine, which ran 4.8% faster than in run 12",
            ),
            (
                1.0002,
                "relative to the machine, which ran as fast as in run 12",
            ),
        ] {
            c.machine = Some(machine);
            assert_eq!(machine_text(&c).as_deref(), Some(said));
        }
        c.machine = Some(1.049);
        assert_eq!(
            crate::layout::compared_text("q::a", &c),
            "q::a: same as run 12 (ratio 1.003 [0.993, 1.013]; relative to the machine, which \
             ran 4.9% slower than in run 12)"
        );
        c.machine = Some(f64::NAN);
        assert_eq!(machine_text(&c), None);
    }

    /// A sentence about the run's ratios names the cases it holds for unless it holds for
    /// every comparison against that run: a case compared without the probe is not relative
    /// to the machine.
    #[test]
    fn a_move_of_the_machine_names_its_cases_unless_it_is_every_ratio_against_that_run() {
        let mut relative = comparison("run 7", 1.0, Verdict::Same);
        relative.machine = Some(1.049);
        let plain = comparison("run 7", 0.97, Verdict::Faster);
        let group = comparison("q::base", 1.01, Verdict::Slower);
        let said = "relative to the machine, which ran 4.9% slower than in run 7".to_owned();
        assert_eq!(
            machine_moves(&[("q::a", &relative), ("q::b", &relative), ("q::g", &group)]),
            [(said.clone(), None)]
        );
        assert_eq!(
            machine_moves(&[("q::a", &relative), ("q::b", &plain)]),
            [(said, Some(vec!["q::a"]))]
        );
        assert!(machine_moves(&[("q::b", &plain), ("q::g", &group)]).is_empty());
    }

    #[test]
    fn labels_drop_only_the_crate_segment() {
        assert_eq!(case_label("quickstart::chain_n/1000"), "chain_n/1000");
        assert_eq!(case_label("q::parsing::parse_csv"), "parsing::parse_csv");
        assert_eq!(case_label("q::f/Foo::new()"), "f/Foo::new()");
        assert_eq!(case_label("lonely"), "lonely");
        assert_eq!(case_label("lonely/a::b"), "lonely/a::b");
        assert_eq!(bench_id("q::f/\"a/b\""), "q::f");
        assert_eq!(bench_id("q::g"), "q::g");
    }

    #[test]
    fn manifest_line_names_the_build_machine_and_timer() {
        let manifest = Manifest {
            knotmeter_version: "0.1.0".to_owned(),
            rustc: "rustc 1.95.0 (59807616e 2026-04-14)".to_owned(),
            profile: "release".to_owned(),
            opt_level: "3".to_owned(),
            debug_assertions: true,
            target: "x86_64-unknown-linux-gnu".to_owned(),
            cpu: String::new(),
            cores: 8,
            timer: TimerInfo {
                kind: "instant".to_owned(),
                precision_ns: 20.0,
                read_cost_ns: 19.0,
            },
            git_commit: Some("0123456789abcdef".to_owned()),
            git_dirty: None,
            timestamp: 0,
            seed: 0,
            budget_ms: 1000,
            target_precision: 0.01,
            measure: Default::default(),
            warnings: Vec::new(),
        };
        assert_eq!(
            manifest_line(&manifest),
            "knotmeter 0.1.0 · rustc 1.95.0 · release (opt-level 3) · debug assertions on · \
             x86_64-unknown-linux-gnu · unknown cpu × 8 cores · \
             timer instant (precision 20.0 ns, read 19.0 ns) · git 0123456789"
        );
    }

    #[test]
    fn failures_read_like_a_panic_message() {
        let mut failure = CaseFailure {
            id: "q::boom".to_owned(),
            kind: FailureKind::Panic,
            message: "boom, with a comma".to_owned(),
            location: Some("src/lib.rs:3:5".to_owned()),
        };
        assert_eq!(
            failure_text(&failure),
            "panicked at src/lib.rs:3:5: boom, with a comma"
        );
        failure.kind = FailureKind::Cancelled;
        failure.location = None;
        failure.message = "run cancelled".to_owned();
        assert_eq!(failure_text(&failure), "cancelled: run cancelled");
    }

    #[test]
    fn verdicts_say_against_what() {
        let texts = [
            comparison("q::sort_std", 1.034, Verdict::Slower),
            comparison("run 12", 0.8125, Verdict::Faster),
            comparison("q::sort_std", 0.4, Verdict::Faster),
            comparison("baseline main", 3.0, Verdict::Slower),
            comparison("run 12", 1.002, Verdict::Same),
        ]
        .map(|c| verdict_text(&c));
        assert_eq!(
            texts,
            [
                "3.4% slower than sort_std",
                "18.8% faster than run 12",
                "2.50× faster than sort_std",
                "3.00× slower than baseline main",
                "same as run 12",
            ]
        );
        let words = [Verdict::Faster, Verdict::Slower, Verdict::Same].map(Verdict::as_str);
        assert_eq!(words, ["faster", "slower", "same"]);
    }

    #[test]
    fn comparison_numbers() {
        let c = comparison("run 12", 1.034, Verdict::Slower);
        assert_eq!(ratio_text(&c), "1.03× [1.02, 1.04]");
        assert_eq!(change_text(&c), "+3.4%");
        assert_eq!(p_value_text(c.p_value), "<0.001");
        assert_eq!(p_value_text(0.0123), "0.012");
        assert_eq!(p_value_text(f64::NAN), "—");
    }

    #[test]
    fn spreads_say_when_they_are_not_known() {
        let known = Reproducibility {
            spread: Some(0.012),
            runs: 9,
            runs_needed: 5,
            learnt_from: Some(SpreadSource::SameCode),
        };
        let early = Reproducibility {
            spread: None,
            runs: 2,
            runs_needed: 5,
            learnt_from: None,
        };
        assert!(history_spread_text(Some(&known))
            .unwrap()
            .starts_with("between stored runs on this machine: ±1.2%, learnt from 9 runs"));
        assert_eq!(history_spread_text(Some(&early)), None);
        assert_eq!(history_spread_text(None), None);
        assert!(spread_source_text(Some(&known))
            .unwrap()
            .contains("of the same commit"));
        let across = Reproducibility {
            learnt_from: Some(SpreadSource::AnyCode),
            ..known
        };
        assert!(spread_source_text(Some(&across))
            .unwrap()
            .contains("errs wide"));
        assert_eq!(spread_source_text(Some(&early)), None);
        assert_eq!(spread_source_text(None), None);
        assert_eq!(
            interval_legend(1),
            "±? (1 case): fewer than two rounds, so no interval between processes (the case \
             says why)"
        );
    }

    #[test]
    fn precision_never_claims_less_than_it_can_show() {
        assert_eq!(precision_text(Some(0.0061)), "±0.6%");
        assert_eq!(precision_text(Some(0.123)), "±12%");
        assert_eq!(precision_text(Some(0.00001)), "±<0.1%");
        assert_eq!(precision_text(Some(409.98)), "over ±100%");
        assert_eq!(precision_text(None), "");
        assert_eq!(precision_text(Some(f64::NAN)), "");
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
    fn modes_are_named_by_their_budget() {
        let labels = [Some(100), Some(1000), Some(2500), None].map(mode_label);
        assert_eq!(labels, ["quick", "full", "2.50 s per case", "—"]);
    }

    #[test]
    fn warnings_are_marked_by_severity() {
        assert_eq!(warning_text(&Warning::new("a", "b")), "⚠ a: b");
        assert_eq!(warning_text(&Warning::info("c", "d")), "ℹ c: d");
    }

    #[test]
    fn complexity_lists_the_classes_it_cannot_tell_apart() {
        let mut fit = ComplexityFit {
            best: "O(n)".to_owned(),
            runner_up: Some("O(n log n)".to_owned()),
            distinguishable: false,
            candidates: vec!["O(n)".to_owned(), "O(n log n)".to_owned()],
            fits: Vec::new(),
        };
        assert_eq!(
            complexity_text(&fit),
            "O(n) or O(n log n) (cannot be told apart)"
        );
        fit.candidates.insert(0, "O(1)".to_owned());
        fit.best = "O(1)".to_owned();
        assert_eq!(
            complexity_text(&fit),
            "O(1), O(n) or O(n log n) (cannot be told apart)"
        );
        fit.distinguishable = true;
        assert_eq!(complexity_text(&fit), "O(1)");
        fit.distinguishable = false;
        fit.candidates.clear();
        assert_eq!(complexity_text(&fit), "O(1)");
    }
}
