
/// End-to-end fixture (appended to a copy of the quickstart benches by scripts/e2e.sh): the
/// compiler turns the loop into n(n-1)/2, so the cost does not grow with n (`flat_scaling`).
#[bench(args = [100, 1000, 10000, 100000])]
fn closed_form(n: u64) -> u64 {
    (0..n).sum()
}

/// End-to-end fixture: about 50 µs or about 150 µs at random, so sampling never reaches its
/// precision target and each case runs to the end of its budget (1 s; 0.1 s with `--quick`).
/// A run of these lasts long enough to be cancelled midway, even on a loaded machine.
#[bench(args = [1, 2, 3, 4, 5, 6])]
fn two_speeds(n: u64) -> u64 {
    two_speeds_once() + n
}

fn two_speeds_once() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::{Duration, Instant};
    static STATE: AtomicU64 = AtomicU64::new(0x9E37_79B9_7F4A_7C15);
    let mut x = STATE.load(Ordering::Relaxed);
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    STATE.store(x, Ordering::Relaxed);
    let spin = Duration::from_micros(if x & 1 == 0 { 50 } else { 150 });
    let start = Instant::now();
    let mut spins = 0u64;
    while start.elapsed() < spin {
        spins += 1;
    }
    black_box(spins)
}
