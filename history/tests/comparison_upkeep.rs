//! Comparisons of two builds under `knotmeter history prune` (the newest of each pair of sides
//! kept) and `knotmeter history merge` (carried by uid: once, whole, transactionally).

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::comparisons::{downgrade, report};
use common::{manifest, result, temp_history};
use knotmeter_history::{History, HistoryError, Retention};
use knotmeter_protocol::CompareReport;
use rusqlite::Connection;

/// A comparison of `head` against `base` on the test machine (or on `cpu`).
fn comparison(base: &str, head: &str, cpu: Option<&str>) -> CompareReport {
    let mut report = report();
    report.base.label = base.to_owned();
    report.head.label = head.to_owned();
    if let Some(cpu) = cpu {
        report.head.manifest.as_mut().unwrap().cpu = cpu.to_owned();
    }
    report
}

/// Every comparison of a history keyed by uid: its columns, and each case's columns.
type Stored = BTreeMap<String, (Vec<String>, Vec<Vec<String>>)>;

fn comparisons(path: &Path) -> Stored {
    let conn = Connection::open(path).unwrap();
    let values = |row: &rusqlite::Row<'_>, columns: std::ops::Range<usize>| {
        columns
            .map(|i| {
                row.get::<_, rusqlite::types::Value>(i)
                    .map(|v| format!("{v:?}"))
            })
            .collect::<rusqlite::Result<Vec<String>>>()
    };
    let heads: Vec<(i64, String, Vec<String>)> = conn
        .prepare(
            "SELECT id, uid, timestamp, base_label, base_commit, head_label, head_commit, \
             head_dirty, machine_key, cancelled, report FROM comparisons",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, values(r, 2..11)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let mut all = BTreeMap::new();
    for (id, uid, columns) in heads {
        let cases: Vec<Vec<String>> = conn
            .prepare(
                "SELECT case_id, status, ratio, low, high, verdict, entry FROM compared_cases \
                 WHERE comparison_id = ?1 ORDER BY rowid",
            )
            .unwrap()
            .query_map([id], |r| values(r, 0..7))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(all.insert(uid, (columns, cases)).is_none(), "a uid twice");
    }
    all
}

/// The number of rows of `table`.
fn rows(path: &Path, table: &str) -> i64 {
    Connection::open(path)
        .unwrap()
        .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

fn readers(paths: &[&Path]) -> Vec<History> {
    paths
        .iter()
        .map(|p| History::open_read_only(p).unwrap())
        .collect()
}

/// A shard's history: one run and `n` comparisons of `base` against the working tree.
fn shard(dir: &Path, name: &str, base: &str, n: usize) -> PathBuf {
    let path = dir.join(format!("{name}.db"));
    let mut history = History::open(&path).unwrap();
    let mut m = manifest();
    m.timestamp += name.len() as u64;
    history
        .record_run(&m, &[result(&format!("{name}::a"), 10.0)], None)
        .unwrap();
    for _ in 0..n {
        history
            .record_comparison(&comparison(base, "working tree", None))
            .unwrap();
    }
    path
}

#[test]
fn prune_keeps_the_newest_comparisons_of_each_pair_of_sides_and_removes_older_ones_whole() {
    let (_dir, path) = temp_history();
    let mut history = History::open(&path).unwrap();
    let run = history
        .record_run(&manifest(), &[result("q::a", 90.0)], None)
        .unwrap();
    let main: Vec<i64> = (0..4)
        .map(|_| {
            history
                .record_comparison(&comparison("main", "working tree", None))
                .unwrap()
        })
        .collect();
    let tag: Vec<i64> = (0..2)
        .map(|_| {
            history
                .record_comparison(&comparison("v1.2", "working tree", None))
                .unwrap()
        })
        .collect();
    let elsewhere = history
        .record_comparison(&comparison("main", "working tree", Some("cpu B")))
        .unwrap();
    let cases = report().cases.len() as u64;

    let retention = Retention {
        keep_comparisons: 2,
        ..Retention::default()
    };
    let plan = history.prune_plan(retention).unwrap();
    assert_eq!(
        plan.comparisons,
        main[..2],
        "the two oldest main comparisons"
    );
    assert_eq!(plan.compared_cases, 2 * cases);
    assert_eq!(plan.comparisons_before, 7);
    assert!(!plan.is_empty());
    let done = history.prune(&plan).unwrap();
    assert_eq!(done.comparisons, 2);

    let kept: Vec<i64> = history
        .comparisons(100)
        .unwrap()
        .iter()
        .filter_map(|c| c.stored)
        .collect();
    assert_eq!(kept, [elsewhere, tag[1], tag[0], main[3], main[2]]);
    // Each kept comparison keeps every case; the removed ones leave none behind.
    assert_eq!(rows(&path, "compared_cases"), 5 * cases as i64);
    for kept in history.comparisons(100).unwrap() {
        assert_eq!(kept.cases.len() as u64, cases);
    }
    // Runs follow their own retention: untouched here.
    assert_eq!(history.runs(10).unwrap()[0].run, run);
    assert!(history.prune_plan(retention).unwrap().is_empty());
}

#[test]
fn comparisons_merge_once_whole_and_merging_twice_adds_nothing() {
    let (dir, into) = temp_history();
    let a = shard(dir.path(), "a", "main", 2);
    let b = shard(dir.path(), "bb", "origin/main", 1);
    let mut history = History::open(&into).unwrap();
    let own = history
        .record_comparison(&comparison("HEAD", "working tree", None))
        .unwrap();
    let mut expected = comparisons(&into);
    expected.extend(comparisons(&a));
    expected.extend(comparisons(&b));
    assert_eq!(expected.len(), 4);

    let merged = history.merge(&readers(&[&a, &b])).unwrap();
    let cases = report().cases.len() as u64;
    assert_eq!(
        (
            merged.comparisons_added,
            merged.compared_cases_added,
            merged.comparisons_present
        ),
        (3, 3 * cases, 0)
    );
    assert!(merged.comparison_conflicts.is_empty());
    assert_eq!(
        comparisons(&into),
        expected,
        "each copied whole, uid and all"
    );
    assert_eq!(history.comparisons(10).unwrap().len(), 4);
    assert!(history
        .comparisons(10)
        .unwrap()
        .iter()
        .any(|c| c.stored == Some(own)));

    let again = history.merge(&readers(&[&a, &b])).unwrap();
    assert_eq!((again.comparisons_added, again.comparisons_present), (0, 3));
    assert_eq!(comparisons(&into), expected, "merging twice adds nothing");
}

#[test]
fn a_source_with_an_unreadable_comparison_is_refused_and_nothing_is_written() {
    let (dir, into) = temp_history();
    let good = shard(dir.path(), "good", "main", 1);
    let bad = shard(dir.path(), "bad", "main", 1);
    Connection::open(&bad)
        .unwrap()
        .execute(
            "UPDATE compared_cases SET entry = '{\"id\": 3' WHERE case_id = 'q::b'",
            [],
        )
        .unwrap();
    let mut history = History::open(&into).unwrap();
    history
        .record_comparison(&comparison("HEAD", "working tree", None))
        .unwrap();
    let (before, runs_before) = (comparisons(&into), rows(&into, "runs"));
    match history.merge(&readers(&[&good, &bad])) {
        Err(HistoryError::Corrupt { path, detail }) => {
            assert_eq!(path, bad);
            assert!(detail.contains("`q::b`"), "{detail}");
        }
        other => panic!("expected Corrupt, got {other:?}"),
    }
    assert_eq!(comparisons(&into), before, "not even the good source's");
    assert_eq!(rows(&into, "runs"), runs_before, "nor its runs");
}

#[test]
fn a_comparison_that_shares_a_uid_but_is_another_is_reported_not_merged() {
    let (dir, into) = temp_history();
    let source = shard(dir.path(), "s", "main", 1);
    std::fs::create_dir_all(into.parent().unwrap()).unwrap();
    std::fs::copy(&source, &into).unwrap();
    Connection::open(&source)
        .unwrap()
        .execute("UPDATE comparisons SET timestamp = timestamp + 1", [])
        .unwrap();
    let before = comparisons(&into);
    let merged = History::open(&into)
        .unwrap()
        .merge(&readers(&[&source]))
        .unwrap();
    assert_eq!(merged.comparison_conflicts.len(), 1, "{merged:?}");
    let (path, id, why) = &merged.comparison_conflicts[0];
    assert_eq!((path, *id), (&source, 1));
    assert!(why.contains("was made at"), "{why}");
    assert_eq!(comparisons(&into), before);
}

#[test]
fn copies_of_one_version_5_history_migrated_apart_still_merge_as_one() {
    let (dir, old) = temp_history();
    shard(dir.path(), "x", "main", 0);
    {
        let mut history = History::open(&old).unwrap();
        history
            .record_comparison(&comparison("main", "working tree", None))
            .unwrap();
        history
            .record_comparison(&comparison("v1.2", "working tree", None))
            .unwrap();
    }
    downgrade(&old, 5);
    let copy = dir.path().join("copy.db");
    std::fs::copy(&old, &copy).unwrap();
    // Each copy is migrated on its own (a version-5 file gets legacy uids).
    let mut history = History::open(&old).unwrap();
    drop(History::open(&copy).unwrap());
    assert_eq!(comparisons(&old), comparisons(&copy));
    let merged = history.merge(&readers(&[&copy])).unwrap();
    assert_eq!(
        (merged.comparisons_added, merged.comparisons_present),
        (0, 2)
    );
    assert_eq!(rows(&old, "comparisons"), 2);
}
