//! Every accepted form of `#[bench]` compiles together in one bench binary, under
//! `#![deny(warnings, missing_docs)]`, and runs: a test target with `harness = false`, so
//! `cargo test` runs it in test mode (each case once) and fails if a case fails.

#![deny(warnings, missing_docs)]

use knotmeter::{bench, black_box, Bencher};

fn chain(n: u64) -> u64 {
    (0..n).fold(0, |acc, x| acc ^ x.wrapping_mul(31))
}

/// Whole body timed, result consumed by the harness.
#[bench]
fn chain_1000() -> u64 {
    chain(black_box(1000))
}

#[bench]
fn returns_nothing() {}

#[bench(args = [10, 100, 1000, 10000])]
fn chain_n(n: u64) -> u64 {
    chain(n)
}

#[bench(args = [1.5, 2.0])]
fn float_arg(x: f64) -> f64 {
    x.sqrt()
}

// The explicit lifetime is the form under test (`#[bench]` accepts lifetime parameters).
#[allow(clippy::needless_lifetimes)]
#[bench(args = ["a", "bb"])]
fn str_arg<'a>(s: &'a str) -> &'a str {
    s.trim()
}

#[bench(args = [(1, 'x'), (2, 'y')])]
fn tuple_arg((n, c): (u8, char)) -> u32 {
    n as u32 + c as u32
}

#[bench(args = [String::from("hello"), "world".to_string()])]
fn string_arg(mut s: String) -> String {
    s.push('!');
    s
}

#[bench(args = [vec![3, 1, 2], Vec::new()])]
fn vec_arg(v: Vec<i32>) -> usize {
    v.len()
}

#[bench]
fn sort_1000(b: &mut Bencher) {
    let v: Vec<u64> = (0..1000).rev().collect();
    b.with_inputs(|| v.clone()).run(|mut v| {
        v.sort();
        v
    });
}

#[bench(args = [10, 100])]
fn sort_n(b: &mut Bencher, n: usize) {
    let v: Vec<usize> = (0..n).rev().collect();
    b.with_inputs(|| v.clone()).run(|mut v| {
        v.sort();
        v
    });
}

#[bench(args = [String::from("s")])]
fn bencher_string(b: &mut knotmeter::Bencher, s: String) {
    b.iter(|| s.len());
}

#[bench(group = "sort", baseline)]
fn std_sort(b: &mut Bencher) {
    b.iter(|| {
        let mut v = vec![3, 1, 2];
        v.sort();
        v
    });
}

#[bench(group = "sort", baseline = false)]
fn unstable_sort(b: &mut Bencher) {
    b.iter(|| {
        let mut v = vec![3, 1, 2];
        v.sort_unstable();
        v
    });
}

#[knotmeter::bench(group = "sort")]
fn sort_by_key(b: &mut Bencher) -> Option<()> {
    b.iter(|| {
        let mut v = vec![3, 1, 2];
        v.sort_by_key(|x| *x);
        v
    });
    Some(())
}

#[bench]
async fn lookup() -> u64 {
    7
}

#[bench(args = [1, 2])]
async fn lookup_n(n: u32) -> u64 {
    u64::from(n)
}

#[bench(args = [String::from("key")])]
async fn lookup_key(key: String) -> usize {
    key.len()
}

mod nested {
    use knotmeter::bench;

    /// Two benches in one module do not collide, and private functions work.
    #[bench]
    fn a() -> u8 {
        1
    }

    #[bench(args = [2])]
    pub(crate) fn b(n: u8) -> u8 {
        n
    }
}

#[cfg(any())]
#[bench]
fn compiled_out() -> DoesNotExist {}

/// The function stays callable.
fn _still_callable() -> u64 {
    chain_1000() + chain_n(3) + nested::b(1) as u64
}

knotmeter::main!();
