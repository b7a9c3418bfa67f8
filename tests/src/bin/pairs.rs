//! Comparison groups with known differences: an A/A pair (the same work twice) and A/B pairs
//! with 1% and 5% more work (`tests/pairs.rs`, and `cargo xtask perf` for the rates).

use knotmeter::{bench, black_box};

/// Seed 001's dependency chain: the cost is exactly proportional to n.
fn chain(n: u64) -> u64 {
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    for _ in 0..n {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        state ^= state >> 33;
    }
    state
}

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
