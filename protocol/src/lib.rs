//! The wire types of knotmeter: the single source of truth for every message shape.
//!
//! Three consumers read these types and nothing else:
//!
//! * the bench binary (the `knotmeter` engine) writes [`Report`] for `--format json`,
//!   one [`Event`] per line for `--format jsonl`, and [`ListDocument`] for
//!   `--list --format json`; under `--driven` it reads [`DrivenCommand`]s and writes
//!   [`DrivenEvent`]s (`knotmeter compare`, which prints a [`CompareReport`]);
//! * the daemon (`knotmeter serve`) reads those and speaks the editor methods;
//! * the VS Code extension, whose TypeScript types are generated from this crate.
//!
//! The crate holds types only: no measurement, no I/O, no LSP. Field names may grow between
//! versions but never change meaning; [`VERSION`] changes when a shape breaks.

#![deny(missing_docs)]

mod bench;
mod driven;
pub mod editor;
mod event;
mod history;
mod ids;
mod list;
mod manifest;
mod output_marks;
mod partition;
mod shown;
mod summary;
#[cfg(all(test, feature = "typescript"))]
mod typescript;

pub use bench::{
    Allocations, BenchResult, Comparison, ComparisonKind, Estimate, Overhead, Quantiles,
    RawSamples, Reproducibility, Rounds, Severity, SpreadSource, Throughput, ThroughputUnit,
    Verdict, Warning,
};
pub use driven::{
    CaseComparison, CompareReport, CompareSide, CompareStatus, ComparedCase, DrivenCommand,
    DrivenEvent, DrivenMeasurement, PairEstimate, PairOutcome, PairRound, PairSlot, SlotOutcome,
    SlotPlan, SlotSide, DEFAULT_ROUNDS, DRIVEN_VERSION, QUICK_ROUNDS,
};
pub use event::{CaseFailure, Event, FailureKind, RunSummary};
pub use history::{HistoryPoint, HistoryRun, HistoryRunId, RunStatus};
pub use ids::{canonical_arg, case_id};
pub use list::{ListDocument, ListEntry};
pub use manifest::{Manifest, TimerInfo};
pub use output_marks::{OutputMark, MARK};
pub use partition::{partition_unit, unit_hash, Partition, PartitionKind};
pub use shown::{Outcome, Shown, ShownComparedCase, ShownComparison, ShownNote};
pub use summary::{BenchSummary, ClassFit, ComplexityFit, ScalingPoint};

use serde::{Deserialize, Serialize};

/// The environment variable that limits how long a bench binary waits for a case's first
/// step (its cold call, or its set-up and first batch) before taking the case for hung, in
/// seconds. The daemon sets it from its case timeout; without it a first step may take as long
/// as it takes (later steps are held to ten times the longest before them, at least 10 s).
pub const CASE_TIMEOUT_ENV: &str = "KNOTMETER_CASE_TIMEOUT";

/// The version of the machine-readable formats described in `docs/json-format.md`.
pub const VERSION: u32 = 1;

/// The document printed by `--format json`: everything one run of a bench binary measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Report {
    /// Always [`VERSION`] for documents written by this crate.
    pub version: u32,
    /// Where and how the run was measured.
    pub manifest: Manifest,
    /// One entry per measured case, in run order.
    pub results: Vec<BenchResult>,
    /// Cases that did not produce a result (a panic), in run order.
    #[serde(default)]
    pub failures: Vec<CaseFailure>,
    /// Per-function analyses across `args` cases (complexity, scaling warnings).
    #[serde(default)]
    pub benches: Vec<BenchSummary>,
}
