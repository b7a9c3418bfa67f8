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

use knotmeter_protocol::{MachineProbe, Manifest, Rounds};

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
    // The engine's own work: never in a profile of the run's cases.
    let _unmarked = crate::measure::region::unmarked();
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

/// What compiled the probe's chain, from the run's manifest: two runs' probes measure the same
/// code only when this is the same.
pub(crate) fn build(manifest: &Manifest) -> String {
    format!(
        "knotmeter {}, {}, opt-level {}",
        manifest.knotmeter_version, manifest.rustc, manifest.opt_level
    )
}

/// The probe's figure from its rounds' medians (those that are positive numbers: a round
/// that measured nothing is left out), measured in `processes` processes by the chain `build`
/// compiled: nanoseconds per step, with the interval made as a case's is (their geometric
/// mean); `None` without two such rounds.
pub(crate) fn figure(medians_ns: &[f64], processes: u32, build: String) -> Option<MachineProbe> {
    let medians: Vec<f64> = medians_ns
        .iter()
        .copied()
        .filter(|m| m.is_finite() && *m > 0.0)
        .collect();
    let RoundEstimate {
        estimate,
        low,
        high,
        ..
    } = estimate(&medians)?;
    let per_step = |ns: f64| ns / STEPS as f64;
    (estimate > 0.0).then(|| MachineProbe {
        ns_per_step: per_step(estimate),
        low_ns: per_step(low),
        high_ns: per_step(high),
        rounds: Rounds {
            processes: processes.min(medians.len() as u32).max(1),
            medians_ns: medians,
            widened: false,
            machine_sd: None,
        },
        build,
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
        let probe = figure(&medians, 5, "b".into()).unwrap();
        assert!((probe.ns_per_step - 2.5).abs() < 0.01, "{probe:?}");
        assert!(probe.low_ns < probe.ns_per_step && probe.ns_per_step < probe.high_ns);
        assert_eq!(probe.rounds.medians_ns, medians);
        assert_eq!((probe.rounds.processes, probe.build.as_str()), (5, "b"));
        assert_eq!(figure(&[], 1, "b".into()), None);
        // In one process (`--in-process`), it says so.
        assert_eq!(figure(&medians, 1, "b".into()).unwrap().rounds.processes, 1);
    }

    /// A round that measured nothing (a NaN median) is left out, so the probe still reads
    /// back from JSON as it was written: the history stores it with the run's end, and a probe
    /// it cannot store must not keep the run from ending.
    #[test]
    fn a_round_without_a_figure_is_left_out_and_the_probe_reads_back_as_written() {
        let probe = figure(&[2_500.0, f64::NAN, 2_600.0, 0.0, 2_550.0], 5, "b".into()).unwrap();
        assert_eq!(probe.rounds.medians_ns, [2_500.0, 2_600.0, 2_550.0]);
        assert_eq!(probe.rounds.processes, 3);
        let json = serde_json::to_string(&probe).unwrap();
        assert_eq!(serde_json::from_str::<MachineProbe>(&json).unwrap(), probe);
        assert_eq!(figure(&[2_500.0, f64::NAN], 2, "b".into()), None);
    }

    #[test]
    fn its_build_names_the_engine_the_compiler_and_the_optimisation() {
        let manifest: Manifest = serde_json::from_value(serde_json::json!({
            "knotmeter_version": "0.1.0", "rustc": "rustc 1.91.0", "profile": "bench",
            "opt_level": "3", "debug_assertions": false, "target": "x86_64", "cpu": "c",
            "cores": 2, "timer": {"kind": "instant", "precision_ns": 1.0, "read_cost_ns": 1.0},
            "timestamp": 0, "seed": 0, "budget_ms": 1000, "target_precision": 0.01,
            "git_commit": null, "warnings": [],
        }))
        .unwrap();
        assert_eq!(
            build(&manifest),
            "knotmeter 0.1.0, rustc 1.91.0, opt-level 3"
        );
    }
}
