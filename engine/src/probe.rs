//! The machine's probe: a fixed chain of arithmetic the engine measures in a slot of every
//! round of a run, beside the cases, and reports with the run (`RunSummary::probe`).
//!
//! Whole runs move together: the machine's speed over minutes (its frequency, its neighbours)
//! moves every case of a run at once, by far more than one run's rounds show
//! (docs/calibration.md, "What moves whole runs": a standard deviation of 3.5–5.6% between
//! consecutive runs on the 2-core machine, where a chain measured in the same rounds took most
//! of it out of the chain-like cases). The probe is that chain, compiled into the engine, so
//! its code is the same in every build of the user's crate: where the cases and the probe
//! moved together between two runs, the machine moved; where only the cases did, the code did.
//!
//! The probe is a case to the rounds (a slot per round, its own budget) and nothing else: it
//! is never listed, selected, stored as a result or shown as one.

use std::time::Duration;

use knotmeter_protocol::{MachineProbe, Rounds};

use crate::analysis::rounds::{estimate, RoundEstimate};
use crate::bencher::Bencher;
use crate::registry::{self, BenchDef, Case};

/// The probe's id: no `#[bench]` can have it, since a bench target's crate is never called
/// `knotmeter` (the engine's own crate).
pub(crate) const PROBE_ID: &str = "knotmeter::machine_probe";
/// Steps of the chain per operation: a few microseconds, long enough that the harness's
/// overhead is a rounding error, short enough for thousands of operations in a slot.
const STEPS: u64 = 1_000;
/// The probe's share of a case's budget, for the whole run.
const SHARE_OF_A_CASE: u32 = 10;
/// The least budget it gets.
const LEAST_BUDGET: Duration = Duration::from_millis(20);

static DEF: BenchDef = BenchDef {
    name: "machine_probe",
    module_path: "knotmeter",
    file: file!(),
    line: line!(),
    group: None,
    baseline: false,
    args: &[],
    run: measure,
};

/// Seed 001's dependency chain: each step needs the one before, so neither the compiler nor
/// the CPU can overlap or remove them.
#[inline(never)]
fn chain(steps: u64) -> u64 {
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    for _ in 0..steps {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        state ^= state >> 33;
    }
    state
}

fn measure(b: &mut Bencher<'_>, _: usize) {
    b.iter(|| chain(crate::black_box(STEPS)));
}

/// The probe as a case, to add to every case of the binary (so that a round's worker finds it).
pub(crate) fn case() -> Case {
    registry::cases(std::slice::from_ref(&DEF)).remove(0)
}

/// Whether `case` is the probe.
pub(crate) fn is_probe(case: &Case) -> bool {
    case.id == PROBE_ID
}

/// The probe's budget for a run whose cases get `case_budget` each.
pub(crate) fn budget(case_budget: Duration) -> Duration {
    (case_budget / SHARE_OF_A_CASE).max(LEAST_BUDGET)
}

/// The probe's figure from its rounds: nanoseconds per step, with the interval over the rounds
/// (their geometric mean, as for a case); `None` without a positive round median.
pub(crate) fn figure(medians_ns: &[f64]) -> Option<MachineProbe> {
    let RoundEstimate {
        estimate,
        low,
        high,
        ..
    } = estimate(medians_ns)?;
    let per_step = |ns: f64| ns / STEPS as f64;
    (estimate > 0.0).then(|| MachineProbe {
        ns_per_step: per_step(estimate),
        low_ns: per_step(low),
        high_ns: per_step(high),
        rounds: Rounds {
            medians_ns: medians_ns.to_vec(),
            processes: medians_ns.len() as u32,
            widened: false,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_is_a_case_of_its_own_id_and_budget() {
        let probe = case();
        assert_eq!(probe.id, PROBE_ID);
        assert!(is_probe(&probe));
        assert_eq!(budget(Duration::from_secs(1)), Duration::from_millis(100));
        assert_eq!(budget(Duration::from_millis(100)), LEAST_BUDGET);
    }

    #[test]
    fn its_figure_is_per_step_with_the_rounds_kept() {
        let medians = [2_500.0, 2_600.0, 2_400.0, 2_550.0, 2_450.0];
        let probe = figure(&medians).unwrap();
        assert!((probe.ns_per_step - 2.5).abs() < 0.01, "{probe:?}");
        assert!(probe.low_ns < probe.ns_per_step && probe.ns_per_step < probe.high_ns);
        assert_eq!(probe.rounds.medians_ns, medians);
        assert_eq!(figure(&[]), None);
    }
}
