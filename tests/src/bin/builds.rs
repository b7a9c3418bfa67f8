//! Two "builds" in one binary, for the driven mode's tests (`tests/driven.rs`): run it twice,
//! open a case in one process and pair the other process's case against it. `same` and
//! `five_percent_more` differ by a known amount of work; the others fail in the ways a side of
//! a cross-build comparison can fail.
#![cfg(not(test))] // Holds no test (see tests/Cargo.toml).
use std::sync::atomic::{AtomicU64, Ordering};

use knotmeter::{bench, black_box, Bencher};

/// Seed 001's dependency chain, compiled here (optimised) rather than in the quickstart crate,
/// which the tests build without optimisation: unoptimised code keeps its state on the stack,
/// and then where each process's stack lands changes its speed.
#[inline(never)]
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

#[bench]
fn same() -> u64 {
    chain(black_box(2_000))
}

#[bench]
fn five_percent_more() -> u64 {
    chain(black_box(2_100))
}

/// Panics on its 50th call: after the cold call and tuning, in the first rounds.
#[bench]
fn panics_later(b: &mut Bencher) {
    let calls = AtomicU64::new(0);
    b.iter(|| {
        if calls.fetch_add(1, Ordering::Relaxed) == 50 {
            panic!("the fixture panics on its 50th call");
        }
        chain(black_box(2_000))
    });
}

/// Aborts the whole process on its 50th call when `KNOTMETER_FIXTURE_ABORT` is set (a crash
/// of one side); otherwise it is `same`.
#[bench]
fn aborts_later(b: &mut Bencher) {
    let abort = std::env::var_os("KNOTMETER_FIXTURE_ABORT").is_some();
    let calls = AtomicU64::new(0);
    b.iter(|| {
        if abort && calls.fetch_add(1, Ordering::Relaxed) == 50 {
            std::process::abort();
        }
        chain(black_box(2_000))
    });
}

/// A short body (ten steps of the chain, a few tens of nanoseconds), the partner of `empty` in
/// the optimised-away test: a pair's samples hold as many operations of both sides as suit the
/// slower one, and beside `same` (5 µs) `empty`'s samples held about 160 operations, a few ticks
/// of a 42 ns clock, which its check missed in about 1 pair in 20 (docs/reliability.md).
#[bench]
fn short() -> u64 {
    chain(black_box(10))
}

/// A body the compiler removes: indistinguishable from the empty body.
#[bench]
fn empty() {}

knotmeter::main!();
