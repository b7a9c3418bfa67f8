//! The harness-free reference: plain timed loops with no harness code in them.
//!
//! For each n in 100, 1000 and 10000 it prints `loop <n> <ns per step>`. That is the least
//! disturbed of five timed loops, each calling `chain(n)` back to back for 20 million steps in
//! all, which is what a harness's timed loop does, without the harness. Then it prints
//! `single <ns per step>` for one long call of `chain(20_000_000)`, the latency of the chain
//! alone. Consecutive short calls overlap in the CPU's out-of-order window, so at small n the
//! loop is faster per step than the single call.

use std::hint::black_box;
use std::time::Instant;

use knotmeter_comparisons::chain;

const STEPS: u64 = 20_000_000;
const REPEATS: usize = 5;

fn main() {
    // One untimed call first, so the page faults and frequency ramp-up are behind us.
    black_box(chain(black_box(STEPS)));
    for n in [100u64, 1_000, 10_000] {
        let calls = STEPS / n;
        let best = (0..REPEATS)
            .map(|_| {
                let start = Instant::now();
                for _ in 0..calls {
                    black_box(chain(black_box(n)));
                }
                start.elapsed().as_nanos() as f64
            })
            .fold(f64::INFINITY, f64::min);
        println!("loop {n} {}", best / STEPS as f64);
    }
    let best = (0..REPEATS)
        .map(|_| {
            let start = Instant::now();
            black_box(chain(black_box(STEPS)));
            start.elapsed().as_nanos() as f64
        })
        .fold(f64::INFINITY, f64::min);
    println!("single {}", best / STEPS as f64);
}
