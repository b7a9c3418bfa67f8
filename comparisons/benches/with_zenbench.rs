//! The realistic bodies of the rerun-coverage measurement (`cargo xtask compare rerun`) under
//! zenbench, written as its README shows: one `Suite::bench` per case (a single-benchmark
//! group), `Bencher::iter` for the bodies and `with_input(..).run(..)` for the sort, so that
//! the copy of the input is made outside the timed region.

use knotmeter_comparisons::{chain, csv_line, hash_map_of, parse_csv_line, random_vec};
use zenbench::prelude::*;

fn rerun(suite: &mut Suite) {
    for n in [100u64, 10000] {
        suite.bench(format!("chain_n/{n}"), move |b| {
            b.iter(|| chain(black_box(n)))
        });
    }
    let data = random_vec(1000);
    suite.bench("sort_1000", move |b| {
        let data = data.clone();
        b.with_input(move || data.clone()).run(|mut v| {
            v.sort();
            v
        })
    });
    let line = csv_line(64);
    suite.bench("parse_csv", move |b| {
        b.iter(|| parse_csv_line(black_box(&line)))
    });
    let keys = random_vec(1000);
    suite.bench("hash_map", move |b| {
        b.iter(|| hash_map_of(black_box(&keys)))
    });
}

zenbench::main!(rerun);
