//! The comparison workloads under knotmeter. `single::` holds the cases measured one by one,
//! `pairs::` the comparison groups (paired and interleaved inside one run), `rerun::` the
//! realistic bodies of the rerun-coverage measurement (`cargo xtask compare rerun`).

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

mod rerun {
    use knotmeter::{bench, black_box, Bencher};
    use knotmeter_comparisons::{chain, csv_line, hash_map_of, parse_csv_line, random_vec};

    #[bench(args = [100, 10000])]
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

    #[bench]
    fn parse_csv(b: &mut Bencher) {
        let line = csv_line(64);
        b.iter(|| parse_csv_line(black_box(&line)));
    }

    #[bench]
    fn hash_map(b: &mut Bencher) {
        let keys = random_vec(1000);
        b.iter(|| hash_map_of(black_box(&keys)));
    }
}

knotmeter::main!();
