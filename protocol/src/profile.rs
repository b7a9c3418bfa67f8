//! A profile of one case's timed region (`knotmeter profile`): where its operations spend what
//! the profiler counts, by function and by source line.

use serde::{Deserialize, Serialize};

/// The profiler a profile comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum ProfileTool {
    /// Valgrind's callgrind: instructions executed, counted exactly (deterministic; it sees no
    /// cache miss or stall).
    Callgrind,
    /// Linux `perf record -e cpu-clock`: samples of where the CPU was (sees stalls and misses,
    /// noisy).
    Perf,
}

/// One function's share of a profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ProfiledFunction {
    /// The function's name, demangled.
    pub name: String,
    /// What it cost itself (code inlined into it included), per operation, in the profile's
    /// unit.
    pub own_per_op: f64,
    /// Its share of the region's total, from 0 to 1.
    pub own_share: f64,
    /// What it and everything it called cost, per operation.
    pub inclusive_per_op: f64,
    /// The workspace source line it spends most on, when it has one: where to go from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub line: Option<ProfiledLine>,
}

/// One source line's share of a profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ProfiledLine {
    /// The source file, absolute.
    pub file: String,
    /// The line, from 1.
    pub line: u32,
    /// What the line's own code cost, per operation (in whichever function it was inlined
    /// into).
    pub own_per_op: f64,
    /// What the calls made from the line cost, per operation (the callees and all they called).
    pub calls_per_op: f64,
    /// The line's share of the region's total, own and calls together, from 0 to 1.
    pub share: f64,
}

/// A profile of one case's timed region.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    /// The case profiled.
    pub id: String,
    /// The profiler.
    pub tool: ProfileTool,
    /// What the costs count: `instructions` (callgrind) or `ns` of CPU time (perf).
    pub unit: String,
    /// The operations the region held: the costs per operation are the totals over this.
    pub operations: u64,
    /// The region's total, per operation.
    pub total_per_op: f64,
    /// The samples the costs come from (perf): a share of `s` from `n` samples is known to
    /// about ±2·√(s(1−s)/n). Absent from a count (callgrind), which is exact.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub samples: Option<u64>,
    /// The functions with a cost, the costliest (own) first.
    pub functions: Vec<ProfiledFunction>,
    /// The workspace's own source lines with a cost, the costliest first: the lines an editor
    /// marks.
    pub lines: Vec<ProfiledLine>,
    /// How the region's costs nest, for a flame graph: its entry's frame and everything below
    /// it. Absent from profiles made before it was (docs/profile.md, "The call tree").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub tree: Option<CallFrame>,
}

/// One frame of a profile's call tree: a function, or a recursive cycle of functions folded
/// into one (`cycle: a ⇄ b`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CallFrame {
    /// The function's name, demangled (callgrind's recursion level `'2` taken off).
    pub name: String,
    /// What it and everything below it cost, per operation: the frame's width.
    pub value_per_op: f64,
    /// What it cost itself, per operation (callees too narrow to draw included).
    pub own_per_op: f64,
    /// Its width is an estimate: it or a frame above it is called from several places, and a
    /// count of calls does not say how their costs split (docs/profile.md).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(feature = "typescript", ts(as = "Option<bool>", optional))]
    pub estimated: bool,
    /// The workspace source line it spends most on, to go to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub line: Option<ProfiledLine>,
    /// Its callees, the widest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "typescript", ts(as = "Option<Vec<CallFrame>>", optional))]
    pub children: Vec<CallFrame>,
}

/// One case profiled on two builds (`knotmeter compare --profile`): both profiles, and the
/// functions whose own cost changed most.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ProfileComparison {
    /// The case.
    pub id: String,
    /// The base as results name it (`main (9f8e7d6c5b)`).
    pub base_label: String,
    /// The head as results name it (`working tree`).
    pub head_label: String,
    /// The base's profile.
    pub base: Profile,
    /// The head's profile.
    pub head: Profile,
    /// Every function in either profile, the largest change of own cost per operation first.
    pub changes: Vec<FunctionChange>,
}

/// How one function's own cost differs between the two profiles of a [`ProfileComparison`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct FunctionChange {
    /// The function's name, demangled.
    pub name: String,
    /// Its own cost per operation in the base; absent when the base's profile does not list
    /// it (it ran under a thousandth of the region there, or not at all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub base_per_op: Option<f64>,
    /// Its own cost per operation in the head; absent as for the base.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub head_per_op: Option<f64>,
    /// Its share of the base's region, 0 when absent.
    pub base_share: f64,
    /// Its share of the head's region, 0 when absent.
    pub head_share: f64,
}
