//! Workloads for the calibration benchmarks (`cargo xtask calibration`, docs/calibration.md):
//! small, real bodies of the kinds people measure, each returning its result so that the
//! optimiser cannot delete it.

use std::collections::{BTreeMap, HashMap};

/// The quickstart's workloads, measured here as they are there.
pub use quickstart::{csv_line, fnv1a, parse_csv_line, random_vec};

/// The environment variable that names the one case whose work is about 10% larger in this
/// process (`KNOTMETER_CALIBRATION_PLUS10=fnv1a_4k`): `cargo xtask calibration` measures a case,
/// then the same case with this set, against one history, to see whether the before/after
/// comparison calls the change `slower`.
pub const PLUS10_ENV: &str = "KNOTMETER_CALIBRATION_PLUS10";

/// The size of `case`'s work: `larger` when [`PLUS10_ENV`] names `case`, `usual` otherwise.
/// Each benchmark reads it once, outside its timed region, and chooses `larger` so that its
/// work grows by about 10% (docs/calibration.md lists each choice).
pub fn size(case: &str, usual: usize, larger: usize) -> usize {
    size_for(std::env::var_os(PLUS10_ENV).as_deref(), case, usual, larger)
}

/// [`size`] with the variable's value given.
fn size_for(named: Option<&std::ffi::OsStr>, case: &str, usual: usize, larger: usize) -> usize {
    if named.is_some_and(|n| n == case) {
        larger
    } else {
        usual
    }
}

/// Seed 001's dependency chain: each step needs the previous step's output, so no closed form
/// exists and no step can be dropped; about one multiply, add, shift and xor per step.
/// Inlined, so each benchmark that calls it has its loop at an address of its own.
#[inline]
pub fn chain(n: u64) -> u64 {
    chain_from(0x9E37_79B9_7F4A_7C15, n)
}

/// [`chain`] from another starting state: the same work whatever `state` is, so two callers
/// with different constants do identical work in code the compiler cannot merge into one.
#[inline]
pub fn chain_from(mut state: u64, n: u64) -> u64 {
    for _ in 0..n {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        state ^= state >> 33;
    }
    state
}

/// `len` pseudo-random bytes (the little-endian bytes of [`random_vec`]).
pub fn random_bytes(len: usize) -> Vec<u8> {
    random_vec(len.div_ceil(8))
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .take(len)
        .collect()
}

/// A `HashMap` (std's SipHash) of `keys`, each mapped to its index.
pub fn hash_map_of(keys: &[u64]) -> HashMap<u64, u64> {
    keys.iter().zip(0..).map(|(&k, i)| (k, i)).collect()
}

/// A `BTreeMap` of `keys`, each mapped to its index.
pub fn btree_map_of(keys: &[u64]) -> BTreeMap<u64, u64> {
    keys.iter().zip(0..).map(|(&k, i)| (k, i)).collect()
}

/// A `Vec` grown by `n` pushes from empty: its reallocations are the point.
pub fn push_loop(n: u64) -> Vec<u64> {
    let mut v = Vec::new();
    for i in 0..n {
        v.push(i.wrapping_mul(0x9E37_79B9));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_depends_on_every_step_and_its_start() {
        assert_ne!(chain(1000), chain(999));
        assert_eq!(chain(0), 0x9E37_79B9_7F4A_7C15);
        assert_ne!(chain_from(1, 10), chain_from(2, 10));
    }

    #[test]
    fn only_the_named_case_grows() {
        let named = Some(std::ffi::OsStr::new("fnv1a_4k"));
        assert_eq!(size_for(named, "fnv1a_4k", 4096, 4506), 4506);
        assert_eq!(size_for(named, "fnv1a", 4096, 4506), 4096);
        assert_eq!(size_for(None, "fnv1a_4k", 4096, 4506), 4096);
    }

    #[test]
    fn the_workloads_build_what_they_say() {
        let keys = random_vec(1000);
        assert_eq!(hash_map_of(&keys).len(), 1000);
        assert_eq!(btree_map_of(&keys[..500]).len(), 500);
        assert_eq!(push_loop(1000).len(), 1000);
        assert_eq!(random_bytes(4096).len(), 4096);
        let line = csv_line(64);
        assert_eq!(parse_csv_line(&line).unwrap().len(), 64);
        assert!(parse_csv_line("1,x").is_err());
    }
}
