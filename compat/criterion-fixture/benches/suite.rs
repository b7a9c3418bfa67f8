//! A criterion suite in the shapes real suites use: plain functions, groups with throughput
//! over a range of inputs, every `iter_batched` batch size, `iter_batched_ref`, set-up and
//! large-drop forms, `iter_custom`, async on tokio and on the futures executor, and groups
//! with their own configuration. It builds unchanged against criterion itself
//! (`comparisons/`, bench target `criterion_suite`).

// criterion 0.6 and later deprecate their `black_box` for `std::hint::black_box`; suites written
// for 0.5 still call it, so this one does too.
#![allow(deprecated)]

use std::time::{Duration, Instant};

use criterion::async_executor::FuturesExecutor;
use criterion::black_box;
use criterion::measurement::WallTime;
use criterion::{
    criterion_group, criterion_main, AxisScale, BatchSize, BenchmarkGroup, BenchmarkId,
    Criterion, PlotConfiguration, SamplingMode, Throughput,
};
use criterion_fixture::{checksum, csv_line, fibonacci, parse_sum, shuffled};

fn bench_fibonacci(c: &mut Criterion) {
    c.bench_function("fib 20", |b| b.iter(|| fibonacci(black_box(20))));
    c.bench_with_input(BenchmarkId::new("fib", 30), &30u64, |b, &n| {
        b.iter(|| fibonacci(std::hint::black_box(n)))
    });
}

fn bench_checksum(c: &mut Criterion) {
    let mut group = c.benchmark_group("checksum");
    for size in [64usize, 1024, 16 * 1024] {
        let data = vec![0xA5u8; size];
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_with_input(BenchmarkId::from_parameter(size), &data, |b, data| {
            b.iter(|| checksum(data))
        });
    }
    group.finish();
}

fn sort_cases(group: &mut BenchmarkGroup<'_, WallTime>, size: usize) {
    let data = shuffled(size);
    group.throughput(Throughput::Elements(size as u64));
    group.bench_with_input(BenchmarkId::new("stable", size), &data, |b, data| {
        b.iter_batched(|| data.clone(), |mut v| { v.sort(); v }, BatchSize::SmallInput)
    });
    group.bench_with_input(BenchmarkId::new("unstable", size), &data, |b, data| {
        b.iter_batched_ref(|| data.clone(), |v| v.sort_unstable(), BatchSize::SmallInput)
    });
}

fn bench_sort(c: &mut Criterion) {
    let mut group = c.benchmark_group("sort");
    group
        .sampling_mode(SamplingMode::Flat)
        .plot_config(PlotConfiguration::default().summary_scale(AxisScale::Logarithmic));
    for size in [100usize, 1000] {
        sort_cases(&mut group, size);
    }
    group.finish();
}

fn bench_batch_sizes(c: &mut Criterion) {
    let line = csv_line(64);
    let mut group = c.benchmark_group("batched");
    let sizes = [
        ("small", BatchSize::SmallInput),
        ("large", BatchSize::LargeInput),
        ("per_iteration", BatchSize::PerIteration),
        ("batches_10", BatchSize::NumBatches(10)),
        ("iterations_100", BatchSize::NumIterations(100)),
    ];
    for (name, size) in sizes {
        group.bench_function(name, |b| {
            b.iter_batched(|| line.clone(), |text| parse_sum(&text), size)
        });
    }
    group.bench_function("with_setup", |b| {
        b.iter_with_setup(|| line.clone(), |text| parse_sum(&text))
    });
    group.bench_function("large_drop", |b| b.iter_with_large_drop(|| shuffled(256)));
    group.finish();
}

fn bench_custom(c: &mut Criterion) {
    c.bench_function("custom", |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for i in 0..iters {
                black_box(fibonacci(black_box(20 + (i & 1))));
            }
            start.elapsed()
        })
    });
}

fn bench_async(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let mut group = c.benchmark_group("async");
    group.bench_function("tokio", |b| {
        b.to_async(&runtime).iter(|| async { fibonacci(black_box(20)) })
    });
    group.bench_function("futures", |b| {
        b.to_async(FuturesExecutor).iter_batched(
            || csv_line(16),
            |text| async move { parse_sum(&text) },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

fn bench_configured(c: &mut Criterion) {
    let mut group = c.benchmark_group("configured");
    group
        .sample_size(20)
        .measurement_time(Duration::from_millis(300))
        .warm_up_time(Duration::from_millis(100))
        .noise_threshold(0.03)
        .confidence_level(0.9)
        .significance_level(0.1)
        .nresamples(10_000);
    group.bench_function("parse", |b| {
        let line = csv_line(32);
        b.iter(|| parse_sum(black_box(&line)))
    });
    group.finish();
}

criterion_group!(benches, bench_fibonacci, bench_checksum, bench_sort, bench_batch_sizes);
criterion_group! {
    name = special;
    config = Criterion::default()
        .sample_size(10)
        .measurement_time(Duration::from_millis(500))
        .warm_up_time(Duration::from_millis(200))
        .noise_threshold(0.05)
        .without_plots();
    targets = bench_custom, bench_async, bench_configured
}
criterion_main!(benches, special);
