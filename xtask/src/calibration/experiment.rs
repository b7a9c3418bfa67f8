//! What moves the numbers: a few cases' medians across fresh processes (one round each), across
//! blocks of one long process's samples, with address-space randomisation off, and pinned to
//! each CPU.

use super::report::{Case, Run};
use super::run::{self, Binary, Invocation};
use super::stats::block_medians;

/// The cases of the experiment (benchmark names in `examples/calibration/benches`).
pub(super) const CASES: [&str; 4] = ["sort_stable", "parse_csv", "fnv1a_4k", "chain_short"];

/// How many consecutive blocks the long process's samples are cut into.
pub(super) const BLOCKS: usize = 10;

/// One way of measuring the cases, and the medians it gave.
pub(super) struct Arm {
    /// What was varied, for the table's header (`N processes`, `taskset -c 1`).
    pub(super) label: String,
    /// Each case's medians (index-aligned with [`CASES`]), in the order they were measured.
    pub(super) medians: Vec<Vec<f64>>,
}

/// The experiment's outcome.
pub(super) struct Experiment {
    /// The arms measured, fresh processes first.
    pub(super) arms: Vec<Arm>,
    /// Why an arm was left out (`setarch is missing`).
    pub(super) skipped: Vec<String>,
    /// The commands of the arms (one process each) and of the long process, as shown.
    pub(super) commands: Vec<String>,
}

/// Measures every arm `runs` times, interleaved round by round so that a change of the
/// machine's state during the experiment falls on every arm alike, then the long process. A
/// "process" is one round in one worker process (`--rounds 1`); the long process is one round
/// of 2 s per case whose precision target cannot stop it early.
pub(super) fn run(bin: &Binary, runs: usize, nproc: usize) -> Result<Experiment, String> {
    let mut args = bin.settings();
    args.extend(["--rounds".to_owned(), "1".to_owned()]);
    args.extend(CASES.iter().map(|c| (*c).to_owned()));
    let (mut arms, skipped) = arms(&args, runs, nproc);
    for round in 1..=runs {
        eprintln!("calibration: experiment round {round}/{runs}");
        for (invocation, arm) in &mut arms {
            let report = bin.measure(invocation)?;
            for (i, case) in CASES.iter().enumerate() {
                arm.medians[i].push(find(&report, case)?.median);
            }
        }
    }
    eprintln!("calibration: experiment, one long process");
    let long = Invocation::fresh(
        ["--rounds", "1", "--time", "2", "--precision", "0.000001"]
            .into_iter()
            .map(str::to_owned)
            .chain(CASES.iter().map(|c| (*c).to_owned()))
            .collect(),
    );
    let report = bin.measure(&long)?;
    let mut blocks = arm(format!("{BLOCKS} blocks of one process"));
    for (i, case) in CASES.iter().enumerate() {
        let case = find(&report, case)?;
        blocks.medians[i] = block_medians(&case.workload, &case.baseline_ns, BLOCKS);
    }
    let mut commands: Vec<String> = arms.iter().map(|(inv, _)| inv.shown()).collect();
    commands.push(long.shown());
    let mut arms: Vec<Arm> = arms.into_iter().map(|(_, a)| a).collect();
    arms.insert(1, blocks);
    Ok(Experiment {
        arms,
        skipped,
        commands,
    })
}

/// The arms of fresh processes that this machine offers (plain, `setarch -R`, `taskset -c K`
/// for each CPU), each with its command, and why any was left out.
fn arms(args: &[String], runs: usize, nproc: usize) -> (Vec<(Invocation, Arm)>, Vec<String>) {
    let invocation = |prefix: Vec<String>| Invocation {
        prefix,
        ..Invocation::fresh(args.to_vec())
    };
    let mut skipped = Vec::new();
    let mut arms = vec![(invocation(Vec::new()), arm(format!("{runs} processes")))];
    let arch = std::process::Command::new("uname")
        .arg("-m")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    if run::works("setarch", &[&arch, "-R", "true"]) {
        let prefix = vec!["setarch".to_owned(), arch, "-R".to_owned()];
        let label = format!("{runs} processes, `setarch -R`");
        arms.push((invocation(prefix), arm(label)));
    } else {
        skipped.push(
            "`setarch -R` (address randomisation off): setarch is missing or refused here".into(),
        );
    }
    for cpu in 0..nproc {
        let k = cpu.to_string();
        if run::works("taskset", &["-c", &k, "true"]) {
            let prefix = vec!["taskset".to_owned(), "-c".to_owned(), k.clone()];
            let label = format!("{runs} processes, `taskset -c {k}`");
            arms.push((invocation(prefix), arm(label)));
        } else {
            skipped.push(format!(
                "`taskset -c {k}`: taskset is missing or refused CPU {k}"
            ));
        }
    }
    (arms, skipped)
}

/// An arm with no medians yet.
fn arm(label: String) -> Arm {
    Arm {
        label,
        medians: vec![Vec::new(); CASES.len()],
    }
}

/// The case of benchmark `name` in `report`.
fn find<'r>(report: &'r Run, name: &str) -> Result<&'r Case, String> {
    report
        .find(name)
        .ok_or_else(|| format!("the calibration binary reported no case `{name}`"))
}
