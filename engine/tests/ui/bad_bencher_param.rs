use knotmeter::{bench, Bencher};

#[bench]
fn shared(_b: &Bencher) {}

#[bench]
fn by_value(_b: Bencher) {}

#[bench(args = [1])]
fn second(_n: u64, _b: &mut Bencher) {}

#[bench]
fn twice(_a: &mut Bencher, _b: &mut Bencher) {}

fn main() {}
