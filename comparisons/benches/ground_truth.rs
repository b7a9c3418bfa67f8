//! Ground truth for docs/criterion.md ("The level"): the routines of
//! `compat/criterion-fixture/benches/suite.rs` that knotmeter-criterion and criterion disagree
//! on, timed with no harness at all, in plain `Instant` loops.
//!
//! For each routine and each batch size B (operations between two clock reads), it repeats
//! "prepare B inputs, read the clock, run B operations, read the clock" for about 150 ms and
//! prints the median and the minimum per-operation time, with the cost of an empty pair of clock
//! reads (measured the same way) subtracted. The batch sizes cover what each harness uses:
//! knotmeter's tuned `ops_per_sample` (tens to thousands) and criterion's batches (thousands to
//! hundreds of thousands; `iter_batched` keeps a tenth of a sample's iterations alive at once),
//! so the table shows whether the figure depends on the batch size.
//!
//!     cargo bench --manifest-path comparisons/Cargo.toml --bench ground_truth
//!
//! The sweeps repeat three times, interleaved, so a drift of the machine shows as a
//! disagreement between passes rather than as a difference between batch sizes.
//!
//! A second table times the same two routines (the `custom` loop and `parse_sum`'s body) at
//! four positions in the code, 0, 16, 32 and 48 bytes past a 64-byte boundary, and nothing else
//! changed: the figure of a routine this short depends on where the linker put it, which is
//! what separates two builds of the same suite (docs/criterion.md, "The level").

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion_fixture::{csv_line, fibonacci, parse_sum, shuffled};

/// Wall time spent on one (routine, batch size) cell per pass.
const CELL: Duration = Duration::from_millis(150);
/// Passes over the whole table.
const PASSES: usize = 3;

/// Median and minimum of per-operation nanoseconds over repeated batches of `batch`
/// operations; `run(batch)` prepares its inputs, times the batch and returns nanoseconds.
fn cell(batch: u64, clock_pair_ns: f64, mut run: impl FnMut(u64) -> f64) -> (f64, f64) {
    let mut per_op = Vec::new();
    let started = Instant::now();
    while started.elapsed() < CELL || per_op.len() < 11 {
        per_op.push((run(batch) - clock_pair_ns).max(0.0) / batch as f64);
    }
    per_op.sort_by(f64::total_cmp);
    (per_op[per_op.len() / 2], per_op[0])
}

/// The cost of two back-to-back `Instant::now()` reads, median of many.
fn clock_pair_ns() -> f64 {
    let mut pairs: Vec<f64> = (0..100_001)
        .map(|_| {
            let start = Instant::now();
            start.elapsed().as_nanos() as f64
        })
        .collect();
    pairs.sort_by(f64::total_cmp);
    pairs[pairs.len() / 2]
}

/// `batched/*`: `parse_sum` on an owned clone of a 64-field line, the clone made before the
/// clock starts and dropped inside the timed loop (as `iter_batched(|| line.clone(),
/// |text| parse_sum(&text), _)` does in both harnesses).
fn batched_owned(line: &str, batch: u64) -> f64 {
    let inputs: Vec<String> = (0..batch).map(|_| line.to_owned()).collect();
    let inputs = black_box(inputs);
    let start = Instant::now();
    for text in inputs {
        black_box(parse_sum(&text));
    }
    start.elapsed().as_nanos() as f64
}

/// The same, with the inputs kept and dropped after the clock stops: the parse alone.
fn batched_kept(line: &str, batch: u64) -> f64 {
    let inputs: Vec<String> = (0..batch).map(|_| line.to_owned()).collect();
    let inputs = black_box(inputs);
    let start = Instant::now();
    for text in &inputs {
        black_box(parse_sum(text));
    }
    let ns = start.elapsed().as_nanos() as f64;
    drop(inputs);
    ns
}

/// `configured/parse`: `parse_sum` on one borrowed 32-field line, as `iter` times it.
fn borrowed(line: &str, batch: u64) -> f64 {
    let start = Instant::now();
    for _ in 0..batch {
        black_box(parse_sum(black_box(line)));
    }
    start.elapsed().as_nanos() as f64
}

/// `batched/large_drop`: `shuffled(256)` (a 2 KiB vector) per operation, every output kept
/// until the clock stops and dropped after it (as both harnesses' `iter_with_large_drop` do).
fn large_drop(batch: u64) -> f64 {
    let mut outputs = Vec::with_capacity(batch as usize);
    let start = Instant::now();
    for _ in 0..batch {
        outputs.push(shuffled(black_box(256)));
    }
    let ns = start.elapsed().as_nanos() as f64;
    drop(black_box(outputs));
    ns
}

/// `custom`: the suite's `iter_custom` body, asked for `iters` iterations, its own clock.
fn custom(iters: u64) -> f64 {
    let start = Instant::now();
    for i in 0..iters {
        black_box(fibonacci(black_box(20 + (i & 1))));
    }
    start.elapsed().as_nanos() as f64
}

/// Moves the code that follows `PAD` bytes past a 64-byte boundary: a run of x86 no-ops
/// (`0x90`) that executes once per call, not per operation. Elsewhere it does nothing, and the
/// position table measures one position four times.
#[inline(always)]
fn shift_code<const PAD: usize>() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: no-ops only; no registers, memory or flags are touched.
    unsafe {
        std::arch::asm!(
            ".p2align 6",
            ".fill {pad}, 1, 0x90",
            pad = const PAD,
            options(nomem, nostack, preserves_flags)
        )
    };
}

/// [`custom`] with its loop moved `PAD` bytes past a 64-byte boundary.
#[inline(never)]
fn custom_at<const PAD: usize>(iters: u64) -> f64 {
    shift_code::<PAD>();
    let start = Instant::now();
    for i in 0..iters {
        black_box(fibonacci(black_box(20 + (i & 1))));
    }
    start.elapsed().as_nanos() as f64
}

/// `parse_sum`'s body (the fixture's, verbatim) moved `PAD` bytes past a 64-byte boundary,
/// timed over `batch` calls on one borrowed line.
#[inline(never)]
fn parse_at<const PAD: usize>(line: &str, batch: u64) -> f64 {
    shift_code::<PAD>();
    let start = Instant::now();
    for _ in 0..batch {
        let text = black_box(line);
        black_box(
            text.split(',')
                .filter_map(|field| field.trim().parse::<u64>().ok())
                .sum::<u64>(),
        );
    }
    start.elapsed().as_nanos() as f64
}

/// The position table: each routine at each of four offsets, interleaved over the passes.
fn positions(line32: &str, pair: f64) {
    println!();
    println!("| routine | bytes past a 64-byte boundary | pass | median ns/op | min ns/op |");
    println!("|---|---:|---:|---:|---:|");
    type Shifted<'a> = (&'a str, usize, u64, Box<dyn Fn(u64) -> f64 + 'a>);
    let cells: [Shifted<'_>; 8] = [
        ("custom loop", 0, 15_000, Box::new(custom_at::<0>)),
        ("custom loop", 16, 15_000, Box::new(custom_at::<16>)),
        ("custom loop", 32, 15_000, Box::new(custom_at::<32>)),
        ("custom loop", 48, 15_000, Box::new(custom_at::<48>)),
        (
            "parse_sum(&32-field line)",
            0,
            138,
            Box::new(|b| parse_at::<0>(line32, b)),
        ),
        (
            "parse_sum(&32-field line)",
            16,
            138,
            Box::new(|b| parse_at::<16>(line32, b)),
        ),
        (
            "parse_sum(&32-field line)",
            32,
            138,
            Box::new(|b| parse_at::<32>(line32, b)),
        ),
        (
            "parse_sum(&32-field line)",
            48,
            138,
            Box::new(|b| parse_at::<48>(line32, b)),
        ),
    ];
    for pass in 1..=PASSES {
        for (name, pad, batch, run) in &cells {
            let (median, min) = cell(*batch, pair, run);
            println!("| {name} | {pad} | {pass} | {median:.2} | {min:.2} |");
        }
    }
}

fn main() {
    let line64 = csv_line(64);
    let line32 = csv_line(32);
    let pair = clock_pair_ns();
    println!("empty clock pair: {pair:.1} ns (subtracted from every batch)");
    println!();
    println!("| routine | ops per batch | pass | median ns/op | min ns/op |");
    println!("|---|---:|---:|---:|---:|");
    type Routine<'a> = (&'a str, &'a [u64], Box<dyn Fn(u64) -> f64 + 'a>);
    let routines: [Routine<'_>; 5] = [
        (
            "batched: parse_sum(owned 64-field clone), drop timed",
            &[1, 10, 68, 1_000, 10_000],
            Box::new(|b| batched_owned(&line64, b)),
        ),
        (
            "batched: parse_sum(&64-field clone), drop after the clock",
            &[1, 10, 68, 1_000, 10_000],
            Box::new(|b| batched_kept(&line64, b)),
        ),
        (
            "configured/parse: parse_sum(&32-field line)",
            &[1, 10, 138, 1_000, 100_000],
            Box::new(|b| borrowed(&line32, b)),
        ),
        (
            "batched/large_drop: shuffled(256), outputs dropped after the clock",
            &[1, 10, 68, 1_000, 10_000, 30_000],
            Box::new(large_drop),
        ),
        (
            "custom: fibonacci(20 + (i & 1)) loop",
            &[100, 1_000, 15_000, 100_000, 1_000_000],
            Box::new(custom),
        ),
    ];
    for pass in 1..=PASSES {
        for (name, batches, run) in &routines {
            for &batch in *batches {
                let (median, min) = cell(batch, pair, run);
                println!("| {name} | {batch} | {pass} | {median:.2} | {min:.2} |");
            }
        }
    }
    positions(&line32, pair);
}
