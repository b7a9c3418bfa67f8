//! What moves the numbers: a few cases' medians across fresh processes, across blocks of one
//! long process's samples, with address-space randomisation off, and pinned to each CPU.

use super::run::{self, Binary, Run};
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
    /// The long process's command-line settings, for the report.
    pub(super) long_settings: String,
}

/// Measures every arm `runs` times, interleaved round by round so that a change of the
/// machine's state during the experiment falls on every arm alike, then the long process.
pub(super) fn run(bin: &Binary, runs: usize, nproc: usize) -> Result<Experiment, String> {
    let mut skipped = Vec::new();
    let mut arms: Vec<(Vec<String>, Arm)> = vec![(Vec::new(), arm(format!("{runs} processes")))];
    let arch = std::process::Command::new("uname")
        .arg("-m")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    if run::works("setarch", &[&arch, "-R", "true"]) {
        let prefix = vec!["setarch".to_owned(), arch, "-R".to_owned()];
        arms.push((prefix, arm(format!("{runs} processes, `setarch -R`"))));
    } else {
        skipped.push(
            "`setarch -R` (address randomisation off): setarch is missing or refused here".into(),
        );
    }
    for cpu in 0..nproc {
        let k = cpu.to_string();
        if run::works("taskset", &["-c", &k, "true"]) {
            let prefix = vec!["taskset".to_owned(), "-c".to_owned(), k.clone()];
            arms.push((prefix, arm(format!("{runs} processes, `taskset -c {k}`"))));
        } else {
            skipped.push(format!(
                "`taskset -c {k}`: taskset is missing or refused CPU {k}"
            ));
        }
    }
    let mut args = bin.settings(true);
    args.extend(CASES.iter().map(|c| (*c).to_owned()));
    for round in 1..=runs {
        eprintln!("calibration: experiment round {round}/{runs}");
        for (prefix, arm) in &mut arms {
            let report = bin.measure(prefix, &args, None)?;
            for (i, case) in CASES.iter().enumerate() {
                arm.medians[i].push(find(&report, case)?.median);
            }
        }
    }
    eprintln!("calibration: experiment, one long process");
    let mut long = vec!["--time".to_owned(), "2".to_owned()];
    long.extend(["--precision".to_owned(), "0.000001".to_owned()]);
    if bin.processes {
        long.extend(["--processes".to_owned(), "1".to_owned()]);
    }
    let long_settings = long.join(" ");
    long.extend(CASES.iter().map(|c| (*c).to_owned()));
    let report = bin.measure(&[], &long, None)?;
    let mut blocks = arm(format!("{BLOCKS} blocks of one process"));
    for (i, case) in CASES.iter().enumerate() {
        let case = find(&report, case)?;
        blocks.medians[i] = block_medians(&case.workload, &case.baseline_ns, BLOCKS);
    }
    let mut arms: Vec<Arm> = arms.into_iter().map(|(_, a)| a).collect();
    arms.insert(1, blocks);
    Ok(Experiment {
        arms,
        skipped,
        long_settings,
    })
}

/// An arm with no medians yet.
fn arm(label: String) -> Arm {
    Arm {
        label,
        medians: vec![Vec::new(); CASES.len()],
    }
}

/// The case of benchmark `name` in `report`.
fn find<'r>(report: &'r Run, name: &str) -> Result<&'r run::Case, String> {
    report
        .iter()
        .find(|c| c.id.ends_with(&format!("::{name}")))
        .ok_or_else(|| format!("the calibration binary reported no case `{name}`"))
}
