//! Comparisons of two builds under `knotmeter history prune` and `knotmeter history merge`:
//! what the commands say and do. Every test has its own history files.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use knotmeter_history::History;
use knotmeter_protocol::{CompareReport, CompareSide, CompareStatus, ComparedCase, Manifest};
use serde_json::json;

fn knotmeter(dir: &Path, history: &Path, args: &[&str]) -> Output {
    common::command_in(common::knotmeter(), dir)
        .args(args)
        .env("KNOTMETER_HISTORY", history)
        .output()
        .unwrap()
}

fn manifest() -> Manifest {
    serde_json::from_value(json!({
        "knotmeter_version": "0.1.0", "rustc": "rustc", "profile": "release", "opt_level": "3",
        "debug_assertions": false, "target": "x86_64-unknown-linux-gnu", "cpu": "test cpu",
        "cores": 2, "timer": {"kind": "instant", "precision_ns": 20.0, "read_cost_ns": 20.0},
        "git_commit": "0123456789abcdef", "timestamp": 1_760_000_000, "seed": 1,
        "budget_ms": 1000, "target_precision": 0.01, "warnings": []
    }))
    .unwrap()
}

/// A comparison of the working tree against `base` with two cases only the head has (no
/// results needed for them).
fn comparison(base: &str) -> CompareReport {
    let side = |label: &str, commit: &str| CompareSide {
        label: label.to_owned(),
        commit: Some(commit.to_owned()),
        dirty: false,
        manifest: Some(manifest()),
    };
    let added = |id: &str| ComparedCase {
        id: id.to_owned(),
        status: CompareStatus::Added,
        base: None,
        head: None,
        comparison: None,
        note: None,
    };
    CompareReport {
        version: knotmeter_protocol::VERSION,
        base: side(base, "0123abcd"),
        head: side("working tree", "feedface"),
        cases: vec![added("q::a"), added("q::b")],
        cancelled: false,
        stored: None,
    }
}

/// A history at `path` with `n` comparisons against each of `bases`.
fn with_comparisons(path: &Path, bases: &[&str], n: usize) {
    let mut history = History::open(path).unwrap();
    for base in bases {
        for _ in 0..n {
            history.record_comparison(&comparison(base)).unwrap();
        }
    }
}

fn stored(path: &Path) -> Vec<(i64, String)> {
    History::open_read_only(path)
        .unwrap()
        .comparisons(100)
        .unwrap()
        .into_iter()
        .map(|c| (c.stored.unwrap(), c.base.label))
        .collect()
}

fn texts(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn prune_keeps_the_newest_comparisons_of_each_pair_of_sides_and_says_how_many_it_removed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.db");
    with_comparisons(&path, &["main", "v1.2"], 3);
    let before = std::fs::read(&path).unwrap();

    let out = knotmeter(
        dir.path(),
        &path,
        &["history", "prune", "--keep-comparisons", "1", "--dry-run"],
    );
    let (text, errors) = texts(&out);
    assert!(out.status.success(), "{text}{errors}");
    assert!(
        text.contains("0 results in 0 runs, 6 comparisons"),
        "{text}"
    );
    assert!(
        text.contains("the newest 1 comparisons of each pair of sides on each machine"),
        "{text}"
    );
    assert!(
        text.contains("would: remove 4 comparisons (8 compared cases)"),
        "{text}"
    );
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "a dry run writes nothing"
    );

    let out = knotmeter(
        dir.path(),
        &path,
        &["history", "prune", "--keep-comparisons", "1"],
    );
    let (text, errors) = texts(&out);
    assert!(out.status.success(), "{text}{errors}");
    assert!(
        text.contains("removed 0 results, 0 runs and 4 comparisons"),
        "{text}"
    );
    assert_eq!(
        stored(&path),
        [(6, "v1.2".to_owned()), (3, "main".to_owned())]
    );

    let out = knotmeter(
        dir.path(),
        &path,
        &["history", "prune", "--keep-comparisons", "0"],
    );
    assert_eq!(
        out.status.code(),
        Some(2),
        "keeping none is refused: {:?}",
        texts(&out)
    );
}

#[test]
fn merge_carries_the_comparisons_once_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let into = dir.path().join("history.db");
    let shards: Vec<PathBuf> = (1..=2)
        .map(|k| {
            let path = dir.path().join(format!("shard-{k}.db"));
            with_comparisons(&path, &["main"], k);
            path
        })
        .collect();
    let sources: Vec<&str> = shards.iter().map(|p| p.to_str().unwrap()).collect();
    let merge = [&["history", "merge"], &sources[..]].concat();

    let out = knotmeter(dir.path(), &into, &merge);
    let (text, errors) = texts(&out);
    assert!(out.status.success(), "{text}{errors}");
    assert!(
        text.contains("comparisons of two builds: added 3 with 6 case(s); 0 were there already"),
        "{text}"
    );
    assert_eq!(stored(&into).len(), 3);

    let out = knotmeter(dir.path(), &into, &merge);
    let (text, errors) = texts(&out);
    assert!(out.status.success(), "{text}{errors}");
    assert!(
        text.contains("comparisons of two builds: added 0 with 0 case(s); 3 were there already"),
        "{text}"
    );
    assert_eq!(stored(&into).len(), 3, "merging twice adds nothing");
}
