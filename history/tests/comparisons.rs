//! Comparisons of two builds (`knotmeter compare`) in the history: schema version 5, stored
//! whole and read back, kept apart from runs.

use crate::common;

use common::comparisons::{case, downgrade, report};
use common::{manifest, result, temp_history};
use knotmeter_history::{machine_key, History, HistoryError, SCHEMA_VERSION};
use knotmeter_protocol::CompareStatus;
use rusqlite::Connection;

#[test]
fn a_comparison_is_stored_whole_with_both_commits_and_read_back_newest_first() {
    let (_dir, path) = temp_history();
    let mut history = History::open(&path).unwrap();
    let first = history.record_comparison(&report()).unwrap();
    let mut second_report = report();
    second_report.base.label = "v1.2".to_owned();
    second_report.cancelled = true;
    let second = history.record_comparison(&second_report).unwrap();
    assert!(second > first);

    let reader = History::open_read_only(&path).unwrap();
    let stored = reader.comparisons(10).unwrap();
    assert_eq!(
        stored.iter().map(|c| c.stored).collect::<Vec<_>>(),
        [Some(second), Some(first)]
    );
    let newest = &stored[0];
    assert_eq!(newest.base.label, "v1.2");
    assert!(newest.cancelled);
    let oldest = &stored[1];
    assert_eq!(
        (
            oldest.base.commit.as_deref(),
            oldest.head.commit.as_deref(),
            oldest.head.dirty
        ),
        (Some("0123abcd"), Some("feedface"), true)
    );
    let original = report();
    assert_eq!(oldest.cases.len(), original.cases.len());
    for (got, want) in oldest.cases.iter().zip(&original.cases) {
        assert_eq!(
            (&got.id, got.status, &got.comparison, &got.note),
            (&want.id, want.status, &want.comparison, &want.note)
        );
        for (got, want) in [(&got.base, &want.base), (&got.head, &want.head)] {
            assert_eq!(got.is_some(), want.is_some(), "{}", want.is_some());
            if let (Some(got), Some(want)) = (got, want) {
                // Estimates as measured; raw samples in the compact form of runs.
                assert_eq!(got.estimate, want.estimate);
                assert_eq!(got.samples, want.samples);
                assert_eq!(got.raw.workload_ns.len(), 101);
                assert_eq!(got.raw.baseline_ns.len(), 21);
            }
        }
    }
    assert_eq!(reader.comparisons(1).unwrap().len(), 1);
}

#[test]
fn comparisons_are_not_runs_so_before_after_never_pairs_the_other_build() {
    let (_dir, path) = temp_history();
    let mut history = History::open(&path).unwrap();
    let key = machine_key(&manifest());
    let run = history
        .record_run(&manifest(), &[result("q::a", 90.0)], None)
        .unwrap();
    history.record_comparison(&report()).unwrap();
    let previous = history.previous("q::a", &key, None).unwrap().unwrap();
    assert_eq!(
        (previous.run, previous.result.estimate.median_ns),
        (run, 90.0)
    );
    assert_eq!(history.runs(10).unwrap().len(), 1);
}

#[test]
fn a_comparison_with_a_case_twice_or_without_a_manifest_is_rejected_and_nothing_is_written() {
    let (_dir, path) = temp_history();
    let mut history = History::open(&path).unwrap();
    let mut twice = report();
    twice.cases.push(case("q::a", CompareStatus::Added));
    let mut bare = report();
    bare.base.manifest = None;
    bare.head.manifest = None;
    for bad in [twice, bare] {
        match history.record_comparison(&bad) {
            Err(HistoryError::Rejected { .. }) => {}
            other => panic!("expected Rejected, got {other:?}"),
        }
    }
    assert!(history.comparisons(10).unwrap().is_empty());
    // The head's manifest is optional when the base has one (the head failed to start).
    let mut base_only = report();
    base_only.head.manifest = None;
    history.record_comparison(&base_only).unwrap();
}

#[test]
fn version_3_to_6_files_are_brought_up_to_date_and_keep_their_runs() {
    for version in [3, 4, 5, 6] {
        let (_dir, path) = temp_history();
        let (run, old_comparison) = {
            let mut history = History::open(&path).unwrap();
            let run = history
                .record_run(&manifest(), &[result("q::a", 90.0)], None)
                .unwrap();
            (run, history.record_comparison(&report()).unwrap())
        };
        downgrade(&path, version);
        match History::open_read_only(&path) {
            Err(HistoryError::NeedsUpgrade {
                found, supported, ..
            }) if found == version && supported == SCHEMA_VERSION => {}
            other => panic!("version {version}: expected NeedsUpgrade, got {other:?}"),
        }
        let mut history =
            History::open(&path).unwrap_or_else(|e| panic!("open migrates version {version}: {e}"));
        let id = history.record_comparison(&report()).unwrap();
        let stored: Vec<Option<i64>> = history
            .comparisons(5)
            .unwrap()
            .iter()
            .map(|c| c.stored)
            .collect();
        // A version-5 or -6 file keeps its comparison; older ones never had any.
        if version >= 5 {
            assert_eq!(stored, [Some(id), Some(old_comparison)]);
        } else {
            assert_eq!(stored, [Some(id)], "version {version}");
        }
        let runs = history.runs(5).unwrap();
        assert_eq!(runs.len(), 1, "version {version}");
        assert_eq!(runs[0].run, run, "version {version}");
        let conn = Connection::open(&path).unwrap();
        let stored: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(stored, SCHEMA_VERSION, "version {version}");
        // A version-3 run gets its uid on the way, as with no comparison tables at all.
        let uid: Option<String> = conn
            .query_row("SELECT uid FROM runs", [], |r| r.get(0))
            .unwrap();
        assert!(uid.is_some(), "version {version}: the run has no uid");
        // Its runs have no probe (version 7): their comparisons go without one.
        let probe: Option<String> = conn
            .query_row("SELECT probe FROM runs", [], |r| r.get(0))
            .unwrap();
        assert_eq!(probe, None, "version {version}");
        // Every comparison has one: new ones random, a version-5 one derived from it.
        let uids: Vec<Option<String>> = conn
            .prepare("SELECT uid FROM comparisons ORDER BY id")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(
            uids.iter().all(Option::is_some),
            "version {version}: {uids:?}"
        );
        if version == 5 {
            assert!(
                uids[0].as_deref().unwrap().starts_with("legacy-"),
                "{uids:?}"
            );
            assert_eq!(uids[1].as_deref().unwrap().len(), 32, "{uids:?}");
        }
    }
}
