//! The engine and its history store, end to end: results are stored as they are measured and
//! survive a crash or a cancel; a file that is not a usable history is never written, moved or
//! given companion files, and the run still prints its results and says what was not done.

use crate::history_support;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use history_support::{files_with_hashes, TempHistory};
use knotmeter_history::RunStatus;

#[test]
fn every_run_is_recorded_and_the_next_one_compares_with_it() {
    let h = TempHistory::new();
    assert!(h.fixture(&["--exact", "plain"]).status.success());
    let report = h.json(&h.fixture(&["--exact", "plain"]));
    assert_eq!(report["results"][0]["comparison"]["against"], "run 1");
    let runs = h.reader().runs(10).unwrap();
    assert_eq!(runs.len(), 2);
    assert!(runs
        .iter()
        .all(|r| r.status == RunStatus::Complete && r.results == 1));
}

/// Issue 20: each run stores the machine's probe with it, and the next run's before/after
/// ratio is taken relative to it: its comparison carries the probe's ratio between the two
/// runs, which is what the stored probes say.
#[test]
fn each_run_stores_the_machines_probe_and_the_next_compares_relative_to_it() {
    let h = TempHistory::new();
    let first = h.json(&h.fixture(&["--exact", "plain"]));
    let second = h.json(&h.fixture(&["--exact", "plain"]));
    let per_step = |report: &serde_json::Value| report["probe"]["ns_per_step"].as_f64().unwrap();
    let conn = rusqlite::Connection::open(&h.path).unwrap();
    let stored: Vec<f64> = conn
        .prepare("SELECT json_extract(probe, '$.ns_per_step') FROM runs ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(stored, [per_step(&first), per_step(&second)]);
    let comparison = &second["results"][0]["comparison"];
    let machine = comparison["machine"].as_f64().unwrap_or(f64::NAN);
    let expected = per_step(&second) / per_step(&first);
    assert!(
        (machine / expected - 1.0).abs() < 1e-6,
        "{machine} vs {expected}: {comparison}"
    );
}

/// A stored probe compiled by another engine or compiler measured other code: a toolchain
/// upgrade's change to the chain would read as the machine's move and be taken out of every
/// case. The next run's comparison then goes without the probe, and the probe's build is
/// stored with it.
#[test]
fn a_probe_of_another_build_is_not_compared_against() {
    let h = TempHistory::new();
    let first = h.json(&h.fixture(&["--exact", "plain"]));
    let build = first["probe"]["build"].as_str().unwrap().to_owned();
    assert!(
        build.starts_with("knotmeter ") && build.contains("rustc") && build.contains("opt-level"),
        "{build}"
    );
    let conn = rusqlite::Connection::open(&h.path).unwrap();
    let stored: String = conn
        .query_row("SELECT json_extract(probe, '$.build') FROM runs", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(stored, build);
    conn.execute(
        "UPDATE runs SET probe = json_set(probe, '$.build', 'knotmeter 0.0.1, rustc 1.0.0')",
        [],
    )
    .unwrap();
    drop(conn);
    let second = h.json(&h.fixture(&["--exact", "plain"]));
    let comparison = &second["results"][0]["comparison"];
    assert_eq!(comparison["against"], "run 1", "{comparison}");
    assert!(comparison["machine"].is_null(), "{comparison}");
}

/// Issue 20: until five runs with a probe are stored, an interval assumes how far the
/// machine's speed moves between runs; from the sixth on, it holds what the stored probes
/// show (`rounds.machine_sd`), whatever case those runs measured.
#[test]
fn the_machines_move_is_learnt_from_the_probes_of_five_runs() {
    let h = TempHistory::new();
    for run in 1..=5 {
        let case = if run % 2 == 0 { "plain" } else { "explicit" };
        let report = h.json(&h.fixture(&["--exact", case]));
        let rounds = &report["results"][0]["rounds"];
        assert!(rounds["machine_sd"].is_null(), "run {run}: {rounds}");
    }
    let report = h.json(&h.fixture(&["--exact", "plain"]));
    let sd = report["results"][0]["rounds"]["machine_sd"].as_f64();
    assert!(sd.is_some_and(|sd| sd.is_finite() && sd >= 0.0), "{sd:?}");
}

/// Issue 20: a history that opens but cannot answer the lookup of a case's earlier medians
/// (here a run whose manifest is not JSON) read as a history without earlier runs, "0 of 5
/// runs", instead of saying that it could not be read.
#[test]
fn a_history_that_cannot_answer_for_the_spread_says_so_instead_of_reading_empty() {
    let h = TempHistory::new();
    assert!(h.fixture(&["--exact", "plain"]).status.success());
    let conn = rusqlite::Connection::open(&h.path).unwrap();
    conn.execute("UPDATE runs SET manifest = '{not json' WHERE id = 1", [])
        .unwrap();
    drop(conn);
    let out = h.fixture(&["--exact", "plain"]);
    let report = h.json(&out);
    let result = &report["results"][0];
    assert!(
        result["reproducibility"].is_null(),
        "an unreadable history is not an empty one: {}",
        result["reproducibility"]
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the history could not answer for fixture::plain"),
        "{stderr}"
    );
}

#[test]
fn no_history_writes_nothing() {
    let h = TempHistory::new();
    assert!(h
        .fixture(&["--exact", "plain", "--no-history"])
        .status
        .success());
    assert!(!h.path.exists());
}

#[test]
fn named_baseline_is_compared_against() {
    let h = TempHistory::new();
    assert!(h
        .fixture(&["--exact", "plain", "--save-baseline", "main"])
        .status
        .success());
    assert!(h.fixture(&["--exact", "plain"]).status.success());
    let report = h.json(&h.fixture(&["--exact", "plain", "--baseline", "main"]));
    assert_eq!(
        report["results"][0]["comparison"]["against"],
        "baseline main"
    );
}

/// Issue 10 §2: a process that exits or aborts in its third case lost the two before it. Each
/// round now runs in a worker process: the crash costs the third case alone, which fails
/// saying how its process ended, and the run completes with the other two stored.
#[test]
fn a_crash_in_the_third_case_keeps_the_first_two() {
    for (how, ended) in [
        ("abort", "was killed by signal SIGABRT"),
        ("exit", "exited with status 3"),
    ] {
        let h = TempHistory::new();
        let out = h.midway(&["--format", "json"], &[("KNOTMETER_FIXTURE_THIRD", how)]);
        assert_eq!(out.status.code(), Some(1), "{how}: a case failed");
        let report = h.json(&out);
        let failure = &report["failures"][0];
        assert_eq!(failure["id"], "midway::third", "{how}");
        assert_eq!(failure["kind"], "crashed", "{how}");
        assert!(
            failure["message"].as_str().unwrap().contains(ended),
            "{how}: {failure}"
        );
        let history = h.reader();
        let runs = history.runs(10).unwrap();
        assert_eq!(runs.len(), 1, "{how}");
        assert_eq!(runs[0].status, RunStatus::Complete, "{how}");
        assert_eq!(runs[0].results, 2, "{how}");
        for id in ["midway::first", "midway::second"] {
            let points = history.points(id, 10).unwrap();
            assert_eq!(points.len(), 1, "{how}: {id} was stored");
            assert_eq!(points[0].partial, Some(false));
        }
        assert!(history.points("midway::third", 10).unwrap().is_empty());

        // The next run compares with what the crashed one finished.
        let report = h.json(&h.midway(&["--format", "json", "--exact", "first"], &[]));
        assert_eq!(
            report["results"][0]["comparison"]["against"], "run 1",
            "{how}"
        );
    }
}

/// Issue 10 §2: a Ctrl-C'd run silently stored nothing. The cases are measured in rounds,
/// interleaved, so a cancel cuts short every case it finds measured but not finished: each is
/// stored, marked partial, and never used as a baseline.
#[test]
fn a_cancelled_run_keeps_what_it_measured_and_marks_it_partial() {
    let h = TempHistory::new();
    let mut child = h.spawn_midway_until_second_case_samples();
    signal(child.id(), "INT");
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));

    let history = h.reader();
    let runs = history.runs(10).unwrap();
    assert_eq!(runs[0].status, RunStatus::Cancelled);
    let second = history.points("midway::second", 10).unwrap();
    assert!(
        second.len() == 1 && second[0].partial == Some(true),
        "{second:?}"
    );
    for id in ["midway::first", "midway::third"] {
        let points = history.points(id, 10).unwrap();
        assert!(
            points.iter().all(|p| p.partial == Some(true)),
            "{id}: {points:?}"
        );
    }

    // A partial result is never a baseline.
    let report = h.json(&h.midway(
        &[
            "--format", "json", "--time", "2", "--exact", "first", "second",
        ],
        &[],
    ));
    let results = report["results"].as_array().unwrap();
    assert!(results[0]["comparison"].is_null(), "{:#}", results[0]);
    assert!(results[1]["comparison"].is_null(), "{:#}", results[1]);
}

/// Issue 10 §2: Ctrl-C with the history locked took 5.2 s (the daemon kills at 2 s).
#[test]
fn a_cancelled_run_does_not_wait_for_a_locked_history() {
    let h = TempHistory::new();
    assert!(h.fixture(&["--exact", "plain"]).status.success());
    let lock = h.hold_write_lock();
    let mut child = h.spawn_midway_until_second_case_samples();
    let asked = Instant::now();
    signal(child.id(), "INT");
    let out = wait_with_stderr(&mut child);
    let took = asked.elapsed();
    assert!(took < Duration::from_secs(2), "the cancel took {took:?}");
    assert!(
        out.contains("were not stored") && out.contains("locked"),
        "the user is told: {out}"
    );
    drop(lock);
    // Nothing half-written: the history holds the one earlier run.
    assert_eq!(h.reader().runs(10).unwrap().len(), 1);
}

#[test]
fn results_held_back_by_a_lock_are_stored_once_it_is_released() {
    let h = TempHistory::new();
    assert!(h.fixture(&["--exact", "plain"]).status.success());
    let lock = h.hold_write_lock();
    let child = h
        .midway_command(&[], &[])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Released while the run measures: the end of the run stores everything.
    std::thread::sleep(Duration::from_millis(300));
    drop(lock);
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let runs = h.reader().runs(10).unwrap();
    assert_eq!(runs[0].status, RunStatus::Complete);
    assert_eq!(runs[0].results, 3);
}

/// Issue 10 §3: another program's database was renamed away and replaced.
#[test]
fn another_programs_database_is_left_untouched_and_the_results_still_print() {
    let h = TempHistory::new();
    std::fs::create_dir_all(h.path.parent().unwrap()).unwrap();
    let other = rusqlite::Connection::open(&h.path).unwrap();
    other
        .execute_batch(
            "PRAGMA journal_mode = WAL; CREATE TABLE users (name TEXT); \
             INSERT INTO users VALUES ('ada');",
        )
        .unwrap();
    let before = files_with_hashes(h.path.parent().unwrap());

    let out = h.fixture(&["--exact", "plain"]);
    assert!(out.status.success());
    let report = h.json(&out);
    assert_eq!(report["results"].as_array().unwrap().len(), 1);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a knotmeter history"), "{err}");
    assert!(err.contains("left untouched"), "{err}");
    assert!(err.contains("users"), "{err}");
    assert_eq!(files_with_hashes(h.path.parent().unwrap()), before);
    // The other program still works.
    let users: i64 = other
        .query_row("SELECT count(*) FROM users", [], |r| r.get(0))
        .unwrap();
    assert_eq!(users, 1);
}

#[test]
fn a_file_that_is_not_a_database_is_left_untouched() {
    let h = TempHistory::new();
    std::fs::create_dir_all(h.path.parent().unwrap()).unwrap();
    let garbage = b"this is not a SQLite database, but someone's data all the same".repeat(100);
    std::fs::write(&h.path, &garbage).unwrap();
    let out = h.fixture(&["--exact", "plain"]);
    assert!(out.status.success());
    assert_eq!(std::fs::read(&h.path).unwrap(), garbage);
    assert_eq!(
        history_support::names(h.path.parent().unwrap()),
        ["history.db"]
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not an SQLite database") && err.contains("KNOTMETER_HISTORY"),
        "{err}"
    );
}

/// Issue 10 §3: a run was written into a file with damaged pages, and the message said "no
/// before/after comparison" while comparisons were made.
#[test]
fn a_damaged_history_is_read_not_written_and_the_message_says_so() {
    let h = TempHistory::new();
    for _ in 0..3 {
        assert!(h
            .fixture(&["--exact", "plain", "sized/10"])
            .status
            .success());
    }
    // Damage a page that holds no result: the free list's trunk would be too subtle, so
    // grow the file with results of a case we never compare, then damage the last page.
    for _ in 0..30 {
        assert!(h.fixture(&["--exact", "explicit"]).status.success());
    }
    let bytes = history_support::damage_last_page(&h.path);

    let out = h.fixture(&["--exact", "plain"]);
    assert!(out.status.success(), "the results are still printed");
    let report = h.json(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("damaged"), "{err}");
    assert!(err.contains("will not be stored"), "{err}");
    assert!(
        err.contains("none of this run's 1 results was stored"),
        "{err}"
    );
    assert!(!err.contains("no before/after"), "{err}");
    assert_eq!(
        report["results"][0]["comparison"]["against"], "run 3",
        "compared with what can still be read"
    );
    assert!(
        std::fs::read(&h.path).unwrap() == bytes,
        "not a byte written"
    );
}

#[test]
fn a_history_of_a_newer_knotmeter_is_left_untouched() {
    let h = TempHistory::new();
    assert!(h.fixture(&["--exact", "plain"]).status.success());
    rusqlite::Connection::open(&h.path)
        .unwrap()
        .execute_batch("PRAGMA user_version = 99")
        .unwrap();
    let before = files_with_hashes(h.path.parent().unwrap());
    let out = h.fixture(&["--exact", "plain"]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("upgrade knotmeter"), "{err}");
    assert_eq!(files_with_hashes(h.path.parent().unwrap()), before);
}

/// Issue 10 §3: in a read-only directory, still compare against the readable history.
#[test]
fn a_history_in_a_read_only_directory_is_still_compared_with() {
    let h = TempHistory::new();
    assert!(h.fixture(&["--exact", "plain"]).status.success());
    let dir = h.path.parent().unwrap().to_path_buf();
    let out = history_support::as_other_user_in_read_only(&dir, || {
        h.fixture_command(&["--exact", "plain"])
    });
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("cannot be written"), "{err}");
    assert!(
        err.contains(&dir.display().to_string()),
        "the directory is named: {err}"
    );
    let report = h.json(&out);
    assert_eq!(report["results"][0]["comparison"]["against"], "run 1");
    assert_eq!(h.reader().runs(10).unwrap().len(), 1, "nothing was stored");
}

/// Issue 10 §3: leftover read-only `-wal`/`-shm` files: name them in the message.
#[test]
fn leftover_read_only_companion_files_are_named() {
    let h = TempHistory::new();
    assert!(h.fixture(&["--exact", "plain"]).status.success());
    // Another user's reader left its shared-memory file behind.
    let shm = format!("{}-shm", h.path.display());
    let wal = format!("{}-wal", h.path.display());
    let holder = rusqlite::Connection::open(&h.path).unwrap();
    holder
        .query_row("SELECT count(*) FROM runs", [], |r| r.get::<_, i64>(0))
        .unwrap();
    assert!(Path::new(&shm).exists() && Path::new(&wal).exists());
    let out = history_support::as_other_user_with_own_files(&h.path, || {
        h.fixture_command(&["--exact", "plain"])
    });
    drop(holder);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains(&shm) || err.contains(&wal),
        "names the files: {err}"
    );
}

/// Sends `SIG<name>` to `pid`.
fn signal(pid: u32, name: &str) {
    let status = Command::new("kill")
        .args([format!("-{name}"), pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

fn wait_with_stderr(child: &mut std::process::Child) -> String {
    use std::io::Read;
    let mut err = String::new();
    if let Some(mut stderr) = child.stderr.take() {
        stderr.read_to_string(&mut err).unwrap();
    }
    child.wait().unwrap();
    err
}
