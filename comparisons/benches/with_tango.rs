//! The comparison workloads under tango-bench. `single/…` are measured with `solo`; the pairs are
//! compared inside one binary with `compare --strip-baseline 'base/**' --strip-candidate
//! 'cand/**'` (tango runs the two sides in two worker processes, sample by sample in lockstep).
//!
//! Tango 0.9 has no set-up outside the timed region, so `sort_1000` times the copy of the input
//! as well as the sort.

use std::hint::black_box;

use knotmeter_comparisons::{chain, discarded_loop, random_vec, PAIR_1PCT, PAIR_5PCT, PAIR_BASE};
use tango_bench::{benchmark_fn, tango_benchmarks, Benchmark, IntoBenchmarks};

fn single() -> impl IntoBenchmarks {
    let mut benches = vec![
        benchmark_fn("single/empty", |b| b.iter(|| {})),
        benchmark_fn("single/discarded_loop_1000", |b| b.iter(discarded_loop)),
    ];
    for n in [10u64, 100, 1000, 10000] {
        benches.push(benchmark_fn(format!("single/chain_n/{n}"), move |b| {
            b.iter(move || chain(black_box(n)))
        }));
    }
    benches.push(benchmark_fn("single/sort_1000", |b| {
        let data = random_vec(1000);
        b.iter(move || {
            let mut v = data.clone();
            v.sort();
            v
        })
    }));
    benches
}

fn pair(name: &str, base: u64, candidate: u64) -> [Benchmark; 2] {
    [
        benchmark_fn(format!("base/{name}"), move |b| {
            b.iter(move || chain(black_box(base)))
        }),
        benchmark_fn(format!("cand/{name}"), move |b| {
            b.iter(move || chain(black_box(candidate)))
        }),
    ]
}

fn pairs() -> impl IntoBenchmarks {
    let mut benches = Vec::new();
    benches.extend(pair("aa", PAIR_BASE, PAIR_BASE));
    benches.extend(pair("ab1", PAIR_BASE, PAIR_1PCT));
    benches.extend(pair("ab5", PAIR_BASE, PAIR_5PCT));
    benches
}

tango_benchmarks!(single(), pairs());
