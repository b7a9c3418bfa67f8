//! Seed 001's dependency chain, shared by the engine's self-benchmark and its harness-free
//! reference so both time exactly the same code.

/// Each step needs the previous step's output, so no step can be dropped or reordered.
#[inline(never)]
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
