//! What a count promises, checked by `cargo xtask counts` (docs/instructions.md): the same
//! count run after run, identical code at two addresses counted the same, and 1% more work
//! counted as more.

use counts::{chain_here, chain_there};
use knotmeter::{bench, black_box};

/// Seed 001's chain of 1000 dependent steps.
#[bench]
fn chain_1000() -> u64 {
    quickstart::chain(black_box(1000))
}

/// The chain where the compiler put it.
#[bench(group = "address", baseline)]
fn here() -> u64 {
    chain_here(black_box(1000))
}

/// The same code at another address.
#[bench(group = "address")]
fn there() -> u64 {
    chain_there(black_box(1000))
}

/// 2000 steps.
#[bench(group = "work", baseline)]
fn chain_2000() -> u64 {
    chain_here(black_box(2000))
}

/// 2020 steps: 1% more work.
#[bench(group = "work")]
fn chain_2020() -> u64 {
    chain_here(black_box(2020))
}

knotmeter::main!();
