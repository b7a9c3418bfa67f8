//! The daemon's edges over a real stdio connection, without builds (a scripted bench binary
//! where a run is needed, see `common::scripted`): wrong `Content-Length` headers, `$/`
//! requests, `exit` without `shutdown`, runs of ids that match nothing, and the diagnostic for
//! a bench target without `harness = false`.

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
