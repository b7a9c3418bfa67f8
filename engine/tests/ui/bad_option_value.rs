use knotmeter::bench;

#[bench(args = [])]
fn empty(n: u64) -> u64 {
    n
}

#[bench(args = 5)]
fn not_an_array(n: u64) -> u64 {
    n
}

#[bench(args)]
fn no_value(n: u64) -> u64 {
    n
}

#[bench(group = sort)]
fn group_not_a_string() {}

#[bench(group = "g", baseline = "yes")]
fn baseline_not_a_bool() {}

fn main() {}
