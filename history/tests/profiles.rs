//! Profiles kept beside the results: the newest five of each case and profiler, read back
//! newest first, the newest of each case for an editor's start, and a version-7 file brought up
//! to date with its runs kept.

use crate::common;

use common::comparisons::downgrade;
use common::{manifest, result, temp_history};
use knotmeter_history::{History, HistoryError, KEPT_PROFILES, SCHEMA_VERSION};
use knotmeter_protocol::{Profile, ProfileTool, ProfiledLine};

fn profile(id: &str, tool: ProfileTool, total_per_op: f64) -> Profile {
    Profile {
        id: id.to_owned(),
        tool,
        unit: "instructions".to_owned(),
        operations: 1000,
        total_per_op,
        samples: None,
        functions: Vec::new(),
        lines: vec![ProfiledLine {
            file: "/w/benches/b.rs".to_owned(),
            line: 12,
            own_per_op: total_per_op / 2.0,
            calls_per_op: total_per_op / 4.0,
            share: 0.75,
        }],
        tree: None,
    }
}

#[test]
fn the_newest_five_of_each_case_and_profiler_are_kept_newest_first() {
    let (_dir, path) = temp_history();
    let mut history = History::open(&path).unwrap();
    for n in 1..=7 {
        history
            .record_profile(&profile("q::a", ProfileTool::Callgrind, f64::from(n)))
            .unwrap();
    }
    history
        .record_profile(&profile("q::a", ProfileTool::Perf, 100.0))
        .unwrap();
    let recorded = history
        .record_profile(&profile("q::b", ProfileTool::Callgrind, 50.0))
        .unwrap();

    let a: Vec<(ProfileTool, f64)> = history
        .profiles("q::a", 10)
        .unwrap()
        .iter()
        .map(|s| (s.profile.tool, s.profile.total_per_op))
        .collect();
    let mut expected = vec![(ProfileTool::Perf, 100.0)];
    expected.extend(
        (3..=7)
            .rev()
            .map(|n| (ProfileTool::Callgrind, f64::from(n))),
    );
    assert_eq!(
        a, expected,
        "the perf profile and callgrind's newest {KEPT_PROFILES}"
    );
    assert_eq!(history.profiles("q::a", 2).unwrap().len(), 2);
    assert!(history.profiles("q::none", 5).unwrap().is_empty());

    let latest: Vec<(String, f64)> = history
        .latest_profiles()
        .unwrap()
        .into_iter()
        .map(|s| (s.profile.id, s.profile.total_per_op))
        .collect();
    assert_eq!(
        latest,
        vec![("q::a".to_owned(), 100.0), ("q::b".to_owned(), 50.0)]
    );
    // Read back whole.
    let back = &history.profiles("q::b", 1).unwrap()[0];
    assert_eq!(back.profile, profile("q::b", ProfileTool::Callgrind, 50.0));
    assert!(back.timestamp > 0);
    // What recording it returned is what reading it gives: the same id and time.
    assert_eq!(&recorded, back);
}

#[test]
fn a_profile_that_would_not_read_back_is_rejected_and_nothing_is_written() {
    let (_dir, path) = temp_history();
    let mut history = History::open(&path).unwrap();
    let bad = profile("q::a", ProfileTool::Callgrind, f64::NAN);
    match history.record_profile(&bad) {
        Err(HistoryError::Rejected { .. }) => {}
        other => panic!("expected Rejected, got {other:?}"),
    }
    assert!(history.profiles("q::a", 5).unwrap().is_empty());
}

#[test]
fn a_version_7_file_gains_profiles_and_keeps_its_runs() {
    let (_dir, path) = temp_history();
    {
        let mut history = History::open(&path).unwrap();
        history
            .record_run(&manifest(), &[result("q::a", 10.0)], None)
            .unwrap();
    }
    downgrade(&path, 7);
    match History::open_read_only(&path) {
        Err(HistoryError::NeedsUpgrade {
            found: 7,
            supported,
            ..
        }) if supported == SCHEMA_VERSION => {}
        other => panic!("expected NeedsUpgrade, got {other:?}"),
    }
    let mut history = History::open(&path).unwrap();
    history
        .record_profile(&profile("q::a", ProfileTool::Callgrind, 3.0))
        .unwrap();
    assert_eq!(history.latest_results().unwrap().len(), 1);
    assert_eq!(history.latest_profiles().unwrap().len(), 1);
}
