//! Comparisons of two builds as `knotmeter compare` stores them, for the tests.

use knotmeter_protocol::{
    CompareReport, CompareSide, CompareStatus, ComparedCase, Comparison, Verdict, VERSION,
};

use rusqlite::Connection;

use super::{manifest_on, result_with_samples};

/// One side of a comparison, with a manifest on `cpu` when given.
pub fn side(label: &str, commit: &str, cpu: Option<&str>) -> CompareSide {
    CompareSide {
        label: label.to_owned(),
        commit: Some(commit.to_owned()),
        dirty: false,
        manifest: cpu.map(manifest_on),
    }
}

/// A case of a comparison with the given status, and what a case of that status holds.
pub fn case(id: &str, status: CompareStatus) -> ComparedCase {
    let both = matches!(status, CompareStatus::Compared | CompareStatus::NotCompared);
    ComparedCase {
        location: None,
        id: id.to_owned(),
        status,
        base: (both || status == CompareStatus::Removed)
            .then(|| result_with_samples(id, 100.0, 3_000)),
        head: (both || status == CompareStatus::Added)
            .then(|| result_with_samples(id, 103.0, 3_000)),
        comparison: (status == CompareStatus::Compared).then(|| Comparison {
            machine: None,
            against: "main".to_owned(),
            ratio: 1.031,
            low: 1.026,
            high: 1.037,
            p_value: 1e-6,
            verdict: Verdict::Slower,
            kind: None,
        }),
        note: (status == CompareStatus::Failed)
            .then(|| "the base build's case failed: boom".to_owned()),
    }
}

/// A comparison of the working tree (uncommitted changes) against main, with a case of every
/// status.
pub fn report() -> CompareReport {
    let mut head = side(
        "working tree",
        "feedface",
        Some("AMD EPYC 7763 64-Core Processor"),
    );
    head.dirty = true;
    CompareReport {
        version: VERSION,
        base: side("main", "0123abcd", Some("AMD EPYC 7763 64-Core Processor")),
        head,
        cases: vec![
            case("q::a", CompareStatus::Compared),
            case("q::b", CompareStatus::NotCompared),
            case("q::new", CompareStatus::Added),
            case("q::old", CompareStatus::Removed),
            case("q::boom", CompareStatus::Failed),
        ],
        cancelled: false,
        stored: None,
    }
}

/// Turns a new history back into what an older knotmeter wrote: version 7 (no profiles),
/// version 6 (nor a probe of each run), version 5 (nor comparisons' uids), version 4 (run uids and the large-history indexes,
/// no comparison tables) or version 3 (neither).
pub fn downgrade(path: &std::path::Path, version: i64) {
    let conn = Connection::open(path).unwrap();
    conn.execute_batch("DROP TABLE profiles;").unwrap();
    if version < 7 {
        conn.execute_batch("ALTER TABLE runs DROP COLUMN probe;")
            .unwrap();
    }
    if version == 5 {
        conn.execute_batch(
            "DROP INDEX comparisons_by_uid;
            DROP INDEX comparisons_by_pair;
            ALTER TABLE comparisons DROP COLUMN uid;",
        )
        .unwrap();
    } else if version < 5 {
        conn.execute_batch("DROP TABLE compared_cases; DROP TABLE comparisons;")
            .unwrap();
    }
    if version == 3 {
        conn.execute_batch(
            "DROP INDEX runs_by_uid;
            ALTER TABLE runs DROP COLUMN uid;
            DROP INDEX results_by_case_machine_partial_run;
            DROP INDEX results_partial_by_run;
            CREATE INDEX results_by_case_machine_run ON results(case_id, machine_key, run_id);",
        )
        .unwrap();
    }
    conn.execute_batch(&format!("PRAGMA user_version = {version};"))
        .unwrap();
}
