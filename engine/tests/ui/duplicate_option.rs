use knotmeter::{bench, Bencher};

#[bench(group = "a", group = "b")]
fn f(_b: &mut Bencher) {}

#[bench(args = [1], args = [2])]
fn g(n: u64) -> u64 {
    n
}

#[bench(group = "a", baseline, baseline = false)]
fn h() {}

fn main() {}
