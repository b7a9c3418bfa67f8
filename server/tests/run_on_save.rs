//! Run-on-save measures what a save edited first: the edited benchmark (with its comparison
//! group) in a bench binary process of its own, then the rest of the file, in one run. A save
//! that changes only comments or layout edits nothing, and the file runs in one process.

use std::time::Duration;

use crate::common::{fixture, Client, Fixture};
use serde_json::{json, Value};

const BUILD: Duration = Duration::from_secs(600);
const FILE: &str = "benches/suite.rs";

/// A daemon with run-on-save on the save loop's fixture (22 benchmarks in one file), built and
/// run once, the file open.
fn start(fx: &Fixture) -> Client {
    let mut client = Client::spawn(&fx.root());
    client.initialize(
        &fx.root(),
        json!({"runOnSave": true, "quickTimeSecs": 0.01, "caseTimeoutSecs": 30}),
    );
    let run = client.request("knotmeter/run", json!({"mode": "quick"}));
    let run_id = run["result"]["runId"].as_i64().expect("a run id");
    client.notification("knotmeter/runEnd", BUILD, |p| p["runId"] == run_id);
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": fx.uri(FILE), "languageId": "rust", "version": 1,
                                "text": fx.read(FILE)}}),
    );
    client
}

/// Writes `text` as the file, saves it, and returns the save's run: each item's states in the
/// order they arrived, as `(id, state)`.
fn save(client: &mut Client, fx: &Fixture, text: &str, version: i64) -> Vec<(String, String)> {
    fx.write(FILE, text);
    client.backlog.clear();
    let logged = client.log.len();
    let uri = fx.uri(FILE);
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}),
    );
    client.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri}, "text": text}),
    );
    let queued = client.notification("knotmeter/runState", BUILD, |p| p["state"] == "enqueued");
    let run_id = queued["runId"].as_i64().expect("a run id");
    client.notification("knotmeter/runEnd", BUILD, |p| p["runId"] == run_id);
    let states: Vec<(String, String)> = client.log[logged..]
        .iter()
        .map(|r| &r.message)
        .filter(|m| m["method"] == "knotmeter/runState" && m["params"]["runId"] == run_id)
        .map(|m| (string(&m["params"]["id"]), string(&m["params"]["state"])))
        .collect();
    let runs: std::collections::BTreeSet<i64> = client.log[logged..]
        .iter()
        .filter(|r| r.message["method"] == "knotmeter/runState")
        .filter_map(|r| r.message["params"]["runId"].as_i64())
        .collect();
    assert_eq!(runs.len(), 1, "one save, one run: {runs:?}");
    states
}

fn string(value: &Value) -> String {
    value.as_str().expect("a string").to_owned()
}

/// Where the first `state` of `id` came in `states`.
fn at(states: &[(String, String)], id: &str, state: &str) -> usize {
    states
        .iter()
        .position(|(i, s)| i == id && s == state)
        .unwrap_or_else(|| panic!("{id} was never {state}: {states:?}"))
}

fn passed(states: &[(String, String)]) -> std::collections::BTreeSet<&str> {
    states
        .iter()
        .filter(|(_, s)| s == "passed")
        .map(|(i, _)| i.as_str())
        .collect()
}

#[test]
fn the_edited_benchmark_and_its_group_run_first_and_a_comment_edits_nothing() {
    let fx = fixture("save_loop");
    let mut client = start(&fx);
    let original = fx.read(FILE);

    // Edit one benchmark's work: its result comes before any other benchmark starts.
    let edited = original.replace(
        "black_box(15), black_box(100)",
        "black_box(15), black_box(101)",
    );
    assert_ne!(edited, original);
    let states = save(&mut client, &fx, &edited, 2);
    assert_eq!(passed(&states).len(), 22, "{states:?}");
    let done = at(&states, "suite::work_15", "passed");
    for other in [
        "suite::work_00",
        "suite::work_14",
        "suite::work_16",
        "suite::pair_base",
    ] {
        assert!(
            done < at(&states, other, "started"),
            "{other} started first: {states:?}"
        );
    }

    // Edit a group's member: the group's baseline runs with it, before the rest.
    let grouped = edited.replace("black_box(2), black_box(50)", "black_box(2), black_box(51)");
    let states = save(&mut client, &fx, &grouped, 3);
    assert_eq!(passed(&states).len(), 22, "{states:?}");
    let group_done =
        at(&states, "suite::pair_member", "passed").max(at(&states, "suite::pair_base", "passed"));
    assert!(
        group_done < at(&states, "suite::work_00", "started"),
        "{states:?}"
    );

    // A comment and a blank line are not code: every case of the file starts in one process
    // before any passes, as a save of an unedited file runs.
    let commented = grouped.replace(
        "fn work_07() -> u64 {\n",
        "fn work_07() -> u64 {\n    // Only a comment.\n\n",
    );
    assert_ne!(commented, grouped);
    let states = save(&mut client, &fx, &commented, 4);
    assert_eq!(passed(&states).len(), 22, "{states:?}");
    let first_passed = states.iter().position(|(_, s)| s == "passed").unwrap();
    for id in ["suite::work_07", "suite::work_19", "suite::pair_member"] {
        assert!(
            at(&states, id, "started") < first_passed,
            "{id}: {states:?}"
        );
    }
    assert!(client.shutdown().success());
}
