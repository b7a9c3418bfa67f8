//! The events of `--format jsonl`: one JSON object per line, in order.

use serde::{Deserialize, Serialize};

use crate::{BenchResult, BenchSummary, Comparison, ListEntry, Manifest, Rounds};

/// One line of `--format jsonl`. The `event` field names the variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// The first line: the manifest and every case that will run, in order.
    RunStarted {
        /// Always [`crate::VERSION`].
        version: u32,
        /// Where and how the run is measured.
        manifest: Box<Manifest>,
        /// The cases that will run.
        cases: Vec<ListEntry>,
    },
    /// A case begins (cold call, warm-up, tuning, sampling follow).
    CaseStarted {
        /// The case id.
        id: String,
    },
    /// Measurement progress of the running case, at most a few times per second.
    Progress {
        /// The case id.
        id: String,
        /// Workload samples taken so far.
        samples: u64,
        /// Fraction of the case's time budget spent, 0 to 1.
        fraction: f64,
        /// The longest single step of this case so far, in nanoseconds: the cold call, one
        /// warm-up or tuning batch, or one sample. A consumer that has heard nothing for much
        /// longer than this (and than its own floor) may take the case for hung; a slow case
        /// is told from a hang this way, not by a fixed wall time. `null` before the first
        /// step ends, and from engines that predate the field.
        #[serde(default)]
        longest_step_ns: Option<f64>,
    },
    /// A case finished with a result.
    CaseFinished {
        /// The result, the same object as in `--format json`.
        result: Box<BenchResult>,
    },
    /// A case ended without a result.
    CaseFailed(CaseFailure),
    /// All cases of a benchmark function finished: its scaling analysis.
    BenchFinished(BenchSummary),
    /// At the end of the run, after every case: a case's comparison, its p-value corrected
    /// across the run. The `comparison` of the case's `case_finished` result was `null`.
    CaseCompared {
        /// The case id.
        id: String,
        /// The comparison and its verdict.
        comparison: Comparison,
    },
    /// The last line: totals.
    RunFinished(RunSummary),
}

/// Why a case produced no result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct CaseFailure {
    /// The case id.
    pub id: String,
    /// What went wrong.
    pub kind: FailureKind,
    /// The panic message or error text.
    pub message: String,
    /// `file:line:column` of the panic, where known.
    pub location: Option<String>,
}

/// The kind of a case failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The benchmark body panicked.
    Panic,
    /// The run was cancelled before the case produced any sample.
    Cancelled,
    /// The benchmark was declared wrongly (for example `iter` was never called).
    Misuse,
    /// The process measuring the case ended in the middle of it: a signal (an abort, a
    /// segmentation fault, the OOM killer) or an exit. The bench binary measures each round in
    /// a worker process of its own, so the run goes on.
    Crashed,
    /// The process measuring the case fell silent for longer than the case's steps allow, and
    /// was killed.
    Hung,
}

/// Totals at the end of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RunSummary {
    /// Cases that produced a complete result.
    pub passed: u64,
    /// Cases that failed (a panic, or a benchmark declared wrongly).
    pub failed: u64,
    /// Cases the cancel cut short: a partial result, or none when the case had not taken a
    /// sample yet (`case_failed` with kind `cancelled`). Counted in neither `passed` nor
    /// `failed`; 0 from engines that predate the field, which counted partial results as passed.
    #[serde(default)]
    pub partial: u64,
    /// True when the run was cancelled before every case finished.
    pub cancelled: bool,
    /// Wall time of the whole run in nanoseconds.
    pub wall_ns: f64,
    /// The machine's probe: a fixed chain the engine measured in every round of the run, whose
    /// code is the same in every build made by the same engine and compiler (absent from
    /// engines that predate it, and from a run that measured nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<MachineProbe>,
}

/// How fast the machine ran a fixed chain of arithmetic during a run, measured in a slot of
/// every round beside the cases: what moves every case of a run at once shows in it too.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct MachineProbe {
    /// Nanoseconds per step of the chain: the geometric mean of the rounds' medians.
    pub ns_per_step: f64,
    /// The lower end of its 95% interval, made as a case's is (where a rerun's probe should
    /// land).
    pub low_ns: f64,
    /// Its upper end.
    pub high_ns: f64,
    /// Each round's median, nanoseconds per operation (a thousand steps).
    pub rounds: Rounds,
    /// What compiled the chain: the engine's version, the compiler and the optimisation level
    /// (`knotmeter 0.1.0, rustc 1.91.0 (…), opt-level 3`). Two runs' probes measure the same
    /// code only when this is the same; a comparison or a learnt spread never puts two
    /// different ones side by side. Empty from engines that predate it.
    #[serde(default)]
    pub build: String,
}
