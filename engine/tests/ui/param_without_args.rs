use knotmeter::{bench, Bencher};

#[bench]
fn chain_n(n: u64) -> u64 {
    n
}

#[bench]
fn sort_n(_b: &mut Bencher, mut n: usize) {
    n += 1;
    let _ = n;
}

fn main() {}
