//! criterion's benchmark API, measured by knotmeter.
//!
//! Existing criterion benchmarks run unchanged on knotmeter's engine (overhead-subtracted,
//! with validity checks, history, and the editor's Test Explorer and inline results) by
//! changing one line of Cargo.toml:
//!
//! ```toml
//! [dev-dependencies]
//! criterion = { package = "knotmeter-criterion", version = "0.1" }   # was: criterion = "0.5"
//! ```
//!
//! The bench file stays as it was:
//!
//! ```no_run
//! use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
//! # extern crate knotmeter_criterion as criterion;
//!
//! fn fibonacci(n: u64) -> u64 {
//!     (1..=n).fold((0, 1), |(a, b), _| (b, a + b)).0
//! }
//!
//! fn bench_fib(c: &mut Criterion) {
//!     c.bench_function("fib 20", |b| b.iter(|| fibonacci(black_box(20))));
//!     let mut group = c.benchmark_group("fib");
//!     for n in [10u64, 20, 40] {
//!         group.throughput(Throughput::Elements(n));
//!         group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
//!             b.iter(|| fibonacci(n))
//!         });
//!     }
//!     group.finish();
//! }
//!
//! criterion_group!(benches, bench_fib);
//! criterion_main!(benches);
//! ```
//!
//! # How it runs
//!
//! criterion's benchmarks have names chosen at run time, inside closures that borrow the
//! set-up around them. `criterion_main!` therefore first calls the group functions with every
//! benchmark closure skipped, to learn each benchmark's id, source line, throughput and time
//! budget; these become knotmeter cases, so `--list`, filters, `--exact`, every output format,
//! the history and the editor see them like `#[bench]` functions. To measure one case, the
//! target function that declared it (one `fn(&mut Criterion)` of a `criterion_group!`) runs
//! again, and only that case's closure is called, with a knotmeter bencher. The set-up code
//! outside the closures therefore runs once for the listing and once for every case measured:
//! keep it free of side effects that must happen once.
//!
//! See `docs/criterion.md` in the repository for what each criterion setting maps to and what
//! differs.

#![deny(missing_docs)]

pub mod async_executor;
mod bencher;
mod criterion;
mod driver;
mod group;
mod macros;
pub mod measurement;
pub mod profiler;
mod settings;

pub use bencher::{AsyncBencher, Bencher};
pub use criterion::Criterion;
pub use group::{BenchmarkGroup, BenchmarkId, IntoBenchmarkId};
pub use settings::{
    AxisScale, Baseline, BatchSize, BenchmarkFilter, PlotConfiguration, PlottingBackend,
    SamplingMode, Throughput,
};

/// Keeps the compiler from optimising a value away: [`std::hint::black_box`], as criterion
/// 0.5 and later use.
pub use std::hint::black_box;

/// What the macros' output needs. Not public API: no SemVer guarantees.
#[doc(hidden)]
pub mod __private {
    pub use crate::driver::{main, target};
    pub use knotmeter::__private::check_harness_for;
}
