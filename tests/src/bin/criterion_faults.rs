//! criterion benchmarks (through knotmeter-criterion) that go wrong in the ways a criterion
//! suite can on knotmeter: `KNOTMETER_FIXTURE_FAULT` picks one, `tests/criterion.rs` runs it.
//!
//! * `duplicate`: two benchmarks with the same id;
//! * `listing_panic`: the group function panics before its first benchmark;
//! * `moving_name`: a benchmark named differently every time its group runs;
//! * `misnamed_baseline`: a compared group whose `knotmeter_compare_against` names no member;
//! * none: a well-behaved group, plus one benchmark under a custom measurement.
#![cfg(not(test))] // Holds no test (see tests/Cargo.toml).
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

fn fault() -> String {
    std::env::var("KNOTMETER_FIXTURE_FAULT").unwrap_or_default()
}

fn work(n: u64) -> u64 {
    (0..black_box(n)).fold(0, |acc, x| acc ^ x.wrapping_mul(0x9E37_79B9))
}

static RUNS: AtomicU64 = AtomicU64::new(0);

fn benches(c: &mut Criterion) {
    match fault().as_str() {
        "listing_panic" => panic!("boom while setting up"),
        "duplicate" => {
            c.bench_function("twice", |b| b.iter(|| work(10)));
            c.bench_function("twice", |b| b.iter(|| work(20)));
        }
        "misnamed_baseline" => {
            let mut group = c.benchmark_group("sorts");
            group.knotmeter_compare_against("stabel");
            group.bench_function("stable", |b| b.iter(|| work(10)));
            group.bench_function("unstable", |b| b.iter(|| work(20)));
            group.finish();
        }
        "moving_name" => {
            let name = format!("moving {}", RUNS.fetch_add(1, Ordering::Relaxed));
            c.bench_function(&name, |b| b.iter(|| work(10)));
        }
        _ => {
            c.bench_function("plain", |b| b.iter(|| work(100)));
            let mut group = c.benchmark_group("sized");
            for n in [10u64, 1000] {
                group.throughput(Throughput::Elements(n));
                group.bench_with_input(BenchmarkId::new("work", n), &n, |b, &n| b.iter(|| work(n)));
            }
            group.finish();
            c.bench_function("no_timing_call", |_| {});
        }
    }
}

/// A measurement in units of its own (as cycle counters are): knotmeter measures wall time
/// only, so its benchmark must fail rather than report these units as nanoseconds.
struct Ticks;

struct TickFormatter;

impl ValueFormatter for TickFormatter {
    fn scale_values(&self, _typical: f64, _values: &mut [f64]) -> &'static str {
        "ticks"
    }
    fn scale_throughputs(&self, _t: f64, _th: &Throughput, _v: &mut [f64]) -> &'static str {
        "ticks"
    }
    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ticks"
    }
}

impl Measurement for Ticks {
    type Intermediate = Instant;
    type Value = u64;
    fn start(&self) -> Instant {
        Instant::now()
    }
    fn end(&self, i: Instant) -> u64 {
        i.elapsed().as_nanos() as u64 * 3
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, v: &u64) -> f64 {
        *v as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &TickFormatter
    }
}

fn ticks(c: &mut Criterion<Ticks>) {
    if fault().is_empty() {
        c.bench_function("ticks", |b| b.iter(|| work(10)));
    }
}

criterion_group!(plain, benches);
criterion_group! {
    name = custom;
    config = Criterion::default().with_measurement(Ticks).measurement_time(Duration::from_millis(50));
    targets = ticks
}
criterion_main!(plain, custom);
