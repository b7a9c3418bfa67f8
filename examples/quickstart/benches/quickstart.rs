//! The quickstart benchmarks: run them with `cargo bench -p quickstart`.

use knotmeter::{bench, black_box, Bencher};
use quickstart::{chain, csv_line, fnv1a, parse_csv_line, random_vec};

/// The whole body is timed; the harness consumes the returned value.
#[bench]
fn chain_1000() -> u64 {
    chain(black_box(1000))
}

/// One case per size: the per-step cost should stay flat from 1000 up.
#[bench(args = [10, 100, 1000, 10000])]
fn chain_n(n: u64) -> u64 {
    chain(n)
}

/// Sorting with the set-up (a fresh copy of the data) outside the timed region.
#[bench(group = "sort", baseline)]
fn sort_stable(b: &mut Bencher) {
    let data = random_vec(1000);
    b.with_inputs(|| data.clone()).run(|mut v| {
        v.sort();
        v
    });
}

/// The unstable sort on the same data, compared against the stable one.
#[bench(group = "sort")]
fn sort_unstable(b: &mut Bencher) {
    let data = random_vec(1000);
    b.with_inputs(|| data.clone()).run(|mut v| {
        v.sort_unstable();
        v
    });
}

/// Hashing a 4 KiB buffer.
#[bench]
fn fnv1a_4k(b: &mut Bencher) {
    let bytes: Vec<u8> = random_vec(512)
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    b.iter(|| fnv1a(black_box(&bytes)));
}

/// Parsing a line of 64 comma-separated numbers.
#[bench]
fn parse_csv_64(b: &mut Bencher) {
    let line = csv_line(64);
    b.iter(|| parse_csv_line(black_box(&line)));
}

/// An async benchmark, awaited inside the timed region.
#[bench]
async fn async_chain_100() -> u64 {
    std::future::ready(black_box(100)).await;
    chain(black_box(100))
}

knotmeter::main!();
