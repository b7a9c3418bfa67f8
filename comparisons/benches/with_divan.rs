//! The comparison workloads under divan. Divan has no comparison of two benchmarks or of two
//! runs, so the pairs are absent. `rerun::` holds the realistic bodies of the rerun-coverage
//! measurement (`cargo xtask compare rerun`); the single cases run with `--skip rerun`.

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

mod rerun {
    use divan::{black_box, Bencher};
    use knotmeter_comparisons::{chain, csv_line, hash_map_of, parse_csv_line, random_vec};

    #[divan::bench(args = [100, 10000])]
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

    #[divan::bench]
    fn parse_csv(bencher: Bencher) {
        let line = csv_line(64);
        bencher.bench(|| parse_csv_line(black_box(&line)));
    }

    #[divan::bench]
    fn hash_map(bencher: Bencher) {
        let keys = random_vec(1000);
        bencher.bench(|| hash_map_of(black_box(&keys)));
    }
}
