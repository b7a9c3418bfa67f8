//! The harness-free reference for `cargo xtask perf`: one long timed call of
//! `chain(20_000_000)`, printed as nanoseconds per step. No knotmeter code runs here.

use std::hint::black_box;
use std::time::Instant;

#[path = "../benches/chain.rs"]
mod chain;

const STEPS: u64 = 20_000_000;

fn main() {
    // One untimed call first, so the page faults and frequency ramp-up are behind us.
    black_box(chain::chain(black_box(STEPS)));
    let start = Instant::now();
    black_box(chain::chain(black_box(STEPS)));
    let ns = start.elapsed().as_nanos() as f64;
    println!("{}", ns / STEPS as f64);
}
