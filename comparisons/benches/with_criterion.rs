//! The comparison workloads under criterion. Criterion compares a run with an earlier run of the
//! same benchmark (`--save-baseline` / `--baseline`), so each pair is one benchmark whose work
//! comes from the environment: `KM_PAIR_AA`, `KM_PAIR_AB1`, `KM_PAIR_AB5` (default 2000).
//! The group `rerun` holds the realistic bodies of the rerun-coverage measurement (`cargo xtask
//! compare rerun`).

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};
use knotmeter_comparisons::{
    chain, csv_line, discarded_loop, hash_map_of, parse_csv_line, random_vec, work_from_env,
    PAIR_BASE,
};
use std::hint::black_box;

fn single(c: &mut Criterion) {
    c.bench_function("empty", |b| b.iter(|| {}));
    c.bench_function("discarded_loop_1000", |b| b.iter(discarded_loop));
    let mut group = c.benchmark_group("chain_n");
    for n in [10u64, 100, 1000, 10000] {
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            b.iter(|| chain(black_box(n)))
        });
    }
    group.finish();
    let data = random_vec(1000);
    c.bench_function("sort_1000", |b| {
        b.iter_batched(
            || data.clone(),
            |mut v| {
                v.sort();
                v
            },
            BatchSize::SmallInput,
        )
    });
}

fn pairs(c: &mut Criterion) {
    for name in ["aa", "ab1", "ab5"] {
        let work = work_from_env(&format!("KM_PAIR_{}", name.to_uppercase()), PAIR_BASE);
        c.bench_function(&format!("pair_{name}"), |b| {
            b.iter(|| chain(black_box(work)))
        });
    }
}

fn rerun(c: &mut Criterion) {
    let mut group = c.benchmark_group("rerun");
    for n in [100u64, 10000] {
        group.bench_with_input(BenchmarkId::new("chain_n", n), &n, |b, &n| {
            b.iter(|| chain(black_box(n)))
        });
    }
    let data = random_vec(1000);
    group.bench_function("sort_1000", |b| {
        b.iter_batched(
            || data.clone(),
            |mut v| {
                v.sort();
                v
            },
            BatchSize::SmallInput,
        )
    });
    let line = csv_line(64);
    group.bench_function("parse_csv", |b| b.iter(|| parse_csv_line(black_box(&line))));
    let keys = random_vec(1000);
    group.bench_function("hash_map", |b| b.iter(|| hash_map_of(black_box(&keys))));
    group.finish();
}

criterion_group!(benches, single, pairs, rerun);
criterion_main!(benches);
