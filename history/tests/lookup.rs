//! Finding earlier results: by machine key and order, by baseline name, and for charts.

use crate::common;

use common::{manifest, manifest_on, result, temp_history};
use knotmeter_history::{machine_key, History, RunId, RunStatus, StoredMedian};

#[test]
fn machine_key_separates_machines_builds_and_budgets_only() {
    let base = manifest();
    let mut later = base.clone();
    later.timestamp += 3600;
    later.git_commit = None;
    later.seed = 7;
    later.rustc = "rustc 1.96.0".to_owned();
    later.warnings.clear();
    assert_eq!(machine_key(&later), machine_key(&base));
    assert_eq!(
        machine_key(&base),
        "x86_64-unknown-linux-gnu|AMD EPYC 7763 64-Core Processor|8 cores|release|\
         opt-level=3|debug-assertions=off|budget=1000ms"
    );

    let changes: [fn(&mut knotmeter_protocol::Manifest); 7] = [
        |m| m.cpu = "Apple M2".to_owned(),
        |m| m.cores = 4,
        |m| m.target = "aarch64-unknown-linux-gnu".to_owned(),
        |m| m.profile = "bench".to_owned(),
        |m| m.opt_level = "2".to_owned(),
        |m| m.debug_assertions = true,
        |m| m.budget_ms = 100,
    ];
    for change in changes {
        let mut other = base.clone();
        change(&mut other);
        assert_ne!(machine_key(&other), machine_key(&base), "{other:?}");
    }
}

#[test]
fn previous_respects_the_machine_key_and_recording_order() {
    let (_dir, path) = temp_history();
    let mut history = History::open(&path).unwrap();
    let a = manifest_on("cpu A");
    let b = manifest_on("cpu B");
    let (key_a, key_b) = (machine_key(&a), machine_key(&b));

    let run1 = history
        .record_run(&a, &[result("q::x", 100.0)], None)
        .unwrap();
    let run2 = history
        .record_run(&b, &[result("q::x", 200.0)], None)
        .unwrap();
    // A run without the case, then one whose clock went backwards.
    let run3 = history
        .record_run(&a, &[result("q::y", 1.0)], None)
        .unwrap();
    let mut earlier_clock = a.clone();
    earlier_clock.timestamp -= 86_400;
    let run4 = history
        .record_run(&earlier_clock, &[result("q::x", 300.0)], None)
        .unwrap();
    assert!(run1 < run2 && run2 < run3 && run3 < run4);

    let median = |found: Option<knotmeter_history::StoredResult>| {
        found.map(|s| (s.run, s.result.estimate.median_ns))
    };
    let lookup =
        |key: &str, before: Option<RunId>| median(history.previous("q::x", key, before).unwrap());
    assert_eq!(lookup(&key_a, None), Some((run4, 300.0)));
    assert_eq!(lookup(&key_a, Some(run4)), Some((run1, 100.0)));
    assert_eq!(lookup(&key_a, Some(run3)), Some((run1, 100.0)));
    assert_eq!(lookup(&key_a, Some(run1)), None);
    assert_eq!(lookup(&key_b, None), Some((run2, 200.0)));
    assert_eq!(lookup(&key_b, Some(run2)), None);
    assert_eq!(lookup("another machine", None), None);
    assert_eq!(
        median(history.previous("q::y", &key_a, None).unwrap()),
        Some((run3, 1.0))
    );
    assert_eq!(history.previous("q::z", &key_a, None).unwrap(), None);
}

#[test]
fn baselines_return_the_latest_run_saved_under_the_name() {
    let (_dir, path) = temp_history();
    let mut history = History::open(&path).unwrap();
    let a = manifest_on("cpu A");
    let b = manifest_on("cpu B");
    let key_a = machine_key(&a);

    let main1 = history
        .record_run(&a, &[result("q::x", 100.0)], Some("main"))
        .unwrap();
    history
        .record_run(&a, &[result("q::x", 150.0)], None)
        .unwrap();
    let feature = history
        .record_run(&a, &[result("q::x", 120.0)], Some("feature"))
        .unwrap();
    let main2 = history
        .record_run(&a, &[result("q::x", 110.0)], Some("main"))
        .unwrap();
    let main_b = history
        .record_run(&b, &[result("q::x", 900.0)], Some("main"))
        .unwrap();
    // The latest `main` run on A did not measure q::x: the one before it still answers.
    history
        .record_run(&a, &[result("q::y", 5.0)], Some("main"))
        .unwrap();

    let found = |name: &str, key: &str| {
        history
            .baseline(name, "q::x", key, None)
            .unwrap()
            .map(|s| (s.run, s.result.estimate.median_ns))
    };
    assert_eq!(found("main", &key_a), Some((main2, 110.0)));
    assert_eq!(found("feature", &key_a), Some((feature, 120.0)));
    assert_eq!(found("main", &machine_key(&b)), Some((main_b, 900.0)));
    assert_eq!(found("nope", &key_a), None);
    assert!(main1 < main2);
    // Before a given run: the run saving `main` again does not find itself.
    assert_eq!(
        history
            .baseline("main", "q::x", &key_a, Some(main2))
            .unwrap()
            .map(|s| s.run),
        Some(main1)
    );
    let names: Vec<(String, RunId)> = history
        .baselines()
        .unwrap()
        .into_iter()
        .filter(|b| b.machine_key == key_a)
        .map(|b| (b.name, b.run))
        .collect();
    assert_eq!(names[0], ("feature".to_owned(), feature));
    assert_eq!(names[1].0, "main");
    assert!(
        names[1].1 > main2,
        "the latest `main`, the one that has only q::y"
    );
    // A baseline run is also an ordinary earlier run.
    assert_eq!(
        history
            .previous("q::x", &key_a, None)
            .unwrap()
            .map(|s| s.run),
        Some(main2)
    );
}

#[test]
fn points_are_newest_first_and_limited() {
    let (_dir, path) = temp_history();
    let mut history = History::open(&path).unwrap();
    let a = manifest_on("cpu A");
    let b = manifest_on("cpu B");
    let mut runs = Vec::new();
    for (i, m) in [&a, &b, &a, &a].into_iter().enumerate() {
        let median = 10.0 * (i + 1) as f64;
        let results = [result("q::x", median), result("q::other", 1.0)];
        runs.push(history.record_run(m, &results, None).unwrap());
    }

    let points = history.points("q::x", 3).unwrap();
    let summary: Vec<_> = points.iter().map(|p| (p.run, p.median_ns)).collect();
    assert_eq!(
        summary,
        vec![(runs[3], 40.0), (runs[2], 30.0), (runs[1], 20.0)]
    );
    assert_eq!(points[2].machine_key, machine_key(&b));
    assert_eq!(points[0].verdict, None);
    assert_eq!(history.points("q::x", 100).unwrap().len(), 4);
    assert!(history.points("q::x", 0).unwrap().is_empty());
    assert!(history.points("q::missing", 10).unwrap().is_empty());
}

/// Run-to-run noise is learnt from results of the same code: each median comes with its run's
/// commit and whether its working tree had uncommitted changes (unknown for a manifest that
/// does not say), oldest first, before the run given, on the same machine key only.
#[test]
fn medians_say_which_commit_each_measured_and_whether_it_had_uncommitted_changes() {
    let (_dir, path) = temp_history();
    let mut history = History::open(&path).unwrap();
    let key = machine_key(&manifest());
    let mut runs = Vec::new();
    for (i, (commit, dirty)) in [
        (Some("aaaa"), Some(false)),
        (Some("bbbb"), Some(true)),
        (Some("aaaa"), None),
        (None, None),
    ]
    .into_iter()
    .enumerate()
    {
        let mut m = manifest();
        m.git_commit = commit.map(str::to_owned);
        m.git_dirty = dirty;
        m.timestamp += i as u64;
        runs.push(
            history
                .record_run(&m, &[result("q::a", 10.0 + i as f64)], None)
                .unwrap(),
        );
    }
    history
        .record_run(&manifest_on("another cpu"), &[result("q::a", 99.0)], None)
        .unwrap();
    let median = |median_ns: f64, commit: Option<&str>, dirty: Option<bool>| StoredMedian {
        probe_ns_per_step: None,
        probe_build: String::new(),
        median_ns,
        git_commit: commit.map(str::to_owned),
        git_dirty: dirty,
    };
    assert_eq!(
        history.medians("q::a", &key, Some(runs[3]), 20).unwrap(),
        [
            median(10.0, Some("aaaa"), Some(false)),
            median(11.0, Some("bbbb"), Some(true)),
            median(12.0, Some("aaaa"), None),
        ]
    );
    let latest = history.medians("q::a", &key, None, 2).unwrap();
    assert_eq!(
        latest,
        [median(12.0, Some("aaaa"), None), median(13.0, None, None)]
    );
    assert_eq!(latest[0].clean_commit(), None, "not known to be clean");
    assert_eq!(
        history.medians("q::a", &key, None, 20).unwrap()[0].clean_commit(),
        Some("aaaa")
    );
}

/// A probe of the machine as a run stores it: `ns_per_step`, and rounds of a thousand steps.
fn probe(ns_per_step: f64) -> knotmeter_protocol::MachineProbe {
    knotmeter_protocol::MachineProbe {
        ns_per_step,
        low_ns: ns_per_step * 0.99,
        high_ns: ns_per_step * 1.01,
        rounds: knotmeter_protocol::Rounds {
            medians_ns: vec![ns_per_step * 1_000.0; 3],
            processes: 3,
            widened: false,
            machine_sd: None,
        },
        build: "b".to_owned(),
    }
}

/// Schema version 7: the run's end stores its probe, and every lookup that a before/after
/// comparison makes hands it back with the result (a run that ended without one, none); a
/// probe that cannot be read is no probe, not an unreadable result; a merge carries it.
#[test]
fn the_machines_probe_is_stored_with_its_run_and_read_back_with_its_results() {
    let (_dir, path) = temp_history();
    let mut history = History::open(&path).unwrap();
    let m = manifest();
    let key = machine_key(&m);
    let with = history.begin_run(&m, Some("main")).unwrap();
    history.record_result(with, &result("q::x", 100.0)).unwrap();
    history
        .end_run(with, RunStatus::Complete, Some(&probe(2.5)))
        .unwrap();
    let found = history.previous("q::x", &key, None).unwrap().unwrap();
    assert_eq!(found.run, with);
    assert_eq!(found.probe, Some(probe(2.5)));
    let named = history.baseline("main", "q::x", &key, None).unwrap();
    assert_eq!(named.unwrap().probe, Some(probe(2.5)));

    let without = history.begin_run(&m, None).unwrap();
    history
        .record_result(without, &result("q::x", 110.0))
        .unwrap();
    history.end_run(without, RunStatus::Complete, None).unwrap();
    let found = history.previous("q::x", &key, None).unwrap().unwrap();
    assert_eq!((found.run, found.probe), (without, None));
    let medians: Vec<Option<f64>> = history
        .medians("q::x", &key, None, 10)
        .unwrap()
        .iter()
        .map(|m| m.probe_ns_per_step)
        .collect();
    assert_eq!(medians, vec![Some(2.5), None], "oldest first");

    // A damaged probe: the result and its median are still read, without a probe.
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute(
            "UPDATE runs SET probe = '{not json' WHERE id = ?1",
            [with.0],
        )
        .unwrap();
    let found = history
        .previous("q::x", &key, Some(without))
        .unwrap()
        .unwrap();
    assert_eq!((found.run, found.probe), (with, None));
    let medians = history.medians("q::x", &key, Some(without), 10).unwrap();
    assert_eq!(medians[0].probe_ns_per_step, None);
    history
        .end_run(with, RunStatus::Complete, Some(&probe(2.5)))
        .unwrap();

    // Merged into another history, the run keeps its probe.
    let (_other_dir, other_path) = temp_history();
    let mut other = History::open(&other_path).unwrap();
    other.merge(&[history]).unwrap();
    let merged = other
        .previous("q::x", &key, Some(RunId(2)))
        .unwrap()
        .unwrap();
    assert_eq!(merged.probe, Some(probe(2.5)));
}

/// The machine's probes of its runs, oldest first, whatever each run measured: only runs of
/// the same machine key, before the given run, with a readable positive figure.
#[test]
fn the_machines_probes_are_read_across_runs_of_one_machine_key() {
    let (_dir, path) = temp_history();
    let mut history = History::open(&path).unwrap();
    let m = manifest();
    let key = machine_key(&m);
    let mut runs = Vec::new();
    for (case, figure) in [("q::a", Some(2.5)), ("q::b", None), ("q::c", Some(2.6))] {
        let run = history.begin_run(&m, None).unwrap();
        history.record_result(run, &result(case, 100.0)).unwrap();
        let probe = figure.map(probe);
        history
            .end_run(run, RunStatus::Complete, probe.as_ref())
            .unwrap();
        runs.push(run);
    }
    assert_eq!(history.probes(&key, "b", None, 10).unwrap(), vec![2.5, 2.6]);
    assert_eq!(
        history.probes(&key, "b", None, 1).unwrap(),
        vec![2.6],
        "the latest"
    );
    assert_eq!(
        history.probes(&key, "b", Some(runs[2]), 10).unwrap(),
        vec![2.5]
    );
    assert!(history
        .probes("another machine", "b", None, 10)
        .unwrap()
        .is_empty());
    // A probe compiled by another engine or compiler measured other code.
    assert!(history.probes(&key, "c", None, 10).unwrap().is_empty());

    // A damaged probe, and one whose figure is not a number, are left out.
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute(
        "UPDATE runs SET probe = '{not json' WHERE id = ?1",
        [runs[0].0],
    )
    .unwrap();
    conn.execute(
        "UPDATE runs SET probe = '{\"ns_per_step\": \"fast\"}' WHERE id = ?1",
        [runs[2].0],
    )
    .unwrap();
    assert!(history.probes(&key, "b", None, 10).unwrap().is_empty());
}
