//! `--measure instructions` through the `knotmeter` command and the daemon: a fixture's case
//! counted under callgrind, its figure in instructions per operation on every surface, and
//! what cannot be counted refused at once with the reason.

use std::time::Duration;

use serde_json::{json, Value};

use crate::common::{fixture, history_file, Client};
use crate::compare_support::{case, json as report_of, stderr, Repo};

/// The results of `knotmeter run --format json`'s items.
fn results(document: &Value) -> Vec<&Value> {
    document["items"]
        .as_array()
        .unwrap_or_else(|| panic!("no items in {document}"))
        .iter()
        .filter_map(|item| item.get("result").filter(|r| !r.is_null()))
        .collect()
}

#[test]
fn knotmeter_run_counts_instructions_the_same_twice() {
    let fx = fixture("profiled");
    let mut counts = Vec::new();
    for _ in 0..2 {
        let out = fx
            .knotmeter()
            .args([
                "run",
                "also_here",
                "--measure",
                "instructions",
                "--format",
                "json",
            ])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{}\n{stderr}", out.status);
        let document: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
        let results = results(&document);
        assert_eq!(results.len(), 1, "{document}");
        let result = results[0];
        assert_eq!(result["measure"], "instructions", "{result}");
        let estimate = &result["estimate"];
        assert_eq!(estimate["low_ns"], estimate["high_ns"], "exact: {estimate}");
        counts.push(estimate["median_ns"].as_f64().unwrap());
    }
    assert_eq!(
        counts[0], counts[1],
        "the second run counts what the first did"
    );
}

#[test]
fn without_valgrind_knotmeter_run_names_the_package_before_building() {
    let fx = fixture("profiled");
    let out = fx
        .knotmeter()
        .args(["run", "--measure", "instructions"])
        .env("PATH", "/nonexistent-knotmeter-dir")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("apt install valgrind"), "{stderr}");
    assert!(!stderr.contains("Compiling"), "nothing was built: {stderr}");
}

#[test]
fn the_editor_counts_a_case_and_shows_instructions_per_operation() {
    let fx = fixture("profiled");
    let root = fx.root();
    let history = history_file(&root);
    let mut client = Client::spawn_with(&root, |c| {
        c.env("KNOTMETER_HISTORY", &history);
    });
    client.initialize(&root, json!({"caseTimeoutSecs": 120}));
    let response = client.request(
        "knotmeter/run",
        json!({"include": ["profiled::also_here"], "measure": "instructions"}),
    );
    let run_id = response["result"]["runId"]
        .as_i64()
        .unwrap_or_else(|| panic!("{response}"));
    let states = client.run_to_end(run_id, Duration::from_secs(600));
    assert_eq!(
        client.finals(run_id),
        [("profiled::also_here".to_owned(), "passed".to_owned())],
        "{states:?}"
    );
    let passed = states
        .iter()
        .find(|s| s["state"] == "passed" && !s["result"].is_null())
        .unwrap_or_else(|| panic!("no result in {states:?}"));
    assert_eq!(passed["result"]["measure"], "instructions", "{passed}");
    let figure = passed["shown"]["figure"].as_str().unwrap();
    assert!(figure.ends_with(" instr/op"), "{figure}");
    // Counting and profiling at once is refused, naming why.
    let refused = client.request(
        "knotmeter/run",
        json!({"include": ["profiled::also_here"], "measure": "instructions", "profile": true}),
    );
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("profile") && message.contains("instructions"),
        "{message}"
    );
    client.shutdown();
}

/// Two commits compared by count: the head's `slower` does three times the chain's work and
/// counts about three times the instructions, exactly; `same` counts the same, ratio 1; and
/// the gate fails on the regression.
#[test]
fn knotmeter_compare_counts_two_commits() {
    let repo = Repo::new(&["base", "head"]);
    let out = repo.compare(&["HEAD~1", "--measure", "instructions", "--format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = report_of(&out);
    assert_eq!(
        report["head"]["manifest"]["measure"], "instructions",
        "{report:#}"
    );
    let slower = case(&report, "two::slower");
    assert_eq!(slower["status"], "compared", "{slower:#}");
    let comparison = &slower["comparison"];
    assert_eq!(comparison["verdict"], "slower", "{comparison:#}");
    assert_eq!(
        comparison["low"], comparison["high"],
        "exact: {comparison:#}"
    );
    let ratio = comparison["ratio"].as_f64().unwrap();
    assert!((2.8..3.1).contains(&ratio), "{comparison:#}");
    assert_eq!(slower["head"]["measure"], "instructions");
    let same = case(&report, "two::same");
    assert_eq!(same["comparison"]["verdict"], "same", "{same:#}");
    assert_eq!(same["comparison"]["ratio"], 1.0, "{same:#}");
    assert_eq!(case(&report, "two::new")["status"], "added");

    let out = repo.compare(&[
        "HEAD~1",
        "--measure",
        "instructions",
        "--fail-on-regression",
        "5",
        "--no-history",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
}
