//! A merge killed at any moment leaves the history it merges into as it was or fully merged,
//! its runs and comparisons alike: never a part of either.
//!
//! The merge runs in a child (this test binary again, `merger_merges_when_told` with
//! `KNOTMETER_MERGE_CHILD` set), killed with SIGKILL after a pseudo-random delay.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::comparisons::report;
use common::{manifest, result, temp_history};
use knotmeter_history::History;
use rusqlite::Connection;

/// Set in a child: `DESTINATION|SOURCE|SOURCE...`.
const CHILD: &str = "KNOTMETER_MERGE_CHILD";

/// In a child, merges the sources it is given into the destination; in the test run, checks
/// that a merge in a child completes.
#[test]
fn merger_merges_when_told() {
    if let Ok(paths) = std::env::var(CHILD) {
        let paths: Vec<&str> = paths.split('|').collect();
        let sources: Vec<History> = paths[1..]
            .iter()
            .map(|p| History::open_read_only(Path::new(p)).unwrap())
            .collect();
        History::open(Path::new(paths[0]))
            .unwrap()
            .merge(&sources)
            .unwrap();
        return;
    }
    let (dir, into) = temp_history();
    let sources = sources(dir.path());
    let mut child = merger(&into, &sources);
    assert!(child.wait().unwrap().success());
    assert_eq!(counts(&into), merged_counts());
}

/// Two shards, each with 30 runs of 10 cases and 8 comparisons of 5 cases.
fn sources(dir: &Path) -> Vec<PathBuf> {
    (0..2)
        .map(|k| {
            let path = dir.join(format!("shard-{k}.db"));
            let mut history = History::open(&path).unwrap();
            for run in 0..30 {
                let mut m = manifest();
                m.timestamp += run + 1000 * k;
                let results: Vec<_> = (0..10)
                    .map(|c| result(&format!("q::s{k}_{c}"), 10.0 + run as f64))
                    .collect();
                history.record_run(&m, &results, None).unwrap();
            }
            for _ in 0..8 {
                history.record_comparison(&report()).unwrap();
            }
            path
        })
        .collect()
}

/// (runs, results, comparisons, compared cases) once both shards are merged into an empty
/// history.
fn merged_counts() -> [i64; 4] {
    [60, 600, 16, 16 * report().cases.len() as i64]
}

fn counts(path: &Path) -> [i64; 4] {
    let conn = Connection::open(path).unwrap();
    ["runs", "results", "comparisons", "compared_cases"].map(|table| {
        conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .unwrap()
    })
}

fn merger(into: &Path, sources: &[PathBuf]) -> std::process::Child {
    let mut paths = vec![into.display().to_string()];
    paths.extend(sources.iter().map(|p| p.display().to_string()));
    Command::new(std::env::current_exe().unwrap())
        .args(common::only_test(module_path!(), "merger_merges_when_told"))
        .env(CHILD, paths.join("|"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

#[test]
fn a_merge_killed_at_a_random_moment_leaves_all_or_nothing() {
    let (dir, empty) = temp_history();
    let sources = sources(dir.path());
    drop(History::open(&empty).unwrap());
    // How long a whole merge takes here (the child's start included): the kills fall within it.
    let timed = dir.path().join("timed.db");
    std::fs::copy(&empty, &timed).unwrap();
    let started = Instant::now();
    assert!(merger(&timed, &sources).wait().unwrap().success());
    let whole = started.elapsed().as_micros() as u64;
    assert_eq!(counts(&timed), merged_counts());

    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for i in 0..24 {
        let into = dir.path().join(format!("into-{i}.db"));
        std::fs::copy(&empty, &into).unwrap();
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let mut child = merger(&into, &sources);
        std::thread::sleep(Duration::from_micros(state % (whole + 1)));
        let _ = child.kill();
        child.wait().unwrap();
        // The next writer recovers whatever the kill left.
        drop(History::open(&into).unwrap());
        let kept = counts(&into);
        assert!(
            kept == [0; 4] || kept == merged_counts(),
            "kill {i}: a part of the merge was kept: {kept:?}"
        );
    }
}
