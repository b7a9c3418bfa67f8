//! The history store of knotmeter: every run a bench binary measured, kept in one SQLite file
//! so later runs can be compared with earlier ones, with named baselines, and charted.
//!
//! # Design
//!
//! * **One file, found without configuration.** The store lives at
//!   `<cargo target dir>/knotmeter/history.db`, so `cargo clean` forgets it together with the
//!   builds it measured. `KNOTMETER_HISTORY` names another file. [`resolve_path`] applies the
//!   rule; the store creates the parent directories.
//! * **Results are stored as they are measured.** A run is recorded when it starts
//!   ([`History::begin_run`]), each case when it finishes ([`History::record_result`], one short
//!   transaction), and the run is closed at the end ([`History::end_run`]) as `complete` or
//!   `cancelled`. A process that crashes, aborts or is killed keeps every case it finished; its
//!   run reads as `interrupted`. A case cut short by a cancel is stored `partial` and is never
//!   a baseline.
//! * **Writers and readers at once.** The file is in WAL mode (readers never block the writer
//!   nor each other). A writer that finds the write lock taken waits up to [`BUSY_TIMEOUT`]
//!   ([`History::set_lock_wait`] changes it), and stops waiting at once when the flag given to
//!   [`History::give_up_waiting_when`] is set, so a cancelled run never sits out a lock.
//! * **A versioned schema.** `PRAGMA application_id` holds [`APPLICATION_ID`], so a file that
//!   belongs to another program is recognised; `PRAGMA user_version` holds the schema version,
//!   and opening for writing migrates an older file forward in place, keeping its data (see
//!   the `schema` module for versions 1 to 8).
//! * **Never destroy, never wedge.** Whose a file is, is decided from its bytes before SQLite
//!   opens it (SQLite creates companion files even for a read-only open): another program's
//!   file, or a history of a newer knotmeter, is never opened, written, moved, or given
//!   companion files ([`HistoryError::Foreign`], [`HistoryError::TooNew`]). A history that
//!   SQLite's `quick_check` finds damaged is not written ([`HistoryError::Corrupt`]) but can
//!   still be read. The check reads every page, so a writer that closes cleanly stamps the
//!   file, and the next writer checks only when the file changed since (the `checked`
//!   module). Nothing is ever moved aside without the user: the errors say which
//!   commands would. A write cut short by a kill (a hot journal) is rolled back by the next
//!   writer, and a reader recovers it too.
//! * **Results are stored whole, samples compactly.** Each case's
//!   [`knotmeter_protocol::BenchResult`] is kept as JSON, so nothing the engine computed is
//!   lost and new protocol fields need no migration; the columns queries filter and sort on
//!   (case id, machine key, median, interval, verdict, partial) are copied out beside it. Raw
//!   samples are kept as sorted, evenly spaced order statistics ([`stored_samples`]): what the
//!   before/after rank tests and the editor's distribution need, in about 3 KB per result.
//! * **Comparable means same machine, build and budget.** Each run carries a [`machine_key`]
//!   built from its manifest; lookups of earlier results only match runs with the same key.
//! * **Shards combine.** Every run has a uid, the same in every file it is copied to;
//!   [`History::merge`] adds the runs and results another history holds and this one lacks,
//!   so the histories of a sharded CI run become one, and merging twice changes nothing.
//!   Comparisons of two builds travel the same way, by uids of their own.
//! * **Comparisons of two builds** (`knotmeter compare`) are stored apart from runs
//!   ([`History::record_comparison`], [`History::comparisons`]), both commits named, so the
//!   other build's results never become this build's before/after predecessor.
//! * **Profiles** of a case (`knotmeter profile`) are kept beside its results, the newest
//!   [`KEPT_PROFILES`] of each ([`History::record_profile`], [`History::latest_profiles`]).
//! * **Bounded.** [`History::prune_plan`] and [`History::prune`] keep the newest results of
//!   each case, every named baseline and the newest comparisons of each pair of sides, and
//!   shrink the file.

#![deny(missing_docs)]

mod checked;
mod comparisons;
mod connect;
mod error;
mod machine;
mod merge;
mod merge_comparisons;
mod model;
mod os;
mod path;
mod profiles;
mod prune;
mod read;
mod recognise;
mod recording;
mod samples;
mod schema;
mod store;
mod uid;
mod write;

pub use connect::BUSY_TIMEOUT;
pub use error::HistoryError;
pub use machine::machine_key;
pub use merge::Merged;
pub use model::{
    BaselineRun, HistoryPoint, HistoryRun, RunId, RunStatus, StoredMedian, StoredResult,
};
pub use path::{resolve_path, target_dir_from_exe, HISTORY_ENV};
pub use profiles::{StoredProfile, KEPT_PROFILES};
pub use prune::{PrunePlan, Pruned, Retention, DEFAULT_KEEP_COMPARISONS};
pub use samples::{stored_samples, STORED_BASELINE_SAMPLES, STORED_WORKLOAD_SAMPLES};
pub use schema::{APPLICATION_ID, SCHEMA_VERSION};
pub use store::History;
