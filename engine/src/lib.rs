//! knotmeter: benchmarks whose numbers can be trusted.
//!
//! Write benchmarks as `#[bench]` functions in `benches/*.rs` (with `harness = false` for that
//! `[[bench]]` target) and end the file with [`main!`]:
//!
//! ```no_run
//! use knotmeter::{bench, black_box, Bencher};
//!
//! fn chain(n: u64) -> u64 {
//!     let mut state = 0x9E37_79B9_7F4A_7C15_u64;
//!     for _ in 0..n {
//!         state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
//!         state ^= state >> 33;
//!     }
//!     state
//! }
//!
//! #[bench] // the whole body is timed; the harness consumes the result
//! fn chain_1000() -> u64 {
//!     chain(black_box(1000))
//! }
//!
//! #[bench(args = [10, 100, 1000])] // one case per value, each passed through black_box
//! fn chain_n(n: u64) -> u64 {
//!     chain(n)
//! }
//!
//! #[bench] // explicit form: set-up outside the timed region
//! fn sort_1000(b: &mut Bencher) {
//!     let data: Vec<u64> = (0..1000).map(|i| i * 7919 % 1000).collect();
//!     b.with_inputs(|| data.clone()).run(|mut v| {
//!         v.sort();
//!         v
//!     });
//! }
//!
//! #[bench] // awaited inside the timed region by a minimal executor
//! async fn ready() -> u64 {
//!     std::future::ready(7).await
//! }
//!
//! knotmeter::main!();
//! ```
//!
//! `cargo bench` then prints, per case, the median time per operation with its 95% interval,
//! operations per second, samples × operations per sample, the harness overhead that was
//! subtracted, and the cold first call.
//!
//! # How a case is measured
//!
//! 1. The clock is calibrated once: its precision and the cost of one read.
//! 2. The first call is timed on its own (the cold call).
//! 3. The operations per sample grow until a sample spans at least 1000× the clock's
//!    precision and read cost, then warm-up runs until consecutive windows agree within 2%.
//! 4. Samples of the workload alternate (ABBA) with samples of an empty body of the same shape
//!    through the same monomorphised loop; the empty body's median is the harness overhead,
//!    subtracted from every workload sample.
//! 5. Sampling stops when the median's 95% interval is within ±1% (±3% with `--quick`) or the
//!    time budget (1 s per case, 100 ms with `--quick`) is spent.
//!
//! See `docs/measurement.md` in the repository for the reasons behind each step.
//!
//! # Benchmarks that need tokio
//!
//! The built-in executor polls a future on the benchmark's thread and parks while it is
//! pending; it has no reactor. A future that needs tokio's timers or sockets runs on a tokio
//! runtime built in the set-up:
//!
//! ```ignore
//! #[bench]
//! fn fetch(b: &mut Bencher) {
//!     let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//!     b.iter(|| rt.block_on(fetch_from_cache("key")));
//! }
//! ```
//!
//! # Quick ad-hoc timing
//!
//! [`profile`] and [`profile_with_first`] time a closure through the same loop and print it
//! with a template, for the moment when you want a number without a bench target.

#![deny(missing_docs)]

mod alloc;
mod analysis;
mod bencher;
mod cancel;
mod cli;
mod compare;
mod count;
mod declared;
mod driven;
mod harness;
mod manifest;
mod measure;
mod output;
mod probe;
mod profile;
mod registry;
mod report;
mod rounds;
mod run;
mod runner;
use knotmeter_stats as stats;
mod store;

pub use alloc::CountingAlloc;
pub use bencher::{Bencher, WithInputs};
pub use profile::{profile, profile_with_first, ProfileReport, TemplateError, PLACEHOLDERS};
pub use std::hint::black_box;

/// Registers a benchmark function. See the [crate documentation](crate) for the forms.
///
/// Options:
///
/// * `args = [a, b, ...]`: one case per value; the function takes one parameter (after an
///   optional `&mut Bencher`) and each value is passed through [`black_box`].
///   `#[bench(args = [10, 100, 1000])] fn chain_n(n: u64) -> u64 { chain(n) }`
/// * `group = "name"`: members of a group are compared with each other.
///   `#[bench(group = "sort")] fn unstable(b: &mut Bencher) { ... }`
/// * `baseline`: this member is the one the others in its group are compared against.
///   `#[bench(group = "sort", baseline)] fn stable(b: &mut Bencher) { ... }`
pub use knotmeter_macros::bench;

/// Defines `fn main` for a bench target: parses the command line and runs every registered
/// benchmark. Put `knotmeter::main!();` at the end of each `benches/*.rs` file, and give the
/// target `harness = false` in Cargo.toml:
///
/// ```toml
/// [[bench]]
/// name = "demo"
/// harness = false
/// ```
///
/// Without it, cargo builds the target with libtest's harness, which would never call this
/// `main`; the build then fails with a message that says what to add.
#[macro_export]
macro_rules! main {
    () => {
        fn main() -> ::std::process::ExitCode {
            $crate::__private::main(::std::cfg!(debug_assertions))
        }

        /// Fails the build when cargo compiles this target with libtest's harness, which would
        /// never call the `main` above: `#[test]` keeps this function only under `--test`, and
        /// cargo sets `CARGO_TARGET_TMPDIR` only for bench and test targets (not for the
        /// unit tests of a binary, which are fine). See `knotmeter::__private::check_harness`.
        #[test]
        fn knotmeter_harness_check() {
            const _: () = $crate::__private::check_harness(
                ::std::option_env!("CARGO_TARGET_TMPDIR").is_some(),
                ::std::file!(),
            );
        }
    };
}

/// What the macros' output needs. Not public API: no SemVer guarantees.
#[doc(hidden)]
pub mod __private {
    pub use crate::bencher::run_by_value;
    pub use crate::harness::{check as check_harness, check_for as check_harness_for};
    pub use crate::registry::{BenchDef, Case, BENCHES};
    pub use knotmeter_protocol::ThroughputUnit;

    /// What `knotmeter-criterion` needs: benchmarks declared at run time.
    pub mod declared {
        pub use crate::declared::{main, measure_routine, measure_self_timed, ThreadExecutor};
    }
    pub use crate::Bencher;
    pub use linkme;
    pub use std::hint::black_box;

    /// Runs the bench binary; called by [`main!`](crate::main).
    pub fn main(debug_assertions: bool) -> std::process::ExitCode {
        crate::runner::main(debug_assertions)
    }
}

#[cfg(test)]
#[global_allocator]
static TEST_ALLOCATOR: CountingAlloc = CountingAlloc::system();
