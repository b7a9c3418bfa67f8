//! The history store of knotmeter: every run a bench binary measured, kept in one SQLite file
//! so later runs can be compared with earlier ones, with named baselines, and charted.
//!
//! # Design
//!
//! * **One file, found without configuration.** The store lives at
//!   `<cargo target dir>/knotmeter/history.db`, so `cargo clean` forgets it together with the
//!   builds it measured. `KNOTMETER_HISTORY` names another file. [`resolve_path`] applies the
//!   rule; the store creates the parent directories.
//! * **Writers and readers at once.** The engine writes while the daemon and the CLI read.
//!   The file is in WAL mode (readers never block the writer nor each other) and every
//!   connection waits up to [`BUSY_TIMEOUT`] for a lock instead of failing with
//!   `SQLITE_BUSY`. A run is recorded in one transaction: readers see all of it or none.
//! * **A versioned schema.** `PRAGMA application_id` holds [`APPLICATION_ID`], so a file that
//!   belongs to another program is recognised; `PRAGMA user_version` holds the schema version,
//!   and opening for writing migrates an older file forward in place, keeping its data (see
//!   the `schema` module for versions 1 and 2).
//! * **Never destroy what is not ours.** A file that is not an SQLite database, an SQLite
//!   database of another program, and a history written by a newer knotmeter are each an
//!   error ([`HistoryError::Corrupt`], [`HistoryError::Foreign`], [`HistoryError::TooNew`]);
//!   nothing is written to them. [`History::open_or_move_aside`] renames a corrupt or
//!   foreign file to `history.db.corrupt-<unix time>` and starts afresh, telling the caller
//!   through [`MovedAside`].
//! * **Results are stored whole.** Each case's [`knotmeter_protocol::BenchResult`] is kept as
//!   JSON, so nothing the engine measured is lost and new protocol fields need no migration;
//!   the columns queries filter and sort on (case id, machine key, median, interval, verdict)
//!   are copied out beside it. Raw samples are thinned to at most [`MAX_STORED_SAMPLES`] per
//!   vector (see [`thin_samples`]) so the file stays small.
//! * **Comparable means same machine and build.** Each run carries a [`machine_key`] built
//!   from its manifest; lookups of earlier results only match runs with the same key.

#![deny(missing_docs)]

mod aside;
mod error;
mod machine;
mod model;
mod path;
mod samples;
mod schema;
mod store;

pub use aside::MovedAside;
pub use error::HistoryError;
pub use machine::machine_key;
pub use model::{HistoryPoint, RunId, StoredResult};
pub use path::{resolve_path, target_dir_from_exe, HISTORY_ENV};
pub use samples::{thin_samples, MAX_STORED_SAMPLES};
pub use schema::{APPLICATION_ID, SCHEMA_VERSION};
pub use store::{History, BUSY_TIMEOUT};
