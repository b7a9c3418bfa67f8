use knotmeter::{bench, Bencher};

#[bench(args = [1, 2])]
fn f(a: u64, b: u64) -> u64 {
    a + b
}

#[bench(args = [1, 2])]
fn g(_b: &mut Bencher, a: u64, c: u64) {
    let _ = a + c;
}

fn main() {}
