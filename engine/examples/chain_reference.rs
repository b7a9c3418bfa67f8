//! The harness-free reference for `cargo xtask perf`: long timed calls of `chain(20_000_000)`,
//! the fastest of five printed as nanoseconds per step (on a shared machine a single call can
//! be preempted). No knotmeter code runs here.

use std::hint::black_box;
use std::time::Instant;

use quickstart::chain;

const STEPS: u64 = 20_000_000;

fn main() {
    // One untimed call first, so the page faults and frequency ramp-up are behind us.
    black_box(chain(black_box(STEPS)));
    let fastest = (0..5)
        .map(|_| {
            let start = Instant::now();
            black_box(chain(black_box(STEPS)));
            start.elapsed().as_nanos() as f64
        })
        .fold(f64::INFINITY, f64::min);
    println!("{}", fastest / STEPS as f64);
}
