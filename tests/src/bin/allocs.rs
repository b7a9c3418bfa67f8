//! A bench binary with the counting allocator installed (`tests/allocations.rs`).
#![cfg(not(test))] // Holds no test (see tests/Cargo.toml).
use knotmeter::{bench, black_box, Bencher};

#[global_allocator]
static ALLOC: knotmeter::CountingAlloc = knotmeter::CountingAlloc::system();

/// One allocation of 16 bytes per operation.
#[bench]
fn one_vec() -> Vec<u8> {
    vec![0u8; black_box(16)]
}

/// No allocation: the input is made by the set-up.
#[bench]
fn sort_given(b: &mut Bencher) {
    b.with_inputs(|| vec![3u32, 1, 2]).run(|mut v| {
        v.sort_unstable();
        v
    });
}

knotmeter::main!();
