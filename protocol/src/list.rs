//! What `--list --format json` prints.

use serde::{Deserialize, Serialize};

/// The document printed by `--list --format json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ListDocument {
    /// Always [`crate::VERSION`].
    pub version: u32,
    /// Every case the binary would run with the same filters, in run order.
    pub cases: Vec<ListEntry>,
}

/// One runnable case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ListEntry {
    /// The case id (see [`crate::case_id`]).
    pub id: String,
    /// The id of the benchmark function the case belongs to.
    pub bench_id: String,
    /// The benchmark function's name.
    pub name: String,
    /// The canonical argument text, or `null`.
    pub args: Option<String>,
    /// The comparison group, or `null`.
    pub group: Option<String>,
    /// Whether the case is its group's baseline.
    pub baseline: bool,
    /// Source file as `file!()` spells it.
    pub file: String,
    /// 1-based line of the function's name.
    pub line: u32,
}
