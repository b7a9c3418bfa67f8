//! `examples/counts`'s workloads under gungraun: the same functions (the quickstart's), the set-up
//! outside the counted part, each result returned so that its drop is not counted either.

use std::hint::black_box;

use gungraun::prelude::*;
use quickstart::{chain, fnv1a, random_vec};

#[library_benchmark]
fn chain_1000() -> u64 {
    chain(black_box(1000))
}

#[library_benchmark]
fn chain_2000() -> u64 {
    chain(black_box(2000))
}

#[library_benchmark]
fn chain_2020() -> u64 {
    chain(black_box(2020))
}

/// The quickstart's 4 KiB buffer.
fn buffer(words: usize) -> Vec<u8> {
    random_vec(words).iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[library_benchmark]
#[bench::buf(args = (512), setup = buffer)]
fn fnv1a_4k(bytes: Vec<u8>) -> (u64, Vec<u8>) {
    (fnv1a(black_box(&bytes)), bytes)
}

#[library_benchmark]
#[bench::rand(args = (1000), setup = random_vec)]
fn sort_unstable_1000(mut v: Vec<u64>) -> Vec<u64> {
    black_box(&mut v).sort_unstable();
    v
}

library_benchmark_group!(
    name = workloads,
    benchmarks = [chain_1000, chain_2000, chain_2020, fnv1a_4k, sort_unstable_1000]
);

main!(library_benchmark_groups = workloads);
