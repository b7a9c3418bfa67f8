//! Runs recorded as they go: begun, one case at a time, closed — and what a run that never
//! closed, or a case cut short, means for later lookups.

use crate::common;

use std::process::Command;

use common::{manifest, result, temp_history, without_stored_at};
use knotmeter_history::{machine_key, History, HistoryError, RunId, RunStatus};
use knotmeter_protocol::{Comparison, Verdict};

#[test]
fn cases_are_stored_one_by_one_and_the_run_is_closed() {
    let (_dir, path) = temp_history();
    let mut history = History::open(&path).unwrap();
    let key = machine_key(&manifest());
    let run = history.begin_run(&manifest(), Some("main")).unwrap();

    let listed = history.runs(10).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(
        listed[0].status,
        RunStatus::Running,
        "this process is alive"
    );
    assert_eq!(listed[0].results, 0);
    assert_eq!(listed[0].ended_at, None);

    history.record_result(run, &result("q::a", 10.0)).unwrap();
    // Another process sees the case at once.
    let reader = History::open_read_only(&path).unwrap();
    assert_eq!(reader.points("q::a", 10).unwrap().len(), 1);

    history.record_result(run, &result("q::b", 20.0)).unwrap();
    match history.record_result(run, &result("q::b", 21.0)) {
        Err(HistoryError::Rejected { detail, .. }) => {
            assert!(detail.contains("already"), "{detail}")
        }
        other => panic!("expected Rejected, got {other:?}"),
    }
    match history.record_result(RunId(run.0 + 7), &result("q::c", 1.0)) {
        Err(HistoryError::Rejected { detail, .. }) => {
            assert!(detail.contains("not in"), "{detail}")
        }
        other => panic!("expected Rejected, got {other:?}"),
    }

    // The comparison is decided at the end and added to the stored result.
    let mut compared = result("q::a", 10.0);
    compared.comparison = Some(Comparison {
        machine: None,
        against: "run 0".into(),
        ratio: 1.2,
        low: 1.1,
        high: 1.3,
        p_value: 0.001,
        verdict: Verdict::Slower,
        kind: None,
    });
    let never_stored = result("q::z", 1.0);
    assert_eq!(
        history
            .record_verdicts(run, &[compared.clone(), never_stored])
            .unwrap(),
        1
    );
    history.end_run(run, RunStatus::Complete, None).unwrap();

    let listed = history.runs(10).unwrap();
    assert_eq!(listed[0].status, RunStatus::Complete);
    assert_eq!(listed[0].results, 2);
    assert_eq!(listed[0].baseline.as_deref(), Some("main"));
    assert!(listed[0].ended_at.is_some());
    let stored = history.previous("q::a", &key, None).unwrap().unwrap();
    let mut got = without_stored_at(stored.result);
    assert_eq!(got.raw.baseline_ns.len(), 21, "stored in the compact form");
    got.raw = compared.raw.clone();
    assert_eq!(got, compared);
    let point = &history.points("q::a", 1).unwrap()[0];
    assert_eq!(point.verdict, Some(Verdict::Slower));
    // With what it was against, so `knotmeter history` can say "slower than run 0".
    assert_eq!(point.comparison, compared.comparison);
    assert_eq!(history.points("q::b", 1).unwrap()[0].comparison, None);
}

/// Issue 10 §2: a partial result is never a baseline.
#[test]
fn a_result_cut_short_is_kept_but_never_compared_against() {
    let (_dir, path) = temp_history();
    let mut history = History::open(&path).unwrap();
    let key = machine_key(&manifest());
    let first = history
        .record_run(&manifest(), &[result("q::a", 10.0)], Some("main"))
        .unwrap();
    let cancelled = history.begin_run(&manifest(), Some("main")).unwrap();
    let mut cut = result("q::a", 99.0);
    cut.partial = true;
    history.record_result(cancelled, &cut).unwrap();
    history
        .record_result(cancelled, &result("q::b", 5.0))
        .unwrap();
    history
        .end_run(cancelled, RunStatus::Cancelled, None)
        .unwrap();

    let previous = history.previous("q::a", &key, None).unwrap().unwrap();
    assert_eq!(previous.run, first, "the partial result is skipped");
    let baseline = history
        .baseline("main", "q::a", &key, None)
        .unwrap()
        .unwrap();
    assert_eq!(baseline.run, first);
    let medians: Vec<f64> = history
        .medians("q::a", &key, None, 10)
        .unwrap()
        .iter()
        .map(|m| m.median_ns)
        .collect();
    assert_eq!(medians, [10.0]);
    // A case that finished in the cancelled run is a baseline like any other.
    assert_eq!(
        history.previous("q::b", &key, None).unwrap().unwrap().run,
        cancelled
    );
    // Listings show the partial result, marked.
    let points = history.points("q::a", 10).unwrap();
    assert_eq!(points[0].status, Some(RunStatus::Cancelled));
    assert_eq!(points[0].partial, Some(true));
    assert_eq!(history.runs(1).unwrap()[0].partial, 1);
}

/// Issue 10 §2: a process that died mid-run kept nothing; now its run reads as interrupted and
/// keeps the cases it finished.
#[test]
fn a_run_whose_process_is_gone_reads_as_interrupted_and_keeps_its_cases() {
    let (_dir, path) = temp_history();
    let mut history = History::open(&path).unwrap();
    let run = history.begin_run(&manifest(), None).unwrap();
    history.record_result(run, &result("q::a", 10.0)).unwrap();
    // Hand the run to a process that has ended.
    let mut child = Command::new("true").spawn().unwrap();
    let gone = child.id();
    child.wait().unwrap();
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute("UPDATE runs SET pid = ?1", [gone])
        .unwrap();

    let listed = history.runs(1).unwrap();
    assert_eq!(listed[0].status, RunStatus::Interrupted);
    assert_eq!(listed[0].results, 1);
    assert_eq!(listed[0].ended_at, None);
    assert_eq!(
        history
            .previous("q::a", &machine_key(&manifest()), None)
            .unwrap()
            .unwrap()
            .run,
        run
    );

    // Pruning closes it for good.
    let plan = history.prune_plan(Default::default()).unwrap();
    assert_eq!(plan.to_close, [run]);
    history.prune(&plan).unwrap();
    let status: String = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row("SELECT status FROM runs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(status, "interrupted");
}

/// Issue 21 §7: a run whose end could not be written (a full disk) read `running` for as long
/// as its process id was alive in another process: process 1 (a bench binary run as process 1
/// of a container leaves that id, alive in every other), a reused id, or the id of a process
/// of another machine's shard.
#[test]
fn a_run_left_running_read_running_for_ever_while_its_process_id_was_reused() {
    let (dir, path) = temp_history();
    let mut history = History::open(&path).unwrap();
    history
        .record_run(&manifest(), &[result("q::a", 10.0)], None)
        .unwrap();
    // The end never written, by a writer whose id is now process 1's.
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute(
            "UPDATE runs SET status = 'running', ended_at = NULL, pid = 1",
            [],
        )
        .unwrap();
    let lock_left_behind = format!("{}-recording", path.display());
    for lock_file_there in [false, true] {
        if lock_file_there {
            std::fs::write(&lock_left_behind, b"").unwrap();
        }
        assert_eq!(history.runs(1).unwrap()[0].status, RunStatus::Interrupted);
        let points = history.points("q::a", 1).unwrap();
        assert_eq!(points[0].status, Some(RunStatus::Interrupted));
        let plan = history.prune_plan(Default::default()).unwrap();
        assert_eq!(plan.to_close.len(), 1, "{plan:?}");
        let merged = History::open(&dir.path().join("merged.db"))
            .unwrap()
            .merge(&[History::open_read_only(&path).unwrap()])
            .unwrap();
        assert!(merged.still_running.is_empty(), "{merged:?}");
    }
    // A run this process records still reads `running` (its id is alive and it holds the lock).
    history.begin_run(&manifest(), None).unwrap();
    assert_eq!(history.runs(1).unwrap()[0].status, RunStatus::Running);
}

#[test]
fn latest_results_are_the_newest_complete_result_of_each_case() {
    let (_dir, path) = temp_history();
    let mut history = History::open(&path).unwrap();
    history
        .record_run(
            &manifest(),
            &[result("q::a", 1.0), result("q::b", 2.0)],
            None,
        )
        .unwrap();
    history
        .record_run(&manifest(), &[result("q::a", 3.0)], None)
        .unwrap();
    let run = history.begin_run(&manifest(), None).unwrap();
    let mut cut = result("q::b", 99.0);
    cut.partial = true;
    history.record_result(run, &cut).unwrap();

    let latest = history.latest_results().unwrap();
    let summary: Vec<(&str, f64)> = latest
        .iter()
        .map(|r| (r.id.as_str(), r.estimate.median_ns))
        .collect();
    assert_eq!(summary, [("q::a", 3.0), ("q::b", 2.0)]);
    assert!(latest.iter().all(|r| r.stored_at.is_some()));
}
