//! What the history store hands to charts: one point per recorded run of a case.
//!
//! The store (the knotmeter-history crate) builds these; the daemon sends them to the editor
//! in the result of `knotmeter/history`, and `knotmeter history ID` prints them.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::Verdict;

/// The id of one recorded run in the history store (SQLite's row id of the run). Larger ids
/// were recorded later.
///
/// Not to be confused with the `runId` of the editor methods, which numbers the daemon's runs
/// since it started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(transparent)]
pub struct HistoryRunId(pub i64);

impl fmt::Display for HistoryRunId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// One case's result in one recorded run, reduced to what a chart or `knotmeter history ID`
/// shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct HistoryPoint {
    /// The run.
    pub run: HistoryRunId,
    /// The run's start, in seconds since the Unix epoch.
    pub timestamp: u64,
    /// The run's git commit, where there was one.
    pub git_commit: Option<String>,
    /// The run's machine key: only points with equal keys are comparable.
    pub machine_key: String,
    /// The baseline name the run was saved under, if any.
    pub baseline: Option<String>,
    /// The median per-operation time, in nanoseconds.
    pub median_ns: f64,
    /// Lower bound of the median's 95% confidence interval, in nanoseconds.
    pub low_ns: f64,
    /// Upper bound of the median's 95% confidence interval, in nanoseconds.
    pub high_ns: f64,
    /// The verdict of the comparison made during that run, if one was made.
    pub verdict: Option<Verdict>,
}
