//! A bench binary for the history's end-to-end tests: three cases run in order, the third of
//! which can end the process the way a crash would, and a workload whose size the test sets.
//!
//! * `KNOTMETER_FIXTURE_THIRD`: `abort` (SIGABRT), `exit` (`process::exit(3)`) or unset (the
//!   third case measures like the others).
//! * `KNOTMETER_FIXTURE_WORK`: steps of the dependency chain each case runs (default 200), so
//!   a test can make a run slower than a saved baseline.
//! * `KNOTMETER_FIXTURE_SLOW_SECOND`: set, the second case sleeps 1 to 31 ms per call, so its
//!   median never gets precise enough to stop early: it is still sampling when a test cancels
//!   the run.
#![cfg(not(test))] // Holds no test (see tests/Cargo.toml).
use knotmeter::{bench, black_box};

fn work() -> u64 {
    static STEPS: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    let steps = *STEPS.get_or_init(|| {
        std::env::var("KNOTMETER_FIXTURE_WORK")
            .ok()
            .and_then(|w| w.parse().ok())
            .unwrap_or(200)
    });
    knotmeter_tests::chain(black_box(steps))
}

#[bench]
fn first() -> u64 {
    work()
}

#[bench]
fn second() -> u64 {
    static SLOW: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    if *SLOW.get_or_init(|| std::env::var_os("KNOTMETER_FIXTURE_SLOW_SECOND").is_some()) {
        let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        std::thread::sleep(std::time::Duration::from_millis(1 + n * 7 % 31));
    }
    work()
}

#[bench]
fn third() -> u64 {
    match std::env::var("KNOTMETER_FIXTURE_THIRD").as_deref() {
        Ok("abort") => std::process::abort(),
        Ok("exit") => std::process::exit(3),
        _ => work(),
    }
}

knotmeter::main!();
