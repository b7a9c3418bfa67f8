//! The sharded CI workflow of docs/ci.md, run locally with the same commands: the shards of
//! the matrix as parallel `knotmeter run --partition hash:K/N` processes, each into its own
//! history file (the artifact each shard job uploads), then the merge job: `knotmeter history
//! merge` of every shard's file and `knotmeter history export` for Bencher and
//! github-action-benchmark. Checked: every case measured in exactly one shard, comparison
//! groups and `args` functions whole, each shard's step summary (`GITHUB_ACTIONS=true`) lists
//! its cases and annotates nothing twice, nothing lost or duplicated by the merge, a second
//! merge changes nothing, the exports name every case once, and `cargo bench -- --partition`
//! chooses the same cases as `knotmeter run --partition`.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// The fixture's cases: (case id, the unit a partition keeps whole).
const CASES: &[(&str, &str)] = &[
    ("parsing::parse_std", "parse"),
    ("parsing::parse_manual", "parse"),
    ("parsing::parse_folded", "parse"),
    ("parsing::fold/10", "fold"),
    ("parsing::fold/100", "fold"),
    ("parsing::fold/1000", "fold"),
    ("parsing::tokenize", "tokenize"),
    ("parsing::count_lines", "count_lines"),
    ("sorting::sort_n/8", "sort_n"),
    ("sorting::sort_n/64", "sort_n"),
    ("sorting::dedup_sorted", "dedup"),
    ("sorting::dedup_set", "dedup"),
    ("sorting::reverse", "reverse"),
    ("sorting::max_of", "max_of"),
];

const SHARDS: u32 = 3;

fn succeeded(what: &str, out: &Output) {
    assert!(
        out.status.success(),
        "{what}: {}\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `git init` and one commit, so runs carry the commit the export selects by.
fn commit_all(root: &Path) -> String {
    for args in [
        &["init", "--quiet"][..],
        &["add", "--all"],
        &[
            "-c",
            "user.name=knotmeter tests",
            "-c",
            "user.email=tests@knotmeter.invalid",
            "commit",
            "--quiet",
            "--no-gpg-sign",
            "--message",
            "the suite",
        ],
    ] {
        let out = Command::new("git")
            .args(args)
            .current_dir(root)
            .output()
            .expect("git runs");
        succeeded(&format!("git {args:?}"), &out);
    }
    let out = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(root)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// Issue 15 §2: a suite too long for one CI runner could not be spread over several and put
/// back together.
#[test]
fn the_ci_workflow_shards_merges_and_exports_every_case_once() {
    let fx = common::fixture("shards");
    let root = fx.root();
    let commit = commit_all(&root);
    let artifacts = tempfile::tempdir().unwrap();
    let shard_file = |k: u32| {
        artifacts
            .path()
            .join(format!("shard-{k}"))
            .join("history.db")
    };
    let summary_file = |k: u32| artifacts.path().join(format!("summary-{k}.md"));

    // The build job: one build the shards share (cargo would serialize their builds anyway).
    let out = fx
        .knotmeter()
        .args(["run", "--quick", "--no-history", "no-such-case"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "no case matches: only the discovery ran"
    );

    // The matrix: every shard at once, each into its own history.
    let shards: Vec<_> = (1..=SHARDS)
        .map(|k| {
            let mut command = fx.knotmeter();
            command
                .args(["run", "--quick", "--format", "json", "--partition"])
                .arg(format!("hash:{k}/{SHARDS}"))
                .env("KNOTMETER_HISTORY", shard_file(k))
                .env("GITHUB_ACTIONS", "true")
                .env("GITHUB_STEP_SUMMARY", summary_file(k))
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            command.spawn().unwrap()
        })
        .collect();
    let mut shard_of: BTreeMap<String, u32> = BTreeMap::new();
    for (k, child) in (1..=SHARDS).zip(shards) {
        let out = child.wait_with_output().unwrap();
        succeeded(&format!("shard {k}"), &out);
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let summary = std::fs::read_to_string(summary_file(k)).unwrap_or_default();
        for item in doc["items"].as_array().unwrap() {
            assert_eq!(item["state"], "passed", "{item}");
            let id = item["result"]["id"].as_str().unwrap().to_owned();
            assert!(
                summary.contains(&format!("| `{id}` |")),
                "shard {k}'s summary lists {id}: {summary}"
            );
            assert!(
                shard_of.insert(id.clone(), k).is_none(),
                "{id} measured in two shards"
            );
        }
        let rows = summary.lines().filter(|l| l.starts_with("| `")).count();
        assert_eq!(rows, doc["items"].as_array().unwrap().len(), "{summary}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let annotations: Vec<&str> = stderr.lines().filter(|l| l.starts_with("::")).collect();
        let unique: BTreeSet<&str> = annotations.iter().copied().collect();
        assert_eq!(unique.len(), annotations.len(), "annotated twice: {stderr}");
    }
    let expected: BTreeSet<&str> = CASES.iter().map(|(id, _)| *id).collect();
    assert_eq!(
        shard_of.keys().map(String::as_str).collect::<BTreeSet<_>>(),
        expected,
        "every case in exactly one shard"
    );
    let mut shard_of_unit: BTreeMap<&str, u32> = BTreeMap::new();
    for (id, unit) in CASES {
        let shard = shard_of[*id];
        assert_eq!(
            *shard_of_unit.entry(unit).or_insert(shard),
            shard,
            "{unit} split across shards: {shard_of:?}"
        );
    }
    assert!(
        shard_of.values().collect::<BTreeSet<_>>().len() > 1,
        "the suite was spread: {shard_of:?}"
    );

    // `cargo bench -- --partition` chooses what `knotmeter run --partition` chose.
    for k in 1..=SHARDS {
        let out = common::command_in("cargo", &root)
            .args([
                "bench",
                "--quiet",
                "--",
                "--list",
                "--format",
                "json",
                "--partition",
            ])
            .arg(format!("hash:{k}/{SHARDS}"))
            .output()
            .unwrap();
        succeeded(
            &format!("cargo bench -- --list --partition hash:{k}/{SHARDS}"),
            &out,
        );
        let listed: BTreeSet<String> = serde_json::Deserializer::from_slice(&out.stdout)
            .into_iter::<Value>()
            .flat_map(|doc| {
                let doc = doc.unwrap();
                let cases = doc["cases"].as_array().unwrap().clone();
                cases
                    .into_iter()
                    .map(|c| c["id"].as_str().unwrap().to_owned())
            })
            .collect();
        let ran: BTreeSet<String> = shard_of
            .iter()
            .filter(|(_, shard)| **shard == k)
            .map(|(id, _)| id.clone())
            .collect();
        assert_eq!(
            listed, ran,
            "shard {k}: the bench binaries and knotmeter run agree"
        );
    }

    // The merge job: every shard's artifact into one history, then the exports.
    let merged = artifacts.path().join("merged.db");
    let sources: Vec<String> = (1..=SHARDS)
        .map(|k| shard_file(k).display().to_string())
        .collect();
    let merge = || {
        fx.knotmeter()
            .args(["history", "merge"])
            .args(&sources)
            .env("KNOTMETER_HISTORY", &merged)
            .output()
            .unwrap()
    };
    let out = merge();
    succeeded("merge", &out);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("with {} result(s); 0 run(s)", CASES.len())),
        "{text}"
    );
    let out = merge();
    succeeded("second merge", &out);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("added 0 run(s) with 0 result(s)"), "{text}");
    assert!(
        text.contains(&format!(
            "with {} result(s) were there already",
            CASES.len()
        )),
        "{text}"
    );

    let history = knotmeter_history::History::open_read_only(&merged).unwrap();
    let runs = history.runs(100).unwrap();
    assert_eq!(
        runs.iter().map(|r| r.results).sum::<u64>(),
        CASES.len() as u64,
        "no result lost or duplicated: {runs:?}"
    );
    assert!(runs
        .iter()
        .all(|r| r.git_commit.as_deref() == Some(commit.as_str())));

    let export = |format: &str, file: &Path| {
        let out = fx
            .knotmeter()
            .args(["history", "export", "--format", format, "--commit", &commit])
            .arg("--output")
            .arg(file)
            .env("KNOTMETER_HISTORY", &merged)
            .output()
            .unwrap();
        succeeded(&format!("export {format}"), &out);
        serde_json::from_slice::<Value>(&std::fs::read(file).unwrap()).unwrap()
    };
    let bmf = export("bmf", &artifacts.path().join("bmf.json"));
    let names: BTreeSet<&str> = bmf
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(names, expected);
    for (id, measures) in bmf.as_object().unwrap() {
        let latency = &measures["latency"];
        let value = latency["value"].as_f64().unwrap();
        assert!(
            latency["lower_value"].as_f64().unwrap() <= value
                && value <= latency["upper_value"].as_f64().unwrap(),
            "{id}: {latency}"
        );
    }
    let action = export(
        "github-action-benchmark",
        &artifacts.path().join("benchmark.json"),
    );
    let names: Vec<&str> = action
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), CASES.len(), "each case once: {names:?}");
    assert_eq!(names.into_iter().collect::<BTreeSet<_>>(), expected);
}
