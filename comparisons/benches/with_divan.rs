//! The comparison workloads under divan. Divan has no comparison of two benchmarks or of two
//! runs, so the pairs are absent.

use divan::{black_box, Bencher};
use knotmeter_comparisons::{chain, discarded_loop, random_vec};

fn main() {
    divan::main();
}

#[divan::bench]
fn empty() {}

#[divan::bench]
fn discarded_loop_1000() {
    discarded_loop();
}

#[divan::bench(args = [10, 100, 1000, 10000])]
fn chain_n(n: u64) -> u64 {
    chain(black_box(n))
}

#[divan::bench]
fn sort_1000(bencher: Bencher) {
    let data = random_vec(1000);
    bencher.with_inputs(|| data.clone()).bench_values(|mut v| {
        v.sort();
        v
    });
}
