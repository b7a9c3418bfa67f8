//! Merging histories (`knotmeter history merge`): the shards of a CI run combined into one, no
//! run or result lost or duplicated, idempotent, runs keeping their identity.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{manifest, manifest_on, result, rich_result, temp_history};
use knotmeter_history::{machine_key, History, HistoryError, Merged, RunId};
use knotmeter_protocol::{Manifest, RunStatus, Verdict};
use rusqlite::{params, Connection};

/// A run's columns, and each of its results' columns by case id.
type Run = (Vec<String>, BTreeMap<String, Vec<String>>);

/// Everything that identifies the runs and results of a history, keyed by uid (ids differ
/// between files): per run its columns, and per result its columns and JSON.
fn contents(path: &Path) -> BTreeMap<String, Run> {
    let conn = Connection::open(path).unwrap();
    let mut runs = BTreeMap::new();
    let mut statement = conn
        .prepare(
            "SELECT id, uid, timestamp, coalesce(git_commit, ''), machine_key, manifest, \
             coalesce(baseline, ''), status, coalesce(pid, -1), coalesce(ended_at, -1), budget_ms \
             FROM runs",
        )
        .unwrap();
    let rows: Vec<(i64, String, Vec<String>)> = statement
        .query_map([], |r| {
            let columns = (2..11)
                .map(|i| {
                    r.get::<_, rusqlite::types::Value>(i)
                        .map(|v| format!("{v:?}"))
                })
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok((r.get(0)?, r.get(1)?, columns))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    for (id, uid, columns) in rows {
        let mut results = BTreeMap::new();
        let mut statement = conn
            .prepare(
                "SELECT case_id, machine_key, median_ns, low_ns, high_ns, coalesce(verdict, ''), \
                 result, partial, coalesce(stored_at, -1) FROM results WHERE run_id = ?1",
            )
            .unwrap();
        let found: Vec<(String, Vec<String>)> = statement
            .query_map([id], |r| {
                let columns = (1..9)
                    .map(|i| {
                        r.get::<_, rusqlite::types::Value>(i)
                            .map(|v| format!("{v:?}"))
                    })
                    .collect::<rusqlite::Result<Vec<_>>>()?;
                Ok((r.get(0)?, columns))
            })
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        results.extend(found);
        assert!(
            runs.insert(uid, (columns, results)).is_none(),
            "a uid twice"
        );
    }
    runs
}

/// The contents of several histories together, as one merge should hold them.
fn union(paths: &[&Path]) -> BTreeMap<String, Run> {
    let mut all = BTreeMap::new();
    for path in paths {
        for (uid, run) in contents(path) {
            if let Some(before) = all.insert(uid.clone(), run.clone()) {
                assert_eq!(before, run, "run {uid} differs between the sources");
            }
        }
    }
    all
}

fn readers(paths: &[&Path]) -> Vec<History> {
    paths
        .iter()
        .map(|p| History::open_read_only(p).unwrap())
        .collect()
}

/// A shard's history: a baseline run of its cases, then a plain run of them.
fn shard(dir: &Path, name: &str, cases: &[&str], cpu: &str, started: u64) -> PathBuf {
    let path = dir.join(format!("{name}.db"));
    let mut history = History::open(&path).unwrap();
    let mut m = manifest_on(cpu);
    m.timestamp = started;
    let results: Vec<_> = cases.iter().map(|c| result(c, 100.0)).collect();
    history.record_run(&m, &results, Some("main")).unwrap();
    m.timestamp += 100;
    let results: Vec<_> = cases.iter().map(|c| result(c, 110.0)).collect();
    history.record_run(&m, &results, None).unwrap();
    path
}

#[test]
fn shards_merge_into_one_history_without_loss_or_duplicates_and_twice_changes_nothing() {
    let (dir, into) = temp_history();
    let shards = [
        shard(
            dir.path(),
            "s1",
            &["q::a", "q::b/1", "q::b/2"],
            "cpu A",
            1_000,
        ),
        shard(dir.path(), "s2", &["q::c", "q::(group g)"], "cpu B", 1_010),
        shard(dir.path(), "s3", &["q::d"], "cpu A", 1_005),
    ];
    let sources: Vec<&Path> = shards.iter().map(PathBuf::as_path).collect();
    let mut history = History::open(&into).unwrap();
    let merged = history.merge(&readers(&sources)).unwrap();
    assert_eq!(
        merged,
        Merged {
            runs_added: 6,
            results_added: 12,
            ..Merged::default()
        }
    );
    let expected = union(&sources);
    assert_eq!(contents(&into), expected, "every run and result, as stored");

    // Merging again, or any source again, changes nothing.
    let again = history.merge(&readers(&sources)).unwrap();
    assert_eq!(
        again,
        Merged {
            runs_present: 6,
            results_present: 12,
            ..Merged::default()
        }
    );
    assert_eq!(contents(&into), expected);

    // Runs come after what was there, in the order they started.
    let order: Vec<u64> = history
        .runs(10)
        .unwrap()
        .iter()
        .rev()
        .map(|r| r.timestamp)
        .collect();
    assert_eq!(order, [1_000, 1_005, 1_010, 1_100, 1_105, 1_110]);

    // The merged history answers each shard's baseline lookups.
    for (case, cpu) in [("q::a", "cpu A"), ("q::c", "cpu B"), ("q::d", "cpu A")] {
        let found = history
            .baseline("main", case, &machine_key(&manifest_on(cpu)), None)
            .unwrap()
            .unwrap_or_else(|| panic!("no baseline of {case}"));
        assert_eq!(found.result.estimate.median_ns, 100.0);
    }
}

#[test]
fn the_history_every_shard_started_from_is_not_duplicated() {
    let (dir, into) = temp_history();
    // The main branch's history, merged once, then downloaded by every shard.
    let base = shard(dir.path(), "base", &["q::a", "q::b"], "cpu A", 500);
    std::fs::create_dir_all(into.parent().unwrap()).unwrap();
    std::fs::copy(&base, &into).unwrap();
    let mut shards = Vec::new();
    for (k, case) in ["q::a", "q::b"].iter().enumerate() {
        let path = dir.path().join(format!("pr{k}.db"));
        std::fs::copy(&base, &path).unwrap();
        let mut history = History::open(&path).unwrap();
        let mut m = manifest_on("cpu A");
        m.timestamp = 2_000 + k as u64;
        history
            .record_run(&m, &[result(case, 120.0)], None)
            .unwrap();
        shards.push(path);
    }
    let sources: Vec<&Path> = shards.iter().map(PathBuf::as_path).collect();
    let merged = History::open(&into)
        .unwrap()
        .merge(&readers(&sources))
        .unwrap();
    assert_eq!((merged.runs_added, merged.results_added), (2, 2));
    assert_eq!((merged.runs_present, merged.results_present), (4, 8));
    let mut all = sources.clone();
    all.push(&base);
    assert_eq!(contents(&into), union(&all));
}

#[test]
fn a_run_copied_while_it_was_measuring_is_completed_by_a_later_merge() {
    let probe = knotmeter_protocol::MachineProbe {
        ns_per_step: 2.5,
        low_ns: 2.4,
        high_ns: 2.6,
        rounds: knotmeter_protocol::Rounds {
            medians_ns: vec![2_500.0; 3],
            processes: 3,
            widened: false,
            machine_sd: None,
        },
        build: "b".to_owned(),
    };
    let (dir, into) = temp_history();
    let later = dir.path().join("later.db");
    let (run, early) = {
        let mut history = History::open(&later).unwrap();
        let run = history.begin_run(&manifest(), None).unwrap();
        history.record_result(run, &result("q::a", 10.0)).unwrap();
        drop(history);
        // The copy an upload took in the middle: the run is `running`, its process gone.
        let early = dir.path().join("early.db");
        std::fs::copy(&later, &early).unwrap();
        Connection::open(&early)
            .unwrap()
            .execute("UPDATE runs SET pid = ?1", [dead_pid()])
            .unwrap();
        (run, early)
    };
    {
        let mut history = History::open(&later).unwrap();
        history.record_result(run, &result("q::b", 20.0)).unwrap();
        let mut compared = result("q::a", 10.0);
        compared.comparison = rich_result("q::a", 10.0, Verdict::Faster).comparison;
        history.record_verdicts(run, &[compared]).unwrap();
        history
            .end_run(run, RunStatus::Complete, Some(&probe))
            .unwrap();
    }
    let mut history = History::open(&into).unwrap();
    let first = history.merge(&readers(&[&early])).unwrap();
    assert_eq!((first.runs_added, first.results_added), (1, 1));
    assert_eq!(history.runs(5).unwrap()[0].status, RunStatus::Interrupted);

    let second = history.merge(&readers(&[&later])).unwrap();
    assert_eq!(second.runs_completed, 1);
    assert_eq!((second.results_present, second.results_added), (1, 1));
    assert_eq!(contents(&into), contents(&later), "the run as it ended");
    let points = history.points("q::a", 5).unwrap();
    assert_eq!(points[0].verdict, Some(Verdict::Faster));
    // The machine's probe, stored with the run's end, comes with it.
    let key = machine_key(&manifest());
    let stored = history.previous("q::a", &key, None).unwrap().unwrap();
    assert_eq!(stored.probe, Some(probe));
}

#[test]
fn a_run_still_measuring_on_this_machine_is_left_for_later_and_said() {
    let (dir, into) = temp_history();
    let source = dir.path().join("live.db");
    let mut live = History::open(&source).unwrap();
    let run = live.begin_run(&manifest(), None).unwrap();
    live.record_result(run, &result("q::a", 10.0)).unwrap();
    let merged = History::open(&into)
        .unwrap()
        .merge(&readers(&[&source]))
        .unwrap();
    assert_eq!(merged.still_running, vec![(source.clone(), run)]);
    assert_eq!(merged.runs_added, 0);
    assert!(contents(&into).is_empty());
}

#[test]
fn damaged_or_unreadable_sources_are_refused_and_nothing_is_written() {
    let (dir, into) = temp_history();
    let good = shard(dir.path(), "good", &["q::a"], "cpu A", 1_000);
    let bad_json = shard(dir.path(), "bad_json", &["q::b"], "cpu A", 1_001);
    Connection::open(&bad_json)
        .unwrap()
        .execute(
            "UPDATE results SET result = '{\"id\": 3' WHERE case_id = 'q::b'",
            [],
        )
        .unwrap();
    let mut history = History::open(&into).unwrap();
    history
        .record_run(&manifest(), &[result("q::z", 1.0)], None)
        .unwrap();
    let before = contents(&into);
    match history.merge(&readers(&[&good, &bad_json])) {
        Err(HistoryError::Corrupt { path, detail }) => {
            assert_eq!(path, bad_json);
            assert!(detail.contains("`q::b`"), "{detail}");
        }
        other => panic!("expected Corrupt, got {other:?}"),
    }
    assert_eq!(contents(&into), before, "not even the good source's runs");

    // A history is never merged into itself.
    let itself = History::open_read_only(&into).unwrap();
    let error = history.merge(&[itself]).unwrap_err();
    assert!(error.to_string().contains("into itself"), "{error}");
    assert_eq!(contents(&into), before);
}

#[test]
fn a_run_that_shares_a_uid_but_is_another_run_is_reported_not_merged() {
    let (dir, into) = temp_history();
    let source = shard(dir.path(), "s", &["q::a"], "cpu A", 1_000);
    std::fs::create_dir_all(into.parent().unwrap()).unwrap();
    std::fs::copy(&source, &into).unwrap();
    Connection::open(&source)
        .unwrap()
        .execute("UPDATE runs SET timestamp = timestamp + 1 WHERE id = 1", [])
        .unwrap();
    let before = contents(&into);
    let merged = History::open(&into)
        .unwrap()
        .merge(&readers(&[&source]))
        .unwrap();
    assert_eq!(merged.conflicts.len(), 1, "{merged:?}");
    assert_eq!(merged.conflicts[0].1, RunId(1));
    assert!(merged.conflicts[0]
        .2
        .contains("started at 1000 here and at 1001 there"));
    assert_eq!(contents(&into), before);
}

#[test]
fn copies_of_one_old_history_migrated_apart_still_merge_as_one() {
    let (dir, old) = temp_history();
    std::fs::create_dir_all(old.parent().unwrap()).unwrap();
    {
        let conn = Connection::open(&old).unwrap();
        conn.execute_batch(VERSION_3).unwrap();
        for (t, case) in [(100, "q::a"), (200, "q::b")] {
            let mut m: Manifest = manifest();
            m.timestamp = t;
            conn.execute(
                "INSERT INTO runs (timestamp, git_commit, machine_key, manifest, status, pid, \
                 budget_ms) VALUES (?1, ?2, ?3, ?4, 'complete', 7, 1000)",
                params![
                    t as i64,
                    m.git_commit,
                    machine_key(&m),
                    serde_json::to_string(&m).unwrap()
                ],
            )
            .unwrap();
            let run = conn.last_insert_rowid();
            conn.execute(
                "INSERT INTO results (run_id, case_id, machine_key, median_ns, low_ns, high_ns, \
                 result) VALUES (?1, ?2, ?3, 1.0, 1.0, 1.0, ?4)",
                params![
                    run,
                    case,
                    machine_key(&m),
                    serde_json::to_string(&result(case, 1.0)).unwrap()
                ],
            )
            .unwrap();
        }
    }
    let copy = dir.path().join("copy.db");
    std::fs::copy(&old, &copy).unwrap();
    // Each copy is upgraded by its own writer, then one is merged into the other.
    History::open(&old).unwrap();
    History::open(&copy).unwrap();
    assert_eq!(contents(&old), contents(&copy), "the same uids in both");
    let merged = History::open(&old)
        .unwrap()
        .merge(&readers(&[&copy]))
        .unwrap();
    assert_eq!((merged.runs_present, merged.runs_added), (2, 0));
}

/// Schema version 3, as the release before runs had uids wrote it.
const VERSION_3: &str = "
    CREATE TABLE runs (id INTEGER PRIMARY KEY, timestamp INTEGER NOT NULL, git_commit TEXT,
        machine_key TEXT NOT NULL, manifest TEXT NOT NULL, baseline TEXT,
        status TEXT NOT NULL DEFAULT 'complete', pid INTEGER, ended_at INTEGER,
        budget_ms INTEGER NOT NULL DEFAULT 0);
    CREATE TABLE results (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        case_id TEXT NOT NULL, median_ns REAL NOT NULL, low_ns REAL NOT NULL,
        high_ns REAL NOT NULL, verdict TEXT, result TEXT NOT NULL,
        machine_key TEXT NOT NULL DEFAULT '', partial INTEGER NOT NULL DEFAULT 0,
        stored_at INTEGER, PRIMARY KEY (run_id, case_id));
    CREATE INDEX runs_by_baseline ON runs(baseline, id) WHERE baseline IS NOT NULL;
    CREATE INDEX results_by_case_machine_run ON results(case_id, machine_key, run_id);
    PRAGMA application_id = 1263423316;
    PRAGMA user_version = 3;
";

/// The id of a process that has ended.
fn dead_pid() -> i64 {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = i64::from(child.id());
    child.wait().unwrap();
    pid
}

/// The shards of a CI run save one baseline as several runs: pruning keeps each case's latest
/// result saved under the name, not only the last shard's run.
#[test]
fn prune_keeps_the_baseline_results_of_every_shard() {
    let (dir, into) = temp_history();
    let shards = [
        shard(dir.path(), "s1", &["q::a"], "cpu A", 1_000),
        shard(dir.path(), "s2", &["q::b"], "cpu A", 1_001),
    ];
    let sources: Vec<&Path> = shards.iter().map(PathBuf::as_path).collect();
    let mut history = History::open(&into).unwrap();
    history.merge(&readers(&sources)).unwrap();
    let mut m = manifest_on("cpu A");
    for t in 0..3 {
        m.timestamp = 5_000 + t;
        history
            .record_run(&m, &[result("q::a", 1.0), result("q::b", 1.0)], None)
            .unwrap();
    }
    let plan = history
        .prune_plan(knotmeter_history::Retention {
            keep_per_case: 2,
            ..Default::default()
        })
        .unwrap();
    history.prune(&plan).unwrap();
    let key = machine_key(&m);
    for case in ["q::a", "q::b"] {
        let kept = history.baseline("main", case, &key, None).unwrap();
        assert_eq!(
            kept.map(|s| s.result.estimate.median_ns),
            Some(100.0),
            "the baseline of {case} survived pruning"
        );
    }
}
