//! The history's integration tests in one test binary: each file beside this one is a module
//! here (`crash.rs` is `crash`, its tests `crash::…`), so the crate's tests are linked once
//! and `common` is compiled once. `path_env.rs` stays a binary of its own: it changes the
//! process's environment, which no other test may see half-way.
//!
//! A test that runs this binary again as a child names itself with its module:
//! `--exact crash::writer_records_until_told_to_stop`.

mod common;

mod as_measured;
mod bad_files;
mod checked;
mod comparison_upkeep;
mod comparisons;
mod concurrency;
mod crash;
mod lookup;
mod merge;
mod merge_crash;
mod migration;
mod profiles;
mod roundtrip;
