//! criterion benchmarks whose true cost is known by construction, for
//! `tests/criterion_accuracy.rs`: what knotmeter-criterion times for each of criterion's loops,
//! and what it leaves out.
//!
//! * `custom_10ns`: `iter_custom` reporting exactly 10 ns per iteration asked for;
//! * `batched_slow_setup`, `with_setup_slow_setup`: a set-up of 20 µs around a trivial routine;
//! * `batched_ref_slow_drop`: `iter_batched_ref` over an input whose drop takes 20 µs;
//! * `large_drop_slow_drop`: `iter_with_large_drop` of an output whose drop takes 20 µs;
//! * `body_20us`: the same 20 µs in the routine itself (the control: it must be timed).
#![cfg(not(test))] // Holds no test (see tests/Cargo.toml).
use std::time::{Duration, Instant};

use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion};

/// What the slow set-ups, drops and body each cost.
const SPIN: Duration = Duration::from_micros(20);

/// Keeps the CPU busy for [`SPIN`].
fn spin() {
    let started = Instant::now();
    while started.elapsed() < SPIN {
        std::hint::spin_loop();
    }
}

/// A value whose drop costs [`SPIN`].
struct SlowDrop(u64);

impl Drop for SlowDrop {
    fn drop(&mut self) {
        spin();
    }
}

fn benches(c: &mut Criterion) {
    c.bench_function("custom_10ns", |b| {
        b.iter_custom(|iters| Duration::from_nanos(iters * 10))
    });
    c.bench_function("batched_slow_setup", |b| {
        b.iter_batched(
            || {
                spin();
                3u64
            },
            |x| black_box(x) + 1,
            BatchSize::SmallInput,
        )
    });
    c.bench_function("with_setup_slow_setup", |b| {
        b.iter_with_setup(
            || {
                spin();
                3u64
            },
            |x| black_box(x) + 1,
        )
    });
    c.bench_function("batched_ref_slow_drop", |b| {
        b.iter_batched_ref(
            || SlowDrop(3),
            |s| black_box(s.0) + 1,
            BatchSize::SmallInput,
        )
    });
    c.bench_function("large_drop_slow_drop", |b| {
        b.iter_with_large_drop(|| SlowDrop(black_box(3)))
    });
    c.bench_function("body_20us", |b| b.iter(spin));
}

criterion_group!(accuracy, benches);
criterion_main!(accuracy);
