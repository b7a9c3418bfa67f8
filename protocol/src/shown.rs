//! What a person is shown for one measured case: decided once, by the knotmeter-format crate,
//! and sent to the editor with the result so that no client decides it again.
//!
//! The daemon attaches a [`Shown`] to every `knotmeter/runState` that carries a result; the
//! terminal commands, the hover, the code lenses and the diagnostics render the same value. An
//! editor lays these strings out; it never rebuilds them from the numbers.

use serde::{Deserialize, Serialize};

use crate::{CompareStatus, Severity, Verdict};

/// How a measured case stands once its warnings (its own and its benchmark's) are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Measured, with no warning of severity `warning` (informational notes allowed).
    Passed,
    /// Measured, but a warning says the figure may be wrong: never shown as a pass.
    Warned,
    /// Cut short by a cancel: the figure is from the samples taken before it.
    Partial,
}

/// One warning or note as every surface words it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ShownNote {
    /// `warning` (fails the item) or `info` (worth knowing; never fails anything).
    pub severity: Severity,
    /// The stable code, such as `optimized_away` or `flat_scaling`.
    pub code: String,
    /// The whole line: `⚠ code: message` or `ℹ code: message`.
    pub text: String,
    /// Whether it comes from the benchmark's analysis across its `args` cases rather than from
    /// this case alone.
    pub bench: bool,
}

/// Everything shown for one measured case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Shown {
    /// Passed, warned or partial.
    pub outcome: Outcome,
    /// The median per operation (`12.3 ns`), or `≈ 0 (indistinguishable from empty)` for a
    /// body the engine could not tell apart from an empty one.
    pub figure: String,
    /// How far the next run is likely to land: `±1.2% between runs`, or why that is not known
    /// yet (`spread between runs not known yet: 2 of 5 runs`); empty with no figure.
    pub spread: String,
    /// The figure with its spread: `12.3 ns ±1.2% between runs`.
    pub headline: String,
    /// The verdict of the comparison, with what it was against: `3.1% faster than run 12`,
    /// `1.0% slower than sort_std`, `same as run 12`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub verdict: Option<String>,
    /// Every warning and note, the case's first, then its benchmark's.
    pub notes: Vec<ShownNote>,
    /// The complexity of the case's benchmark across its `args` cases, once known: `O(n)`,
    /// or the classes the data cannot tell apart (`O(n) or O(n log n) (cannot be told
    /// apart)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub scaling: Option<String>,
    /// One line for a description, an annotation or a lens: the headline, the verdict, the
    /// codes of the warnings, and `partial` when cut short.
    pub line: String,
    /// The whole account, several lines: the median with this run's 95% interval, the spread
    /// between runs, the comparison, the sampling, the overhead, allocations and every note.
    pub detail: String,
}

/// A comparison of two builds (`knotmeter compare`, the editor's "Compare with base") as every
/// surface shows it: decided once, by the knotmeter-format crate, laid out by each surface (the
/// terminal table, the results panel).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ShownComparison {
    /// Both sides: `working tree (HEAD 1a2b3c4d5e, uncommitted changes) against main
    /// (9f8e7d6c5b)`.
    pub heading: String,
    /// What the base is called in verdicts: `main`, `HEAD~1`.
    pub base: String,
    /// Every case, in the order the comparison took them.
    pub rows: Vec<ShownComparedCase>,
    /// The counts: `2 compared (1 slower, 0 faster, 1 same), 1 added, 1 removed`.
    pub summary: String,
    /// Cut short by a cancel: the cases not reached are `skipped`.
    pub cancelled: bool,
}

/// One case of a [`ShownComparison`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ShownComparedCase {
    /// The case id.
    pub id: String,
    /// How the case ended in the comparison.
    pub status: CompareStatus,
    /// The base's median per operation (`2.41 µs`, `≈ 0 (indistinguishable from empty)`), or
    /// `—` when the base has no result.
    pub base: String,
    /// The head's, the same way.
    pub head: String,
    /// The change of the head's time over the base's with its 95% interval, `+3.1% [2.6,
    /// 3.7]`; empty when not compared.
    pub change: String,
    /// The engine's verdict, with a compared case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub verdict: Option<Verdict>,
    /// The verdict against the base, `slower than main`, or the status: `not compared`,
    /// `added`, `removed`, `failed`, `skipped`.
    pub outcome: String,
    /// Why a case was not compared (or failed), and what `added` and `removed` mean here; empty
    /// for a compared case.
    pub why: String,
}
