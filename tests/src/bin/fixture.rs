//! A bench binary with one benchmark of every shape, plus ones that fail on purpose.
//! The end-to-end tests run it; it is not a benchmark of anything.
#![cfg(not(test))] // Holds no test (see tests/Cargo.toml).
use knotmeter::{bench, black_box, Bencher};

fn work(n: u64) -> u64 {
    (0..black_box(n)).fold(0, |acc, x| acc ^ x.wrapping_mul(0x9E37_79B9))
}

#[bench]
fn plain() -> u64 {
    work(black_box(50))
}

#[bench(args = [10, 1000])]
fn sized(n: u64) -> u64 {
    work(n)
}

#[bench]
fn explicit(b: &mut Bencher) {
    let data: Vec<u64> = (0..64).collect();
    b.with_inputs(|| data.clone()).run(|mut v| {
        v.reverse();
        v
    });
}

#[bench(group = "pair", baseline)]
fn pair_a() -> u64 {
    work(black_box(40))
}

#[bench(group = "pair")]
fn pair_b() -> u64 {
    work(black_box(44))
}

#[bench]
async fn awaited() -> u64 {
    std::future::ready(work(black_box(20))).await
}

mod failing {
    use knotmeter::{bench, Bencher};

    #[bench]
    fn panics() -> u64 {
        panic!("the fixture panics on purpose")
    }

    #[bench]
    fn never_measures(_b: &mut Bencher) {}
}

knotmeter::main!();
