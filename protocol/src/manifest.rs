//! The reproducibility manifest that accompanies every run.

use serde::{Deserialize, Serialize};

use crate::Measure;

use crate::Warning;

/// Where and how a run was measured: enough to judge whether two runs can be compared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Manifest {
    /// Version of the knotmeter engine that measured.
    pub knotmeter_version: String,
    /// `rustc --version` of the compiler that built the engine.
    pub rustc: String,
    /// Cargo profile the engine was built with (`release` for `cargo bench`).
    pub profile: String,
    /// Optimisation level (`0`..`3`, `s`, `z`).
    pub opt_level: String,
    /// Whether debug assertions were on in the bench target.
    pub debug_assertions: bool,
    /// Target triple.
    pub target: String,
    /// CPU model name, where the OS tells it.
    pub cpu: String,
    /// Logical cores available to the process.
    pub cores: u32,
    /// The clock used for timing.
    pub timer: TimerInfo,
    /// `git rev-parse HEAD` of the working directory, where there is one.
    pub git_commit: Option<String>,
    /// Whether the working directory had uncommitted changes to tracked files (`git status`),
    /// so that the code measured may differ from `git_commit`; absent where that is not known
    /// (no git, or a knotmeter that did not record it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_dirty: Option<bool>,
    /// Seconds since the Unix epoch when the run started.
    pub timestamp: u64,
    /// Seed of the random sample-length jitter.
    pub seed: u64,
    /// Time budget per case, in milliseconds (1000 by default, 100 with `--quick`).
    #[serde(default)]
    pub budget_ms: u64,
    /// The stopping rule's target for the median's relative half-width (0.01 = ±1%).
    #[serde(default)]
    pub target_precision: f64,
    /// What the run measured: `time` (absent, as from every engine before counts) or
    /// `instructions` (`--measure instructions`).
    #[serde(default, skip_serializing_if = "Measure::is_time")]
    #[cfg_attr(feature = "typescript", ts(as = "Option<Measure>", optional))]
    pub measure: Measure,
    /// Environment warnings (debug build, frequency scaling), each with a stable code.
    pub warnings: Vec<Warning>,
}

/// The calibrated timer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct TimerInfo {
    /// `instant` (the OS monotonic clock) or `tsc` (the x86_64 time-stamp counter).
    pub kind: String,
    /// Smallest non-zero difference observed between two reads, in nanoseconds.
    pub precision_ns: f64,
    /// Cost of one read of the timer, in nanoseconds.
    pub read_cost_ns: f64,
}
