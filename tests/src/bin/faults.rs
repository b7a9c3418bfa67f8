//! A bench binary of benchmarks that misbehave as processes: one that never returns, one
//! slower than any small budget, threads that panic (joined, or left running), and one that
//! aborts the process. The tests in `tests/process.rs` pick them with `--exact`.
#![cfg(not(test))] // Holds no test (see tests/Cargo.toml).
use std::time::Duration;

use knotmeter::{bench, black_box, Bencher};

fn work(n: u64) -> u64 {
    (0..black_box(n)).fold(0, |acc, x| acc ^ x.wrapping_mul(0x9E37_79B9))
}

#[bench]
fn quick() -> u64 {
    work(20)
}

/// Never returns, and never reaches a sample boundary.
#[bench]
fn stuck() -> u64 {
    eprintln!("stuck: entered");
    loop {
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Takes 300 ms per call and says so on standard error, so a test can count the calls.
#[bench]
fn slow() -> u64 {
    eprintln!("slow: call");
    std::thread::sleep(Duration::from_millis(300));
    work(10)
}

/// Spawns a thread that panics, and ignores how it ended.
#[bench]
fn thread_panics(b: &mut Bencher) {
    let _ = std::thread::Builder::new()
        .name("helper".into())
        .spawn(|| panic!("the helper thread gives up"))
        .expect("a thread")
        .join();
    b.iter(|| work(20));
}

/// Spawns a thread that panics while the case samples, and never joins it.
#[bench]
fn detached_thread_panics(b: &mut Bencher) {
    let (started, panicking) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("detached".into())
        .spawn(move || {
            let _ = started.send(());
            panic!("the detached thread gives up");
        })
        .expect("a thread");
    // The thread is about to panic: the case samples for far longer than that takes.
    let _ = panicking.recv();
    b.iter(|| work(20));
}

/// Spawns a thread that panics as soon as the benchmark's function returns, after its case,
/// and never joins it.
#[bench]
fn thread_panics_after_its_case(b: &mut Bencher) {
    let (returned, returns) = std::sync::mpsc::channel::<()>();
    std::thread::Builder::new()
        .name("left-running".into())
        .spawn(move || {
            // Ends when the function returns and drops `returned`.
            let _ = returns.recv();
            panic!("the thread left running gives up");
        })
        .expect("a thread");
    b.iter(|| work(20));
    drop(returned);
}

/// Ends the process in the middle of the run.
#[bench]
fn aborts() -> u64 {
    std::process::abort()
}

knotmeter::main!();
