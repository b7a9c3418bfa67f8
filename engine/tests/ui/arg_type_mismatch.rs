use knotmeter::bench;

#[bench(args = [1, "two", 3])]
fn chain_n(n: u64) -> u64 {
    n
}

fn main() {}
