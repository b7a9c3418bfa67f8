use knotmeter::bench;

#[bench]
struct Config;

#[bench]
const N: u64 = 1;

fn main() {}
