//! The editor protocol: the `knotmeter/*` JSON-RPC methods the daemon (`knotmeter serve`)
//! speaks beside standard LSP, as described in `docs/protocol.md`.
//!
//! Each method is declared once, as a type implementing [`Request`] or [`Notification`] with
//! its method name and the shapes of its parameters and result. The daemon registers its
//! handlers from these declarations and the extension's TypeScript types are generated from
//! them (`cargo test -p knotmeter-protocol --features typescript`).
//!
//! Field names are camelCase on the wire (`runId`). The `result` of a `knotmeter/runState`
//! notification is the engine's [`BenchResult`], unchanged (snake_case), so the editor sees
//! exactly what `--format jsonl` printed.
//!
//! | method | direction | params | result |
//! |---|---|---|---|
//! | `knotmeter/discover` | request to the daemon | [`DiscoverParams`] | [`DiscoverResult`] |
//! | `knotmeter/discovered` | notification to the editor | [`DiscoveredParams`] | |
//! | `knotmeter/treeChanged` | notification to the editor | [`TreeChangedParams`] | |
//! | `knotmeter/run` | request to the daemon | [`RunParams`] | [`RunResult`] |
//! | `knotmeter/runState` | notification to the editor | [`RunStateParams`] | |
//! | `knotmeter/runStates` | notification to the editor | [`RunStatesParams`] | |
//! | `knotmeter/output` | notification to the editor | [`OutputParams`] | |
//! | `knotmeter/runEnd` | notification to the editor | [`RunEndParams`] | |
//! | `knotmeter/cancel` | request to the daemon | [`CancelParams`] | `null` |
//! | `knotmeter/history` | request to the daemon | [`HistoryParams`] | [`HistoryResult`] |
//! | `knotmeter/stored` | notification to the editor | [`StoredParams`] | |
//! | `knotmeter/samples` | request to the daemon | [`SamplesParams`] | [`SamplesResult`] |
//! | `knotmeter/compared` | notification to the editor | [`ComparedParams`] | |
//!
//! `knotmeter/treeChanged` and `knotmeter/runStates` are sent to clients that announce them in
//! `initialize` ([`Features`], under `capabilities.experimental.knotmeter`); others get whole
//! trees and one `knotmeter/runState` per change.
//!
//! Unknown fields: the params of a request *to the daemon* refuse them
//! (`deny_unknown_fields`), so a misspelled field (`{"inclde": [...]}`) is a `-32602` error
//! naming it rather than a request that silently does something else (a run of everything).
//! What the daemon *sends* ([`DiscoverResult`], every notification's params) and what the two
//! sides announce ([`Features`]) or configure ([`Settings`]) accept unknown fields: a newer
//! daemon adds fields an older client must skip, and a newer client announces features or
//! settings an older daemon does not know.

use serde::{Deserialize, Serialize};

pub use crate::location::SourceLocation;
use crate::{BenchResult, BenchSummary, HistoryPoint, Profile, RawSamples, Shown, ShownComparison};

/// A request: a method name with the shapes of its parameters and result.
pub trait Request {
    /// The JSON-RPC method name.
    const METHOD: &'static str;
    /// The `params` of the request.
    type Params;
    /// The `result` of a successful response.
    type Result;
}

/// A notification: a method name with the shape of its parameters.
pub trait Notification {
    /// The JSON-RPC method name.
    const METHOD: &'static str;
    /// The `params` of the notification.
    type Params;
}

/// `knotmeter/discover`: the editor asks for the whole tree of benchmarks.
#[derive(Debug)]
pub enum DiscoverRequest {}

impl Request for DiscoverRequest {
    const METHOD: &'static str = "knotmeter/discover";
    type Params = DiscoverParams;
    type Result = DiscoverResult;
}

/// `knotmeter/discovered`: the daemon pushes the whole tree, each time it changes and only
/// then.
#[derive(Debug)]
pub enum DiscoveredNotification {}

impl Notification for DiscoveredNotification {
    const METHOD: &'static str = "knotmeter/discovered";
    type Params = DiscoveredParams;
}

/// `knotmeter/treeChanged`: the daemon sends what changed in the tree since the version the
/// client holds, to clients that announce [`Features::tree_changed`] (instead of whole trees
/// in `knotmeter/discovered` after the first).
#[derive(Debug)]
pub enum TreeChangedNotification {}

impl Notification for TreeChangedNotification {
    const METHOD: &'static str = "knotmeter/treeChanged";
    type Params = TreeChangedParams;
}

/// `knotmeter/run`: the editor asks for a run; the daemon answers at once with its id, then
/// reports it with `knotmeter/runState`, `knotmeter/output` and a final `knotmeter/runEnd`.
#[derive(Debug)]
pub enum RunRequest {}

impl Request for RunRequest {
    const METHOD: &'static str = "knotmeter/run";
    type Params = RunParams;
    type Result = RunResult;
}

/// `knotmeter/runState`: one item of a run changed state.
#[derive(Debug)]
pub enum RunStateNotification {}

impl Notification for RunStateNotification {
    const METHOD: &'static str = "knotmeter/runState";
    type Params = RunStateParams;
}

/// `knotmeter/runStates`: several `knotmeter/runState` changes in one message, in the order
/// they happened, to clients that announce [`Features::run_states`].
#[derive(Debug)]
pub enum RunStatesNotification {}

impl Notification for RunStatesNotification {
    const METHOD: &'static str = "knotmeter/runStates";
    type Params = RunStatesParams;
}

/// `knotmeter/output`: text for a run's output: build output, tables, overhead diagnostics.
#[derive(Debug)]
pub enum OutputNotification {}

impl Notification for OutputNotification {
    const METHOD: &'static str = "knotmeter/output";
    type Params = OutputParams;
}

/// `knotmeter/runEnd`: a run is over; every item has reached a final state.
#[derive(Debug)]
pub enum RunEndNotification {}

impl Notification for RunEndNotification {
    const METHOD: &'static str = "knotmeter/runEnd";
    type Params = RunEndParams;
}

/// `knotmeter/cancel`: the editor cancels a run. The result is `null`; the run still ends
/// with `knotmeter/runEnd`.
#[derive(Debug)]
pub enum CancelRequest {}

impl Request for CancelRequest {
    const METHOD: &'static str = "knotmeter/cancel";
    type Params = CancelParams;
    type Result = ();
}

/// `knotmeter/history`: the stored results of one case, for a chart.
#[derive(Debug)]
pub enum HistoryRequest {}

impl Request for HistoryRequest {
    const METHOD: &'static str = "knotmeter/history";
    type Params = HistoryParams;
    type Result = HistoryResult;
}

/// `knotmeter/stored`: the last stored result of each benchmark case the history holds, sent
/// once the daemon has read it (after it starts, before anything is run). Live results from
/// `knotmeter/runState` replace them.
#[derive(Debug)]
pub enum StoredNotification {}

impl Notification for StoredNotification {
    const METHOD: &'static str = "knotmeter/stored";
    type Params = StoredParams;
}

/// `knotmeter/compared`: a comparison run ("Compare with base") is over: the whole
/// comparison, every case with both sides' figures, the change with its interval and the
/// verdict against the base, or why it was not compared. Sent once per comparison run, before
/// its `knotmeter/runEnd`; a client that does not know it loses nothing the run's states and
/// output do not say.
#[derive(Debug)]
pub enum ComparedNotification {}

impl Notification for ComparedNotification {
    const METHOD: &'static str = "knotmeter/compared";
    type Params = ComparedParams;
}

/// `knotmeter/profiled`: a case's profile (a run with `profile` set, or the newest stored one
/// of each case, sent once after the daemon starts), with its hot lines marked. Sent before
/// the case's `passed`. A client that announced the feature `profiles` draws them itself; any
/// other gets them as inlay hints and information diagnostics.
#[derive(Debug)]
pub enum ProfiledNotification {}

impl Notification for ProfiledNotification {
    const METHOD: &'static str = "knotmeter/profiled";
    type Params = ProfiledParams;
}

/// `knotmeter/profileCompared`: a case profiled on two builds (a run with `profile` and
/// `compare` set: "Compare with base" with profiling on), sent before the case's `passed`. Any
/// client gets the comparison's table as run output as well.
#[derive(Debug)]
pub enum ProfileComparedNotification {}

impl Notification for ProfileComparedNotification {
    const METHOD: &'static str = "knotmeter/profileCompared";
    type Params = ProfileComparedParams;
}

/// `knotmeter/samples`: the raw samples of a case's latest result. Results in
/// `knotmeter/runState` and `knotmeter/stored` carry none (their `raw` vectors are empty):
/// a client that draws samples asks for them.
#[derive(Debug)]
pub enum SamplesRequest {}

impl Request for SamplesRequest {
    const METHOD: &'static str = "knotmeter/samples";
    type Params = SamplesParams;
    type Result = SamplesResult;
}

/// The command of the "▶ Run" code lens. Its one argument is a [`RunParams`]; a client may
/// run it itself (with `knotmeter/run`) or send it back with `workspace/executeCommand`. The
/// "⇄ Compare with base" lens uses it too, with `compare` set.
pub const RUN_COMMAND: &str = "knotmeter.run";

/// A position in a document: 0-based line and character (UTF-16 code units), as in LSP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Position {
    /// 0-based line.
    pub line: u32,
    /// 0-based character offset in UTF-16 code units.
    pub character: u32,
}

/// A range in a document, end exclusive, as in LSP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Range {
    /// The first character.
    pub start: Position,
    /// Just after the last character.
    pub end: Position,
}

/// The level of an item in the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum ItemKind {
    /// A cargo package with bench targets; id `pkg:<package name>`.
    Package,
    /// A `[[bench]]` target; id `target:<package name>/<target name>`.
    Target,
    /// A `#[bench]` function; its id is the engine's benchmark id.
    Bench,
    /// One `args` value of a benchmark; its id is the engine's case id.
    Case,
}

/// One node of the tree of benchmarks. Parents come before their children.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TestItem {
    /// Stable id (see `docs/protocol.md`): benchmarks and cases use the engine's ids.
    pub id: String,
    /// What to show: the package, target or function name, or the argument text of a case.
    pub label: String,
    /// The level of the item.
    pub kind: ItemKind,
    /// The id of the parent item; absent for packages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// The `file://` URI of the source: the manifest for a package, the bench file for a
    /// target, the defining file for a benchmark or case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    /// The source range: a benchmark's whole function (attributes included), a case's
    /// argument expression.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<Range>,
    /// The comparison group of a benchmark or case, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// A note to show beside the label: for a criterion bench target that was never built,
    /// that a build will list its benchmarks (criterion names them at run time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// Params of `knotmeter/discover`: none (send `{}`). Any field is refused.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct DiscoverParams {}

/// Result of `knotmeter/discover`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct DiscoverResult {
    /// The whole tree, parents before children.
    pub items: Vec<TestItem>,
    /// The tree's version: `knotmeter/treeChanged` messages apply to it in turn. Absent from
    /// daemons that predate it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u64>,
}

/// Params of `knotmeter/discovered`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct DiscoveredParams {
    /// The whole tree, parents before children.
    pub items: Vec<TestItem>,
    /// The tree's version (see [`DiscoverResult::version`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u64>,
}

/// Params of `knotmeter/treeChanged`: the change from tree version `base` to `version`.
///
/// A client holding version `base` removes every id in `removed`, then adds or replaces each
/// item of `items` (whole items, parents before children); it then holds `version`. A message
/// whose `version` is not above the client's is old news (a `knotmeter/discover` answer
/// overtook it) and is ignored; one whose `base` is not the client's version means the client
/// missed a change: it asks `knotmeter/discover` for the whole tree. Ids are stable: an item
/// that moves (its range changes) is replaced under the same id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct TreeChangedParams {
    /// The version this change applies to.
    pub base: u64,
    /// The version after it.
    pub version: u64,
    /// Ids of the items that left the tree: every one of them, descendants included.
    pub removed: Vec<String>,
    /// Items that are new or changed, whole, parents before children.
    pub items: Vec<TestItem>,
}

/// How long each case is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum RunMode {
    /// The engine's `--quick`: about 100 ms per case (run-on-save uses it).
    Quick,
    /// The engine's default budget: about 1 s per case.
    #[default]
    Full,
}

/// Params of `knotmeter/run` (and the argument of the [`RUN_COMMAND`] command). `{}` runs
/// everything; an unknown field is refused (`-32602` naming it), never ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunParams {
    /// Item ids to run, at any level (a package runs all its benchmarks). Absent: everything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include: Option<Vec<String>>,
    /// Item ids to leave out, at any level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude: Option<Vec<String>>,
    /// `quick` or `full` (the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<RunMode>,
    /// Compare with another build instead of measuring alone (`knotmeter compare`): the git
    /// revision of the base; empty for the default base (`HEAD` when the working tree has
    /// uncommitted changes, else the merge base with the upstream branch). Each passed item's
    /// `result` is then the working tree's, and its `comparison` (kind `builds`, `against` the
    /// base) arrives once every item is measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compare: Option<String>,
    /// Profile each case instead of measuring it (`knotmeter profile`, docs/profile.md): one
    /// after another, each under [`RunParams::profiler`] in a profile build of its own. Each case's profile
    /// arrives as `knotmeter/profiled`, then the case ends `passed` without a `result` (a
    /// profile is not a measurement, and no verdict); a missing profiler, a build error or a
    /// case that fails under it ends it `errored` or `failed` with the reason. With `compare`
    /// as well, each case is profiled on both builds and its comparison arrives as
    /// `knotmeter/profileCompared` (and as the table in the run's output). In `quick` mode
    /// (the editor's profile on save) each case has a shorter budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<bool>,
    /// The profiler of a profile run: `callgrind` (instructions counted; the default) or
    /// `perf` (CPU time sampled).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profiler: Option<crate::ProfileTool>,
    /// What to measure: `time` (the default) or `instructions`, each case's instructions
    /// counted under Valgrind's callgrind (`--measure instructions`, docs/instructions.md):
    /// results in instructions per operation, compared with earlier counts only; with
    /// `compare`, the two builds compared by count. Not with `profile` (refused with -32602).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measure: Option<crate::Measure>,
}

/// Result of `knotmeter/run`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct RunResult {
    /// The new run's id, unique while the daemon lives.
    pub run_id: u32,
}

/// The state of one item in a run. Every item of a run starts `enqueued` and ends in one of
/// `passed`, `failed`, `errored` or `skipped`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum ItemState {
    /// Waiting for its turn.
    Enqueued,
    /// Its bench target is being compiled.
    Building,
    /// The bench binary is measuring it.
    Started,
    /// Measured: `result` holds the measurement.
    Passed,
    /// The benchmark panicked or was declared wrongly: `message` says where and why.
    Failed,
    /// It could not be measured: a compile error, a crash, a hang (timeout), an unreadable
    /// bench binary; `message` says which.
    Errored,
    /// Not measured because the run was cancelled (or the item vanished). A case cancelled
    /// in the middle of its measurement carries the partial `result`.
    Skipped,
}

impl ItemState {
    /// Whether the state is final: `passed`, `failed`, `errored` or `skipped`.
    pub fn is_final(self) -> bool {
        matches!(
            self,
            ItemState::Passed | ItemState::Failed | ItemState::Errored | ItemState::Skipped
        )
    }
}

/// Params of `knotmeter/runState`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct RunStateParams {
    /// The run.
    pub run_id: u32,
    /// The item (a benchmark without `args`, or a case).
    pub id: String,
    /// Its new state.
    pub state: ItemState,
    /// The measurement, with `passed` (and with `skipped` after a partial measurement).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Box<BenchResult>>,
    /// Why, with `failed`, `errored` and `skipped`: the panic message and location, the
    /// rendered compiler error, the signal, the timeout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Where `message` points in the sources, when it is about a place there: a panic's
    /// location (`failed`), the first compiler error of the item's package (`errored`). The
    /// editor shows the message there rather than at the function.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub location: Option<SourceLocation>,
    /// What to show for `result`, decided by the daemon (knotmeter-format): the headline,
    /// the verdict, the outcome and every note, the benchmark's included. Present whenever
    /// `result` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub shown: Option<Box<Shown>>,
    /// The analysis of the item's benchmark across its `args` cases (complexity, scaling
    /// warnings), once all its cases ran; the item is then reported again with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub bench: Option<Box<BenchSummary>>,
}

/// Params of `knotmeter/runStates`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RunStatesParams {
    /// The changes, in the order they happened; each is what one `knotmeter/runState` would
    /// carry.
    pub states: Vec<RunStateParams>,
}

/// Params of `knotmeter/output`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct OutputParams {
    /// The run.
    pub run_id: u32,
    /// The item the text is about, if it is about one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The text, with line breaks as `\r\n` (ready for a terminal-like output view).
    pub text: String,
}

/// Params of `knotmeter/runEnd`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct RunEndParams {
    /// The run.
    pub run_id: u32,
}

/// Params of `knotmeter/cancel`. An unknown field is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CancelParams {
    /// The run to cancel. Cancelling a finished or unknown run does nothing.
    pub run_id: u32,
}

/// Params of `knotmeter/history`. An unknown field is refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HistoryParams {
    /// The case id (a benchmark id for a benchmark without `args`).
    pub id: String,
    /// At most this many points (default 100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}

/// Result of `knotmeter/history`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct HistoryResult {
    /// Newest first. Empty when there is no history (yet).
    pub points: Vec<HistoryPoint>,
}

/// Params of `knotmeter/stored`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct StoredParams {
    /// The latest complete (not partial) stored result of each case, each with its
    /// `stored_at`. Cases never stored are absent.
    pub results: Vec<BenchResult>,
    /// What to show for each of `results`, in the same order, decided by the daemon
    /// (knotmeter-format) as for `knotmeter/runState`; its line ends with when the result was
    /// stored. Absent from daemons before it was sent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "typescript", ts(as = "Option<Vec<Shown>>", optional))]
    pub shown: Vec<Shown>,
}

/// Params of `knotmeter/compared`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ComparedParams {
    /// The comparison run.
    pub run_id: u32,
    /// The comparison as every surface shows it (knotmeter-format).
    pub comparison: ShownComparison,
}

/// Params of `knotmeter/profiled`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ProfiledParams {
    /// The run that profiled it; absent for a profile read from the history when the daemon
    /// started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub run_id: Option<u32>,
    /// When it was stored, in seconds since the Unix epoch (absent when it could not be).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub stored_at: Option<i64>,
    /// The profile.
    pub profile: Profile,
    /// Its hot lines of the workspace as every surface marks them (knotmeter-format), the
    /// costliest first: what an editor draws at the end of each line and in its gutter.
    pub marks: Vec<HotLine>,
}

/// Params of `knotmeter/profileCompared`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ProfileComparedParams {
    /// The run that profiled both builds.
    pub run_id: u32,
    /// Both profiles and the functions whose own cost changed most.
    pub comparison: crate::ProfileComparison,
    /// Its heading as every surface words it (knotmeter-format).
    pub heading: String,
}

/// A hot line of a profile, as an editor marks it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct HotLine {
    /// The source file, absolute.
    pub file: String,
    /// Where the line is (0-based, as LSP positions): its start.
    pub line: u32,
    /// The line's share of the profiled region, from 0 to 1 (own code and calls made from it):
    /// how hot its gutter mark is.
    pub share: f64,
    /// The mark at the end of the line: `31% · 4 100 instructions/op`.
    pub text: String,
    /// One sentence for a hover: whose profile it is and what it counts.
    pub detail: String,
}

/// Params of `knotmeter/samples`. An unknown field is refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct SamplesParams {
    /// The case id (a benchmark id for a benchmark without `args`).
    pub id: String,
}

/// Result of `knotmeter/samples`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct SamplesResult {
    /// The raw samples of the latest result the daemon reported for the case; `null` when it
    /// has none for it (not measured, or measured long ago and not found in the history).
    pub raw: Option<RawSamples>,
    /// Where `raw` comes from, when it is present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<SamplesSource>,
}

/// Where the samples of a `knotmeter/samples` answer come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum SamplesSource {
    /// As measured, in the order they were taken (the daemon keeps them for recent results).
    Measured,
    /// The history store's compact form of the same result: each vector sorted, reduced to
    /// evenly spaced order statistics (its minimum, median and maximum among them). Fine for a
    /// histogram; says nothing of the order the samples were taken in.
    Stored,
}

/// What one side of the connection supports beyond the methods every client and daemon have,
/// exchanged in `initialize` under `capabilities.experimental.knotmeter` (the client's in
/// its request, the daemon's in its result). Absent fields are `false`. Unknown fields are
/// skipped, not refused: they are features of a newer client or daemon, which the other side
/// does without.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Features {
    /// Tree changes as `knotmeter/treeChanged` rather than whole trees.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree_changed: Option<bool>,
    /// Run states batched in `knotmeter/runStates` rather than one `knotmeter/runState` each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_states: Option<bool>,
    /// `knotmeter/samples` (the daemon's side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples: Option<bool>,
    /// The client draws profiles from `knotmeter/profiled` itself: the daemon gives it no
    /// inlay hints or diagnostics for hot lines. The daemon's side: it runs profiles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profiles: Option<bool>,
}

/// The daemon's settings: the `initializationOptions` of `initialize`, and the `settings`
/// of `workspace/didChangeConfiguration` (either this object itself or `{"knotmeter": ...}`).
/// Absent fields keep their current value. Unknown fields are skipped, not refused: they are
/// settings of a newer extension (or another editor's), and refusing them would drop every
/// setting beside them; a misspelled one leaves its setting as it was, nothing wider.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// Re-run the benchmarks of a saved file (quick mode) after a build. Default `false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_on_save: Option<bool>,
    /// Seconds a case may stay silent before its first step (the cold call) reports, and the
    /// bench binary between cases; after that a case is taken for hung (stopped, `errored`)
    /// when it reports no progress for 10 times its longest step so far, and at least 10 s.
    /// Above 0, at most 86400. Default 120.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub case_timeout_secs: Option<f64>,
    /// Time budget per case of a quick run, in seconds (the engine's `--time`). Default: the
    /// engine's quick budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quick_time_secs: Option<f64>,
    /// Time budget per case of a full run, in seconds. Default: the engine's budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_time_secs: Option<f64>,
    /// How long a cancelled bench binary may take to stop before it is killed, in
    /// milliseconds. Default 2000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel_grace_ms: Option<u32>,
    /// Which notes of the last results are published as diagnostics (the Problems view).
    /// Default `warnings`. Compiler errors are always published.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problems: Option<Problems>,
}

/// Which notes of the results become diagnostics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Problems {
    /// Warnings only (`optimized_away`, `flat_scaling`, …): the figure may be wrong. Notes
    /// (`outliers`, `multimodal`) and cancelled runs' partial results are left out.
    #[default]
    Warnings,
    /// Warnings, and informational notes with severity information.
    All,
    /// No diagnostics from results.
    Off,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    #[test]
    fn method_tables_are_camel_case_and_optional_fields_are_left_out() {
        let state = RunStateParams {
            run_id: 3,
            id: "q::chain_n/10".into(),
            state: ItemState::Errored,
            result: None,
            message: Some("timed out".into()),
            location: None,
            shown: None,
            bench: None,
        };
        assert_eq!(
            serde_json::to_value(&state).unwrap(),
            json!({"runId": 3, "id": "q::chain_n/10", "state": "errored", "message": "timed out"})
        );
        let item = TestItem {
            id: "pkg:q".into(),
            label: "q".into(),
            kind: ItemKind::Package,
            parent: None,
            uri: None,
            range: None,
            group: None,
            detail: None,
        };
        assert_eq!(
            serde_json::to_value(&item).unwrap(),
            json!({"id": "pkg:q", "label": "q", "kind": "package"})
        );
    }

    #[test]
    fn run_params_accept_an_empty_object() {
        let params: RunParams = serde_json::from_value(json!({})).unwrap();
        assert_eq!(params, RunParams::default());
        let params: RunParams =
            serde_json::from_value(json!({"include": ["pkg:q"], "mode": "quick"})).unwrap();
        assert_eq!(params.mode, Some(RunMode::Quick));
        assert_eq!(params.compare, None);
        let params: RunParams = serde_json::from_value(json!({"compare": "main"})).unwrap();
        assert_eq!(params.compare.as_deref(), Some("main"));
        assert!(serde_json::from_value::<RunParams>(json!({"mode": "slow"})).is_err());
    }

    /// Issue 21, item 5: a misspelled field ran everything, as if it were absent.
    #[test]
    fn requests_to_the_daemon_refuse_unknown_fields_and_name_them() {
        fn refused<T: serde::de::DeserializeOwned + std::fmt::Debug>(value: Value) -> String {
            serde_json::from_value::<T>(value).unwrap_err().to_string()
        }
        let message = refused::<RunParams>(json!({"inclde": ["main::one"]}));
        assert!(message.contains("unknown field `inclde`"), "{message}");
        assert!(refused::<DiscoverParams>(json!({"all": true})).contains("`all`"));
        let message = refused::<CancelParams>(json!({"runId": 1, "force": true}));
        assert!(message.contains("`force`"), "{message}");
        let message = refused::<HistoryParams>(json!({"id": "q::a", "limt": 5}));
        assert!(message.contains("`limt`"), "{message}");
        let message = refused::<SamplesParams>(json!({"id": "q::a", "raw": true}));
        assert!(message.contains("`raw`"), "{message}");
    }

    #[test]
    fn what_the_daemon_sends_and_what_either_side_announces_skip_unknown_fields() {
        let end: RunEndParams = serde_json::from_value(json!({"runId": 1, "new": 2})).unwrap();
        assert_eq!(end.run_id, 1);
        let features: Features =
            serde_json::from_value(json!({"runStates": true, "future": true})).unwrap();
        assert_eq!(features.run_states, Some(true));
        let settings: Settings =
            serde_json::from_value(json!({"runOnSave": true, "future": 1})).unwrap();
        assert_eq!(settings.run_on_save, Some(true));
    }
}
