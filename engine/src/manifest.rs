//! The reproducibility manifest: compiler, profile, machine, clock and commit of a run.

use std::process::{Command, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};

use knotmeter_protocol::{Manifest, Measure, TimerInfo, Warning};

use crate::cli::Options;
use crate::measure::Timer;

/// Builds the manifest of a run. `debug_assertions` is the bench target's own setting, which
/// `knotmeter::main!()` passes from the user's crate.
pub(crate) fn manifest(
    timer: &Timer,
    debug_assertions: bool,
    seed: u64,
    settings: &Options,
) -> Manifest {
    let opt_level = env!("KNOTMETER_OPT_LEVEL").to_owned();
    let mut warnings = Vec::new();
    if debug_assertions || opt_level == "0" {
        warnings.push(Warning::new(
            "debug_build",
            format!(
                "benchmarks were built without optimisation (opt-level {opt_level}, debug assertions {}); \
                 their figures say little about release code: run them with `cargo bench` or `--release`",
                if debug_assertions { "on" } else { "off" }
            ),
        ));
    }
    if let Some(governor) = cpu_governor() {
        if governor != "performance" {
            warnings.push(Warning::new(
                "frequency_scaling",
                format!(
                    "the CPU frequency governor is `{governor}`, so the clock speed changes under load and \
                     figures drift; for stable figures set it to `performance` \
                     (e.g. `sudo cpupower frequency-set -g performance`)"
                ),
            ));
        }
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
    let measure = if settings.counts_instructions() {
        Measure::Instructions
    } else {
        Measure::Time
    };
    // A count does not move with the machine's load.
    if let Some(load) = load_average().filter(|_| measure.is_time()) {
        if load >= f64::from(cores) * HIGH_LOAD_PER_CORE {
            warnings.push(high_load(load, cores));
        }
    }
    Manifest {
        knotmeter_version: env!("CARGO_PKG_VERSION").to_owned(),
        rustc: env!("KNOTMETER_RUSTC_VERSION").to_owned(),
        profile: env!("KNOTMETER_PROFILE").to_owned(),
        opt_level,
        debug_assertions,
        target: env!("KNOTMETER_TARGET").to_owned(),
        cpu: cpu_model().unwrap_or_else(|| "unknown".to_owned()),
        cores,
        timer: TimerInfo {
            kind: timer.kind().name().to_owned(),
            precision_ns: timer.precision_ns,
            read_cost_ns: timer.read_cost_ns,
        },
        // A worker of another process's rounds reports nothing of its own: no need to ask git.
        git_commit: settings.round_worker.is_none().then(git_commit).flatten(),
        git_dirty: settings.round_worker.is_none().then(git_dirty).flatten(),
        timestamp: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        seed,
        budget_ms: settings.budget.as_millis() as u64,
        target_precision: settings.precision,
        measure,
        warnings,
    }
}

/// The `high_load` warning for a one-minute load average of `load` on `cores` cores.
fn high_load(load: f64, cores: u32) -> Warning {
    Warning::new(
        "high_load",
        format!(
            "other work is keeping the CPU busy (load average {load:.1} over the last minute on \
             {cores} cores): figures will be noisier and slower than on an idle machine, and \
             before/after comparisons with quieter runs less reliable; close other programs or \
             wait for builds to finish"
        ),
    )
}

fn cpu_model() -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    info.lines()
        .find(|line| line.starts_with("model name"))
        .and_then(|line| line.split_once(':'))
        .map(|(_, model)| model.trim().to_owned())
}

/// Load average per core at which the machine counts as busy.
const HIGH_LOAD_PER_CORE: f64 = 0.75;

/// The one-minute load average, where the OS tells it.
fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn cpu_governor() -> Option<String> {
    std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
        .ok()
        .map(|g| g.trim().to_owned())
}

fn git_commit() -> Option<String> {
    let out = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let commit = String::from_utf8(out.stdout).ok()?.trim().to_owned();
    (out.status.success() && !commit.is_empty()).then_some(commit)
}

/// Whether tracked files differ from `HEAD` (`git status --porcelain --untracked-files=no`
/// prints a line for each); `None` outside a git repository or when git cannot be run.
/// Untracked files are left out: listing them walks every ignored directory, and a new file
/// changes the build only through an edit to a tracked one (a `mod` line, `Cargo.toml`).
/// `--no-optional-locks`: a benchmark never writes to the user's repository (a plain `git
/// status` may refresh the index).
fn git_dirty() -> Option<bool> {
    let out = Command::new("git")
        .args([
            "--no-optional-locks",
            "status",
            "--porcelain",
            "--untracked-files=no",
        ])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| out.stdout.iter().any(|b| !b.is_ascii_whitespace()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The message once carried runs of 22 spaces from a string broken over lines without `\`.
    #[test]
    fn high_load_message_has_no_runs_of_spaces() {
        let warning = high_load(8.1, 2);
        assert!(!warning.message.contains("  "), "{:?}", warning.message);
        assert!(warning.message.starts_with(
            "other work is keeping the CPU busy (load average 8.1 over the last minute on 2 cores)"
        ));
    }
}
