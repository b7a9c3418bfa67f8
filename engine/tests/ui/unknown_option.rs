use knotmeter::bench;

#[bench(foo = 1)]
fn f() {}

#[bench(args = [1], repeat)]
fn g(n: u64) -> u64 {
    n
}

fn main() {}
