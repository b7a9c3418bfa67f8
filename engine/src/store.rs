//! The run's link to the history store: opened before the first case, written as each case
//! ends, read for the comparisons at the end, closed last.
//!
//! History never costs a run its results: a store that cannot be opened, read or written
//! costs the run its record (or its comparisons), and the user is told on standard error (where
//! it cannot corrupt a machine-readable standard output) exactly what was and was not done.
//!
//! * A file that is not a knotmeter history, or a history of a newer knotmeter, is never
//!   touched: nothing is stored and nothing is compared.
//! * A damaged history, or one that cannot be written (a read-only file, directory or leftover
//!   `-wal`/`-shm`), is read, not written: comparisons use what can be read.
//! * A history locked by another process: a write between two cases waits at most
//!   [`CASE_WAIT`] (another run's write takes a millisecond); once one found the lock taken,
//!   the next ones only try, and what could not be written waits in memory, in order. The last
//!   write, when the run ends, waits up to [`knotmeter_history::BUSY_TIMEOUT`] for the rest —
//!   unless the run was cancelled: a cancelled run never waits for a lock (the daemon kills a
//!   bench binary two seconds after asking it to stop). Writes happen between cases, never
//!   while a case is measured.

use std::cell::RefCell;
use std::path::PathBuf;
use std::time::Duration;

use knotmeter_history::{
    resolve_path, BaselineRun, History, HistoryError, RunId, RunStatus, StoredMedian, StoredResult,
    BUSY_TIMEOUT,
};
use knotmeter_protocol::{BenchResult, MachineProbe, Manifest};

use crate::cancel;

/// The longest a write between two cases waits for another process's lock.
const CASE_WAIT: Duration = Duration::from_millis(250);

/// A write waiting for the store.
enum Write {
    /// The run's start: its manifest and the baseline name it is saved under.
    Begin(Box<Manifest>, Option<String>),
    /// One case's result.
    Result(Box<BenchResult>),
    /// Results whose comparisons were decided at the end.
    Verdicts(Vec<BenchResult>),
    /// The run's end, with the machine's probe of the run when it has one.
    End(RunStatus, Option<Box<MachineProbe>>),
}

/// Why the store is not (fully) used, for the messages.
enum Limit {
    /// `--no-history`.
    Disabled,
    /// Neither read nor written: the message says why.
    Unusable(String),
    /// Read, not written (the message was given when it was opened).
    ReadOnly,
}

/// The history store of this run.
pub(crate) struct Store {
    path: PathBuf,
    history: Option<History>,
    limit: Option<Limit>,
    run: Option<RunId>,
    queue: Vec<Write>,
    /// A write found the lock taken: later writes only try, until the end.
    locked: bool,
    /// Writing failed for another reason; the message was given.
    write_failed: Option<String>,
    /// Results stored, and results that could not be.
    stored: usize,
    /// Failed lookups: (case id, error), reported once at the end.
    lookup_failures: RefCell<Vec<(String, String)>>,
}

impl Store {
    /// Opens the store (unless `disabled`), reading what cannot be written, and says on
    /// standard error what will not be done.
    pub(crate) fn open(disabled: bool) -> Store {
        let path = resolve_path(None);
        let mut store = Store {
            path: path.clone(),
            history: None,
            limit: None,
            run: None,
            queue: Vec::new(),
            locked: false,
            write_failed: None,
            stored: 0,
            lookup_failures: RefCell::new(Vec::new()),
        };
        if disabled {
            store.limit = Some(Limit::Disabled);
            return store;
        }
        match History::open(&path) {
            Ok(history) => store.history = Some(history),
            Err(error) if error.is_not_readable_history() => {
                eprintln!(
                    "knotmeter: this run will not be stored, nor compared with earlier runs: {error}"
                );
                store.limit = Some(Limit::Unusable(error.to_string()));
            }
            Err(error) => match History::open_read_only(&path) {
                Ok(reader) => {
                    eprintln!(
                        "knotmeter: this run will not be stored (earlier runs are still compared \
                         with): {error}"
                    );
                    store.history = Some(reader);
                    store.limit = Some(Limit::ReadOnly);
                }
                Err(read_error) => {
                    let why = match read_error {
                        HistoryError::Missing { .. } => error.to_string(),
                        _ => format!("{error}; reading it failed too: {read_error}"),
                    };
                    eprintln!(
                        "knotmeter: this run will not be stored, nor compared with earlier runs: {why}"
                    );
                    store.limit = Some(Limit::Unusable(why));
                }
            },
        }
        if let Some(history) = &store.history {
            history.give_up_waiting_when(&cancel::CANCEL);
        }
        store
    }

    /// The history file.
    pub(crate) fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// Why nothing can be read, if so: `--no-history`, or the file cannot be used.
    pub(crate) fn unreadable(&self) -> Option<String> {
        match &self.limit {
            Some(Limit::Disabled) => Some("--no-history turns the history off".to_owned()),
            Some(Limit::Unusable(why)) => Some(format!("the history cannot be read: {why}")),
            _ => None,
        }
    }

    fn writable(&self) -> bool {
        self.history.is_some() && self.limit.is_none() && self.write_failed.is_none()
    }

    /// Records the start of the run.
    pub(crate) fn begin(&mut self, manifest: &Manifest, baseline: Option<&str>) {
        self.push(Write::Begin(
            Box::new(manifest.clone()),
            baseline.map(str::to_owned),
        ));
    }

    /// Stores one case's result (a partial one is marked and never used as a baseline).
    pub(crate) fn record(&mut self, result: &BenchResult) {
        self.push(Write::Result(Box::new(result.clone())));
    }

    /// Adds the comparisons decided at the end to the stored results.
    pub(crate) fn record_verdicts(&mut self, results: Vec<BenchResult>) {
        if !results.is_empty() {
            self.push(Write::Verdicts(results));
        }
    }

    /// Closes the run with its probe, waiting once more for a lock unless the run was
    /// cancelled, and says what could not be stored or read.
    pub(crate) fn finish(
        &mut self,
        status: RunStatus,
        probe: Option<&MachineProbe>,
        results: usize,
    ) {
        if self.writable() {
            self.queue
                .push(Write::End(status, probe.cloned().map(Box::new)));
            self.flush(BUSY_TIMEOUT);
        }
        self.report(results);
    }

    fn push(&mut self, write: Write) {
        if !self.writable() {
            return;
        }
        self.queue.push(write);
        let wait = if self.locked {
            Duration::ZERO
        } else {
            CASE_WAIT
        };
        self.flush(wait);
    }

    /// Applies the queued writes in order, each waiting at most `wait` for the lock; stops at
    /// the first one that finds the lock taken.
    fn flush(&mut self, wait: Duration) {
        let Some(history) = &mut self.history else {
            return;
        };
        history.set_lock_wait(wait);
        while !self.queue.is_empty() {
            let done = match &self.queue[0] {
                Write::Begin(manifest, baseline) => history
                    .begin_run(manifest, baseline.as_deref())
                    .map(|run| self.run = Some(run)),
                Write::Result(result) => match self.run {
                    Some(run) => history
                        .record_result(run, result)
                        .map(|()| self.stored += 1),
                    None => Ok(()),
                },
                Write::Verdicts(results) => match self.run {
                    Some(run) => history.record_verdicts(run, results).map(drop),
                    None => Ok(()),
                },
                Write::End(status, probe) => match self.run {
                    Some(run) => history.end_run(run, *status, probe.as_deref()),
                    None => Ok(()),
                },
            };
            match done {
                Ok(()) => {
                    self.queue.remove(0);
                }
                Err(HistoryError::Locked { .. }) => {
                    self.locked = true;
                    return;
                }
                Err(error) => {
                    eprintln!("knotmeter: writing the history failed, so the rest of this run is not stored: {error}");
                    self.write_failed = Some(error.to_string());
                    self.queue.clear();
                    return;
                }
            }
        }
    }

    /// Says what was not stored or read, once, at the end.
    fn report(&self, results: usize) {
        let missing = results.saturating_sub(self.stored);
        match &self.limit {
            None if missing > 0 => {
                let why = match &self.write_failed {
                    Some(error) => error.clone(),
                    None if cancel::requested() => {
                        "the run was cancelled while another process held the history locked"
                            .to_owned()
                    }
                    None => "another process held the history locked for longer than knotmeter \
                             waits"
                        .to_owned(),
                };
                eprintln!(
                    "knotmeter: {missing} of this run's {results} results were not stored in the \
                     history {} ({why}); the results above are complete",
                    self.path.display()
                );
            }
            Some(Limit::ReadOnly) if results > 0 => eprintln!(
                "knotmeter: none of this run's {results} results was stored in the history {} \
                 (see above); comparisons used what it holds",
                self.path.display()
            ),
            _ => {}
        }
        let failures = self.lookup_failures.borrow();
        if let Some((_, first)) = failures.first() {
            let mut ids: Vec<&str> = failures.iter().map(|(id, _)| id.as_str()).collect();
            ids.dedup();
            eprintln!(
                "knotmeter: the history could not answer for {}, so what it holds of them was not \
                 used (no comparison with it, or no spread between runs learnt from it): {first}",
                ids.join(", ")
            );
        }
    }

    /// The latest complete stored result of `case_id` on this machine, profile and budget,
    /// recorded before this run.
    pub(crate) fn previous(&self, case_id: &str, machine_key: &str) -> Lookup {
        self.lookup(case_id, |h, before| {
            h.previous(case_id, machine_key, before)
        })
    }

    /// The complete result of `case_id` in the latest run saved as baseline `name` that has it.
    pub(crate) fn named(&self, name: &str, case_id: &str, machine_key: &str) -> Lookup {
        self.lookup(case_id, |h, before| {
            h.baseline(name, case_id, machine_key, before)
        })
    }

    /// Up to `limit` stored medians of `case_id` on this machine, profile and budget, recorded
    /// before this run, oldest first, each with the commit it measured; `None` when no history
    /// is open, or when it could not answer (recorded, and said once at the end of the run: an
    /// unreadable history is not a history without earlier runs).
    pub(crate) fn medians(
        &self,
        case_id: &str,
        machine_key: &str,
        limit: usize,
    ) -> Option<Vec<StoredMedian>> {
        let history = self.history.as_ref()?;
        match history.medians(case_id, machine_key, self.run, limit) {
            Ok(medians) => Some(medians),
            Err(error) => {
                self.lookup_failures
                    .borrow_mut()
                    .push((case_id.to_owned(), error.to_string()));
                None
            }
        }
    }

    /// The machine's probe figures of up to `limit` runs stored on this machine, profile and
    /// budget before this one whose probe `build` compiled, oldest first; `None` when no
    /// history is open, or when it could not answer (recorded and said at the end of the run,
    /// as for [`Store::medians`]).
    pub(crate) fn probes(&self, machine_key: &str, build: &str, limit: usize) -> Option<Vec<f64>> {
        let history = self.history.as_ref()?;
        match history.probes(machine_key, build, self.run, limit) {
            Ok(probes) => Some(probes),
            Err(error) => {
                self.lookup_failures
                    .borrow_mut()
                    .push(("the machine's probes".to_owned(), error.to_string()));
                None
            }
        }
    }

    /// The latest run of each baseline name on each machine key, or why they cannot be read.
    pub(crate) fn baselines(&self) -> Result<Vec<BaselineRun>, String> {
        match &self.history {
            Some(history) => history.baselines().map_err(|e| e.to_string()),
            None => Err(self
                .unreadable()
                .unwrap_or_else(|| "the history cannot be read".to_owned())),
        }
    }

    fn lookup(
        &self,
        case_id: &str,
        query: impl FnOnce(&History, Option<RunId>) -> Result<Option<StoredResult>, HistoryError>,
    ) -> Lookup {
        let Some(history) = &self.history else {
            return Lookup::Unavailable(
                self.unreadable()
                    .unwrap_or_else(|| "the history cannot be read".to_owned()),
            );
        };
        match query(history, self.run) {
            Ok(Some(found)) => Lookup::Found(Box::new(found)),
            Ok(None) => Lookup::None,
            Err(error) => {
                let text = error.to_string();
                self.lookup_failures
                    .borrow_mut()
                    .push((case_id.to_owned(), text.clone()));
                Lookup::Unavailable(format!("its stored result could not be read: {text}"))
            }
        }
    }
}

/// The answer to a lookup of an earlier result.
pub(crate) enum Lookup {
    /// Found.
    Found(Box<StoredResult>),
    /// The history holds none.
    None,
    /// The history could not answer: why.
    Unavailable(String),
}
