//! What the history store hands out: one point per recorded result of a case (for charts and
//! `knotmeter history ID`), and one summary per recorded run (`knotmeter history`).
//!
//! The store (the knotmeter-history crate) builds these; the daemon sends points to the editor
//! in the result of `knotmeter/history`, and `knotmeter history` prints both.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::{Comparison, Verdict, Warning};

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

/// How a recorded run ended. A run is recorded when it starts and each case is stored when it
/// finishes, so a run that never ended still holds the cases it finished.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Still measuring: its process is alive.
    Running,
    /// Every selected case was run (some may have failed).
    #[default]
    Complete,
    /// Stopped by the user (Ctrl-C, SIGTERM, a cancel from the editor).
    Cancelled,
    /// Its process ended without closing the run: a crash, an abort, `process::exit`, a kill
    /// (a per-case timeout), running out of memory.
    Interrupted,
}

impl RunStatus {
    /// The status as one lowercase word, as it is stored and printed.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Complete => "complete",
            RunStatus::Cancelled => "cancelled",
            RunStatus::Interrupted => "interrupted",
        }
    }
}

impl fmt::Display for RunStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
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
    /// How the run ended. Absent from daemons of knotmeter 0.1.0, as are the fields below.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<RunStatus>,
    /// The case was cut short by a cancel: never used as a baseline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial: Option<bool>,
    /// The run's time budget per case, in milliseconds (100 is `--quick`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_ms: Option<u64>,
    /// When the result was stored, in seconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stored_at: Option<u64>,
    /// The result's warnings and notes in that run (`optimized_away` makes the median
    /// meaningless). Absent when there were none, and from daemons before they were sent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "typescript", ts(as = "Option<Vec<Warning>>", optional))]
    pub warnings: Vec<Warning>,
    /// The comparison behind `verdict`, with what it was against (an earlier run, a saved
    /// baseline, or the group's baseline), so the verdict can say so. Absent when none was
    /// made, and from daemons before it was sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub comparison: Option<Comparison>,
}

/// One recorded run, as `knotmeter history` lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct HistoryRun {
    /// The run.
    pub run: HistoryRunId,
    /// The run's start, in seconds since the Unix epoch.
    pub timestamp: u64,
    /// When the run was closed, in seconds since the Unix epoch; absent while it runs and for a
    /// run that never closed.
    pub ended_at: Option<u64>,
    /// How the run ended.
    pub status: RunStatus,
    /// The time budget per case, in milliseconds (100 is `--quick`).
    pub budget_ms: u64,
    /// The run's git commit, where there was one.
    pub git_commit: Option<String>,
    /// The run's machine key: only runs with equal keys are comparable.
    pub machine_key: String,
    /// The baseline name the run was saved under, if any.
    pub baseline: Option<String>,
    /// Results stored for the run.
    pub results: u64,
    /// Of those, results cut short by a cancel.
    pub partial: u64,
}
