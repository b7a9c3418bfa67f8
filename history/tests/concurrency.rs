//! Writers and readers in parallel: WAL mode and the busy timeout keep SQLITE_BUSY away.

use crate::common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use common::{manifest, result_with_samples, temp_history};
use knotmeter_history::History;
use knotmeter_protocol::BenchResult;

/// 20 cases with 2,000 samples each: enough that writes take a while.
fn run_results(median_ns: f64) -> Vec<BenchResult> {
    (0..20)
        .map(|case| result_with_samples(&format!("q::case{case}"), median_ns + case as f64, 2_000))
        .collect()
}

/// Reads `q::case0` until `expected` points are visible, checking every read.
fn read_until(path: &std::path::Path, expected: usize, done: &AtomicBool) -> usize {
    let reader = History::open_read_only(path).expect("open read-only");
    let deadline = Instant::now() + Duration::from_secs(120);
    let (mut reads, mut seen) = (0, 0);
    loop {
        let finished = done.load(Ordering::SeqCst);
        let points = reader
            .points("q::case0", 1_000)
            .expect("no SQLITE_BUSY surfaces");
        reads += 1;
        assert!(points.len() >= seen, "points never disappear");
        seen = points.len();
        for pair in points.windows(2) {
            assert!(pair[0].run > pair[1].run, "newest first");
        }
        for point in &points {
            // Writer w stores median = 1000 * w + i + 1 for its run i.
            assert_eq!(point.median_ns.fract(), 0.0);
            assert!(point.low_ns < point.median_ns && point.median_ns < point.high_ns);
        }
        if finished {
            assert_eq!(seen, expected);
            return reads;
        }
        assert!(Instant::now() < deadline, "the writers took too long");
    }
}

fn run_writers(writers: usize, runs_each: usize) {
    let (_dir, path) = temp_history();
    History::open(&path).expect("create the history");
    let done = Arc::new(AtomicBool::new(false));

    let reader = {
        let (path, done) = (path.clone(), Arc::clone(&done));
        thread::spawn(move || read_until(&path, writers * runs_each, &done))
    };
    let handles: Vec<_> = (0..writers)
        .map(|w| {
            let path = path.clone();
            thread::spawn(move || {
                let mut history = History::open(&path).expect("open for writing");
                let manifest = manifest();
                for i in 0..runs_each {
                    let median = (1000 * w + i + 1) as f64;
                    history
                        .record_run(&manifest, &run_results(median), None)
                        .expect("no SQLITE_BUSY surfaces");
                }
            })
        })
        .collect();
    for handle in handles {
        handle.join().expect("a writer panicked");
    }
    done.store(true, Ordering::SeqCst);
    let reads = reader.join().expect("the reader panicked");
    assert!(reads > 1, "the reader ran while the writers wrote");

    let history = History::open_read_only(&path).unwrap();
    let points = history.points("q::case7", 1_000).unwrap();
    assert_eq!(points.len(), writers * runs_each);
    let mut medians: Vec<f64> = points.iter().map(|p| p.median_ns - 7.0).collect();
    medians.sort_by(f64::total_cmp);
    let mut expected: Vec<f64> = (0..writers)
        .flat_map(|w| (0..runs_each).map(move |i| (1000 * w + i + 1) as f64))
        .collect();
    expected.sort_by(f64::total_cmp);
    assert_eq!(medians, expected);
}

#[test]
fn one_writer_and_a_reader() {
    run_writers(1, 50);
}

#[test]
fn two_writers_and_a_reader() {
    run_writers(2, 25);
}
