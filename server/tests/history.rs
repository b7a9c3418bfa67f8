//! The history through the daemon and the `knotmeter` command: results that passed before a
//! crash or a per-case timeout are stored, the daemon shows stored results after a restart,
//! and `knotmeter history` lists and prunes. Every test has its own history file.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::stored::{knotmeter_on as knotmeter, manifest};
use common::{fixture, Client};
use knotmeter_history::{History, RunStatus};
use knotmeter_protocol::{BenchResult, Manifest};
use serde_json::{json, Value};

/// A history file in a temporary directory of its own.
fn temp_history() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.db");
    (dir, path)
}

/// A result of `id` with the given median.
fn result(id: &str, name: &str, median_ns: f64) -> BenchResult {
    let q = median_ns;
    serde_json::from_value(json!({
        "id": id, "name": name, "args": null, "group": null, "baseline": false,
        "file": "benches/basic.rs", "line": 8,
        "estimate": {"median_ns": q, "low_ns": q * 0.99, "high_ns": q * 1.01, "mean_ns": q},
        "quantiles": {"min_ns": q, "p5_ns": q, "q1_ns": q, "q3_ns": q, "p95_ns": q, "max_ns": q,
                      "std_dev_ns": 0.0, "outliers": 0},
        "precision": 0.01, "overhead": {"per_op_ns": 0.5, "drift": 0.0, "capped": 0},
        "cold_ns": q, "ops_per_sample": 64, "samples": 3, "wall_ns": 1e8, "partial": false,
        "warnings": [], "comparison": null, "allocations": null,
        "raw": {"workload_ns": [q, q, q], "baseline_ns": [0.5, 0.5, 0.5]}
    }))
    .unwrap()
}

/// Issue 12 §7: after the daemon restarted, hovers said "Not measured yet" although the
/// history held 18 runs.
#[test]
fn after_a_restart_the_daemon_shows_the_last_stored_results_marked_with_their_time() {
    let fx = fixture("basic");
    let (_dir, path) = temp_history();
    let mut history = History::open(&path).unwrap();
    history
        .record_run(
            &manifest(100, 1_760_000_000),
            &[result("basic::plain", "plain", 5_000.0)],
            None,
        )
        .unwrap();
    history
        .record_run(
            &manifest(100, 1_760_000_100),
            &[result("basic::plain", "plain", 4_321.0)],
            None,
        )
        .unwrap();
    drop(history);

    let mut client = Client::spawn_with(&fx.root(), |c| {
        c.env("KNOTMETER_HISTORY", &path);
    });
    client.initialize(&fx.root(), json!({}));
    let stored = client.notification("knotmeter/stored", Duration::from_secs(60), |_| true);
    let results = stored["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{stored}");
    assert_eq!(results[0]["id"], "basic::plain");
    assert_eq!(results[0]["estimate"]["median_ns"], 4_321.0, "the latest");
    assert!(results[0]["stored_at"].as_u64().is_some(), "{stored}");

    let uri = fx.uri("benches/basic.rs");
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 7, "character": 4}}),
    );
    let text = hover["result"]["contents"]["value"].as_str().unwrap();
    assert!(!text.contains("Not measured yet"), "{text}");
    assert!(
        text.contains("From the history (stored ") && text.contains("UTC"),
        "{text}"
    );
    assert!(text.contains("4.32 µs"), "{text}");
    let lenses = client.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
    );
    let stored_lens = lenses["result"].as_array().unwrap().iter().any(|l| {
        let title = l["command"]["title"].as_str().unwrap();
        title.starts_with("4.32 µs") && title.contains("stored ")
    });
    assert!(stored_lens, "{lenses}");
    assert!(client.shutdown().success());
}

/// Issue 10 §2: under `knotmeter run` and the daemon, cases shown `passed` before a crash or
/// a per-case timeout were not in the history.
#[test]
fn knotmeter_run_stores_the_cases_that_passed_before_a_crash_and_a_timeout() {
    let fx = fixture("crash_midway");
    let (_dir, path) = temp_history();
    let out = knotmeter(
        &fx.root(),
        &path,
        &[
            "run",
            "--quick",
            "--time",
            "0.02",
            "--case-timeout",
            "2",
            "--format",
            "jsonl",
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let states: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let state = |id: &str| {
        states
            .iter()
            .find(|s| s["id"] == id)
            .map(|s| s["state"].as_str().unwrap().to_owned())
            .unwrap_or_else(|| panic!("no state for {id}: {stdout}"))
    };
    assert_eq!(state("midway::a_first"), "passed");
    assert_eq!(state("midway::b_second"), "passed");
    assert_eq!(state("midway::c_aborts"), "errored");
    assert_eq!(state("midway::d_hangs"), "errored");
    assert_eq!(state("midway::e_last"), "passed");

    let history = History::open_read_only(&path).unwrap();
    for id in ["midway::a_first", "midway::b_second", "midway::e_last"] {
        let points = history.points(id, 10).unwrap();
        assert_eq!(points.len(), 1, "{id} was stored");
    }
    let runs = history.runs(10).unwrap();
    // The bench binary measures each round in a worker process: the crash (SIGABRT) and the
    // hang each cost a worker and their own case, and the run completes with the other three.
    assert_eq!(
        runs.iter()
            .map(|r| (r.status, r.results))
            .collect::<Vec<_>>(),
        [(RunStatus::Complete, 3)],
        "{runs:?}"
    );

    // `knotmeter history` lists it with the time and the budget.
    let out = knotmeter(&fx.root(), &path, &["history"]);
    let listing = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{listing}");
    assert!(listing.contains("complete"), "{listing}");
    assert!(listing.contains("20 ms"), "the budget: {listing}");
    let time = regex_like_time(&listing);
    assert!(time, "a time of day: {listing}");
    let out = knotmeter(&fx.root(), &path, &["history", "midway::a_first"]);
    let points = String::from_utf8_lossy(&out.stdout);
    assert!(
        points.contains("complete") && points.contains("20 ms"),
        "{points}"
    );
}

/// Whether `text` holds a `YYYY-MM-DD HH:MM` time.
fn regex_like_time(text: &str) -> bool {
    text.lines().any(|line| {
        line.split("  ").any(|cell| {
            let cell = cell.trim();
            let b = cell.as_bytes();
            b.len() == 16
                && b[4] == b'-'
                && b[7] == b'-'
                && b[10] == b' '
                && b[13] == b':'
                && cell
                    .chars()
                    .enumerate()
                    .all(|(i, c)| [4, 7, 10, 13].contains(&i) || c.is_ascii_digit())
        })
    })
}

#[test]
fn prune_keeps_the_newest_results_and_the_named_baselines_and_a_dry_run_changes_nothing() {
    let (dir, path) = temp_history();
    let mut history = History::open(&path).unwrap();
    let main = history
        .record_run(
            &manifest(100, 1_760_000_000),
            &[result("q::x", "x", 1.0)],
            Some("main"),
        )
        .unwrap();
    for i in 1..=5 {
        history
            .record_run(
                &manifest(100, 1_760_000_000 + i),
                &[result("q::x", "x", 1.0 + i as f64)],
                None,
            )
            .unwrap();
    }
    drop(history);
    let before = std::fs::read(&path).unwrap();

    let out = knotmeter(
        dir.path(),
        &path,
        &["history", "prune", "--keep", "2", "--dry-run"],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("6 results in 6 runs"), "{text}");
    assert!(
        text.contains("main (run 1)"),
        "the kept baseline is named: {text}"
    );
    assert!(
        text.contains("would: remove 3 results, remove 3 runs"),
        "{text}"
    );
    assert!(text.contains("nothing was changed"), "{text}");
    assert!(
        std::fs::read(&path).unwrap() == before,
        "a dry run writes nothing"
    );

    let out = knotmeter(dir.path(), &path, &["history", "prune", "--keep", "2"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("removed 3 results, 3 runs and 0 comparisons"),
        "{text}"
    );
    let runs: Vec<i64> = History::open_read_only(&path)
        .unwrap()
        .runs(10)
        .unwrap()
        .iter()
        .map(|r| r.run.0)
        .collect();
    assert_eq!(runs, [6, 5, main.0], "the newest two and the baseline");
}

/// A manifest of a run at `commit`.
fn manifest_at(commit: &str, timestamp: u64) -> Manifest {
    let mut manifest = manifest(100, timestamp);
    manifest.git_commit = Some(commit.to_owned());
    manifest
}

/// `(runs, results)` a history holds.
fn counts(path: &Path) -> (usize, u64) {
    let runs = History::open_read_only(path).unwrap().runs(1000).unwrap();
    let results = runs.iter().map(|r| r.results).sum();
    (runs.len(), results)
}

/// Issue 15 §2: the shards of a CI run, each measured into its own history, had no way to
/// become one history.
#[test]
fn history_merge_combines_the_shards_without_loss_or_duplicates_and_twice_changes_nothing() {
    let (dir, merged) = temp_history();
    let shards: Vec<PathBuf> = (1..=3)
        .map(|k| dir.path().join(format!("shard-{k}.db")))
        .collect();
    for (k, shard) in shards.iter().enumerate() {
        let mut history = History::open(shard).unwrap();
        let cases: Vec<BenchResult> = (0..4)
            .map(|i| result(&format!("q::s{k}_{i}"), "x", 10.0 + i as f64))
            .collect();
        history
            .record_run(
                &manifest_at("abcdef0123", 1_760_000_000 + k as u64),
                &cases,
                Some("pr"),
            )
            .unwrap();
    }
    let sources: Vec<&str> = shards.iter().map(|p| p.to_str().unwrap()).collect();

    // A source that is no history: refused up front, and nothing is written.
    let stranger = dir.path().join("notes.txt");
    std::fs::write(&stranger, "not a history").unwrap();
    let out = knotmeter(
        dir.path(),
        &merged,
        &[
            &["history", "merge"],
            &sources[..],
            &[stranger.to_str().unwrap()],
        ]
        .concat(),
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("nothing was merged"), "{stderr}");
    assert!(stderr.contains("notes.txt"), "the file is named: {stderr}");
    assert!(!merged.exists(), "nothing was created");

    let out = knotmeter(
        dir.path(),
        &merged,
        &[&["history", "merge"], &sources[..]].concat(),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("added 3 run(s) with 12 result(s); 0 run(s)"),
        "{text}"
    );
    assert_eq!(counts(&merged), (3, 12));
    let runs = History::open_read_only(&merged).unwrap().runs(10).unwrap();
    assert!(
        runs.iter().all(|r| r.baseline.as_deref() == Some("pr")
            && r.git_commit.as_deref() == Some("abcdef0123")
            && r.status == RunStatus::Complete),
        "each run keeps its identity: {runs:?}"
    );

    let out = knotmeter(
        dir.path(),
        &merged,
        &[&["history", "merge"], &sources[..]].concat(),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains(
            "added 0 run(s) with 0 result(s); 3 run(s) with 12 result(s) were there already"
        ),
        "{text}"
    );
    assert_eq!(counts(&merged), (3, 12), "merging twice changes nothing");
}

/// Issue 21 §7: a run still measuring in a source was left unmerged, said on standard error,
/// and the merge exited 0, though its help says 1 when a run could not be merged.
#[test]
fn history_merge_left_a_run_still_measuring_unmerged_and_exited_0() {
    let (dir, merged) = temp_history();
    let shard = dir.path().join("shard.db");
    let mut history = History::open(&shard).unwrap();
    let done = [result("q::done", "done", 10.0)];
    history
        .record_run(&manifest_at("abcdef0123", 1_760_000_000), &done, None)
        .unwrap();
    // Begun by this process, which is alive: still measuring on this machine.
    history
        .begin_run(&manifest_at("abcdef0123", 1_760_000_100), None)
        .unwrap();
    drop(history);
    let out = knotmeter(
        dir.path(),
        &merged,
        &["history", "merge", shard.to_str().unwrap()],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("is still measuring"), "{stderr}");
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(counts(&merged), (1, 1), "the finished run is merged");
}

/// The BMF document, as Bencher reads it.
#[derive(Debug, serde::Deserialize)]
struct BmfMetric {
    value: f64,
    lower_value: f64,
    upper_value: f64,
}

/// One entry of github-action-benchmark's `customSmallerIsBetter` input, as it reads it.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ActionBenchmark {
    name: String,
    unit: String,
    value: f64,
    range: String,
    extra: String,
}

/// Issue 15 §2: results could not be handed to Bencher or github-action-benchmark.
#[test]
fn history_export_writes_the_latest_measured_results_for_bencher_and_github_action_benchmark() {
    let (dir, path) = temp_history();
    let mut history = History::open(&path).unwrap();
    let old = "1111111aaaa";
    let new = "2222222bbbb";
    history
        .record_run(
            &manifest_at(old, 1_760_000_000),
            &[
                result("q::kept", "kept", 50.0),
                result("q::gone", "gone", 7.0),
            ],
            None,
        )
        .unwrap();
    let mut cut_short = result("q::cut", "cut", 999.0);
    cut_short.partial = true;
    let mut warned = result("q::kept", "kept", 40.0);
    warned.warnings = vec![knotmeter_protocol::Warning::new(
        "debug_build",
        "a debug build",
    )];
    history
        .record_run(
            &manifest_at(new, 1_760_000_100),
            &[warned, result("q::cut", "cut", 5.0)],
            None,
        )
        .unwrap();
    history
        .record_run(&manifest_at(new, 1_760_000_200), &[cut_short], None)
        .unwrap();
    drop(history);

    let out = knotmeter(
        dir.path(),
        &path,
        &[
            "history", "export", "--format", "bmf", "--commit", "2222222",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bmf: std::collections::BTreeMap<String, std::collections::BTreeMap<String, BmfMetric>> =
        serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        bmf.keys().collect::<Vec<_>>(),
        ["q::cut", "q::kept"],
        "the commit's cases only; a result cut short is not the latest measured one"
    );
    let kept = &bmf["q::kept"]["latency"];
    assert_eq!(kept.value, 40.0);
    assert!(kept.lower_value < kept.value && kept.value < kept.upper_value);
    assert_eq!(bmf["q::cut"]["latency"].value, 5.0, "not the partial 999");

    let file = dir.path().join("out").join("benchmark.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let out = knotmeter(
        dir.path(),
        &path,
        &[
            "history",
            "export",
            "--format",
            "github-action-benchmark",
            "--output",
            file.to_str().unwrap(),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty(), "the document went to the file");
    let entries: Vec<ActionBenchmark> =
        serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        names,
        ["q::cut", "q::gone", "q::kept"],
        "without --commit: every case"
    );
    let kept = &entries[2];
    assert_eq!((kept.unit.as_str(), kept.value), ("ns", 40.0));
    assert!(kept.range.contains("95% CI"), "{}", kept.range);
    assert!(
        kept.extra.contains("debug_build"),
        "its warning: {}",
        kept.extra
    );
    assert_eq!(
        std::fs::read_dir(file.parent().unwrap()).unwrap().count(),
        1,
        "no temporary file left"
    );

    // A commit no run was made at: an error, and nothing written.
    let out = knotmeter(
        dir.path(),
        &path,
        &[
            "history", "export", "--format", "bmf", "--commit", "3333333",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no complete result of runs at commit 3333333"),
        "{stderr}"
    );
    let out = knotmeter(
        dir.path(),
        &path,
        &["history", "export", "--format", "bmf", "--commit", "HEAD"],
    );
    assert_eq!(out.status.code(), Some(2), "not a hash");
}
