//! Comparisons of two builds in `knotmeter history` (listed, newest first, each case with the
//! phrase every surface uses), under `knotmeter history prune` and `knotmeter history merge`:
//! what the commands say and do. Every test has its own history files.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::stored::{knotmeter_on as knotmeter, manifest};
use knotmeter_history::History;
use knotmeter_protocol::{
    CompareReport, CompareSide, CompareStatus, ComparedCase, Comparison, ComparisonKind, Verdict,
};

/// A comparison of the working tree against `base` with two cases only the head has (no
/// results needed for them).
fn comparison(base: &str) -> CompareReport {
    let side = |label: &str, commit: &str| CompareSide {
        label: label.to_owned(),
        commit: Some(commit.to_owned()),
        dirty: false,
        manifest: Some(manifest(1000, 1_760_000_000)),
    };
    let added = |id: &str| ComparedCase {
        location: None,
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

#[test]
fn history_lists_the_stored_comparisons_newest_first_with_each_cases_change() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.db");
    let mut report = comparison("main");
    report.head.dirty = true;
    report.cases.insert(
        0,
        ComparedCase {
            location: None,
            id: "q::chain".to_owned(),
            status: CompareStatus::Compared,
            base: None,
            head: None,
            comparison: Some(Comparison {
                machine: None,
                against: "main".to_owned(),
                ratio: 1.031,
                low: 1.026,
                high: 1.037,
                p_value: 1e-6,
                verdict: Verdict::Slower,
                kind: Some(ComparisonKind::Builds),
            }),
            note: None,
        },
    );
    {
        let mut history = History::open(&path).unwrap();
        history.record_comparison(&report).unwrap();
        history.record_comparison(&comparison("v1.2")).unwrap();
    }

    let out = knotmeter(dir.path(), &path, &["history"]);
    let (text, errors) = texts(&out);
    assert!(out.status.success(), "{text}{errors}");
    let listed: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("comparison "))
        .collect();
    assert_eq!(listed.len(), 2, "{text}");
    assert!(
        listed[0].contains("comparison 2, ") && listed[0].contains("against v1.2 (0123abcd)"),
        "newest first: {text}"
    );
    assert!(
        listed[1].contains(
            "working tree (HEAD feedface, uncommitted changes) against main (0123abcd); \
             1 compared (1 slower, 0 faster, 0 same), 2 added"
        ),
        "{text}"
    );

    let out = knotmeter(dir.path(), &path, &["history", "--comparisons"]);
    let (text, errors) = texts(&out);
    assert!(out.status.success(), "{text}{errors}");
    assert!(
        text.contains("  q::chain  +3.1% [2.6, 3.7] slower than main\n"),
        "{text}"
    );
    assert!(text.contains("  q::a      added\n"), "{text}");

    let out = knotmeter(
        dir.path(),
        &path,
        &[
            "history",
            "--comparisons",
            "--format",
            "json",
            "--limit",
            "1",
        ],
    );
    let (text, errors) = texts(&out);
    assert!(out.status.success(), "{text}{errors}");
    let document: serde_json::Value = serde_json::from_str(&text).unwrap();
    let reports: Vec<CompareReport> =
        serde_json::from_value(document["comparisons"].clone()).unwrap();
    assert_eq!(reports.len(), 1);
    assert_eq!(
        (reports[0].stored, reports[0].base.label.as_str()),
        (Some(2), "v1.2")
    );

    // An empty history says so; a case id and --comparisons do not go together.
    let empty = dir.path().join("empty.db");
    drop(History::open(&empty).unwrap());
    let out = knotmeter(dir.path(), &empty, &["history", "--comparisons"]);
    assert!(
        texts(&out).0.contains("no stored comparisons"),
        "{:?}",
        texts(&out)
    );
    let out = knotmeter(dir.path(), &path, &["history", "q::chain", "--comparisons"]);
    assert_eq!(out.status.code(), Some(2), "{:?}", texts(&out));
}
