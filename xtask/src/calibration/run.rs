//! Running the calibration bench binary as fresh processes: each invocation's command line (as
//! run, and as the report shows it), its wall time, and its report.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use super::report::{self, Run};
use crate::cargo;

/// The name the report gives the bench binary in the commands it shows.
const SHOWN_NAME: &str = "calibration";

/// The calibration bench binary.
pub(super) struct Binary {
    /// The executable.
    pub(super) path: PathBuf,
    /// `--quick` is passed to every run but the long one of the experiment.
    pub(super) quick: bool,
}

impl Binary {
    /// The binary at `path`, once its `--help` shows that it measures in rounds (`--rounds`),
    /// which the calibration measures.
    pub(super) fn probe(path: PathBuf, quick: bool) -> Result<Self, String> {
        let out = Command::new(&path)
            .arg("--help")
            .output()
            .map_err(|e| format!("cannot run {}: {e}", path.display()))?;
        let help = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
        if !help.contains("--rounds") {
            return Err(format!(
                "{}'s --help lists no --rounds: the calibration measures an engine that \
                 measures in rounds",
                path.display()
            ));
        }
        Ok(Self { path, quick })
    }

    /// The flags every measured run gets: `--quick` when asked for.
    pub(super) fn settings(&self) -> Vec<String> {
        if self.quick {
            vec!["--quick".to_owned()]
        } else {
            Vec::new()
        }
    }

    /// Runs `invocation` once and reads its report, timing the process.
    pub(super) fn measure(&self, invocation: &Invocation) -> Result<Run, String> {
        let mut command = match invocation.prefix.split_first() {
            Some((program, rest)) => {
                let mut c = Command::new(program);
                c.args(rest).arg(&self.path);
                c
            }
            None => Command::new(&self.path),
        };
        command.args(invocation.full_args());
        command.envs(invocation.env.iter().map(|(k, v)| (k, v)));
        if let Some(file) = &invocation.history {
            command.env("KNOTMETER_HISTORY", file);
        }
        let shown = invocation.shown();
        let start = Instant::now();
        let out = command
            .output()
            .map_err(|e| format!("cannot run {shown}: {e}"))?;
        let wall_s = start.elapsed().as_secs_f64();
        if !out.status.success() {
            return Err(format!(
                "{shown} failed ({}):\n{}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        let cases = report::parse(&out.stdout).map_err(|e| format!("{shown}: {e}"))?;
        Ok(Run { cases, wall_s })
    }

    /// The cargo target directory the binary was built into (the nearest one above it tagged
    /// `CACHEDIR.TAG`), or the repository's `target/`.
    pub(super) fn target_dir(&self) -> PathBuf {
        self.path
            .ancestors()
            .find(|d| d.join("CACHEDIR.TAG").is_file())
            .map_or_else(|| cargo::root().join("target"), Path::to_owned)
    }
}

/// One way of running the bench binary: `[ENV=…] [prefix…] BINARY --bench --format json
/// ARGS… [--no-history]`, with `KNOTMETER_HISTORY` set instead of `--no-history` when it
/// measures against a history.
#[derive(Clone, Default)]
pub(super) struct Invocation {
    /// A program the binary runs under (`taskset -c 1`).
    pub(super) prefix: Vec<String>,
    /// The binary's arguments after `--bench --format json`.
    pub(super) args: Vec<String>,
    /// Environment variables set for it.
    pub(super) env: Vec<(String, String)>,
    /// The history file it stores into and compares with; None: `--no-history`.
    pub(super) history: Option<PathBuf>,
}

impl Invocation {
    /// `args` with `--no-history`.
    pub(super) fn fresh(args: Vec<String>) -> Self {
        Self {
            args,
            ..Self::default()
        }
    }

    /// `args` against the history file `history`.
    pub(super) fn with_history(args: Vec<String>, history: &Path) -> Self {
        Self {
            args,
            history: Some(history.to_owned()),
            ..Self::default()
        }
    }

    /// Every argument the binary gets.
    fn full_args(&self) -> Vec<String> {
        let mut args = vec!["--bench", "--format", "json"]
            .into_iter()
            .map(str::to_owned)
            .chain(self.args.iter().cloned())
            .collect::<Vec<_>>();
        if self.history.is_none() {
            args.push("--no-history".to_owned());
        }
        args
    }

    /// The command as the report shows it: the binary by its target's name, a history file as
    /// `<fresh file>` (its path changes from run to run).
    pub(super) fn shown(&self) -> String {
        let env = self.env.iter().map(|(k, v)| format!("{k}={v}"));
        let history = self
            .history
            .iter()
            .map(|_| "KNOTMETER_HISTORY=<fresh file>".to_owned());
        env.chain(history)
            .chain(self.prefix.iter().cloned())
            .chain([SHOWN_NAME.to_owned()])
            .chain(self.full_args())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A history file of its own for a measurement, in a fresh directory under the target
/// directory; the directory is removed when this is dropped, also when a run failed.
pub(super) struct FreshHistory {
    dir: PathBuf,
}

impl FreshHistory {
    /// A fresh directory named after this process and `label`.
    pub(super) fn new(bin: &Binary, label: &str) -> Result<Self, String> {
        let dir = bin.target_dir().join(format!(
            "calibration-history-{}-{label}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        Ok(Self { dir })
    }

    /// The history file (not yet created: the first run creates it).
    pub(super) fn file(&self) -> PathBuf {
        self.dir.join("history.db")
    }
}

impl Drop for FreshHistory {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Whether `program args…` runs and succeeds (a tool's presence, and that it works here).
pub(super) fn works(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_shown_as_run_with_the_history_file_named_generically() {
        let fresh = Invocation::fresh(vec!["--quick".into()]);
        assert_eq!(
            fresh.shown(),
            "calibration --bench --format json --quick --no-history"
        );
        let mut trial = Invocation::with_history(
            vec!["--exact".into(), "calibration::fnv1a_4k".into()],
            Path::new("/tmp/x/history.db"),
        );
        trial
            .env
            .push(("KNOTMETER_CALIBRATION_PLUS10".into(), "fnv1a_4k".into()));
        assert_eq!(
            trial.shown(),
            "KNOTMETER_CALIBRATION_PLUS10=fnv1a_4k KNOTMETER_HISTORY=<fresh file> calibration \
             --bench --format json --exact calibration::fnv1a_4k"
        );
        let pinned = Invocation {
            prefix: vec!["taskset".into(), "-c".into(), "1".into()],
            ..Invocation::fresh(vec!["--rounds".into(), "1".into()])
        };
        assert_eq!(
            pinned.shown(),
            "taskset -c 1 calibration --bench --format json --rounds 1 --no-history"
        );
    }
}
