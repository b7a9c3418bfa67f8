//! Comparison groups declared wrongly: one without a baseline, one with two. The bench binary
//! must refuse to run them, naming the functions (`tests/groups.rs`); the other benchmarks are
//! fine.
#![cfg(not(test))] // Holds no test (see tests/Cargo.toml).
use knotmeter::{bench, black_box};
use knotmeter_tests::chain;

/// A group whose members have nothing to be measured against.
#[bench(group = "leaderless")]
fn first_member() -> u64 {
    chain(black_box(50))
}

#[bench(group = "leaderless")]
fn second_member() -> u64 {
    chain(black_box(60))
}

/// A group with two baselines: which one would a member be measured against?
#[bench(group = "crowded", baseline)]
fn one_baseline() -> u64 {
    chain(black_box(50))
}

#[bench(group = "crowded", baseline)]
fn another_baseline() -> u64 {
    chain(black_box(50))
}

#[bench(group = "crowded")]
fn crowded_member() -> u64 {
    chain(black_box(60))
}

/// Not in a group: runs.
#[bench]
fn alone() -> u64 {
    chain(black_box(50))
}

knotmeter::main!();
