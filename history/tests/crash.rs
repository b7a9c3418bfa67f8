//! A writer killed at any moment: the next process recovers the file, and every committed
//! result is still there.
//!
//! The writer is this test binary run again as a child (`writer_records_until_told_to_stop`
//! with `KNOTMETER_HISTORY_CHILD` set), killed with SIGKILL.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::{manifest, result, temp_history};
use knotmeter_history::{machine_key, History, HistoryError};
use rusqlite::Connection;

/// Set in a child: the history file the child writes.
const CHILD: &str = "KNOTMETER_HISTORY_CHILD";

/// Records runs of one case, `limit` of them, or until killed when `limit` is `None`.
fn write_runs(path: &Path, limit: Option<usize>) -> usize {
    let mut history = History::open(path).expect("the writer opens the history");
    let mut written = 0;
    while limit.is_none_or(|l| written < l) {
        history
            .record_run(&manifest(), &[result("q::x", 1.0 + written as f64)], None)
            .unwrap();
        written += 1;
    }
    written
}

/// In a child, writes until killed; in the test run, checks that the writer's runs read back.
#[test]
fn writer_records_until_told_to_stop() {
    if let Some(path) = std::env::var_os(CHILD) {
        write_runs(Path::new(&path), None);
        return;
    }
    let (_dir, path) = temp_history();
    assert_eq!(write_runs(&path, Some(3)), 3);
    let history = History::open_read_only(&path).unwrap();
    assert_eq!(history.points("q::x", 10).unwrap().len(), 3);
}

fn spawn_writer(path: &Path) -> Child {
    child("writer_records_until_told_to_stop", path)
        .spawn()
        .unwrap()
}

/// This binary again, running only its test `name` as the child that writes to the history at
/// `path` (`KNOTMETER_HISTORY_CHILD`), its output discarded.
fn child(name: &str, path: &Path) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args(common::only_test(module_path!(), name))
        .env(CHILD, path)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    command
}

/// The children of this file are this binary run again for one test (`common::only_test`). A
/// name that matches no test runs nothing and exits 0, and the kill loop below would then pass
/// having killed nothing: the names must be tests of this binary, whatever it is (its files
/// became modules of one binary, which renamed every test).
#[test]
fn a_child_run_names_a_test_of_this_binary() {
    for name in [
        "writer_records_until_told_to_stop",
        "a_hot_journal_left_while_creating_the_history_is_rolled_back_by_the_next_run",
        "a_history_whose_schema_is_only_in_its_wal_is_recognised",
    ] {
        let out = Command::new(std::env::current_exe().unwrap())
            .args(common::only_test(module_path!(), name))
            .arg("--list")
            .output()
            .unwrap();
        let listed = String::from_utf8_lossy(&out.stdout);
        let tests: Vec<&str> = listed.lines().filter(|l| l.ends_with(": test")).collect();
        assert_eq!(
            tests.len(),
            1,
            "{name} is not one test of this binary:\n{listed}"
        );
    }
}

/// Deterministic pseudo-random delays (xorshift).
fn delays(n: usize) -> Vec<Duration> {
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            Duration::from_micros(state % 40_000)
        })
        .collect()
}

/// Issue 10 §3: a kill while the history was being created left a hot journal, and every
/// later run failed with "attempt to write a readonly database". The fault-injection pass hit
/// it once in 40 kills at random moments; this loop kills 40 writers, half of them while they
/// create the file.
#[test]
fn a_writer_killed_at_random_moments_never_wedges_the_history() {
    let (_dir, path) = temp_history();
    let key = machine_key(&manifest());
    let mut committed = 0;
    for (i, delay) in delays(40).into_iter().enumerate() {
        // Half the kills land while the file is created: within the child's first
        // milliseconds (its start takes a few).
        let delay = if i % 2 == 0 { delay / 4 } else { delay };
        if i % 2 == 0 {
            // Start from nothing: the kill may land while the file is created.
            for suffix in ["", "-wal", "-shm", "-journal"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
            }
            committed = 0;
        }
        let mut child = spawn_writer(&path);
        std::thread::sleep(delay);
        child.kill().unwrap();
        child.wait().unwrap();

        // A reader copes (or says there is nothing yet), before any writer recovers the file.
        match History::open_read_only(&path) {
            Ok(reader) => {
                let seen = reader.points("q::x", 100_000).unwrap().len();
                assert!(seen >= committed, "iteration {i}: {seen} < {committed}");
            }
            Err(HistoryError::Missing { .. }) => assert_eq!(committed, 0, "iteration {i}"),
            Err(e) => panic!("iteration {i}: a reader failed after a kill: {e}"),
        }
        // The next writer recovers the file and writes.
        let mut history = History::open(&path)
            .unwrap_or_else(|e| panic!("iteration {i}: the next writer failed: {e}"));
        let stored = history.points("q::x", 100_000).unwrap();
        assert!(
            stored.len() >= committed,
            "iteration {i}: results were lost"
        );
        history
            .record_run(&manifest(), &[result("q::x", 0.5)], None)
            .unwrap();
        committed = stored.len() + 1;
        assert!(history.previous("q::x", &key, None).unwrap().is_some());
    }
}

/// The same fault, made certain: a writer dies while it creates the file, after SQLite has
/// written pages into it, leaving a hot journal.
#[test]
fn a_hot_journal_left_while_creating_the_history_is_rolled_back_by_the_next_run() {
    if let Some(path) = std::env::var_os(CHILD) {
        let conn = Connection::open(PathBuf::from(path)).unwrap();
        conn.execute_batch(
            "PRAGMA cache_size = 1; BEGIN IMMEDIATE;
             CREATE TABLE runs (x); CREATE TABLE results (y);
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
             INSERT INTO results SELECT randomblob(200) FROM n;",
        )
        .unwrap();
        // Die inside the transaction, as a kill would.
        std::process::abort();
    }
    let (_dir, path) = temp_history();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let status = child(
        "a_hot_journal_left_while_creating_the_history_is_rolled_back_by_the_next_run",
        &path,
    )
    .status()
    .unwrap();
    assert!(!status.success(), "the child died");
    let journal = PathBuf::from(format!("{}-journal", path.display()));
    assert!(journal.exists(), "a hot journal is left");
    assert!(
        std::fs::metadata(&path).unwrap().len() > 0,
        "pages were spilled"
    );

    // A reader sees no history yet; a writer rolls the journal back and creates one.
    match History::open_read_only(&path) {
        Err(HistoryError::Missing { .. }) => {}
        other => panic!("expected Missing, got {other:?}"),
    }
    let mut history = History::open(&path).expect("the next run recovers the file");
    history
        .record_run(&manifest(), &[result("q::x", 1.0)], None)
        .unwrap();
    assert!(!journal.exists(), "the journal was rolled back");
    drop(history);
    assert_eq!(
        History::open_read_only(&path)
            .unwrap()
            .points("q::x", 10)
            .unwrap()
            .len(),
        1
    );
}

/// A history created by knotmeter 0.1.0 (WAL mode first, then the schema) whose writer was
/// killed before any checkpoint: the file's header has no application id yet, the WAL has it.
/// It is recognised from its WAL, opened, and keeps its run.
#[test]
fn a_history_whose_schema_is_only_in_its_wal_is_recognised() {
    if let Some(path) = std::env::var_os(CHILD) {
        let conn = Connection::open(PathBuf::from(path)).unwrap();
        conn.execute_batch(
            "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;
             BEGIN IMMEDIATE;
             CREATE TABLE runs (id INTEGER PRIMARY KEY, timestamp INTEGER NOT NULL,
                 git_commit TEXT, machine_key TEXT NOT NULL, manifest TEXT NOT NULL);
             CREATE TABLE results (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
                 case_id TEXT NOT NULL, median_ns REAL NOT NULL, low_ns REAL NOT NULL,
                 high_ns REAL NOT NULL, verdict TEXT, result TEXT NOT NULL,
                 PRIMARY KEY (run_id, case_id));
             CREATE INDEX results_by_case ON results(case_id);
             PRAGMA application_id = 1263423316; PRAGMA user_version = 1;
             COMMIT;",
        )
        .unwrap();
        // Die before the checkpoint that closing would make.
        std::process::abort();
    }
    let (_dir, path) = temp_history();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let status = child(
        "a_history_whose_schema_is_only_in_its_wal_is_recognised",
        &path,
    )
    .status()
    .unwrap();
    assert!(!status.success(), "the child died");
    let header = std::fs::read(&path).unwrap();
    assert_eq!(
        &header[68..72],
        &[0, 0, 0, 0],
        "no application id in the file yet"
    );
    assert!(PathBuf::from(format!("{}-wal", path.display())).exists());

    let mut history = History::open(&path).expect("recognised from its WAL and migrated");
    history
        .record_run(&manifest(), &[result("q::x", 1.0)], None)
        .unwrap();
    assert_eq!(history.points("q::x", 10).unwrap().len(), 1);
}
