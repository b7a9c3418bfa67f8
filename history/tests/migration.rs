//! Histories written by earlier schema versions are upgraded in place and keep their data.

use crate::common;

use common::{manifest_on, result, result_with_samples, rich_result, temp_history};
use knotmeter_history::{
    machine_key, History, HistoryError, RunId, APPLICATION_ID, SCHEMA_VERSION,
};
use knotmeter_protocol::{BenchResult, Manifest, RunStatus, Verdict};
use rusqlite::{params, Connection};

/// Schema version 1, written out by hand as the first release created it.
const V1: &str = "
    CREATE TABLE runs (
        id          INTEGER PRIMARY KEY,
        timestamp   INTEGER NOT NULL,
        git_commit  TEXT,
        machine_key TEXT NOT NULL,
        manifest    TEXT NOT NULL
    );
    CREATE TABLE results (
        run_id    INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        case_id   TEXT NOT NULL,
        median_ns REAL NOT NULL,
        low_ns    REAL NOT NULL,
        high_ns   REAL NOT NULL,
        verdict   TEXT,
        result    TEXT NOT NULL,
        PRIMARY KEY (run_id, case_id)
    );
    CREATE INDEX results_by_case ON results(case_id);
    PRAGMA application_id = 1263423316;
    PRAGMA user_version = 1;
";

fn insert_v1_run(conn: &Connection, manifest: &Manifest, results: &[BenchResult]) -> i64 {
    conn.execute(
        "INSERT INTO runs (timestamp, git_commit, machine_key, manifest) VALUES (?1, ?2, ?3, ?4)",
        params![
            manifest.timestamp as i64,
            manifest.git_commit,
            machine_key(manifest),
            serde_json::to_string(manifest).unwrap()
        ],
    )
    .unwrap();
    let run = conn.last_insert_rowid();
    for r in results {
        let verdict = r.comparison.as_ref().map(|c| {
            serde_json::to_value(c.verdict)
                .unwrap()
                .as_str()
                .unwrap()
                .to_owned()
        });
        conn.execute(
            "INSERT INTO results VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                run,
                r.id,
                r.estimate.median_ns,
                r.estimate.low_ns,
                r.estimate.high_ns,
                verdict,
                serde_json::to_string(r).unwrap()
            ],
        )
        .unwrap();
    }
    run
}

fn pragma(conn: &Connection, name: &str) -> String {
    conn.query_row(&format!("PRAGMA {name}"), [], |r| {
        r.get::<_, rusqlite::types::Value>(0)
    })
    .map(|v| format!("{v:?}"))
    .unwrap()
}

#[test]
fn a_version_1_file_is_migrated_and_keeps_its_data() {
    assert_eq!(
        APPLICATION_ID, 0x4B4E_4F54,
        "the constant the V1 script spells out"
    );
    assert_eq!(SCHEMA_VERSION, 8);
    let (_dir, path) = temp_history();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();

    let a = manifest_on("cpu A");
    let mut b = manifest_on("cpu B");
    b.timestamp += 60;
    b.git_commit = None;
    let mut old_x = rich_result("q::x", 100.0, Verdict::Same);
    old_x.partial = false;
    let (run1, run2) = {
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(V1).unwrap();
        let run1 = insert_v1_run(&conn, &a, &[old_x.clone(), result("q::y", 7.0)]);
        let run2 = insert_v1_run(&conn, &b, &[result("q::x", 200.0)]);
        (run1, run2)
    };

    // A reader cannot upgrade, and leaves the file as it was.
    match History::open_read_only(&path) {
        Err(HistoryError::NeedsUpgrade {
            found: 1,
            supported: 8,
            ..
        }) => {}
        other => panic!("expected NeedsUpgrade, got {other:?}"),
    }

    let mut history = History::open(&path).expect("open migrates version 1");
    {
        let conn = Connection::open(&path).unwrap();
        assert_eq!(pragma(&conn, "user_version"), "Integer(8)");
        assert_eq!(pragma(&conn, "application_id"), "Integer(1263423316)");
        assert_eq!(pragma(&conn, "journal_mode"), "Text(\"wal\")");
        let backfilled: Vec<(i64, String)> = conn
            .prepare("SELECT run_id, machine_key FROM results ORDER BY run_id, case_id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            backfilled,
            vec![
                (run1, machine_key(&a)),
                (run1, machine_key(&a)),
                (run2, machine_key(&b))
            ]
        );
        let indexes: Vec<String> = conn
            .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            indexes,
            [
                "compared_by_case",
                "comparisons_by_pair",
                "comparisons_by_uid",
                "profiles_by_case",
                "results_by_case_machine_partial_run",
                "results_partial_by_run",
                "runs_by_baseline",
                "runs_by_uid"
            ]
        );
    }

    // The old data answers the new queries.
    let stored = history
        .previous("q::x", &machine_key(&a), None)
        .unwrap()
        .unwrap();
    assert_eq!(stored.run, RunId(run1));
    assert_eq!(stored.timestamp, a.timestamp);
    assert_eq!(stored.git_commit, a.git_commit);
    // Results of earlier versions read as stored when their run started.
    assert_eq!(stored.result.stored_at, Some(a.timestamp));
    let mut read_back = stored.result.clone();
    read_back.stored_at = None;
    assert_eq!(read_back, old_x);
    let stored = history
        .previous("q::x", &machine_key(&b), None)
        .unwrap()
        .unwrap();
    assert_eq!((stored.run, stored.git_commit), (RunId(run2), None));
    assert_eq!(history.manifest(RunId(run1)).unwrap(), Some(a.clone()));
    assert_eq!(
        history
            .baseline("main", "q::x", &machine_key(&a), None)
            .unwrap(),
        None
    );
    // Runs of earlier versions were stored only when complete.
    let runs = history.runs(10).unwrap();
    assert!(
        runs.iter().all(|r| r.status == RunStatus::Complete),
        "{runs:?}"
    );
    assert_eq!(runs[0].budget_ms, 1000, "copied from the manifest");

    // And new runs go on after them.
    let run3 = history
        .record_run(&a, &[result("q::x", 90.0)], Some("main"))
        .unwrap();
    assert_eq!(run3, RunId(run2 + 1));
    let points = history.points("q::x", 10).unwrap();
    let summary: Vec<_> = points
        .iter()
        .map(|p| (p.run.0, p.median_ns, p.verdict, p.baseline.as_deref()))
        .collect();
    assert_eq!(
        summary,
        vec![
            (run3.0, 90.0, None, Some("main")),
            (run2, 200.0, None, None),
            (run1, 100.0, Some(Verdict::Same), None),
        ]
    );
    assert_eq!(
        history
            .previous("q::x", &machine_key(&a), Some(run3))
            .unwrap()
            .map(|s| s.run),
        Some(RunId(run1))
    );
    drop(history);

    // Opening again changes nothing, and readers now accept the file.
    History::open(&path).unwrap();
    let reader = History::open_read_only(&path).unwrap();
    assert_eq!(reader.points("q::x", 10).unwrap(), points);
}

/// Schema version 2 (version 1 plus its migration), as knotmeter 0.1.0 wrote it.
const V2_MIGRATION: &str = "
    ALTER TABLE runs ADD COLUMN baseline TEXT;
    CREATE INDEX runs_by_baseline ON runs(baseline, id) WHERE baseline IS NOT NULL;
    ALTER TABLE results ADD COLUMN machine_key TEXT NOT NULL DEFAULT '';
    UPDATE results SET machine_key = (SELECT machine_key FROM runs WHERE runs.id = results.run_id);
    DROP INDEX results_by_case;
    CREATE INDEX results_by_case_machine_run ON results(case_id, machine_key, run_id);
    PRAGMA user_version = 2;
";

#[test]
fn a_version_2_file_with_full_samples_is_migrated_and_its_partial_results_are_skipped() {
    let (_dir, path) = temp_history();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let a = manifest_on("cpu A");
    let key = machine_key(&a);
    let full = result_with_samples("q::x", 50.0, 3_000);
    let mut cut_short = result("q::x", 60.0);
    cut_short.partial = true;
    {
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(V1).unwrap();
        insert_v1_run(&conn, &a, std::slice::from_ref(&full));
        insert_v1_run(&conn, &a, &[cut_short]);
        conn.execute_batch(V2_MIGRATION).unwrap();
    }
    let mut history = History::open(&path).expect("open migrates version 2");
    // The partial result is never a baseline; the full one still is, samples and all.
    let stored = history.previous("q::x", &key, None).unwrap().unwrap();
    assert_eq!(stored.run, RunId(1));
    assert_eq!(stored.result.raw.workload_ns.len(), 3_000);
    let points = history.points("q::x", 10).unwrap();
    assert_eq!(
        points.iter().map(|p| p.partial).collect::<Vec<_>>(),
        [Some(true), Some(false)]
    );

    // Pruning rewrites the old full samples in the compact form, and the file shrinks.
    let plan = history.prune_plan(Default::default()).unwrap();
    // Both rows hold more samples than the compact form keeps (100 baseline samples > 21).
    assert_eq!(plan.to_compact, 2);
    assert!(plan.results.is_empty() && plan.runs.is_empty(), "{plan:?}");
    let done = history.prune(&plan).unwrap();
    assert_eq!(done.compacted, 2);
    assert!(done.bytes_after < done.bytes_before, "{done:?}");
    let stored = history.previous("q::x", &key, None).unwrap().unwrap();
    assert_eq!(stored.result.raw.workload_ns.len(), 101);
    assert_eq!(
        stored.result.estimate, full.estimate,
        "the estimates stay as measured"
    );
}
