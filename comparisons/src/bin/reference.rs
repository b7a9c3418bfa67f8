//! The harness-free reference: one long timed call of `chain(20_000_000)`, printed as
//! nanoseconds per step. No harness code runs here.

use std::hint::black_box;
use std::time::Instant;

use knotmeter_comparisons::chain;

const STEPS: u64 = 20_000_000;

fn main() {
    // One untimed call first, so the page faults and frequency ramp-up are behind us.
    black_box(chain(black_box(STEPS)));
    let start = Instant::now();
    black_box(chain(black_box(STEPS)));
    let ns = start.elapsed().as_nanos() as f64;
    println!("{}", ns / STEPS as f64);
}
