use knotmeter::{bench, Bencher};

#[bench(args = [1, 2])]
fn chain() -> u64 {
    1
}

#[bench(args = [1, 2])]
fn sort(_b: &mut Bencher) {}

fn main() {}
