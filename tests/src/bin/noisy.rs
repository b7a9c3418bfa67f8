//! A bench binary whose benchmarks write to standard output every way they can: `print!`
//! without a newline, a line that looks like an event, a thread printing throughout the run,
//! a child process writing to its own standard output, and a raw write to descriptor 1.
//! `tests/stream.rs` checks that none of it reaches the report.
#![cfg(not(test))] // Holds no test (see tests/Cargo.toml).
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;

use knotmeter::{bench, black_box, Bencher};

fn work(n: u64) -> u64 {
    (0..black_box(n)).fold(0, |acc, x| acc ^ x.wrapping_mul(0x9E37_79B9))
}

/// Glues `x` to whatever comes next on standard output, once.
#[bench]
fn no_newline() -> u64 {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        print!("x");
        let _ = std::io::stdout().flush();
    });
    work(30)
}

/// Prints a line that is a valid event for another case, once.
#[bench]
fn forged_event() -> u64 {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        println!(
            r#"{{"event":"case_failed","id":"noisy::no_newline","kind":"panic","message":"forged","location":null}}"#
        );
    });
    work(30)
}

/// A thread prints lines in a loop for as long as the benchmark is measured.
#[bench]
fn thread_printer(b: &mut Bencher) {
    static STOP: AtomicBool = AtomicBool::new(false);
    STOP.store(false, Ordering::SeqCst);
    let printer = std::thread::spawn(|| {
        let mut line = 0u64;
        while !STOP.load(Ordering::SeqCst) {
            line += 1;
            println!("tick {line} from a thread of the benchmark");
            std::thread::sleep(std::time::Duration::from_micros(50));
        }
    });
    b.iter(|| work(30));
    STOP.store(true, Ordering::SeqCst);
    printer.join().expect("the printing thread ends");
}

/// A child process writes to its standard output, which it inherits, once.
#[bench]
fn child_process(b: &mut Bencher) {
    let status = std::process::Command::new("sh")
        .args([
            "-c",
            "echo from a child process; printf '{\"event\":\"run_finished\"}\\n'",
        ])
        .status()
        .expect("sh runs");
    assert!(status.success());
    b.iter(|| work(30));
}

/// Writes to descriptor 1 itself, below Rust's standard output, once.
#[bench]
fn raw_descriptor(b: &mut Bencher) {
    #[cfg(unix)]
    {
        use std::os::fd::FromRawFd;
        // SAFETY: descriptor 1 stays open for the life of the process; `ManuallyDrop` keeps
        // this `File` from closing it.
        let mut one = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(1) });
        one.write_all(b"written to descriptor 1\n")
            .expect("descriptor 1 is open");
    }
    b.iter(|| work(30));
}

knotmeter::main!();
