//! A case's result from its rounds: each round's median is one observation, and the estimate
//! and its interval come from the variation between them.
//!
//! Each round's samples are corrected with that round's own empty body (processes differ in
//! their overhead too), and their median is the round's figure. The estimate is the geometric
//! mean of the rounds' figures with a Student's t interval over their logarithms: a round's
//! state (its process, the machine at that moment) multiplies its figure, and a log scale
//! makes such effects additive. A run's rounds all lie within its few seconds, so they cannot see
//! what holds for the whole run (the machine's state over minutes): the interval's standard
//! error is at least what reruns show beyond the rounds ([`across_runs`]). Where a round's
//! figure is zero (a body the compiler removed),
//! the arithmetic mean and its t interval take over. With a single round there is nothing to
//! see between processes: that round's distribution-free interval of the median is given, and
//! the warning `imprecise` says it covers one process only.
//!
//! The samples of every round together give the distribution (quantiles, outliers, the
//! histogram's modes) and the validity checks; the noise check (`high_noise`) looks inside each
//! round, since what differs between rounds is what the interval shows.

use knotmeter_protocol::{
    Allocations, BenchResult, Estimate, Overhead, Quantiles, RawSamples, Rounds, Throughput,
    Warning,
};

use super::{baseline_drift, corrected, validity, Context, LEVEL, MIN_SAMPLES_FOR_INTERVAL};
use crate::measure::schedule::MAX_SAMPLES;
use crate::measure::Measurement;
use crate::registry::Case;
use crate::stats::{self, rounds::Mean};

/// The code of the note on a result whose interval is wider than the precision target.
pub(crate) const WIDE_INTERVAL: &str = "wide_interval";
/// The code of the note on rounds measured in one process.
pub(crate) const IN_PROCESS: &str = "in_process";
/// What moves every case of a run at once, as a standard error of one run's log estimate: the
/// machine's speed over minutes, which no run's rounds see. On the 2-core machines we measure
/// on, the common shift of whole runs of the calibration suite had a standard deviation of
/// 2.05% to 5.6% in five sittings (`cargo xtask drift`), and hosted CI runners are reported at
/// about 2.7% run to run; one run's interval assumes this much until the history has seen the
/// machine (docs/measurement.md, §7).
const MACHINE_SE: f64 = 0.025;
/// The least standard error of one run's log estimate relative to the machine's probe (the
/// probe takes the machine's move out of a before/after ratio, not what a case's run strays
/// from it): relative to the engine's probe, the chain-like cases of the calibration suite
/// moved by 0.6% to 1.3% between runs (docs/calibration.md, "What moves whole runs").
const RUN_FLOOR_SE: f64 = 0.0075;
/// What holds for a whole run also moves a case by a share of what differs between its
/// processes: a case whose processes differ by 30% (an allocator's state, a bimodal parse) saw
/// whole runs move by far more than its rounds' standard error, one whose processes agree by
/// little more than the floor. In docs/calibration.md's quiet fresh runs at e673d7a, the
/// realistic cases' intervals at a share of 0.4 were 1.15 to 1.75 times narrower than a
/// calibrated interval for how far their eight runs spread (about 1.4 half-ranges; `vec_push`
/// 2.75 times), which a share of 0.5 to 0.7 would have met; the paired ratios' share is 0.6
/// too ([`crate::compare::rounds`]).
/// An A/B at this share (docs/measurement.md, §7) found it wide on a quiet machine.
const RUN_SHARE_OF_PROCESS_SD: f64 = 0.6;

/// Sets `result`'s interval from what the history knows, once it knows it: `machine_sd`, how
/// far the machine's speed moves between runs (learnt from the probes of its stored runs), in
/// place of the assumed [`MACHINE_SE`], which may narrow the interval as well as widen it;
/// then `run_sd`, the standard deviation of one run's log estimate around where runs of this
/// case land on this machine (learnt from its stored results), when that is more: the rounds
/// of one run see what changes within the run, not a machine state that holds for longer.
/// The estimate stays; the `±`, the interval, the throughput's interval, `rounds.widened` and
/// `rounds.machine_sd` say it.
pub(crate) fn from_the_history(
    result: &mut BenchResult,
    machine_sd: Option<f64>,
    run_sd: Option<f64>,
) {
    let machine_sd = machine_sd.filter(|sd| sd.is_finite() && *sd >= 0.0);
    let Some(rounds) = result.rounds.as_mut() else {
        return;
    };
    // The figures `estimate` made the interval from: the finite ones, all positive.
    let finite: Vec<f64> = rounds
        .medians_ns
        .iter()
        .copied()
        .filter(|m| m.is_finite())
        .collect();
    let logs: Vec<f64> = finite.iter().map(|m| m.ln()).collect();
    let positive = finite.iter().all(|m| *m > 0.0);
    let Some(own) = Mean::of(&logs).filter(|_| positive && logs.len() >= 2) else {
        return;
    };
    let mut mean = across_runs_on(own, machine_sd);
    let run_sd = run_sd.filter(|sd| sd.is_finite() && *sd > mean.se);
    if let Some(sd) = run_sd {
        mean = mean.widened_to(sd);
    }
    if machine_sd.is_none() && run_sd.is_none() {
        return;
    }
    let (low, high) = mean.interval(LEVEL);
    let (low, high) = (low.exp(), high.exp());
    let e = &mut result.estimate;
    e.low_ns = low;
    e.high_ns = high;
    result.precision = Some(relative(e.median_ns, low, high)).filter(|p| p.is_finite());
    if let Some(throughput) = result.throughput.as_mut() {
        *throughput = Throughput::at(
            throughput.unit,
            throughput.per_operation,
            e.median_ns,
            low,
            high,
        );
    }
    rounds.widened = run_sd.is_some();
    rounds.machine_sd = machine_sd;
    rewarn_wide(result, logs.len());
}

/// The words of the warning [`wide_warning`] gives, by which [`from_the_history`] finds it.
const DISAGREE: &str = "disagree by more than the estimate itself";

/// The warning of an interval that reaches past twice the estimate (or below zero): the figure
/// is not known, and a warning, never a tick, stands beside it.
fn wide_warning(rounds: usize, low: f64, high: f64) -> Warning {
    Warning::new(
        "imprecise",
        format!(
            "its {rounds} rounds {DISAGREE} (95% interval [{}, {}]): the figure is not known; \
             rerun it on a quieter machine, or give it more time with `--time SECS` for more \
             rounds",
            knotmeter_format::units::format_duration_ns(low),
            knotmeter_format::units::format_duration_ns(high),
        ),
    )
}

/// [`wide_warning`] again for the interval the history left: it gives one when the history
/// widened an interval past twice its estimate, and takes it away (or quotes the new interval)
/// when the history narrowed it, so the warning always speaks of the interval shown.
fn rewarn_wide(result: &mut BenchResult, rounds: usize) {
    result
        .warnings
        .retain(|w| !(w.code == "imprecise" && w.message.contains(DISAGREE)));
    let empty = result
        .warnings
        .iter()
        .any(|w| w.code == validity::OPTIMIZED_AWAY);
    let imprecise = result.warnings.iter().any(|w| w.code == "imprecise");
    let wide = result
        .precision
        .is_some_and(|p| p >= knotmeter_format::text::WIDE_PRECISION);
    if wide && !empty && !imprecise && rounds >= 2 {
        let e = &result.estimate;
        let warning = wide_warning(rounds, e.low_ns, e.high_ns);
        result.warnings.push(warning);
    }
}

/// One round of a case: what its slot measured, and whether the benchmark called a timing
/// method more than once.
#[derive(Debug, Clone)]
pub(crate) struct Round {
    /// The slot's measurement.
    pub(crate) m: Measurement,
    /// The benchmark called a timing method again (only the first was measured).
    pub(crate) twice: bool,
}

/// How the rounds of a case were run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Plan {
    /// Separate processes they ran in (1 when all ran in the bench binary's own).
    pub(crate) processes: u32,
    /// Rounds the case was planned to get.
    pub(crate) planned: u32,
    /// The run was cancelled before the case's rounds ended.
    pub(crate) cut_short: bool,
}

/// An estimate with its interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RoundEstimate {
    /// The estimate per operation.
    pub(crate) estimate: f64,
    /// Its 95% interval.
    pub(crate) low: f64,
    /// Its 95% interval.
    pub(crate) high: f64,
    /// The interval's larger side relative to the estimate; NaN when it has none or the
    /// estimate is zero.
    pub(crate) precision: f64,
    /// The same from the rounds' own spread alone ([`across_runs`] not applied): what more
    /// rounds narrow, which the stop rule and the note `wide_interval` read.
    pub(crate) rounds_precision: f64,
    /// The mean of the rounds' log figures, when every figure was positive (what comparisons
    /// across runs use).
    pub(crate) log: Option<Mean>,
}

/// A round's figure: the median per operation of its samples less its own empty body's median.
pub(crate) fn round_median(m: &Measurement) -> f64 {
    let c = corrected(&m.workload_ns, &m.baseline_ns).samples;
    stats::median(&stats::sorted(&c))
}

/// `mean`, one run's mean of its rounds' log figures, with the standard error a rerun sees:
/// what the case's run strays from the machine ([`relative_to_the_machine`]) and the
/// machine's own move ([`MACHINE_SE`]), independent, so their variances add.
pub(crate) fn across_runs(mean: Mean) -> Mean {
    across_runs_on(mean, None)
}

/// [`across_runs`] on a machine whose move between runs the history learnt (`machine_sd`,
/// `Rounds::machine_sd`), or assumed ([`MACHINE_SE`]) without it.
pub(crate) fn across_runs_on(mean: Mean, machine_sd: Option<f64>) -> Mean {
    let machine = machine_sd
        .filter(|sd| sd.is_finite() && *sd >= 0.0)
        .unwrap_or(MACHINE_SE);
    let own = relative_to_the_machine(mean);
    mean.widened_to(own.se.hypot(machine))
}

/// `mean`, one run's mean of its rounds' log figures, with the standard error of a run taken
/// relative to the machine's probe: at least [`RUN_FLOOR_SE`], and at least
/// [`RUN_SHARE_OF_PROCESS_SD`] of the rounds' own standard deviation (what differs between the
/// case's processes, which the probe does not take out).
pub(crate) fn relative_to_the_machine(mean: Mean) -> Mean {
    let process_sd = mean.se * (mean.n as f64).sqrt();
    mean.widened_to(RUN_FLOOR_SE.max(RUN_SHARE_OF_PROCESS_SD * process_sd))
}

/// The estimate and interval from the rounds' figures (two or more).
pub(crate) fn estimate(medians: &[f64]) -> Option<RoundEstimate> {
    let finite: Vec<f64> = medians.iter().copied().filter(|m| m.is_finite()).collect();
    if finite.len() < 2 {
        return None;
    }
    if finite.iter().all(|m| *m > 0.0) {
        // Logs relative to the first figure, so that equal figures give exactly that figure.
        let first = finite[0];
        let logs: Vec<f64> = finite.iter().map(|m| (m / first).ln()).collect();
        let rounds = Mean::of(&logs)?;
        let estimate = first * rounds.mean.exp();
        let interval = |mean: &Mean| {
            let (low, high) = mean.interval(LEVEL);
            (first * low.exp(), first * high.exp())
        };
        let (rounds_low, rounds_high) = interval(&rounds);
        let mean = across_runs(rounds);
        let (low, high) = interval(&mean);
        let mean = Mean {
            mean: mean.mean + first.ln(),
            ..mean
        };
        return Some(RoundEstimate {
            estimate,
            low,
            high,
            precision: relative(estimate, low, high),
            rounds_precision: relative(estimate, rounds_low, rounds_high),
            log: Some(mean),
        });
    }
    let mean = Mean::of(&finite)?;
    let (low, high) = mean.interval(LEVEL);
    let estimate = mean.mean.max(0.0);
    let (low, high) = (low.max(0.0), high.max(0.0));
    let precision = relative(estimate, low, high);
    Some(RoundEstimate {
        estimate,
        low,
        high,
        precision,
        rounds_precision: precision,
        log: None,
    })
}

/// The larger side of `[low, high]` relative to `estimate`; NaN for a zero estimate.
fn relative(estimate: f64, low: f64, high: f64) -> f64 {
    if estimate > 0.0 {
        ((high - estimate).max(estimate - low) / estimate).max(0.0)
    } else {
        f64::NAN
    }
}

/// The result of `case` from its `rounds` (at least one).
pub(crate) fn analyse_rounds(
    case: &Case,
    rounds: Vec<Round>,
    plan: &Plan,
    cx: &Context,
) -> BenchResult {
    let medians: Vec<f64> = rounds.iter().map(|r| round_median(&r.m)).collect();
    let overheads: Vec<f64> = rounds
        .iter()
        .map(|r| stats::median(&stats::sorted(&r.m.baseline_ns)))
        .collect();
    let within_noise = within_round_noise(&rounds);
    let twice = rounds.iter().any(|r| r.twice);
    let pooled = pool(&rounds);
    let (corrected_all, capped) = corrected_samples(&rounds);
    let sorted = stats::sorted(&corrected_all);
    let tukey = stats::tukey(&sorted);
    let (estimate, rounds_kept) = match estimate(&medians) {
        Some(e) => (e, true),
        None => (single_round(&sorted), false),
    };
    let overhead_ns = stats::median(&stats::sorted(&overheads));
    // With several rounds, the drift is between the first and second half of the rounds.
    let drift = if overheads.len() >= 2 {
        baseline_drift(&overheads)
    } else {
        baseline_drift(&pooled.baseline_ns)
    };

    let warnings = case_warnings(
        &pooled,
        &sorted,
        overhead_ns,
        &estimate,
        Shape {
            plan,
            rounds: rounds.len(),
            within_noise,
            twice,
        },
        cx,
    );
    let precision = estimate.precision;
    BenchResult {
        id: case.id.clone(),
        name: case.name.clone(),
        args: case.args.clone(),
        group: case.group.clone(),
        baseline: case.baseline,
        file: case.file.clone(),
        line: case.line,
        measure: Default::default(),
        estimate: Estimate {
            median_ns: estimate.estimate,
            low_ns: estimate.low,
            high_ns: estimate.high,
            mean_ns: stats::mean(&corrected_all),
        },
        quantiles: quantiles(&sorted, &corrected_all, &tukey),
        precision: precision.is_finite().then_some(precision),
        overhead: Overhead {
            per_op_ns: overhead_ns,
            drift,
            capped,
        },
        cold_ns: stats::median(&stats::sorted(
            &rounds.iter().map(|r| r.m.cold_ns).collect::<Vec<_>>(),
        )),
        ops_per_sample: pooled.ops_per_sample,
        samples: pooled.workload_ns.len() as u64,
        wall_ns: rounds.iter().map(|r| r.m.wall_ns).sum(),
        // A case whose rounds a cancel cut short is partial though each round it has finished.
        partial: pooled.partial || plan.cut_short,
        warnings,
        comparison: None,
        // Learnt from the history by the run, which holds the store.
        reproducibility: None,
        rounds: rounds_kept.then_some(Rounds {
            medians_ns: medians,
            processes: plan.processes,
            widened: false,
            machine_sd: None,
        }),
        allocations: pooled
            .allocations
            .map(|(per_op, bytes_per_op)| Allocations {
                per_op,
                bytes_per_op,
            }),
        cache: None,
        throughput: case.throughput.map(|(unit, per_op)| {
            Throughput::at(unit, per_op, estimate.estimate, estimate.low, estimate.high)
        }),
        raw: RawSamples {
            workload_ns: thinned(&pooled.workload_ns),
            baseline_ns: thinned(&pooled.baseline_ns),
        },
        stored_at: None,
    }
}

/// Every round's samples with its overhead subtracted, in the order taken, and how many of
/// them were capped at 0.
fn corrected_samples(rounds: &[Round]) -> (Vec<f64>, u64) {
    let mut samples = Vec::new();
    let mut capped = 0;
    for round in rounds {
        let c = corrected(&round.m.workload_ns, &round.m.baseline_ns);
        samples.extend(c.samples);
        capped += c.capped;
    }
    (samples, capped)
}

/// What a case's rounds were, beyond their samples: for its warnings.
struct Shape<'p> {
    plan: &'p Plan,
    rounds: usize,
    /// How noisy one process's samples are ([`within_round_noise`]).
    within_noise: f64,
    /// Whether the benchmark called a timing method more than once.
    twice: bool,
}

/// A case's warnings: how it was measured (`notes`), then the validity checks, a body the
/// compiler removed first of all.
fn case_warnings(
    pooled: &Measurement,
    sorted: &[f64],
    overhead_ns: f64,
    estimate: &RoundEstimate,
    shape: Shape<'_>,
    cx: &Context,
) -> Vec<Warning> {
    let validity = validity::check(
        pooled,
        sorted,
        overhead_ns,
        estimate.estimate,
        shape.within_noise,
        cx,
    );
    let empty = validity.iter().any(|w| w.code == validity::OPTIMIZED_AWAY);
    let mut warnings = notes(pooled, shape.plan, estimate, shape.rounds, sorted.len(), cx);
    if empty {
        // A body the compiler removed has no figure: how precisely nothing was measured says
        // nothing, and the warning that there is nothing comes first.
        warnings.retain(|w| !matches!(w.code.as_str(), WIDE_INTERVAL | IN_PROCESS | "imprecise"));
        warnings.splice(0..0, validity);
    } else {
        warnings.extend(validity);
    }
    if shape.twice {
        warnings.push(Warning::new(
            "measured_twice",
            "the benchmark called a timing method more than once; only the first was measured: \
             split it into two #[bench] functions",
        ));
    }
    warnings
}

/// The spread of every corrected sample (`sorted`, and `samples` in the order taken).
fn quantiles(sorted: &[f64], samples: &[f64], tukey: &stats::Tukey) -> Quantiles {
    Quantiles {
        min_ns: sorted.first().copied().unwrap_or(0.0),
        p5_ns: stats::quantile(sorted, 0.05),
        q1_ns: stats::quantile(sorted, 0.25),
        q3_ns: stats::quantile(sorted, 0.75),
        p95_ns: stats::quantile(sorted, 0.95),
        max_ns: sorted.last().copied().unwrap_or(0.0),
        std_dev_ns: stats::std_dev(samples),
        outliers: tukey.low + tukey.high,
    }
}

/// Every round's samples together, in the order taken, with what holds for the whole case.
fn pool(rounds: &[Round]) -> Measurement {
    let mut pooled = Measurement {
        ops_per_sample: rounds.last().map_or(0, |r| r.m.ops_per_sample),
        ..Measurement::default()
    };
    for round in rounds {
        pooled.workload_ns.extend(&round.m.workload_ns);
        pooled.baseline_ns.extend(&round.m.baseline_ns);
        pooled.wall_ns += round.m.wall_ns;
        pooled.partial |= round.m.partial;
        pooled.budget_exhausted |= round.m.budget_exhausted;
        pooled.self_timed |= round.m.self_timed;
        pooled.allocations = pooled.allocations.or(round.m.allocations);
    }
    pooled.cold_ns = rounds.first().map_or(0.0, |r| r.m.cold_ns);
    pooled
}

/// At most [`MAX_SAMPLES`] of `samples`, evenly spaced in time order (every sample when there
/// are no more): the raw samples a result carries stay bounded however many rounds it had.
fn thinned(samples: &[f64]) -> Vec<f64> {
    let n = samples.len();
    if n <= MAX_SAMPLES {
        return samples.to_vec();
    }
    (0..MAX_SAMPLES)
        .map(|i| samples[i * n / MAX_SAMPLES])
        .collect()
}

/// The estimate of a case measured in one round: the median of its samples with their
/// distribution-free interval (too few samples: no interval).
fn single_round(sorted: &[f64]) -> RoundEstimate {
    let median = stats::median(sorted);
    let ci = stats::median_ci(sorted, LEVEL);
    let precision = if sorted.len() >= MIN_SAMPLES_FOR_INTERVAL {
        stats::relative_half_width(&ci, median)
    } else {
        f64::NAN
    };
    RoundEstimate {
        estimate: median,
        low: ci.low,
        high: ci.high,
        precision,
        rounds_precision: precision,
        log: None,
    }
}

/// The interquartile range of each round's corrected samples relative to its median, the
/// median over rounds: how noisy the samples of one process are.
fn within_round_noise(rounds: &[Round]) -> f64 {
    let noise: Vec<f64> = rounds
        .iter()
        .filter_map(|r| {
            let c = stats::sorted(&corrected(&r.m.workload_ns, &r.m.baseline_ns).samples);
            let median = stats::median(&c);
            (c.len() >= MIN_SAMPLES_FOR_INTERVAL && median > 0.0)
                .then(|| (stats::quantile(&c, 0.75) - stats::quantile(&c, 0.25)) / median)
        })
        .collect();
    if noise.is_empty() {
        f64::NAN
    } else {
        stats::median(&stats::sorted(&noise))
    }
}

/// The notes on how the case was measured: self-timed, cut short, too few rounds or samples
/// for the interval the figure needs, an interval wider than the target, one process.
fn notes(
    pooled: &Measurement,
    plan: &Plan,
    estimate: &RoundEstimate,
    rounds: usize,
    samples: usize,
    cx: &Context,
) -> Vec<Warning> {
    let mut warnings = Vec::new();
    if pooled.self_timed {
        warnings.push(Warning::info(
            super::SELF_TIMED,
            "the benchmark timed itself (`iter_custom`): knotmeter could not measure an empty \
             body of the same shape, so no harness overhead was subtracted and the figure \
             includes whatever the routine's own timing costs",
        ));
    }
    let rounds_text = |n: usize| format!("{n} round{}", if n == 1 { "" } else { "s" });
    if plan.cut_short || pooled.partial {
        warnings.push(Warning::new(
            "partial",
            format!(
                "the run was cancelled after {} ({} samples); this estimate is from those alone",
                rounds_text(rounds),
                pooled.workload_ns.len()
            ),
        ));
    } else if samples < MIN_SAMPLES_FOR_INTERVAL {
        warnings.push(Warning::new(
            "imprecise",
            format!(
                "only {samples} sample{} fitted in the time budget (each takes about {}), too few \
                 for a 95% interval (that needs {MIN_SAMPLES_FOR_INTERVAL} in one round, or two \
                 rounds), so its precision is unknown; give it more time with `--time SECS`",
                if samples == 1 { "" } else { "s" },
                knotmeter_format::units::format_duration_ns(
                    estimate.estimate * pooled.ops_per_sample.max(1) as f64
                ),
            ),
        ));
    } else if rounds < 2 && plan.planned >= 2 {
        warnings.push(Warning::new(
            "imprecise",
            format!(
                "only one round fitted in the time budget (it took {}): its interval covers that \
                 one process, and a rerun may land well outside it; give it more time with \
                 `--time SECS` for the rounds that show how the figure moves between processes",
                knotmeter_format::units::format_duration_ns(pooled.wall_ns)
            ),
        ));
    } else if rounds >= 2
        && estimate.precision.is_finite()
        && estimate.precision >= knotmeter_format::text::WIDE_PRECISION
    {
        warnings.push(wide_warning(rounds, estimate.low, estimate.high));
    } else if rounds >= 2
        && estimate.rounds_precision.is_finite()
        && estimate.rounds_precision > cx.target_precision
    {
        warnings.push(Warning::info(
            WIDE_INTERVAL,
            format!(
                "the rounds alone give ±{:.1}% after {}, wider than the ±{:.1}% target: this \
                 case's figure moves between processes on this machine by more than that; more \
                 time (`--time SECS`) gives more rounds and a narrower interval",
                estimate.rounds_precision * 100.0,
                rounds_text(rounds),
                cx.target_precision * 100.0
            ),
        ));
    }
    if rounds >= 2 && plan.processes == 1 {
        warnings.push(Warning::info(
            IN_PROCESS,
            "every round ran in the bench binary's own process (`--in-process`): the interval \
             shows how the figure moves over time, not what differs between processes, which is \
             often more",
        ));
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_is_the_geometric_mean_with_a_t_interval_over_logs() {
        let medians = [10.0, 11.0, 9.0, 10.5, 9.5, 10.0, 12.0, 8.0, 10.0, 10.0];
        let e = estimate(&medians).unwrap();
        let logs: Vec<f64> = medians.iter().map(|m: &f64| m.ln()).collect();
        let mean = logs.iter().sum::<f64>() / 10.0;
        assert!((e.estimate - mean.exp()).abs() < 1e-9);
        assert!(e.low < e.estimate && e.estimate < e.high);
        // The t interval of ten rounds is wider than a normal one with the same spread.
        let sd = (logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / 9.0).sqrt();
        let normal_half = 1.96 * sd / 10f64.sqrt();
        assert!((e.high / e.estimate).ln() > normal_half * 1.1, "{e:?}");
        assert!(e.log.is_some());
    }

    /// A case whose rounds agree to 0.5% in one run, on a machine whose runs of it move by
    /// several percent: the history widens the interval to that, and its spread never narrows
    /// it; the machine's move the history learnt replaces the assumed one either way.
    #[test]
    fn the_history_widens_to_a_cases_spread_and_sets_the_machines_move() {
        use crate::registry::{cases, BenchDef};
        static DEF: BenchDef = BenchDef {
            name: "steady",
            module_path: "q",
            file: "benches/q.rs",
            line: 1,
            group: None,
            baseline: false,
            args: &[],
            run: |_, _| {},
        };
        let case = cases(std::slice::from_ref(&DEF)).remove(0);
        let rounds = || -> Vec<Round> {
            [100.0, 100.4, 99.7, 100.2, 99.9, 100.1, 99.8, 100.3]
                .iter()
                .map(|&ns| Round {
                    m: Measurement {
                        ops_per_sample: 10,
                        workload_ns: vec![ns + 1.0; 20],
                        baseline_ns: vec![1.0; 20],
                        ..Measurement::default()
                    },
                    twice: false,
                })
                .collect()
        };
        let mut plan = Plan {
            processes: 8,
            planned: 8,
            cut_short: false,
        };
        let cx = Context {
            timer: crate::measure::Timer::calibrate(crate::measure::TimerKind::Instant).unwrap(),
            target_precision: 0.01,
        };
        let narrow = analyse_rounds(&case, rounds(), &plan, &cx);
        assert!(!narrow.partial);
        // A cancel that cut the case's rounds short makes it partial (never a baseline), though
        // every round it has is whole.
        plan.cut_short = true;
        let cut = analyse_rounds(&case, rounds(), &plan, &cx);
        assert!(cut.partial && cut.warnings.iter().any(|w| w.code == "partial"));
        // The rounds agree within 0.5%; the interval is what moves whole runs, at least
        // (0.75% standard error beside the machine's 2.5%, 2.6% together, t with seven
        // degrees of freedom: about ±6.2%).
        let own = narrow.precision.unwrap();
        assert!(own > 0.055 && own < 0.07, "{own}");
        let mut widened = narrow.clone();
        from_the_history(&mut widened, None, Some(0.03));
        assert!(widened.rounds.as_ref().unwrap().widened);
        assert_eq!(widened.estimate.median_ns, narrow.estimate.median_ns);
        let wide = widened.precision.unwrap();
        // ±3% of one run, t with seven degrees of freedom: about ±7.1%.
        assert!(wide > own && wide < 0.1, "{wide}");
        let mut kept = narrow.clone();
        from_the_history(&mut kept, None, Some(own / 100.0));
        assert_eq!(kept, narrow, "a smaller spread never narrows the interval");
        from_the_history(&mut kept, None, None);
        assert_eq!(kept, narrow, "a history that knows nothing changes nothing");

        // The machine's move learnt from the history's probes takes the assumed one's place:
        // on a quiet machine (0.5% between runs) the interval narrows to the case's own part
        // and that; on a noisy one (5%) it widens; the case's learnt spread widens past both.
        let learnt = |machine_sd: f64, run_sd: Option<f64>| {
            let mut r = narrow.clone();
            from_the_history(&mut r, Some(machine_sd), run_sd);
            let rounds = r.rounds.as_ref().unwrap();
            assert_eq!(rounds.machine_sd, Some(machine_sd));
            assert_eq!(r.estimate.median_ns, narrow.estimate.median_ns);
            (r.precision.unwrap(), rounds.widened)
        };
        let (quiet, widened_by_the_case) = learnt(0.005, None);
        assert!(quiet < own / 2.0 && !widened_by_the_case, "{quiet} {own}");
        let (noisy, _) = learnt(0.05, None);
        assert!(noisy > own * 1.5, "{noisy} {own}");
        let (wide, widened_by_the_case) = learnt(0.005, Some(0.04));
        assert!(widened_by_the_case && wide > 0.08, "{wide}");
        // A figure that is not a standard deviation is none.
        let mut r = narrow.clone();
        from_the_history(&mut r, Some(f64::NAN), None);
        assert_eq!(r, narrow);
        // A round without a figure is left out, as the estimate leaves it out: the history
        // still applies.
        let mut r = narrow.clone();
        r.rounds.as_mut().unwrap().medians_ns.push(f64::NAN);
        from_the_history(&mut r, Some(0.005), None);
        assert_eq!(r.rounds.as_ref().unwrap().machine_sd, Some(0.005));
        assert!(r.precision.unwrap() < own / 2.0, "{:?}", r.precision);

        // A history whose runs of the case move by far more than the estimate widens its
        // interval past twice it: the warning comes with it (it used to be decided before the
        // history, and the widened range got a tick), and goes when a calmer history narrows
        // the interval again.
        let wide_warning = |r: &BenchResult| {
            r.warnings
                .iter()
                .any(|w| w.code == "imprecise" && w.message.contains(DISAGREE))
        };
        let mut r = narrow.clone();
        from_the_history(&mut r, None, Some(3.0));
        assert!(r.precision.unwrap() >= 1.0, "{:?}", r.precision);
        assert!(wide_warning(&r), "{:?}", r.warnings);
        from_the_history(&mut r, Some(0.005), None);
        assert!(r.precision.unwrap() < 0.1, "{:?}", r.precision);
        assert!(!wide_warning(&r), "{:?}", r.warnings);
    }

    /// The rounds of one run see what differs between its processes, not what holds for the
    /// whole run: a rerun's estimate moves by the machine's move and by what the case strays
    /// from it, the floor at least and a share of the processes' spread; the stop rule and
    /// `wide_interval` read the rounds alone.
    #[test]
    fn an_interval_holds_what_moves_whole_runs_as_well_as_its_rounds() {
        let steady = [
            100.0, 100.2, 99.9, 100.1, 99.8, 100.0, 100.1, 99.9, 100.0, 100.2,
        ];
        let e = estimate(&steady).unwrap();
        let se = e.log.unwrap().se;
        assert!((se - RUN_FLOOR_SE.hypot(MACHINE_SE)).abs() < 1e-12, "{se}");
        assert!(e.rounds_precision < 0.002, "{e:?}");
        assert!(e.precision > 0.015, "{e:?}");
        // A bimodal case (a process fast or slow, and staying so): its processes differ by
        // about 30%, and whole runs move by a share of that, more than its rounds' error.
        let bimodal = [
            1130.0, 2000.0, 1980.0, 1150.0, 2050.0, 1990.0, 2010.0, 1120.0, 1960.0, 2020.0,
        ];
        let e = estimate(&bimodal).unwrap();
        let mean = e.log.unwrap();
        let logs: Vec<f64> = bimodal.iter().map(|m: &f64| m.ln()).collect();
        let sd = Mean::of(&logs).unwrap().se * 10f64.sqrt();
        assert!(
            (mean.se - (RUN_SHARE_OF_PROCESS_SD * sd).hypot(MACHINE_SE)).abs() < 1e-9,
            "{mean:?} {sd}"
        );
        // Relative to the machine's probe, the machine's move is not in it.
        let relative = relative_to_the_machine(Mean::of(&logs).unwrap());
        assert!(
            (relative.se - RUN_SHARE_OF_PROCESS_SD * sd).abs() < 1e-9,
            "{relative:?}"
        );
        assert!(e.precision > e.rounds_precision * 1.2, "{e:?}");
    }

    /// Two rounds a loaded machine set far apart once stored `800 ns ±40998%` with no more
    /// than a note: an interval wider than its estimate is a warning.
    #[test]
    fn rounds_that_disagree_by_more_than_the_estimate_warn() {
        let plan = Plan {
            processes: 2,
            planned: 3,
            cut_short: false,
        };
        let cx = Context {
            timer: crate::measure::Timer::calibrate(crate::measure::TimerKind::Instant).unwrap(),
            target_precision: 0.03,
        };
        let pooled = Measurement {
            ops_per_sample: 10,
            workload_ns: vec![800.0; 40],
            baseline_ns: vec![1.0; 40],
            ..Measurement::default()
        };
        let codes = |medians: &[f64]| -> Vec<(String, bool)> {
            let e = estimate(medians).unwrap();
            notes(&pooled, &plan, &e, medians.len(), 40, &cx)
                .into_iter()
                .map(|w| (w.code, w.severity == knotmeter_protocol::Severity::Warning))
                .collect()
        };
        let wide = codes(&[520.0, 1230.0]);
        assert_eq!(wide, [("imprecise".to_owned(), true)], "{wide:?}");
        let noted = codes(&[800.0, 830.0, 780.0]);
        assert_eq!(noted, [(WIDE_INTERVAL.to_owned(), false)], "{noted:?}");
    }

    #[test]
    fn zero_figures_take_the_arithmetic_mean_and_one_figure_has_no_interval() {
        let e = estimate(&[0.0, 0.1, 0.0, 0.05]).unwrap();
        assert!(e.log.is_none());
        assert!(e.low >= 0.0 && e.estimate >= 0.0);
        assert_eq!(estimate(&[5.0]), None);
        assert_eq!(estimate(&[]), None);
    }
}
