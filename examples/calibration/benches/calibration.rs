//! The calibration benchmarks: realistic bodies that `cargo xtask calibration` runs many times
//! to check the measurement's intervals and verdicts against what reruns actually do
//! (docs/calibration.md). Run them alone with `cargo bench -p calibration`.
//!
//! A case that reads its size with [`size`] does about 10% more work when
//! `KNOTMETER_CALIBRATION_PLUS10` names it (the calibration's +10% change); the size is read
//! once, outside the timed region. `vec_push` has no such size: 10% more pushes would cross a
//! doubling of the vector's capacity (1024), a step larger than 10%.

use calibration::{
    btree_map_of, chain, chain_from, csv_line, fnv1a, hash_map_of, parse_csv_line, push_loop,
    random_bytes, random_vec, size,
};
use knotmeter::{bench, black_box, Bencher};

/// A stable sort of 1000 `u64`s, a fresh copy of the data made outside the timed region
/// (+10%: 1088, as n log n grows by 10.1%).
#[bench]
fn sort_stable(b: &mut Bencher) {
    let data = random_vec(size("sort_stable", 1000, 1088));
    b.with_inputs(|| data.clone()).run(|mut v| {
        v.sort();
        v
    });
}

/// The unstable sort of the same data (+10%: 1088).
#[bench]
fn sort_unstable(b: &mut Bencher) {
    let data = random_vec(size("sort_unstable", 1000, 1088));
    b.with_inputs(|| data.clone()).run(|mut v| {
        v.sort_unstable();
        v
    });
}

/// Parsing a CSV line of 64 numbers (+10%: 70, 9.4% more).
#[bench]
fn parse_csv(b: &mut Bencher) {
    let line = csv_line(size("parse_csv", 64, 70));
    b.iter(|| parse_csv_line(black_box(&line)));
}

/// FNV-1a over 4 KiB (+10%: 4506 bytes).
#[bench]
fn fnv1a_4k(b: &mut Bencher) {
    let bytes = random_bytes(size("fnv1a_4k", 4096, 4506));
    b.iter(|| fnv1a(black_box(&bytes)));
}

/// A `HashMap<u64, u64>` of 1000 entries, built and dropped (+10%: 1100, in a table of the
/// same size: both grow to 2048 buckets).
#[bench]
fn hash_map(b: &mut Bencher) {
    let keys = random_vec(size("hash_map", 1000, 1100));
    b.iter(|| hash_map_of(black_box(&keys)));
}

/// 1000 pushes onto an empty `Vec`: the allocator's work.
#[bench]
fn vec_push(b: &mut Bencher) {
    b.iter(|| push_loop(black_box(1000)));
}

/// A `BTreeMap<u64, u64>` of 500 entries, built and dropped (+10%: 542, as n log n grows by
/// 9.8%).
#[bench]
fn btree_map(b: &mut Bencher) {
    let keys = random_vec(size("btree_map", 500, 542));
    b.iter(|| btree_map_of(black_box(&keys)));
}

/// Seed 001's chain, 100 steps: a short body (tens of nanoseconds; +10%: 110 steps).
#[bench]
fn chain_short(b: &mut Bencher) {
    let steps = size("chain_short", 100, 110) as u64;
    b.iter(|| chain(black_box(steps)));
}

/// Seed 001's chain, 10 000 steps: a long body (microseconds; +10%: 11 000 steps).
#[bench]
fn chain_long(b: &mut Bencher) {
    let steps = size("chain_long", 10_000, 11_000) as u64;
    b.iter(|| chain(black_box(steps)));
}

/// The A/A pair's baseline: 1000 steps of the chain.
#[bench(group = "same_code", baseline)]
fn same_a() -> u64 {
    chain_from(black_box(0x9E37_79B9_7F4A_7C15), black_box(1000))
}

/// The same work as `same_a` in a function of its own (another starting constant, so the
/// compiler cannot fold the two into one address).
#[bench(group = "same_code")]
fn same_b() -> u64 {
    chain_from(black_box(0x2545_F491_4F6C_DD1D), black_box(1000))
}

/// The 5% pair's baseline: 1000 steps of the chain.
#[bench(group = "plus5", baseline)]
fn plus5_base() -> u64 {
    chain(black_box(1000))
}

/// 5% more work than `plus5_base`: 1050 steps.
#[bench(group = "plus5")]
fn plus5_more() -> u64 {
    chain(black_box(1050))
}

knotmeter::main!();
