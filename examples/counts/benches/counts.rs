//! What a count promises, checked by `cargo xtask counts` (docs/instructions.md): the same
//! count run after run, identical code at two addresses counted the same, and 1% more work
//! counted as more. With the quickstart's hashing and sorting, the workloads that `cargo xtask
//! counts gungraun` counts beside gungraun (`comparisons/gungraun`, docs/comparison.md).

use counts::{chain_here, chain_there};
use knotmeter::{bench, black_box, Bencher};
use quickstart::{fnv1a, random_vec};

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
    quickstart::chain(black_box(2000))
}

/// 2020 steps: 1% more work.
#[bench(group = "work")]
fn chain_2020() -> u64 {
    quickstart::chain(black_box(2020))
}

/// The quickstart's hash of a 4 KiB buffer.
#[bench]
fn fnv1a_4k(b: &mut Bencher) {
    let bytes: Vec<u8> = random_vec(512)
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    b.iter(|| fnv1a(black_box(&bytes)));
}

/// The quickstart's unstable sort of 1000 numbers, each batch on fresh copies.
#[bench]
fn sort_unstable_1000(b: &mut Bencher) {
    let data = random_vec(1000);
    b.with_inputs(|| data.clone()).run(|mut v| {
        v.sort_unstable();
        v
    });
}

knotmeter::main!();
