//! The run's link to the history store: open it (moving a damaged file aside), record the run.
//!
//! History is best effort for the engine: a store that cannot be opened or written costs the
//! run its record, never its results. Every such event is said on standard error, where it
//! cannot corrupt a machine-readable standard output.

use std::cell::Cell;

use knotmeter_history::{resolve_path, History, HistoryError, StoredResult};
use knotmeter_protocol::{BenchResult, Manifest};

/// The history store of this run, if it could be opened.
pub(crate) struct Store {
    history: Option<History>,
    /// Whether a failed lookup was already reported (one message per run is enough).
    lookup_failed: Cell<bool>,
}

impl Store {
    /// Opens the store unless `disabled`. A corrupt or foreign file is moved aside and
    /// replaced; any other failure leaves the run without history, with a message.
    pub(crate) fn open(disabled: bool) -> Store {
        if disabled {
            return Store {
                history: None,
                lookup_failed: Cell::new(false),
            };
        }
        let path = resolve_path(None);
        let history = match History::open_or_move_aside(&path) {
            Ok((history, moved)) => {
                if let Some(moved) = moved {
                    eprintln!("knotmeter: {moved}");
                }
                Some(history)
            }
            Err(err) => {
                eprintln!("knotmeter: results will not be stored in the history: {err}");
                None
            }
        };
        Store {
            history,
            lookup_failed: Cell::new(false),
        }
    }

    /// The latest stored result of `case_id` on this machine and profile.
    pub(crate) fn previous(&self, case_id: &str, machine_key: &str) -> Option<StoredResult> {
        self.lookup(|h| h.previous(case_id, machine_key, None))
            .flatten()
    }

    /// The result of `case_id` in the latest run saved as baseline `name`.
    pub(crate) fn named(
        &self,
        name: &str,
        case_id: &str,
        machine_key: &str,
    ) -> Option<StoredResult> {
        self.lookup(|h| h.baseline(name, case_id, machine_key))
            .flatten()
    }

    /// Up to `limit` stored medians of `case_id` on this machine and profile, oldest first.
    pub(crate) fn medians(&self, case_id: &str, machine_key: &str, limit: usize) -> Vec<f64> {
        let points = self
            .lookup(|h| h.points(case_id, limit))
            .unwrap_or_default();
        let mut medians: Vec<f64> = points
            .iter()
            .filter(|p| p.machine_key == machine_key)
            .map(|p| p.median_ns)
            .collect();
        medians.reverse();
        medians
    }

    fn lookup<T>(&self, query: impl FnOnce(&History) -> Result<T, HistoryError>) -> Option<T> {
        let history = self.history.as_ref()?;
        match query(history) {
            Ok(value) => Some(value),
            Err(err) => {
                if !self.lookup_failed.replace(true) {
                    eprintln!(
                        "knotmeter: cannot read the history, so no before/after comparison: {err}"
                    );
                }
                None
            }
        }
    }

    /// Records the run; says so on standard error when it cannot.
    pub(crate) fn record(
        &mut self,
        manifest: &Manifest,
        results: &[BenchResult],
        baseline: Option<&str>,
    ) {
        let Some(history) = &mut self.history else {
            return;
        };
        if results.is_empty() {
            return;
        }
        if let Err(err) = history.record_run(manifest, results, baseline) {
            eprintln!("knotmeter: this run was not stored in the history: {err}");
        }
    }
}
