use knotmeter::bench;

#[bench(baseline)]
fn f() {}

fn main() {}
