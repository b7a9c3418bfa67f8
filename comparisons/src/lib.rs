//! The workloads every harness measures, defined once so that each harness times exactly the
//! same machine code.
//!
//! * an empty body;
//! * a loop whose result nobody reads (the compiler deletes it: seed 001);
//! * seed 001's dependency chain `chain(n)`, whose cost is exactly proportional to `n`;
//! * pairs: `chain(2000)` against itself (A/A), against `chain(2020)` (1% more work) and against
//!   `chain(2100)` (5% more);
//! * sorting 1000 `u64`, with the copy of the input made outside the timed region;
//! * for the rerun-coverage measurement (`cargo xtask compare rerun`), two realistic bodies of
//!   knotmeter's own calibration (`examples/calibration`, itself taking them from
//!   `examples/quickstart`): parsing a CSV line of 64 numbers and building a `HashMap` of 1000
//!   keys. They are copied here, not depended on: this workspace links no crate of the main one
//!   but the engine.

use std::collections::HashMap;

/// The work of the baseline side of every pair.
pub const PAIR_BASE: u64 = 2_000;
/// 1% more work.
pub const PAIR_1PCT: u64 = 2_020;
/// 5% more work.
pub const PAIR_5PCT: u64 = 2_100;

/// Seed 001's dependency chain: each step needs the previous step's output, so no step can be
/// dropped, reordered or folded into a closed form. Not inlined, so every harness (and the
/// harness-free reference) calls the very same code.
#[inline(never)]
pub fn chain(n: u64) -> u64 {
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    for _ in 0..n {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        state ^= state >> 33;
    }
    state
}

/// A loop whose result nobody reads: it looks like 1000 multiply-adds, and the optimiser is
/// entitled to delete all of it. Inlined into each harness's closure, where that happens.
#[inline(always)]
pub fn discarded_loop() {
    let mut acc = 0u64;
    for i in 0..1000u64 {
        acc = acc.wrapping_add(i.wrapping_mul(2_654_435_761));
    }
    let _ = acc;
}

/// `n` pseudo-random numbers, the same on every call (xorshift64*).
pub fn random_vec(n: usize) -> Vec<u64> {
    let mut x = 0x2545_F491_4F6C_DD1D_u64;
    (0..n)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            x.wrapping_mul(0x2545_F491_4F6C_DD1D)
        })
        .collect()
}

/// Parses one line of comma-separated unsigned integers, rejecting anything else
/// (`examples/quickstart`'s `parse_csv_line`).
pub fn parse_csv_line(line: &str) -> Result<Vec<u64>, std::num::ParseIntError> {
    line.split(',').map(|field| field.trim().parse()).collect()
}

/// A line of `fields` comma-separated numbers, for the parser benchmark
/// (`examples/quickstart`'s `csv_line`).
pub fn csv_line(fields: usize) -> String {
    random_vec(fields)
        .iter()
        .map(|x| (x % 1_000_000).to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// A `HashMap` (std's SipHash) of `keys`, each mapped to its index
/// (`examples/calibration`'s `hash_map_of`).
pub fn hash_map_of(keys: &[u64]) -> HashMap<u64, u64> {
    keys.iter().zip(0..).map(|(&k, i)| (k, i)).collect()
}

/// The work amount in environment variable `name`, or `default`. Criterion compares a run with
/// an earlier run of the same benchmark, so its A/B pairs change the work between two runs of
/// one binary through the environment.
pub fn work_from_env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
