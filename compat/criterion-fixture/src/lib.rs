//! Workloads for the criterion-compatibility suite: small, deterministic, and of known shape
//! (linear in their size argument).

/// The `n`-th Fibonacci number, iteratively (wrapping).
pub fn fibonacci(n: u64) -> u64 {
    let (mut a, mut b) = (0u64, 1u64);
    for _ in 0..n {
        let next = a.wrapping_add(b);
        a = b;
        b = next;
    }
    a
}

/// A 64-bit FNV-1a checksum of `bytes`.
pub fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// `n` pseudo-random numbers from a fixed seed.
pub fn shuffled(n: usize) -> Vec<u64> {
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        })
        .collect()
}

/// The sum of the comma-separated integers in `text`.
pub fn parse_sum(text: &str) -> u64 {
    text.split(',').filter_map(|field| field.trim().parse::<u64>().ok()).sum()
}

/// `count` comma-separated integers.
pub fn csv_line(count: usize) -> String {
    (0..count).map(|i| (i * 7919 % 1000).to_string()).collect::<Vec<_>>().join(",")
}
