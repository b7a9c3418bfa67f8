//! How each harness's bench binary is built and invoked for the rerun-coverage measurement: a
//! run without a store (its estimates and intervals), and a run against a store of its own
//! where the harness compares a run with an earlier one.

use std::path::{Path, PathBuf};

use super::super::harness::{Harness, RERUN_MODULE};
use super::super::process::Invocation;
use super::RERUN_HARNESSES;
use crate::cargo;

/// The zenbench workload id of the before/after runs (its confirmation requires one).
const ZENBENCH_WORKLOAD: &str = "rerun-v1";
/// The name of zenbench's stored baseline.
const ZENBENCH_BASELINE: &str = "previous";

/// The executables this measurement runs.
pub(super) struct Binaries {
    /// Each harness's bench binary, in `RERUN_HARNESSES`' order.
    benches: Vec<(Harness, PathBuf)>,
    /// The wrapper that runs a process and reads its peak memory (`comparisons/src/bin`).
    pub(super) measured: PathBuf,
}

impl Binaries {
    /// Builds the four bench targets (release, as `cargo bench`) and the `measured` wrapper.
    pub(super) fn build(workspace: &Path) -> Result<Binaries, String> {
        eprintln!("building the comparisons workspace's bench targets (release)…");
        let manifest = workspace.join("Cargo.toml");
        let manifest = manifest.to_string_lossy();
        let mut args = vec![
            "bench",
            "--no-run",
            "--locked",
            "--manifest-path",
            &manifest,
        ];
        for harness in RERUN_HARNESSES {
            args.extend(["--bench", target(harness)]);
        }
        let built = cargo::build(&args)?;
        let benches = RERUN_HARNESSES
            .iter()
            .map(|&h| Ok((h, cargo::find(&built, target(h))?)))
            .collect::<Result<_, String>>()?;
        let bins = cargo::build(&[
            "build",
            "--release",
            "--locked",
            "--manifest-path",
            &manifest,
            "--bin",
            "measured",
        ])?;
        Ok(Binaries {
            benches,
            measured: cargo::find(&bins, "measured")?,
        })
    }

    /// `harness`'s bench binary.
    fn of(&self, harness: Harness) -> &Path {
        self.benches
            .iter()
            .find(|(h, _)| *h == harness)
            .map(|(_, path)| path.as_path())
            .expect("every harness of this measurement is built")
    }
}

/// The bench target of `harness` in `comparisons/Cargo.toml`.
fn target(harness: Harness) -> &'static str {
    match harness {
        Harness::Knotmeter => "with_knotmeter",
        Harness::Criterion => "with_criterion",
        Harness::Zenbench => "with_zenbench",
        Harness::Divan => "with_divan",
        Harness::Tango => "with_tango",
    }
}

/// Where zenbench runs.
pub(super) fn zenbench_dir(scratch: &Path) -> PathBuf {
    scratch.join("zenbench")
}

/// Where criterion keeps its results; each run compares with the one before in the same place.
pub(super) fn criterion_home(scratch: &Path) -> PathBuf {
    scratch.join("criterion")
}

/// The run whose estimates and intervals count: at default settings, or with `quick` at the
/// harness's quickest reasonable ones; no store where the harness has one to turn off.
pub(super) fn coverage(
    harness: Harness,
    binaries: &Binaries,
    scratch: &Path,
    quick: bool,
) -> Invocation {
    let exe = binaries.of(harness);
    match harness {
        Harness::Knotmeter => Invocation::new(
            exe,
            &with_quick(
                &["--bench", "--format", "json", "--no-history"],
                quick,
                "rerun::",
            ),
        ),
        // criterion cannot run without its store: its runs are its before/after runs too.
        Harness::Criterion => {
            Invocation::new(exe, &with_quick(&["--bench", "--noplot"], quick, "^rerun/"))
                .env("CRITERION_HOME", criterion_home(scratch).to_string_lossy())
        }
        Harness::Zenbench => zenbench(exe, scratch, &["--bench", "--format=json"]),
        Harness::Divan | Harness::Tango => Invocation::new(exe, &["--bench", RERUN_MODULE]),
    }
}

/// Whether `harness` compares a run with an earlier one.
pub(super) fn compares(harness: Harness) -> bool {
    matches!(
        harness,
        Harness::Knotmeter | Harness::Criterion | Harness::Zenbench
    )
}

/// The run against the harness's own store, when it is not its coverage run: knotmeter with a
/// fresh history file; zenbench's confirmation, which stores its baseline until one is
/// accepted (`stored`) and then compares with it, moving it on to each run that passes.
pub(super) fn before_after(
    harness: Harness,
    binaries: &Binaries,
    scratch: &Path,
    quick: bool,
    stored: bool,
) -> Option<Invocation> {
    let exe = binaries.of(harness);
    match harness {
        Harness::Knotmeter => Some(
            Invocation::new(
                exe,
                &with_quick(&["--bench", "--format", "json"], quick, "rerun::"),
            )
            .env(
                "KNOTMETER_HISTORY",
                scratch.join("knotmeter-history.db").to_string_lossy(),
            ),
        ),
        Harness::Zenbench => {
            let workload = format!("--workload-id={ZENBENCH_WORKLOAD}");
            let store = if stored {
                format!("--baseline={ZENBENCH_BASELINE}")
            } else {
                format!("--save-baseline={ZENBENCH_BASELINE}")
            };
            let mut args = vec!["--bench", "--mode=confirm", &workload, &store];
            if stored {
                args.push("--update-on-pass");
            }
            // 1: a confirmed regression; 2: inconclusive, invalid, or no baseline stored.
            Some(zenbench(exe, scratch, &args).answer_code(1).answer_code(2))
        }
        Harness::Criterion | Harness::Divan | Harness::Tango => None,
    }
}

/// A zenbench invocation, in its own directory: its raw evidence and its baselines go to
/// `.zenbench/` under it.
fn zenbench(exe: &Path, scratch: &Path, args: &[&str]) -> Invocation {
    Invocation::new(exe, args).cwd(&zenbench_dir(scratch))
}

/// `args`, then `--quick` when `quick`, then `filter`.
fn with_quick<'a>(args: &[&'a str], quick: bool, filter: &'a str) -> Vec<&'a str> {
    let mut all = args.to_vec();
    if quick {
        all.push("--quick");
    }
    all.push(filter);
    all
}

/// Every command line of this measurement, for the doc: harness, what it is for, command.
pub(super) fn commands(
    binaries: &Binaries,
    scratch: &Path,
    quick: bool,
) -> Vec<(Harness, &'static str, String)> {
    let mut commands = Vec::new();
    for harness in RERUN_HARNESSES {
        let coverage = coverage(harness, binaries, scratch, quick).display();
        commands.push((harness, "runs", coverage));
        let command =
            |stored| before_after(harness, binaries, scratch, quick, stored).map(|i| i.display());
        match (command(false), command(true)) {
            (Some(first), Some(later)) if first != later => {
                commands.push((harness, "before/after, until a baseline is stored", first));
                commands.push((harness, "before/after", later));
            }
            (_, Some(later)) => commands.push((harness, "before/after", later)),
            _ => {}
        }
    }
    commands
}
