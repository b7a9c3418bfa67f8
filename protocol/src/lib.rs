//! The wire types of knotmeter: the single source of truth for every message shape.
//!
//! Three consumers read these types and nothing else:
//!
//! * the bench binary (the `knotmeter` engine) writes [`Report`] for `--format json`,
//!   one [`Event`] per line for `--format jsonl`, and [`ListDocument`] for
//!   `--list --format json`; under `--driven` it reads [`DrivenCommand`]s and writes
//!   [`DrivenEvent`]s (`knotmeter compare`, which prints a [`CompareReport`]);
//! * the daemon (`knotmeter serve`) reads those and speaks the editor methods ([`editor`],
//!   behind the feature `editor`: a bench binary never compiles them, so a user's build does
//!   not pay for them and a change to them cannot move a measurement);
//! * the VS Code extension, whose TypeScript types are generated from this crate.
//!
//! The crate holds types only: no measurement, no I/O, no LSP. Field names may grow between
//! versions but never change meaning; [`VERSION`] changes when a shape breaks.

#![deny(missing_docs)]

mod bench;
mod driven;
#[cfg(feature = "editor")]
pub mod editor;
mod event;
mod history;
mod ids;
mod list;
mod location;
mod manifest;
mod output_marks;
mod partition;
mod profile;
mod shown;
mod summary;
#[cfg(all(test, feature = "typescript"))]
mod typescript;

pub use bench::{
    Allocations, BenchResult, CacheSimulation, Comparison, ComparisonKind, Estimate, Measure,
    Overhead, Quantiles, RawSamples, Reproducibility, Rounds, Severity, SpreadSource, Throughput,
    ThroughputUnit, UnknownVerdict, Verdict, Warning,
};
pub use driven::{
    CaseComparison, CompareReport, CompareSide, CompareStatus, ComparedCase, DrivenCommand,
    DrivenEvent, DrivenMeasurement, PairEstimate, PairOutcome, PairRound, PairSlot, SlotOutcome,
    SlotPlan, SlotSide, DEFAULT_ROUNDS, DRIVEN_VERSION, HARNESS_THREAD_PREFIX, MIN_ROUNDS,
    QUICK_ROUNDS,
};
pub use event::{CaseFailure, Event, FailureKind, MachineProbe, RunSummary};
pub use history::{HistoryPoint, HistoryRun, HistoryRunId, RunStatus};
pub use ids::{canonical_arg, case_id};
pub use list::{ListDocument, ListEntry};
pub use manifest::{Manifest, TimerInfo};
pub use output_marks::{OutputMark, MARK};
pub use partition::{partition_unit, unit_hash, Partition, PartitionKind};
pub use profile::{
    CallFrame, FunctionChange, Profile, ProfileComparison, ProfileTool, ProfiledFunction,
    ProfiledLine,
};
pub use shown::{Outcome, Shown, ShownComparedCase, ShownComparison, ShownNote};
pub use summary::{BenchSummary, ClassFit, ComplexityFit, ScalingPoint};

use serde::{Deserialize, Serialize};

/// The environment variable that limits how long a bench binary waits for a case's first
/// step (its cold call, or its set-up and first batch) before taking the case for hung, in
/// seconds. The daemon sets it from its case timeout; without it a first step may take as long
/// as it takes (later steps are held to ten times the longest before them, at least 10 s).
pub const CASE_TIMEOUT_ENV: &str = "KNOTMETER_CASE_TIMEOUT";

/// Names the profiler a bench binary marks its timed region for (the workload's sampled
/// batches, nothing else): `callgrind` (client requests toggling collection, for `valgrind
/// --tool=callgrind --collect-atstart=no`) or `perf:CTL_FIFO,ACK_FIFO` (`enable`/`disable` on
/// the control FIFOs of `perf record -D -1 --control fifo:CTL_FIFO,ACK_FIFO`). Unset: nothing
/// is marked. See docs/measurement.md, "The timed region, for a profiler".
pub const PROFILE_REGION_ENV: &str = "KNOTMETER_PROFILE_REGION";
/// Beside [`PROFILE_REGION_ENV`]: a file to which the bench binary appends, at the end of each
/// sampling phase that marked the region, one line `OPERATIONS BATCHES`: how many operations
/// (and batches) the region held, to turn a profile's totals into costs per operation.
pub const PROFILE_OPS_ENV: &str = "KNOTMETER_PROFILE_OPS";

/// Set by whoever starts a measuring process (a run's round workers, `knotmeter compare`'s
/// processes) to a random number of bytes: the variable's own length moves where the process's
/// stack begins. Where a process's stack and heap lie moves a figure by a few percent
/// (Mytkowicz et al., ASPLOS 2009); drawn afresh for every process, that is part of the
/// variation between rounds, which the interval shows, instead of one draw a whole run
/// carries (or, between two builds whose paths differ in length, a fixed bias).
pub const LAYOUT_PAD_ENV: &str = "KNOTMETER_LAYOUT_PAD";
/// Beside [`LAYOUT_PAD_ENV`]: the size in bytes of the first allocation a driven process makes,
/// which moves where the heap allocations after it fall against cache lines and pages.
pub const HEAP_OFFSET_ENV: &str = "KNOTMETER_HEAP_OFFSET";

/// One process's layout, drawn from `random`: a stack pad and a heap offset, each from 0 to
/// 4 080 bytes in steps of 16 (the stack's alignment, up to a page).
pub fn layout(random: u64) -> (usize, usize) {
    const STEP: u64 = 16;
    const STEPS: u64 = 256;
    let stack_pad = (random % STEPS) * STEP;
    let heap_offset = ((random >> 32) % STEPS) * STEP;
    (stack_pad as usize, heap_offset as usize)
}

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
    /// The machine's probe over the run (as in `run_finished`), when it was measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<MachineProbe>,
}

#[cfg(test)]
mod tests {
    use super::layout;

    /// Both offsets run over a page in steps of the stack's alignment, drawn from separate
    /// bits: a stack pad says nothing of the heap offset beside it.
    #[test]
    fn a_layout_is_two_offsets_within_a_page_in_steps_of_sixteen() {
        let mut seen_stack = std::collections::BTreeSet::new();
        let mut differ = 0;
        let mut state = 1_u64;
        for _ in 0..4096 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let (stack, heap) = layout(state);
            assert!(stack < 4096 && heap < 4096, "{stack} {heap}");
            assert_eq!((stack % 16, heap % 16), (0, 0));
            seen_stack.insert(stack);
            differ += usize::from(stack != heap);
        }
        assert_eq!(seen_stack.len(), 256, "every step of the page is drawn");
        assert!(differ > 4000, "{differ}");
        assert_eq!(layout(0), (0, 0));
        assert_eq!(layout(u64::MAX), (4080, 4080));
    }
}
