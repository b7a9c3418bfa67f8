use knotmeter::bench;

#[bench]
unsafe fn f() -> u64 {
    1
}

fn main() {}
