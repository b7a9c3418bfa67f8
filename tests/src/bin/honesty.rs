//! Bodies that measure nothing, and real work from about 10 ns to about 10 µs: the validity
//! checks must flag the first kind and never the second (`tests/honesty.rs`).
#![cfg(not(test))] // Holds no test (see tests/Cargo.toml).
use knotmeter::bench;
use knotmeter_tests::chain;

mod nothing {
    use knotmeter::bench;

    /// Nothing at all.
    #[bench]
    fn empty() {}

    /// A loop whose result nobody reads: the compiler deletes it.
    #[bench]
    fn discarded_loop() {
        let mut acc = 0u64;
        for i in 0..1000u64 {
            acc = acc.wrapping_add(i.wrapping_mul(2_654_435_761));
        }
        let _ = acc;
    }

    /// A constant expression: evaluated at compile time, only its value is returned.
    #[bench]
    fn constant_folded() -> u64 {
        let x = 12_345u64;
        x.wrapping_pow(3) % 977 + x / 7
    }
}

/// A closed-form loop: LLVM turns the sum into n(n-1)/2, so the cost does not grow with n.
#[bench(args = [100, 1_000, 10_000, 100_000])]
fn closed_form(n: u64) -> u64 {
    (0..n).sum()
}

mod real {
    use super::chain;
    use knotmeter::{bench, black_box};

    #[bench]
    fn chain_8() -> u64 {
        chain(black_box(8))
    }

    #[bench]
    fn chain_70() -> u64 {
        chain(black_box(70))
    }

    #[bench]
    fn chain_700() -> u64 {
        chain(black_box(700))
    }

    #[bench]
    fn chain_7000() -> u64 {
        chain(black_box(7_000))
    }

    /// A hash over a small buffer, without a dependency chain between operations.
    #[bench]
    fn hash_64_bytes() -> u64 {
        black_box([7u8; 64])
            .iter()
            .fold(0xcbf2_9ce4_8422_2325, |h, &b| {
                (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
            })
    }
}

/// Work proportional to n: the complexity fit must say O(n).
#[bench(args = [100, 300, 1_000, 3_000, 10_000])]
fn chain_n(n: u64) -> u64 {
    chain(n)
}

knotmeter::main!();
