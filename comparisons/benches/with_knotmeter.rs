//! The comparison workloads under knotmeter. `single::` holds the cases measured one by one,
//! `pairs::` the comparison groups (paired and interleaved inside one run).

mod single {
    use knotmeter::{bench, Bencher};
    use knotmeter_comparisons::{chain, discarded_loop, random_vec};

    #[bench]
    fn empty() {}

    #[bench]
    fn discarded_loop_1000() {
        discarded_loop();
    }

    #[bench(args = [10, 100, 1000, 10000])]
    fn chain_n(n: u64) -> u64 {
        chain(n)
    }

    #[bench]
    fn sort_1000(b: &mut Bencher) {
        let data = random_vec(1000);
        b.with_inputs(|| data.clone()).run(|mut v| {
            v.sort();
            v
        });
    }
}

mod pairs {
    use knotmeter::{bench, black_box};
    use knotmeter_comparisons::{chain, PAIR_1PCT, PAIR_5PCT, PAIR_BASE};

    #[bench(group = "aa", baseline)]
    fn aa_base() -> u64 {
        chain(black_box(PAIR_BASE))
    }

    #[bench(group = "aa")]
    fn aa_same() -> u64 {
        chain(black_box(PAIR_BASE))
    }

    #[bench(group = "ab1", baseline)]
    fn ab1_base() -> u64 {
        chain(black_box(PAIR_BASE))
    }

    #[bench(group = "ab1")]
    fn ab1_plus_1pct() -> u64 {
        chain(black_box(PAIR_1PCT))
    }

    #[bench(group = "ab5", baseline)]
    fn ab5_base() -> u64 {
        chain(black_box(PAIR_BASE))
    }

    #[bench(group = "ab5")]
    fn ab5_plus_5pct() -> u64 {
        chain(black_box(PAIR_5PCT))
    }
}

knotmeter::main!();
