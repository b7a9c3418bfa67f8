//! Comparison groups with known differences: an A/A pair (the same work twice) and A/B pairs
//! with 1% and 5% more work (`tests/pairs.rs`, and `cargo xtask perf` for the rates).
#![cfg(not(test))] // Holds no test (see tests/Cargo.toml).
use knotmeter::{bench, black_box};
use knotmeter_tests::chain;

#[bench(group = "aa", baseline)]
fn aa_base() -> u64 {
    chain(black_box(2_000))
}

#[bench(group = "aa")]
fn aa_same() -> u64 {
    chain(black_box(2_000))
}

#[bench(group = "ab1", baseline)]
fn ab1_base() -> u64 {
    chain(black_box(2_000))
}

#[bench(group = "ab1")]
fn ab1_plus_1pct() -> u64 {
    chain(black_box(2_020))
}

#[bench(group = "ab5", baseline)]
fn ab5_base() -> u64 {
    chain(black_box(2_000))
}

#[bench(group = "ab5")]
fn ab5_plus_5pct() -> u64 {
    chain(black_box(2_100))
}

knotmeter::main!();
