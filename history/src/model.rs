//! The values the store hands back.
//!
//! Runs are identified by [`RunId`], SQLite's row id of the run: it grows with every recorded
//! run, so "latest" and "before" in this crate always mean recording order, never the
//! manifest's wall-clock timestamp (clocks jump; two runs may share a second).

use std::fmt;

use knotmeter_protocol::{BenchResult, Verdict};
use serde::{Deserialize, Serialize};

/// The id of one recorded run. Larger ids were recorded later.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RunId(pub i64);

impl fmt::Display for RunId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// One case's result as it was recorded, with the run it belongs to.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredResult {
    /// The run the result belongs to.
    pub run: RunId,
    /// The run's start, in seconds since the Unix epoch (the manifest's `timestamp`).
    pub timestamp: u64,
    /// The run's `git rev-parse HEAD`, where there was one.
    pub git_commit: Option<String>,
    /// The result, with its raw samples thinned to at most [`crate::MAX_STORED_SAMPLES`].
    pub result: BenchResult,
}

// NOTE: `HistoryPoint` is what the daemon sends to the editor for charts, so it will likely
// move to `knotmeter-protocol` once the editor methods for history are defined.
/// One case's result in one run, reduced to what a chart or `knotmeter history ID` shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistoryPoint {
    /// The run.
    pub run: RunId,
    /// The run's start, in seconds since the Unix epoch.
    pub timestamp: u64,
    /// The run's git commit, where there was one.
    pub git_commit: Option<String>,
    /// The run's machine key (see [`crate::machine_key`]): only points with equal keys are
    /// comparable.
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
