//! One slot of a round, measured in this process: a case alone, or a group member paired with
//! its group's baseline, sampled for the slot's budget.
//!
//! A worker process answers the coordinator's `measure` commands with this (`driven`), and a
//! run measured `--in-process` calls it directly: both measure a slot with the same code. A
//! slot samples for its whole budget (or up to its sample limit): one process's samples are not
//! independent evidence, so they do not decide when a case is known well enough; the rounds do.

use std::io::{self, Write};

use knotmeter_protocol::{
    Allocations, DrivenMeasurement, OutputMark, SlotOutcome, SlotPlan, SlotSide,
};

use crate::cancel;
use crate::measure::{MeasureConfig, Measurement, Progress, Timer};
use crate::probe;
use crate::registry::Case;
use crate::run::{execute, panics, Outcome};

/// What a slot measures with: the plan's budget, operation count, sample limit and seed,
/// sampling to the end of the budget.
fn config(plan: &SlotPlan, timer: Timer) -> MeasureConfig {
    MeasureConfig {
        tuned_ops: plan.ops,
        max_samples: usize::try_from(plan.max_samples).unwrap_or(usize::MAX),
        stop_when_precise: false,
        count_allocations: plan.count_allocations,
        ..MeasureConfig::new(
            timer,
            std::time::Duration::from_nanos(plan.budget_ns),
            1.0,
            plan.seed,
            &cancel::CANCEL,
        )
    }
}

/// Measures the slot `plan` of `cases` (the cases its ids name, in order: one, or a baseline
/// and a member); `progress` hears about the measured case (a pair's member).
pub(crate) fn measure_slot(
    cases: &[&Case],
    plan: &SlotPlan,
    timer: Timer,
    mark_output: bool,
    progress: &mut dyn FnMut(&str, &Progress),
) -> SlotOutcome {
    let cfg = config(plan, timer);
    // Threads of an earlier slot's benchmark that panicked since: no case was running.
    let stray_panics = stray_panics();
    if mark_output {
        mark(cases, OutputMark::CaseStarted);
    }
    let outcomes: Vec<(&Case, Outcome)> = match cases {
        [case] => {
            let id = case.id.clone();
            let mut report = |p: &Progress| progress(&id, p);
            vec![(case, execute::single(case, &cfg, &mut report))]
        }
        // Counted, each side alone: a count needs no pairing to cancel what a clock drifts by.
        [base, member] if crate::count::active() => {
            let id = member.id.clone();
            let mut report = |p: &Progress| progress(&id, p);
            let base_end = execute::single(base, &cfg, &mut |_: &Progress| {});
            vec![
                (base, base_end),
                (member, execute::single(member, &cfg, &mut report)),
            ]
        }
        [base, member] => {
            let id = member.id.clone();
            let mut report = |p: &Progress| progress(&id, p);
            let (base_end, member_end) = execute::pair(base, member, &cfg, &mut report);
            // A side left unmeasured by the other's failure is measured alone, in the same slot.
            let base_end =
                base_end.unwrap_or_else(|| execute::single(base, &cfg, &mut |_: &Progress| {}));
            let member_end =
                member_end.unwrap_or_else(|| execute::single(member, &cfg, &mut report));
            vec![(base, base_end), (member, member_end)]
        }
        _ => Vec::new(),
    };
    if mark_output {
        mark(cases, OutputMark::CaseEnded);
    }
    SlotOutcome {
        sides: outcomes
            .into_iter()
            .map(|(case, outcome)| side(case, outcome))
            .collect(),
        stray_panics,
    }
}

/// The panics of threads since the last were taken, which happened while no case ran, each
/// naming the case that probably left its thread running.
pub(crate) fn stray_panics() -> Vec<String> {
    panics::take_thread_panics()
        .iter()
        .map(panics::ThreadPanic::describe_stray)
        .collect()
}

/// A measured (or failed) case as the slot's answer carries it.
fn side(case: &Case, outcome: Outcome) -> SlotSide {
    let (measured, failure) = match outcome {
        Ok((m, _)) if m.workload_ns.is_empty() && m.partial => {
            (None, Some(execute::cancelled(case)))
        }
        Ok((m, twice)) => (Some(to_wire(&m, twice)), None),
        Err(failure) => (None, Some(failure)),
    };
    SlotSide {
        id: case.id.clone(),
        measured,
        failure,
    }
}

/// Marks where each of `cases` begins or ends (`boundary`: `OutputMark::CaseStarted` or
/// `CaseEnded`) on standard error, after what the benchmark printed so far: the daemon
/// attributes printed text to its case by these. The machine's probe is no case: what is
/// printed during its slot is printed outside any. A mark that cannot be written costs only
/// that attribution.
pub(super) fn mark(cases: &[&Case], boundary: fn(String) -> OutputMark) {
    let _ = io::stdout().flush();
    for case in cases.iter().filter(|case| !probe::is_probe(case)) {
        let _ = io::stderr().write_all(boundary(case.id.clone()).line().as_bytes());
    }
}

/// The wire form of a measurement; `twice`: the benchmark called a timing method again.
pub(crate) fn to_wire(m: &Measurement, twice: bool) -> DrivenMeasurement {
    DrivenMeasurement {
        cold_ns: m.cold_ns,
        ops_per_sample: m.ops_per_sample,
        workload_ns: m.workload_ns.clone(),
        baseline_ns: m.baseline_ns.clone(),
        wall_ns: m.wall_ns,
        partial: m.partial,
        budget_exhausted: m.budget_exhausted,
        allocations: m.allocations.map(|(per_op, bytes_per_op)| Allocations {
            per_op,
            bytes_per_op,
        }),
        self_timed: m.self_timed,
        measured_twice: twice,
        cache: m.cache.clone(),
    }
}

/// The engine's measurement from its wire form, and whether the benchmark called a timing
/// method twice.
pub(crate) fn from_wire(m: DrivenMeasurement) -> (Measurement, bool) {
    (
        Measurement {
            cold_ns: m.cold_ns,
            ops_per_sample: m.ops_per_sample,
            workload_ns: m.workload_ns,
            baseline_ns: m.baseline_ns,
            wall_ns: m.wall_ns,
            partial: m.partial,
            budget_exhausted: m.budget_exhausted,
            allocations: m.allocations.map(|a| (a.per_op, a.bytes_per_op)),
            self_timed: m.self_timed,
            cache: m.cache,
        },
        m.measured_twice,
    )
}
