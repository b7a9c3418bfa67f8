use knotmeter::bench;

#[bench]
fn type_param<T: Default>() -> T {
    T::default()
}

#[bench]
fn const_param<const N: usize>() -> usize {
    N
}

#[bench(args = [1u8])]
fn impl_trait(n: impl Into<u64>) -> u64 {
    n.into()
}

fn main() {}
