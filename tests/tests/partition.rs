//! `--partition count:K/N` and `hash:K/N` on the bench binary, from the consumer's side: every
//! case in exactly one shard, comparison groups and `args` cases never split, filters first.

use std::collections::{BTreeSet, HashMap};
use std::process::{Command, Output};

fn fixture(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fixture"))
        .env("KNOTMETER_HISTORY", history_file())
        .args(args)
        .output()
        .expect("the fixture bench binary runs")
}

/// A history file of this test process's own.
fn history_file() -> std::path::PathBuf {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().unwrap())
        .path()
        .join("history.db")
}

/// The cases `--list --format json` names, with their benchmark and group.
fn listed(args: &[&str]) -> Vec<(String, String, Option<String>)> {
    let out = fixture(&[&["--list", "--format", "json"], args].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap().to_owned(),
                c["bench_id"].as_str().unwrap().to_owned(),
                c["group"].as_str().map(str::to_owned),
            )
        })
        .collect()
}

#[test]
fn every_case_is_in_exactly_one_shard_and_units_never_split() {
    let all: BTreeSet<String> = listed(&[]).into_iter().map(|(id, ..)| id).collect();
    assert_eq!(all.len(), 9);
    for kind in ["count", "hash"] {
        for total in 1..=4 {
            let mut shard_of: HashMap<String, u32> = HashMap::new();
            for shard in 1..=total {
                let spec = format!("{kind}:{shard}/{total}");
                for (id, bench, group) in listed(&["--partition", &spec]) {
                    assert!(
                        shard_of.insert(id.clone(), shard).is_none(),
                        "{id} in two shards of {kind} of {total}"
                    );
                    // Whole units: the function's other cases, the group's other members.
                    shard_of.insert(format!("bench {bench}"), shard);
                    if let Some(group) = group {
                        let before = shard_of.insert(format!("group {group}"), shard);
                        assert!(before.is_none_or(|s| s == shard), "group {group} split");
                    }
                }
            }
            let ids: BTreeSet<String> = shard_of
                .keys()
                .filter(|k| !k.starts_with("bench ") && !k.starts_with("group "))
                .cloned()
                .collect();
            assert_eq!(ids, all, "{kind} of {total} lost or added a case");
            assert_eq!(
                shard_of["fixture::sized/10"], shard_of["fixture::sized/1000"],
                "the args cases of one function were split by {kind} of {total}"
            );
            assert_eq!(
                shard_of["fixture::pair_a"], shard_of["fixture::pair_b"],
                "a group member was parted from its baseline by {kind} of {total}"
            );
        }
    }
}

#[test]
fn count_partitions_what_the_filters_selected() {
    // Filtered first: `sized` alone is one unit, so shard 1 of 2 holds it and shard 2 none.
    let first: Vec<String> = listed(&["--partition", "count:1/2", "sized"])
        .into_iter()
        .map(|(id, ..)| id)
        .collect();
    assert_eq!(first, ["fixture::sized/10", "fixture::sized/1000"]);
    assert!(listed(&["--partition", "count:2/2", "sized"]).is_empty());
}

#[test]
fn a_measured_shard_runs_its_cases_and_pairs_its_group() {
    let pair_shard = (1..=3)
        .find(|k| {
            listed(&["--partition", &format!("hash:{k}/3")])
                .iter()
                .any(|(id, ..)| id == "fixture::pair_b")
        })
        .expect("some shard holds the group");
    let spec = format!("hash:{pair_shard}/3");
    let expected: BTreeSet<String> = listed(&["--partition", &spec, "--skip", "failing"])
        .into_iter()
        .map(|(id, ..)| id)
        .collect();
    let out = fixture(&[
        "--bench",
        "--quick",
        "--no-history",
        "--format",
        "json",
        "--skip",
        "failing",
        "--partition",
        &spec,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = report["results"].as_array().unwrap();
    let measured: BTreeSet<String> = results
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(measured, expected);
    let member = results
        .iter()
        .find(|r| r["id"] == "fixture::pair_b")
        .unwrap();
    assert_eq!(
        member["comparison"]["against"], "fixture::pair_a",
        "the member was compared with its baseline inside the shard"
    );
}

#[test]
fn an_empty_shard_says_so_and_succeeds() {
    let out = fixture(&[
        "--bench",
        "--no-history",
        "--format",
        "json",
        "--partition",
        "count:2/2",
        "plain",
    ]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("this shard holds none of the 1 benchmark(s)"),
        "{stderr}"
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["results"].as_array().unwrap().len(), 0);
}

#[test]
fn a_bad_partition_is_refused_with_what_to_write() {
    for (spec, says) in [
        ("hash:0/3", "numbered from 1 to 3"),
        ("thirds", "expected count:K/N, hash:K/N or slice:K/N"),
        ("slice:1/2", "knotmeter run --partition slice:1/2"),
    ] {
        let out = fixture(&["--bench", "--partition", spec]);
        assert_eq!(out.status.code(), Some(2), "{spec}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{spec}: {stderr}");
    }
}
