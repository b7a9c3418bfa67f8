//! End-to-end tests of knotmeter. The fixture bench binary is `src/bin/fixture.rs`; the tests
//! in `tests/` run it as `cargo bench` or the daemon would, and read its output as a consumer.

/// Seed 001's dependency chain: each step needs the previous step's output, so the cost is
/// proportional to `n` and no step can be dropped (about 1.4 ns per step on a 3 GHz machine).
pub fn chain(n: u64) -> u64 {
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    for _ in 0..n {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        state ^= state >> 33;
    }
    state
}
