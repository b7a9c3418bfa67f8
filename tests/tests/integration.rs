//! The end-to-end tests of the bench binary in one test binary: each of these files is a
//! module here (`stream.rs` is `stream`, its tests `stream::…`), so they are linked once and
//! their helpers compiled once. They run fixture binaries with `--quick` and check what they
//! say, not how fast they are.
//!
//! Binaries of their own (see Cargo.toml): the tests whose verdicts or warnings come from
//! timings (`pairs.rs`, `honesty.rs`, `history_noise.rs`, `criterion_accuracy.rs`,
//! `groups.rs`, `driven.rs`), so that they run beside nothing they did not run beside before,
//! and `harness.rs`, whose cargo builds would otherwise run beside these tests' time limits.

mod history_support;
mod support;

mod allocations;
mod cancel;
mod cli;
mod contract;
mod counts;
mod criterion;
mod gate;
mod history;
mod partition;
mod process;
mod stream;
