//! The daemon's edges over a real stdio connection, without builds (a scripted bench binary
//! where a run is needed, see `common::scripted`): wrong `Content-Length` headers, `$/`
//! requests, `exit` without `shutdown`, runs of ids that match nothing or with a misspelled
//! field, and the diagnostic for a bench target without `harness = false`.

use crate::common;

use std::time::{Duration, Instant};

use common::scripted::Scripted;
use common::{fixture, Client};
use serde_json::{json, Value};

const WAIT: Duration = Duration::from_secs(30);

fn start(root: &std::path::Path, cargo: Option<&std::path::Path>) -> Client {
    let history = root.join("history.db");
    let mut client = Client::spawn_with(root, |c| {
        c.env("KNOTMETER_HISTORY", &history)
            .env_remove("CARGO_TARGET_DIR");
        if let Some(cargo) = cargo {
            c.env("CARGO", cargo);
        }
    });
    client.initialize(root, json!({"caseTimeoutSecs": 10}));
    client
}

/// A client that counts characters instead of bytes: the request with "é" gets an error with
/// its id, and the connection goes on (it used to be desynchronised for good).
#[test]
fn a_content_length_counted_in_characters_gets_an_error_and_the_connection_goes_on() {
    let fx = fixture("empty");
    let mut client = start(&fx.root(), None);
    let body = json!({"jsonrpc": "2.0", "id": 900, "method": "knotmeter/history",
                      "params": {"id": "café::crème"}})
    .to_string();
    client.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.chars().count()).as_bytes());
    let reply = client.response(900, WAIT);
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains("not characters"), "{message}");
    // Too long this time, and nothing after it: answered within a moment, not never.
    let body = json!({"jsonrpc": "2.0", "id": 901, "method": "knotmeter/discover", "params": {}})
        .to_string();
    let asked = Instant::now();
    client.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len() + 12).as_bytes());
    let reply = client.response(901, WAIT);
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    assert!(asked.elapsed() < Duration::from_secs(5));
    // Still in step.
    let discover = client.request("knotmeter/discover", json!({}));
    assert_eq!(discover["result"]["items"], json!([]), "{discover}");
    assert!(client.shutdown().success());
}

/// `$/…` requests get MethodNotFound (they got no answer at all); `$/…` notifications are
/// ignored.
#[test]
fn dollar_requests_get_method_not_found() {
    let fx = fixture("empty");
    let mut client = start(&fx.root(), None);
    client.notify("$/setTrace", json!({"value": "off"}));
    let reply = client.request("$/knotmeter/unknown", json!({}));
    assert_eq!(reply["error"]["code"], -32601, "{reply}");
    assert!(client.shutdown().success());
}

/// LSP: the server exits with 1 when `exit` comes without `shutdown` (it exited 0).
#[test]
fn exit_without_shutdown_is_status_1() {
    let fx = fixture("empty");
    let mut client = start(&fx.root(), None);
    client.notify("exit", Value::Null);
    let status = client.wait_for_exit(Duration::from_secs(10));
    assert_eq!(status.code(), Some(1), "{status:?}");
}

/// `knotmeter/run` naming only ids that are not in the tree is an error (it ended silently);
/// unknown ids beside known ones end `errored`, and the client is shown a message.
#[test]
fn a_run_of_ids_that_match_nothing_says_so() {
    let sc = Scripted::new(json!({"cases": {"a": {"kind": "pass"}}}));
    let mut client = start(&sc.root(), Some(&sc.cargo()));
    let reply = client.request(
        "knotmeter/run",
        json!({"include": ["sc::gone", "sc::also_gone"]}),
    );
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("nothing to run: no benchmark has the id `sc::gone`, `sc::also_gone`"),
        "{message}"
    );
    let reply = client.request("knotmeter/run", json!({"include": ["sc::a", "sc::gone"]}));
    let run_id = reply["result"]["runId"].as_i64().unwrap();
    let warning = client.notification("window/showMessage", WAIT, |p| {
        p["message"].as_str().unwrap().contains("`sc::gone`")
    });
    assert_eq!(warning["type"], 2, "a warning: {warning}");
    client.run_to_end(run_id, WAIT);
    let finals = client.finals(run_id);
    assert!(
        finals.contains(&("sc::a".to_owned(), "passed".to_owned())),
        "{finals:?}"
    );
    assert!(
        finals.contains(&("sc::gone".to_owned(), "errored".to_owned())),
        "{finals:?}"
    );
    assert!(client.shutdown().success());
}

/// Issue 21, item 5: `knotmeter/run` with a misspelled field (`inclde`) ran the whole
/// workspace, the field ignored as unknown. It is a `-32602` error naming the field now, from
/// `knotmeter/run` and from the `knotmeter.run` command alike; nothing runs, and the daemon
/// goes on serving.
#[test]
fn a_run_with_a_misspelled_field_is_refused_and_runs_nothing() {
    let sc = Scripted::new(json!({"cases": {"a": {"kind": "pass"}, "b": {"kind": "pass"}}}));
    let mut client = start(&sc.root(), Some(&sc.cargo()));
    let reply = client.request("knotmeter/run", json!({"inclde": ["sc::a"]}));
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains("unknown field `inclde`"), "{message}");
    let command = client.request(
        "workspace/executeCommand",
        json!({"command": "knotmeter.run", "arguments": [{"inclde": ["sc::a"]}]}),
    );
    assert_eq!(command["error"]["code"], -32602, "{command}");
    let message = command["error"]["message"].as_str().unwrap();
    assert!(message.contains("unknown field `inclde`"), "{message}");
    // Still serving; and the only run is this one, of `sc::a`.
    let reply = client.request("knotmeter/run", json!({"include": ["sc::a"]}));
    let run_id = reply["result"]["runId"].as_i64().unwrap();
    client.run_to_end(run_id, WAIT);
    assert_eq!(
        client.finals(run_id),
        [("sc::a".to_owned(), "passed".to_owned())]
    );
    let other_runs: Vec<String> = client
        .log
        .iter()
        .filter(|r| {
            r.message["method"]
                .as_str()
                .unwrap()
                .starts_with("knotmeter/")
        })
        .map(|r| &r.message["params"])
        .filter(|p| p.get("runId").is_some_and(|id| *id != run_id))
        .map(|p| p.to_string())
        .collect();
    assert_eq!(other_runs, Vec::<String>::new(), "nothing else ran");
    assert_eq!(sc.builds(), 1, "one build, for the one run");
    assert!(client.shutdown().success());
}

/// A bench target without `harness = false`: a diagnostic on its `[[bench]]` entry, and its
/// items errored with the explanation, without a build.
#[test]
fn a_missing_harness_false_is_a_diagnostic_on_the_bench_entry() {
    let sc = Scripted::new(json!({"cases": {"a": {"kind": "pass"}}}));
    let manifest = std::fs::read_to_string(sc.path("Cargo.toml")).unwrap();
    sc.fx
        .write("Cargo.toml", &manifest.replace("harness = false\n", ""));
    let mut client = start(&sc.root(), Some(&sc.cargo()));
    let uri = sc.fx.uri("Cargo.toml");
    let diagnostics = client.notification("textDocument/publishDiagnostics", WAIT, |p| {
        p["uri"] == uri.as_str()
    });
    let first = &diagnostics["diagnostics"][0];
    let entry_line = manifest.lines().position(|l| l == "[[bench]]").unwrap();
    assert_eq!(first["range"]["start"]["line"], entry_line, "{diagnostics}");
    assert_eq!(first["severity"], 1);
    assert_eq!(first["code"], "harness");
    assert!(
        first["message"]
            .as_str()
            .unwrap()
            .contains("harness = false"),
        "{diagnostics}"
    );
    let reply = client.request("knotmeter/run", json!({}));
    let run_id = reply["result"]["runId"].as_i64().unwrap();
    let states = client.run_to_end(run_id, WAIT);
    assert_eq!(
        client.finals(run_id),
        [("sc::a".to_owned(), "errored".to_owned())]
    );
    let message = states
        .iter()
        .rev()
        .find_map(|s| s["message"].as_str())
        .unwrap();
    assert!(message.contains("needs `harness = false`"), "{message}");
    assert_eq!(sc.builds(), 0, "not built");
    // Mended on disk: the diagnostic goes.
    sc.fx.write("Cargo.toml", &manifest);
    let cleared = client.notification("textDocument/publishDiagnostics", WAIT, |p| {
        p["uri"] == uri.as_str() && p["diagnostics"] == json!([])
    });
    assert_eq!(cleared["diagnostics"], json!([]));
    assert!(client.shutdown().success());
}

/// Without a `[[bench]]` entry, the diagnostic goes on the bench file, at `main!`.
#[test]
fn a_missing_bench_entry_is_a_diagnostic_on_the_bench_file() {
    let sc = Scripted::new(json!({"cases": {"a": {"kind": "pass"}}}));
    let manifest = std::fs::read_to_string(sc.path("Cargo.toml")).unwrap();
    sc.fx.write(
        "Cargo.toml",
        &manifest.replace("[[bench]]\nname = \"sc\"\nharness = false\n", ""),
    );
    let mut client = start(&sc.root(), Some(&sc.cargo()));
    let uri = sc.fx.uri("benches/sc.rs");
    let diagnostics = client.notification("textDocument/publishDiagnostics", WAIT, |p| {
        p["uri"] == uri.as_str()
    });
    let first = &diagnostics["diagnostics"][0];
    assert_eq!(
        first["range"]["start"]["line"], 2,
        "at main!: {diagnostics}"
    );
    assert!(first["message"]
        .as_str()
        .unwrap()
        .contains("needs a [[bench]] entry with `harness = false`"));
    assert!(client.shutdown().success());
}

/// The daemon over stdio in a workspace of `sc`, with the default case timeout (120 s), a
/// history of its own, and `marker` on every process it starts.
fn start_marked(sc: &Scripted, marker: &common::Marker) -> Client {
    let root = sc.root();
    let history = root.join("history.db");
    let cargo = sc.cargo();
    let mut client = Client::spawn_with(&root, |c| {
        c.env("KNOTMETER_HISTORY", &history)
            .env("CARGO", &cargo)
            .env_remove("CARGO_TARGET_DIR");
        marker.mark(c);
    });
    client.initialize(&root, json!({}));
    client
}

/// Issue 21, in the editor: a benchmark's set-up starts `sleep 400`, which inherits the bench
/// binary's standard output and error. `knotmeter/runEnd` came 120 s after the case passed,
/// and a run queued behind waited as long, with nothing saying why. Both end now in seconds.
#[test]
fn a_child_holding_the_pipes_open_delayed_run_end_and_the_next_run_120_s() {
    let marker = common::Marker::new();
    let sc = Scripted::new(json!({"cases": {
        "spawns": {"kind": "pass", "spawn": [{"secs": 400}]},
    }}));
    let mut client = start_marked(&sc, &marker);
    let started = Instant::now();
    let first = client.request("knotmeter/run", json!({}))["result"]["runId"].clone();
    let second = client.request("knotmeter/run", json!({}))["result"]["runId"].clone();
    for run_id in [first.as_i64().unwrap(), second.as_i64().unwrap()] {
        client.run_to_end(run_id, WAIT);
        assert_eq!(
            client.finals(run_id),
            [("sc::spawns".to_owned(), "passed".to_owned())]
        );
    }
    assert!(started.elapsed() < WAIT, "{:?}", started.elapsed());
    assert!(client.shutdown().success());
}

/// Issue 21, in the editor: 50 MB of 100-byte lines became 500 000 `knotmeter/output`
/// notifications (100 MB: a million, `runEnd` after 60 s, 458 MB resident), and one line of
/// 20 MB one notification of 20 MB. Lines now go out gathered, at most 256 KiB of text per
/// notification; a line longer than 64 KiB is cut, saying how much of it was dropped.
#[test]
fn a_flood_of_prints_was_one_notification_per_line_and_a_huge_line_one_huge_notification() {
    let marker = common::Marker::new();
    let sc = Scripted::new(json!({"cases": {
        "flood": {"kind": "pass", "print": {"lines": 500_000, "width": 100, "line_bytes": 20_000_000}},
    }}));
    let mut client = start_marked(&sc, &marker);
    let run_id = client.request("knotmeter/run", json!({}))["result"]["runId"]
        .as_i64()
        .unwrap();
    client.run_to_end(run_id, WAIT);
    let peak_mib = common::peak_resident_kib(client.pid()).unwrap() / 1024;
    assert_eq!(
        client.finals(run_id),
        [("sc::flood".to_owned(), "passed".to_owned())]
    );
    let texts: Vec<&str> = client
        .log
        .iter()
        .filter(|r| {
            r.message["method"] == "knotmeter/output" && r.message["params"]["runId"] == run_id
        })
        .map(|r| r.message["params"]["text"].as_str().unwrap())
        .collect();
    assert!(texts.len() < 2_000, "{} notifications", texts.len());
    let longest = texts.iter().map(|t| t.len()).max().unwrap();
    assert!(longest <= 300 * 1024, "a notification of {longest} bytes");
    let all = texts.concat();
    assert!(all.contains("first printed line"));
    assert!(all.contains("last printed line"));
    assert!(
        all.contains("bytes of this line dropped"),
        "the long line is cut and says so"
    );
    // Wide margin: the daemon's own memory is some tens of MiB.
    assert!(peak_mib < 200, "peak resident memory {peak_mib} MiB");
    assert!(client.shutdown().success());
}
