//! The engine benchmarks itself: what an empty body reports after overhead subtraction, the
//! harness's own per-operation overhead, and seed 001's chain at growing sizes, whose per-step
//! cost `cargo xtask perf` compares with a harness-free reference.

use knotmeter::bench;
use quickstart::chain;

/// Nothing at all: the corrected estimate must be indistinguishable from zero, and the
/// overhead column is the harness's own cost per operation.
#[bench]
fn empty() {}

/// The dependency chain; per-step cost = median / n.
#[bench(args = [1_000, 10_000, 100_000])]
fn chain_n(n: u64) -> u64 {
    chain(n)
}

knotmeter::main!();
