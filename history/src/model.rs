//! The values the store hands back.
//!
//! Runs are identified by [`RunId`], SQLite's row id of the run: it grows with every recorded
//! run, so "latest" and "before" in this crate always mean recording order, never the
//! manifest's wall-clock timestamp (clocks jump; two runs may share a second).

use knotmeter_protocol::{BenchResult, MachineProbe};

/// The id of one recorded run: the protocol's [`knotmeter_protocol::HistoryRunId`], under the
/// name this crate has always used. Larger ids were recorded later.
pub use knotmeter_protocol::HistoryRunId as RunId;

/// One case's result in one recorded run, reduced to what a chart or `knotmeter history ID`
/// shows. It is a wire type (the result of the editor's `knotmeter/history`), so it lives in
/// the protocol crate.
pub use knotmeter_protocol::HistoryPoint;

/// One recorded run, as `knotmeter history` lists it (a wire type too).
pub use knotmeter_protocol::HistoryRun;

/// How a recorded run ended (a wire type too).
pub use knotmeter_protocol::RunStatus;

/// One case's result as it was recorded, with the run it belongs to.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredResult {
    /// The run the result belongs to.
    pub run: RunId,
    /// The run's start, in seconds since the Unix epoch (the manifest's `timestamp`).
    pub timestamp: u64,
    /// The run's `git rev-parse HEAD`, where there was one.
    pub git_commit: Option<String>,
    /// The result in its stored form: raw samples as sorted, evenly spaced order statistics
    /// (see [`crate::stored_samples`]) and `stored_at` set.
    pub result: BenchResult,
    /// The machine's probe of the run (schema version 7), when the run has a readable one.
    pub probe: Option<MachineProbe>,
}

/// The median of one earlier result of a case, and which code it measured: what the
/// run-to-run noise of the case is learnt from ([`crate::History::medians`]).
#[derive(Debug, Clone, PartialEq)]
pub struct StoredMedian {
    /// The result's median per operation, in nanoseconds.
    pub median_ns: f64,
    /// The run's `git rev-parse HEAD`, where there was one.
    pub git_commit: Option<String>,
    /// Whether the run's working directory had uncommitted changes; `None` where that is not
    /// known (runs of a knotmeter that did not record it, or no git).
    pub git_dirty: Option<bool>,
    /// The machine's probe of the run, nanoseconds per step, when the run has one.
    pub probe_ns_per_step: Option<f64>,
    /// What compiled that probe (`MachineProbe::build`): only probes of the same build measure
    /// the same code. Empty when the probe does not say.
    pub probe_build: String,
}

impl StoredMedian {
    /// The commit of the code this result measured, when that is known for sure: a commit
    /// recorded by a run whose working directory was known to be clean.
    pub fn clean_commit(&self) -> Option<&str> {
        (self.git_dirty == Some(false))
            .then_some(self.git_commit.as_deref())
            .flatten()
    }
}

/// The latest run saved under a baseline name on one machine key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaselineRun {
    /// The baseline name (`--save-baseline NAME`).
    pub name: String,
    /// The latest run saved under it with this machine key.
    pub run: RunId,
    /// That run's start, in seconds since the Unix epoch.
    pub timestamp: u64,
    /// The machine key of the run.
    pub machine_key: String,
}
