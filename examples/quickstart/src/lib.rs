//! Workloads for the quickstart benchmarks: each is small, real, and hard for the optimiser
//! to delete when its result is returned.

/// Seed 001's dependency chain: each step needs the previous step's output, so no closed form
/// exists and no step can be dropped. The cost is the chain's latency, about one multiply, add,
/// shift and xor per step.
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

/// `len` pseudo-random `u64`s from a fixed seed (xorshift64*), for sorting benchmarks.
pub fn random_vec(len: usize) -> Vec<u64> {
    let mut x = 0x2545_F491_4F6C_DD1D_u64;
    (0..len)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            x.wrapping_mul(0x2545_F491_4F6C_DD1D)
        })
        .collect()
}

/// 64-bit FNV-1a over `bytes`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Parses one line of comma-separated unsigned integers, rejecting anything else.
pub fn parse_csv_line(line: &str) -> Result<Vec<u64>, std::num::ParseIntError> {
    line.split(',').map(|field| field.trim().parse()).collect()
}

/// A line of `fields` comma-separated numbers, for the parser benchmark.
pub fn csv_line(fields: usize) -> String {
    random_vec(fields)
        .iter()
        .map(|x| (x % 1_000_000).to_string())
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_depends_on_every_step() {
        assert_ne!(chain(1000), chain(999));
        assert_eq!(chain(0), 0x9E37_79B9_7F4A_7C15);
    }

    #[test]
    fn parser_round_trips() {
        let line = csv_line(8);
        let parsed = parse_csv_line(&line).unwrap();
        assert_eq!(parsed.len(), 8);
        assert!(parse_csv_line("1,x").is_err());
    }
}
