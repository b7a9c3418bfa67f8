//! The driven mode of a bench binary (`--bench --driven`): an orchestrator (`knotmeter
//! compare`) drives its sampling case by case, one command per line on standard input, one
//! event per line on standard output.
//!
//! Two builds of the same benchmarks are compared by running one bench binary of each side in
//! this mode. The orchestrator opens a case in the *base* binary, which then only answers
//! sample requests ([`DrivenCommand::Cold`], [`DrivenCommand::Workload`],
//! [`DrivenCommand::Baseline`]); it asks the *head* binary to [`DrivenCommand::Pair`] the same
//! case against it. The head measures exactly as it measures a group member against its
//! group's baseline (the same tuning, ABBA rounds, stopping rule and paired statistics), with
//! the base's side reached through the orchestrator: each sample it needs from the base is a
//! [`DrivenEvent::Peer`] line, which the orchestrator sends to the base, and whose answer it
//! hands back as [`DrivenCommand::PeerReply`]. So the two processes never measure at the same
//! moment, and every decision (operations per sample, when to stop, the ratio, the verdict) is
//! the engine's. At the end [`DrivenCommand::Finalize`] corrects every estimate together
//! (Benjamini–Hochberg) and decides the verdicts in the engine's one verdict function.
//!
//! [`DRIVEN_VERSION`] changes when a shape here breaks; the `ready` event says which version a
//! binary speaks, so an orchestrator can refuse a build whose engine is too old or too new.
//! `docs/json-format.md` describes the exchange.

use serde::{Deserialize, Serialize};

use crate::location::SourceLocation;
use crate::{Allocations, BenchResult, CaseFailure, Comparison, ListEntry, Manifest};

/// The version of the driven-mode exchange.
pub const DRIVEN_VERSION: u32 = 2;

/// The rounds a case is measured in by default: each round a slot of the case in a fresh
/// process (a bench binary's own run), or a fresh pair of processes (`knotmeter compare`).
pub const DEFAULT_ROUNDS: u32 = 10;
/// The rounds under `--quick`.
pub const QUICK_ROUNDS: u32 = 5;
/// The rounds a case gets whatever the length of its slots, unless one slot alone took its
/// whole budget (a call or a set-up longer than the budget): three give Student's t interval
/// two degrees of freedom, an interval between processes at all. Without it a loaded machine
/// that stretches every slot past the budget would leave a case with one or two rounds, and
/// an interval so wide (t with one degree of freedom is 12.7) that a ratio of 3 read `same`
/// (a CI run of `knotmeter compare --quick`, whose first two pairs, process starts included,
/// took the case's 0.2 s between them).
pub const MIN_ROUNDS: u32 = 3;

/// How a bench binary's own threads are named (the reader of driven-mode commands, the
/// standard-input watcher, a worker's output reader): those threads wait on input and never
/// compete with the benchmark, so `knotmeter compare` leaves them out when it counts the
/// threads a benchmark runs on the one CPU both builds are pinned to. Linux keeps a thread's
/// first 15 bytes of name, which this prefix fits in.
pub const HARNESS_THREAD_PREFIX: &str = "knotmeter-";

/// One line on a driven bench binary's standard input. The `cmd` field names the variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(tag = "cmd", rename_all = "snake_case")]
pub enum DrivenCommand {
    /// Run the case's function until it hands over what it times; answered by `opened`, or
    /// by `failed` when it panics or returns first. The case stays open until `close`.
    Open {
        /// The case id.
        id: String,
    },
    /// Time one call of the open case on its own (the cold call); answered by `sample`.
    Cold,
    /// Time `ops` operations of the open case; answered by `sample`, or by `failed` when the
    /// benchmark panics (which closes the case).
    Workload {
        /// Operations in the sample.
        ops: u64,
    },
    /// Time `ops` operations of the open case's empty body of the same shape; answered by
    /// `sample`.
    Baseline {
        /// Operations in the sample.
        ops: u64,
    },
    /// Close the open case; answered by `closed`, with the case's result when `measurement`
    /// gives the samples that were taken of it (analysed here, with this build's overhead and
    /// validity checks).
    Close {
        /// What was measured of this case, if it is to become a result.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        measurement: Option<Box<DrivenMeasurement>>,
    },
    /// Measure this binary's case `id` paired against the peer's open case of the same id:
    /// answered, after `peer` requests and `progress` events, by `paired`.
    Pair {
        /// The case id.
        id: String,
        /// What the comparison is against, as results name it (the base's label).
        against: String,
        /// The round this pair is one slot of, when the orchestrator measures in rounds (a
        /// fresh pair of processes per round): the pair samples for its share of the budget,
        /// and `paired` carries what was measured (`PairOutcome::round`) rather than an
        /// estimate, which `combine` makes from every round. Absent: the whole pair at once.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        slot: Option<PairSlot>,
    },
    /// Combine the rounds of case `id` measured by `pair` slots (each round in a fresh pair of
    /// processes) into both sides' results and the estimate: answered by `paired`.
    Combine {
        /// The case id.
        id: String,
        /// What the comparison is against (the base's label).
        against: String,
        /// Every round's measurements, in the order they ran.
        rounds: Vec<PairRound>,
        /// The rounds the case was planned to get (a case that got fewer for its budget says
        /// so).
        planned: u32,
        /// The run was cancelled before the case's rounds ended: the results are partial.
        #[serde(default)]
        cut_short: bool,
    },
    /// The peer's answer to the last `peer` request (or `lost` when the peer is gone).
    PeerReply {
        /// The answer.
        reply: Box<DrivenEvent>,
    },
    /// Correct every estimate together and decide the verdicts; answered by `finalized`.
    Finalize {
        /// Every estimate of the comparison, from the `paired` events.
        estimates: Vec<PairEstimate>,
        /// The comparison to store in the history, with the verdicts filled in by this
        /// command; absent: store nothing.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        record: Option<Box<CompareReport>>,
    },
    /// Measure one slot of a round in this process: a case alone, or a group member paired
    /// with its group's baseline, for the slot's budget; answered, after `progress` events, by
    /// `measured`. The bench binary's own rounds use it in worker processes of itself.
    Measure {
        /// What to measure.
        slot: Box<SlotPlan>,
    },
    /// Stop at the next sample boundary: a pair or slot in progress ends with partial results.
    Cancel,
}

/// Which round a `pair` is one slot of.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct PairSlot {
    /// The round (0 first).
    pub round: u32,
    /// The rounds the case is planned to get: its budget is spread over them.
    pub rounds: u32,
    /// The operations per sample the first round tuned; absent in the first round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ops: Option<u64>,
}

/// What one round of a pair measured, both sides index-aligned by sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct PairRound {
    /// The base side's samples (its allocations as its own build counted them).
    pub base: DrivenMeasurement,
    /// The head side's samples.
    pub head: DrivenMeasurement,
}

/// One slot of a round: what a worker process measures on a `measure` command.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct SlotPlan {
    /// The case ids: one case measured alone, or a group's baseline then a member of the group,
    /// measured paired and interleaved.
    pub ids: Vec<String>,
    /// The round this slot belongs to (0 first), for progress and the seed.
    pub round: u32,
    /// The rounds planned for the case, for progress.
    pub rounds: u32,
    /// Wall-time budget of the slot's sampling, warm-up included, in nanoseconds.
    pub budget_ns: u64,
    /// The operations per sample an earlier round tuned; absent in the first round, which
    /// tunes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ops: Option<u64>,
    /// The most samples the slot takes per side.
    pub max_samples: u64,
    /// Seed of the sample-length jitter.
    pub seed: u64,
    /// Count allocations after sampling (when the binary installs `CountingAlloc`): one round
    /// counts them, the others need not.
    #[serde(default)]
    pub count_allocations: bool,
    /// Mark the start and end of each case on standard error (`OutputMark`), as `--format
    /// jsonl` does, so that printed text is attributed to its case.
    #[serde(default)]
    pub mark_output: bool,
}

/// What a worker measured of one slot, side by side in the order of [`SlotPlan::ids`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct SlotOutcome {
    /// Each case of the slot.
    pub sides: Vec<SlotSide>,
    /// Panics of threads that happened in the worker while no case ran there (after the slot
    /// before, probably left running by its benchmark), each naming the case measured last
    /// before it: they fail the run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stray_panics: Vec<String>,
}

/// One case of a measured slot: its samples, or why it has none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct SlotSide {
    /// The case id.
    pub id: String,
    /// What was measured; absent when the case failed or was not reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured: Option<DrivenMeasurement>,
    /// Why nothing was measured: a panic, a benchmark declared wrongly, a cancel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<CaseFailure>,
}

/// One line on a driven bench binary's standard output. The `event` field names the variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum DrivenEvent {
    /// The first line: what the binary is and holds.
    Ready {
        /// [`crate::VERSION`] of the result shapes.
        version: u32,
        /// [`DRIVEN_VERSION`].
        driven_version: u32,
        /// Where and how this binary measures.
        manifest: Box<Manifest>,
        /// Every case of the binary.
        cases: Vec<ListEntry>,
    },
    /// The case is open: its function handed over what it times.
    Opened {
        /// The case id.
        id: String,
    },
    /// A sample: nanoseconds for the requested operations (not per operation).
    Sample {
        /// The sample's duration.
        ns: f64,
    },
    /// The case failed (a panic, or no timing call); it is closed.
    Failed {
        /// What happened.
        failure: CaseFailure,
    },
    /// The case is closed.
    Closed {
        /// Its result, when `close` gave a measurement.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        result: Option<Box<BenchResult>>,
    },
    /// A request for the peer, to be answered with `peer_reply`.
    Peer {
        /// The command to send to the peer.
        command: Box<DrivenCommand>,
    },
    /// Measurement progress of a pair, as the `progress` event of `--format jsonl`.
    Progress {
        /// The case id.
        id: String,
        /// Rounds so far.
        samples: u64,
        /// Share of the pair's expected wall time spent, 0 to 1.
        fraction: f64,
        /// The longest step so far, in nanoseconds.
        longest_step_ns: f64,
    },
    /// A pair ended.
    Paired(Box<PairOutcome>),
    /// A slot ended (the answer to `measure`).
    Measured(Box<SlotOutcome>),
    /// The last words of a round's worker, as its input closed: panics of threads that
    /// happened after its last slot (probably left running by that slot's benchmark), each
    /// naming that case, as [`SlotOutcome::stray_panics`]. They fail the run.
    StrayPanics {
        /// One line per panic.
        panics: Vec<String>,
    },
    /// The verdicts, and what was stored.
    Finalized {
        /// One comparison per estimate, in the estimates' order.
        comparisons: Vec<CaseComparison>,
        /// The comparison's id in the history, when it was stored.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stored: Option<i64>,
        /// Why it was not stored, when a record was given and storing failed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        store_error: Option<String>,
    },
    /// Written by the orchestrator, never by a binary: the peer process ended or stopped
    /// answering.
    Lost {
        /// What happened to it.
        message: String,
    },
    /// A command that cannot be carried out (an unknown case, a command out of turn).
    Error {
        /// What was wrong.
        message: String,
    },
}

/// What was measured of one side of a pair, before analysis: per-operation samples in time
/// order, index-aligned with the other side's.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct DrivenMeasurement {
    /// The cold call, in nanoseconds.
    pub cold_ns: f64,
    /// Operations per sample (before jitter), agreed by both sides.
    pub ops_per_sample: u64,
    /// Per-operation workload samples.
    pub workload_ns: Vec<f64>,
    /// Per-operation empty-body samples, paired with `workload_ns`.
    pub baseline_ns: Vec<f64>,
    /// Wall time of the pair, in nanoseconds.
    pub wall_ns: f64,
    /// The pair was cut short by a cancel.
    pub partial: bool,
    /// Sampling stopped because the budget ran out before the target precision.
    pub budget_exhausted: bool,
    /// Allocations and bytes per operation, counted over one untimed batch when the binary
    /// installs `CountingAlloc` (a `measure` slot that was asked to count).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allocations: Option<Allocations>,
    /// The routine timed itself (criterion's `iter_custom`): nothing was subtracted.
    #[serde(default)]
    pub self_timed: bool,
    /// The benchmark called a timing method more than once; only the first was measured.
    #[serde(default)]
    pub measured_twice: bool,
    /// A count's cache simulation, one `[accesses, first-level misses, last-level misses]`
    /// per operation for each repetition, the empty body's subtracted; empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "typescript", ts(as = "Option<Vec<[f64; 3]>>", optional))]
    pub cache: Vec<[f64; 3]>,
}

/// How a pair ended: each side's result or failure, and the estimate when both can be
/// compared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct PairOutcome {
    /// The case id.
    pub id: String,
    /// The base side's result (analysed by the base binary).
    pub base: Option<BenchResult>,
    /// The head side's result.
    pub head: Option<BenchResult>,
    /// Why the base side has no result.
    pub base_failure: Option<CaseFailure>,
    /// Why the head side has no result.
    pub head_failure: Option<CaseFailure>,
    /// The other side's process stopped answering in the middle of the pair (it crashed, or
    /// the orchestrator went away): what the orchestrator said. Neither side then has a result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_lost: Option<String>,
    /// The paired estimate, before the correction across cases; absent when the two cannot be
    /// compared.
    pub estimate: Option<PairEstimate>,
    /// Why there is no estimate (cut short, indistinguishable from the empty body, a failure).
    pub not_compared: Option<String>,
    /// What a `pair` slot of a round measured, for `combine` (absent outside rounds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<PairRound>,
}

impl PairOutcome {
    /// The outcome of case `id` before anything is known of it: no result, failure, estimate
    /// or round yet.
    pub fn of(id: impl Into<String>) -> Self {
        PairOutcome {
            id: id.into(),
            base: None,
            head: None,
            base_failure: None,
            head_failure: None,
            base_lost: None,
            estimate: None,
            not_compared: None,
            round: None,
        }
    }
}

/// A paired ratio waiting for the correction across every compared case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct PairEstimate {
    /// The case id.
    pub id: String,
    /// What it was compared against.
    pub against: String,
    /// Head time over base time.
    pub ratio: f64,
    /// Lower bound of the ratio's 95% interval.
    pub low: f64,
    /// Upper bound of the ratio's 95% interval.
    pub high: f64,
    /// The uncorrected two-sided p-value.
    pub p_value: f64,
    /// Relative change below which a difference is noise (0.01 = 1%).
    pub threshold: f64,
}

/// One case's comparison after the correction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct CaseComparison {
    /// The case id.
    pub id: String,
    /// The comparison and its verdict.
    pub comparison: Comparison,
}

/// The document `knotmeter compare --format json` prints, and what the history stores of a
/// comparison: two builds of the same benchmarks, case by case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct CompareReport {
    /// [`crate::VERSION`].
    pub version: u32,
    /// The build compared against.
    pub base: CompareSide,
    /// The build under test (the working tree, or `--head REV`).
    pub head: CompareSide,
    /// Every case of either side, in the head's order (removed cases last).
    pub cases: Vec<ComparedCase>,
    /// The run was cancelled before every case was compared.
    #[serde(default)]
    pub cancelled: bool,
    /// The comparison's id in the history, when it was stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stored: Option<i64>,
}

/// One side of a comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct CompareSide {
    /// What the user named it: `main`, `HEAD`, `working tree`.
    pub label: String,
    /// Its commit (the head's `HEAD` commit for a working tree), when in a git repository.
    pub commit: Option<String>,
    /// The working tree had uncommitted changes (head only).
    #[serde(default)]
    pub dirty: bool,
    /// The manifest of a bench binary of this side (the first one started).
    pub manifest: Option<Manifest>,
}

/// One case of a comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ComparedCase {
    /// The case id.
    pub id: String,
    /// What became of it.
    pub status: CompareStatus,
    /// The base side's result.
    pub base: Option<BenchResult>,
    /// The head side's result.
    pub head: Option<BenchResult>,
    /// The paired comparison and its verdict (`status` is `compared`).
    pub comparison: Option<Comparison>,
    /// Why it was not compared, or how it failed.
    pub note: Option<String>,
    /// Where the head build's failure points in the sources (a panic's place), when the head
    /// failed; not stored in the history.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub location: Option<SourceLocation>,
}

/// What became of one case of a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum CompareStatus {
    /// Measured on both sides and compared: `comparison` holds the verdict.
    Compared,
    /// Measured, but not compared (`note` says why: cut short, optimised away).
    NotCompared,
    /// Only in the head build.
    Added,
    /// Only in the base build.
    Removed,
    /// It failed on one side or both, or could not be run (`note` says which and why).
    Failed,
    /// Not run: the comparison was cancelled first.
    Skipped,
}

impl CompareStatus {
    /// The status as one word, as it is printed and stored.
    pub fn as_str(self) -> &'static str {
        match self {
            CompareStatus::Compared => "compared",
            CompareStatus::NotCompared => "not_compared",
            CompareStatus::Added => "added",
            CompareStatus::Removed => "removed",
            CompareStatus::Failed => "failed",
            CompareStatus::Skipped => "skipped",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn commands_and_events_are_tagged_snake_case() {
        let command = DrivenCommand::Workload { ops: 12 };
        assert_eq!(
            serde_json::to_value(&command).unwrap(),
            json!({"cmd": "workload", "ops": 12})
        );
        let close: DrivenCommand = serde_json::from_value(json!({"cmd": "close"})).unwrap();
        assert_eq!(close, DrivenCommand::Close { measurement: None });
        let relayed = DrivenCommand::PeerReply {
            reply: Box::new(DrivenEvent::Sample { ns: 1.5 }),
        };
        assert_eq!(
            serde_json::to_value(&relayed).unwrap(),
            json!({"cmd": "peer_reply", "reply": {"event": "sample", "ns": 1.5}})
        );
        assert_eq!(
            serde_json::to_value(CompareStatus::NotCompared).unwrap(),
            json!("not_compared")
        );
    }
}
