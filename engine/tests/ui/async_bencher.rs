use knotmeter::{bench, Bencher};

#[bench]
async fn lookup(_b: &mut Bencher) -> u64 {
    1
}

fn main() {}
