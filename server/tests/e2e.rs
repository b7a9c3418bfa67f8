//! End-to-end: the real `knotmeter` binary on fixture workspaces copied to temporary
//! directories, driven over stdio by an LSP client (`knotmeter serve`) or run as a command.
//!
//! Fixtures share one cargo target directory (`target/e2e-fixtures`), so the engine is
//! compiled once for the whole suite; each test builds only its tiny fixture crate.

use crate::common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::{fixture, Client, Fixture};
use serde_json::{json, Value};

const BUILD: Duration = Duration::from_secs(300);

/// Fast measurement settings for tests.
fn settings() -> Value {
    json!({"quickTimeSecs": 0.02, "fullTimeSecs": 0.05, "caseTimeoutSecs": 5, "cancelGraceMs": 1000})
}

fn start(fixture: &Fixture, options: Value) -> Client {
    let mut client = Client::spawn(&fixture.root());
    let init = client.initialize(&fixture.root(), options);
    assert_eq!(init["result"]["serverInfo"]["name"], "knotmeter", "{init}");
    client
}

fn run(client: &mut Client, params: Value) -> i64 {
    let response = client.request("knotmeter/run", params);
    response["result"]["runId"]
        .as_i64()
        .unwrap_or_else(|| panic!("{response}"))
}

fn state_of<'a>(finals: &'a [(String, String)], id: &str) -> &'a str {
    finals
        .iter()
        .find(|(i, _)| i == id)
        .map(|(_, s)| s.as_str())
        .unwrap_or_else(|| panic!("{id} has no final state in {finals:?}"))
}

fn message_of(states: &[Value], id: &str) -> String {
    last_with_message(states, id)
        .map(|s| s["message"].as_str().unwrap().to_owned())
        .unwrap_or_default()
}

/// The place in the sources the last state of `id` with a message points at.
fn location_of(states: &[Value], id: &str) -> Value {
    last_with_message(states, id)
        .map(|s| s["location"].clone())
        .unwrap_or_default()
}

/// The last state of `id` that carries a message.
fn last_with_message<'a>(states: &'a [Value], id: &str) -> Option<&'a Value> {
    states
        .iter()
        .rev()
        .find(|s| s["id"] == id && s.get("message").is_some())
}

/// Runs `command`, which must succeed, and returns its standard output.
fn succeed(command: &mut Command) -> Vec<u8> {
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The leaf ids `knotmeter list --format json` discovers, without building.
fn discovered_leaves(dir: &Path) -> Vec<String> {
    let stdout =
        succeed(common::command_in(common::knotmeter(), dir).args(["list", "--format", "json"]));
    let doc: Value = serde_json::from_slice(&stdout).unwrap();
    let items = doc["items"].as_array().unwrap();
    items
        .iter()
        .filter(|i| {
            i["kind"] == "case"
                || (i["kind"] == "bench" && !items.iter().any(|c| c["parent"] == i["id"]))
        })
        .map(|i| i["id"].as_str().unwrap().to_owned())
        .collect()
}

/// Builds the fixture's bench targets and returns what each binary lists.
fn listed_by_binaries(dir: &Path) -> Vec<String> {
    let stdout = succeed(
        common::command_in(
            std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()),
            dir,
        )
        .args(["bench", "--no-run", "--message-format=json"]),
    );
    let mut ids = Vec::new();
    for line in String::from_utf8_lossy(&stdout).lines() {
        let Ok(message) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let is_bench = message["target"]["kind"]
            .as_array()
            .is_some_and(|k| k.iter().any(|k| k == "bench"));
        if message["reason"] != "compiler-artifact" || !is_bench || message["executable"].is_null()
        {
            continue;
        }
        let exe = message["executable"].as_str().unwrap();
        let list = succeed(Command::new(exe).args(["--list", "--format", "json"]));
        let doc: Value = serde_json::from_slice(&list).unwrap();
        ids.extend(
            doc["cases"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["id"].as_str().unwrap().to_owned()),
        );
    }
    ids
}

/// `examples/quickstart` copied into a fixture (its manifest made standalone).
fn quickstart() -> Fixture {
    let fx = fixture("empty");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/quickstart");
    for file in ["src/lib.rs", "benches/quickstart.rs"] {
        fx.write(file, &std::fs::read_to_string(source.join(file)).unwrap());
    }
    let engine = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../engine")
        .canonicalize()
        .unwrap();
    fx.write(
        "Cargo.toml",
        &format!(
            "[package]\nname = \"quickstart\"\nversion = \"{}\"\nedition = \"2021\"\n\n\
             [dev-dependencies]\nknotmeter = {{ path = \"{}\" }}\n\n\
             [[bench]]\nname = \"quickstart\"\nharness = false\n\n[workspace]\n",
            fx.version(),
            engine.display()
        ),
    );
    fx
}

#[test]
fn discovery_ids_equal_the_bench_binaries_ids() {
    for fx in [quickstart(), fixture("basic")] {
        let discovered = discovered_leaves(&fx.root());
        let listed = listed_by_binaries(&fx.root());
        assert!(!listed.is_empty());
        assert_eq!(discovered, listed, "in {}", fx.root().display());
    }
}

#[test]
fn serve_discovers_runs_streams_results_and_answers_history() {
    let fx = fixture("basic");
    let mut client = start(&fx, settings());
    let discover = client.request("knotmeter/discover", json!({}));
    assert!(discover["result"]["items"].as_array().unwrap().len() > 10);

    let run_id = run(
        &mut client,
        json!({"include": ["basic::plain", "basic::signed"], "mode": "quick"}),
    );
    let states = client.run_to_end(run_id, BUILD);
    let leaves = [
        "basic::plain",
        "basic::signed/-5",
        "basic::signed/1<<3",
        "basic::signed/2+2",
    ];
    for id in leaves {
        let mut seen: Vec<&str> = states
            .iter()
            .filter(|s| s["id"] == id)
            .map(|s| s["state"].as_str().unwrap())
            .collect();
        // `passed` comes again with the benchmark's analysis and with the comparison, which
        // arrive later; each carries what to show.
        seen.dedup();
        assert_eq!(seen, ["enqueued", "building", "started", "passed"], "{id}");
        for passed in states
            .iter()
            .filter(|s| s["id"] == id && s["state"] == "passed")
        {
            assert!(passed["shown"]["line"].is_string(), "{passed}");
        }
        let passed = states
            .iter()
            .find(|s| s["id"] == id && s["state"] == "passed")
            .unwrap();
        assert_eq!(passed["result"]["id"], id);
        assert!(passed["result"]["estimate"]["median_ns"].as_f64().unwrap() >= 0.0);
    }
    // Build output, and a table per case, went to knotmeter/output.
    let outputs: Vec<&Value> = client
        .log
        .iter()
        .filter(|r| r.message["method"] == "knotmeter/output")
        .map(|r| &r.message["params"])
        .collect();
    assert!(outputs
        .iter()
        .any(|o| o["text"].as_str().unwrap().contains("cargo bench --no-run")));
    assert!(outputs
        .iter()
        .any(|o| o["id"] == "basic::plain" && o["text"].as_str().unwrap().contains("overhead")));

    // After the run, lenses carry the median, and hovers the table.
    let uri = fx.uri("benches/basic.rs");
    let lenses = client.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
    );
    let titles: Vec<&str> = lenses["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["command"]["title"].as_str().unwrap())
        .collect();
    assert!(titles.iter().any(|t| t.starts_with("-5: ")), "{titles:?}");
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 7, "character": 4}}),
    );
    let text = hover["result"]["contents"]["value"].as_str().unwrap();
    assert!(
        text.contains("basic::plain")
            && text.contains("overhead")
            && text.contains("where a rerun"),
        "{text}"
    );
    let hints = client.request(
        "textDocument/inlayHint",
        json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 80, "character": 0}}}),
    );
    assert_eq!(hints["result"].as_array().unwrap().len(), 4, "{hints}");

    // The engine recorded the run; the daemon reads it back.
    let history = client.request(
        "knotmeter/history",
        json!({"id": "basic::plain", "limit": 5}),
    );
    let points = history["result"]["points"].as_array().unwrap();
    assert!(!points.is_empty(), "{history}");
    assert!(points[0]["medianNs"].is_number());
    assert!(points[0]["budgetMs"].is_number(), "{history}");

    // The `args` benchmark's analysis comes with a second `passed` of each case; in a second
    // run too, a case is first reported alone and then again with this run's analysis.
    for (run_id, states) in [(run_id, states.clone()), {
        let again = run(
            &mut client,
            json!({"include": ["basic::signed"], "mode": "quick"}),
        );
        (again, client.run_to_end(again, BUILD))
    }] {
        for id in &leaves[1..] {
            let passed: Vec<&Value> = states
                .iter()
                .filter(|s| s["id"] == *id && s["state"] == "passed")
                .collect();
            assert!(passed.len() >= 2, "run {run_id}, {id}: {passed:?}");
            assert!(passed[0].get("bench").is_none(), "{}", passed[0]);
            let last = passed.last().unwrap();
            assert_eq!(last["bench"]["id"], "basic::signed", "{last}");
            assert_eq!(
                last["bench"]["points"].as_array().unwrap().len(),
                2,
                "{last}"
            );
        }
    }

    let status = client.shutdown();
    assert!(status.success(), "{status:?}");
}

#[test]
fn panics_crashes_hangs_and_garbage_are_reported_and_the_rest_still_runs() {
    let fx = fixture("basic");
    let mut client = start(&fx, json!({"quickTimeSecs": 0.02, "caseTimeoutSecs": 3}));
    let run_id = run(
        &mut client,
        json!({"include": [
            "basic::plain", "basic::faults::panics", "basic::faults::aborts",
            "basic::faults::hangs", "basic::faults::slow", "basic::faults::noisy"
        ], "mode": "quick"}),
    );
    let states = client.run_to_end(run_id, BUILD);
    let finals = client.finals(run_id);
    assert_eq!(state_of(&finals, "basic::plain"), "passed");
    assert_eq!(state_of(&finals, "basic::faults::panics"), "failed");
    assert!(message_of(&states, "basic::faults::panics").contains("boom at 42"));
    assert!(message_of(&states, "basic::faults::panics").contains("basic.rs"));
    // The panic's place as structure (the editor showed it by searching the message's text).
    let panicked = location_of(&states, "basic::faults::panics");
    assert!(
        panicked["file"]
            .as_str()
            .unwrap()
            .ends_with("benches/basic.rs")
            && panicked["line"] == 44,
        "{panicked}"
    );
    assert_eq!(state_of(&finals, "basic::faults::aborts"), "errored");
    assert!(message_of(&states, "basic::faults::aborts").contains("SIGABRT"));
    assert_eq!(state_of(&finals, "basic::faults::hangs"), "errored");
    // The time is the one waited, which a loaded machine makes 3.1 s (the limit is 3 s).
    let hung = message_of(&states, "basic::faults::hangs");
    assert!(
        hung.contains("hung: its first step (the cold call) had not ended after 3")
            && hung.contains("the limit set by --case-timeout"),
        "{hung}"
    );
    assert_eq!(state_of(&finals, "basic::faults::slow"), "passed");
    assert_eq!(state_of(&finals, "basic::faults::noisy"), "passed");
    // What the benchmark printed reaches the user as its case's output, and is never taken
    // for an event (the engine keeps standard output for events: docs/json-format.md).
    let noisy: Vec<&str> = client
        .log
        .iter()
        .filter(|r| {
            r.message["method"] == "knotmeter/output"
                && r.message["params"]["id"] == "basic::faults::noisy"
        })
        .map(|r| r.message["params"]["text"].as_str().unwrap())
        .collect();
    assert!(
        noisy
            .iter()
            .flat_map(|t| t.lines())
            .any(|l| l.starts_with("{this is not an event{\"event\":\"case_failed\"")),
        "{noisy:?}"
    );
    assert!(
        !noisy.iter().any(|t| t.contains("unreadable event")),
        "{noisy:?}"
    );
    assert!(client.shutdown().success());
}

#[test]
fn cancel_stops_at_a_sample_boundary_and_skips_the_rest() {
    let fx = fixture("basic");
    let mut client = start(&fx, json!({"fullTimeSecs": 30, "cancelGraceMs": 3000}));
    let run_id = run(
        &mut client,
        json!({"include": ["basic::faults::slow", "basic::nested::from_file"], "mode": "full"}),
    );
    client.notification("knotmeter/runState", BUILD, |p| {
        p["runId"] == run_id && p["state"] == "started"
    });
    // Let it take a few samples.
    std::thread::sleep(Duration::from_millis(700));
    let asked = Instant::now();
    let cancel = client.request("knotmeter/cancel", json!({"runId": run_id}));
    assert_eq!(cancel["result"], Value::Null);
    let states = client.run_to_end(run_id, Duration::from_secs(10));
    assert!(
        asked.elapsed() < Duration::from_secs(5),
        "{:?}",
        asked.elapsed()
    );
    let finals = client.finals(run_id);
    assert_eq!(finals.len(), 2, "{finals:?}");
    assert!(finals.iter().all(|(_, s)| s == "skipped"), "{finals:?}");
    // The case in progress reports what it measured, marked partial.
    let partial = states
        .iter()
        .find(|s| s["state"] == "skipped" && s.get("result").is_some());
    if let Some(partial) = partial {
        assert_eq!(partial["result"]["partial"], true);
    } else {
        panic!("no partial result in {states:?}");
    }
    assert!(client.shutdown().success());
}

#[test]
fn run_on_save_reruns_the_saved_file_and_coalesces_rapid_saves() {
    let fx = fixture("basic");
    let mut options = settings();
    options["runOnSave"] = json!(true);
    let mut client = start(&fx, options);
    let uri = fx.uri("benches/nested/child.rs");
    let text = fx.read("benches/nested/child.rs");
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "rust", "version": 1, "text": text}}),
    );
    let edited = text.replace(
        "work(knotmeter::black_box(20))",
        "work(knotmeter::black_box(30))",
    );
    fx.write("benches/nested/child.rs", &edited);
    for version in 2..5 {
        client.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": edited}]}),
        );
        client.notify(
            "textDocument/didSave",
            json!({"textDocument": {"uri": uri}, "text": edited}),
        );
    }
    let first = client.notification("knotmeter/runState", BUILD, |p| p["state"] == "enqueued");
    let run_id = first["runId"].as_i64().unwrap();
    let states = client.run_to_end(run_id, BUILD);
    let finals = client.finals(run_id);
    assert_eq!(
        finals,
        [
            (
                "basic::nested::child::first".to_owned(),
                "passed".to_owned()
            ),
            (
                "basic::nested::child::second".to_owned(),
                "passed".to_owned()
            )
        ],
        "{states:?}"
    );
    // Three saves, one run.
    std::thread::sleep(Duration::from_millis(600));
    client.notification("knotmeter/discovered", Duration::from_millis(1), |_| true);
    let runs: std::collections::BTreeSet<i64> = client
        .log
        .iter()
        .filter(|r| r.message["method"] == "knotmeter/runState")
        .map(|r| r.message["params"]["runId"].as_i64().unwrap())
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert!(client.shutdown().success());
}

#[test]
fn a_compile_error_becomes_a_diagnostic_and_errored_items() {
    let fx = fixture("basic");
    let broken = fx.read("benches/nested/child.rs").replace(
        "basic_fixture::work(knotmeter::black_box(20))",
        "let x: u64 = \"text\"; x",
    );
    fx.write("benches/nested/child.rs", &broken);
    let mut client = start(&fx, settings());
    let run_id = run(
        &mut client,
        json!({"include": ["basic::nested::child::first"]}),
    );
    let diagnostics = client.notification("textDocument/publishDiagnostics", BUILD, |p| {
        p["uri"]
            .as_str()
            .unwrap()
            .ends_with("benches/nested/child.rs")
    });
    let first = &diagnostics["diagnostics"][0];
    assert_eq!(first["severity"], 1, "{diagnostics}");
    assert_eq!(first["range"]["start"]["line"], 4, "{diagnostics}");
    assert_eq!(first["code"], "E0308");
    let states = client.run_to_end(run_id, BUILD);
    assert_eq!(
        state_of(&client.finals(run_id), "basic::nested::child::first"),
        "errored"
    );
    let message = message_of(&states, "basic::nested::child::first");
    // The first line, which editors show inline, is rustc's first error with its place.
    assert_eq!(
        message.lines().next(),
        Some("the build failed: error[E0308]: mismatched types at benches/nested/child.rs:5:18"),
        "{message}"
    );
    // The same place as structure, for the editor to show the message at.
    let at = location_of(&states, "basic::nested::child::first");
    assert!(
        at["file"]
            .as_str()
            .unwrap()
            .ends_with("benches/nested/child.rs")
            && (at["line"].clone(), at["character"].clone()) == (json!(4), json!(17)),
        "{at}"
    );

    // Editing the file makes its compiler errors stale: they are cleared at once, not at the
    // next build (stale_compile_errors_stay_in_problems).
    let uri = fx.uri("benches/nested/child.rs");
    let fixed = broken.replace("let x: u64 = \"text\"; x", "20");
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "rust", "version": 1, "text": broken}}),
    );
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": fixed}]}),
    );
    client.notification(
        "textDocument/publishDiagnostics",
        Duration::from_secs(10),
        |p| {
            p["uri"]
                .as_str()
                .unwrap()
                .ends_with("benches/nested/child.rs")
                && p["diagnostics"].as_array().is_some_and(|d| d.is_empty())
        },
    );
    client.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri}}),
    );

    // A file deleted before a run: reported, and the daemon keeps going.
    std::fs::remove_file(fx.path("benches/nested/child.rs")).unwrap();
    let run_id = run(
        &mut client,
        json!({"include": ["basic::nested::from_file"]}),
    );
    client.run_to_end(run_id, BUILD);
    assert_eq!(
        state_of(&client.finals(run_id), "basic::nested::from_file"),
        "errored"
    );
    let discover = client.request("knotmeter/discover", json!({}));
    let ids: Vec<&str> = discover["result"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"basic::plain") && !ids.contains(&"basic::nested::child::first"));
    assert!(client.shutdown().success());
}

#[test]
fn malformed_input_gets_errors_and_the_server_keeps_serving() {
    let fx = fixture("basic");
    let mut client = start(&fx, settings());
    client.send_raw(b"Content-Length: 9\r\n\r\n{garbage}");
    let error = client.response_with_null_id(Duration::from_secs(10));
    assert_eq!(error["error"]["code"], -32700, "{error}");
    let unknown = client.request("knotmeter/nope", json!({}));
    assert_eq!(unknown["error"]["code"], -32601);
    let invalid = client.request("knotmeter/cancel", json!({"runId": "x"}));
    assert_eq!(invalid["error"]["code"], -32602);
    let discover = client.request("knotmeter/discover", json!({}));
    assert!(discover["result"]["items"].as_array().is_some());
    assert!(client.shutdown().success());
}

#[test]
fn shutdown_kills_a_running_bench() {
    let fx = fixture("basic");
    let mut client = start(&fx, json!({"caseTimeoutSecs": 600}));
    let run_id = run(&mut client, json!({"include": ["basic::faults::hangs"]}));
    client.notification("knotmeter/runState", BUILD, |p| {
        p["runId"] == run_id && p["state"] == "started"
    });
    // This fixture's bench binary: its working directory is the fixture's root.
    let root = fx.root();
    let bench_running = || {
        std::fs::read_dir("/proc").unwrap().flatten().any(|entry| {
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            let cwd = std::fs::read_link(entry.path().join("cwd")).ok();
            let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
            let zombie = stat
                .rsplit(')')
                .next()
                .is_some_and(|s| s.trim_start().starts_with('Z'));
            String::from_utf8_lossy(&cmdline).contains("--stdin-cancel")
                && cwd.as_deref() == Some(root.as_path())
                && !zombie
        })
    };
    assert!(bench_running());
    assert!(client.shutdown().success());
    std::thread::sleep(Duration::from_millis(300));
    assert!(!bench_running(), "the bench binary outlived the daemon");
}

#[test]
fn a_missing_cargo_is_a_clear_error() {
    let fx = fixture("basic");
    let mut client = Client::spawn_with(&fx.root(), |c| {
        c.env("CARGO", "/nonexistent/cargo")
            .env("PATH", "/nonexistent");
    });
    client.initialize(&fx.root(), json!({}));
    let message = client.notification("window/showMessage", Duration::from_secs(10), |_| true);
    assert!(
        message["message"]
            .as_str()
            .unwrap()
            .contains("cannot run cargo"),
        "{message}"
    );
    let out = fx
        .knotmeter()
        .args(["list"])
        .env("CARGO", "/nonexistent/cargo")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot run cargo"));
}

#[test]
fn knotmeter_run_prints_results_and_history_reads_them_back() {
    let fx = quickstart();
    let out = fx
        .knotmeter()
        .args(["run", ".", "chain_n", "--quick", "--time", "0.02"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.starts_with("case "), "{stdout}");
    for n in ["10", "100", "1000", "10000"] {
        assert!(
            stdout.contains(&format!("quickstart::chain_n/{n} ")),
            "{stdout}"
        );
    }
    assert!(
        !stdout.contains("chain_1000"),
        "the filter applies: {stdout}"
    );
    // Not a terminal: plain progress lines.
    // (`warned` rather than `passed` when a loaded machine makes the figure noisy).
    assert!(
        stderr.contains("[1/4] quickstart::chain_n/10 passed")
            || stderr.contains("[1/4] quickstart::chain_n/10 warned"),
        "{stderr}"
    );

    let out = fx
        .knotmeter()
        .args(["history", "quickstart::chain_n/100"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(
        stdout.lines().count() >= 2 && stdout.contains("median"),
        "{stdout}"
    );

    let out = fx
        .knotmeter()
        .args([
            "run",
            "chain_1000",
            "--quick",
            "--time",
            "0.02",
            "--format",
            "jsonl",
        ])
        .output()
        .unwrap();
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["state"], "passed");
    assert_eq!(lines[0]["result"]["id"], "quickstart::chain_1000");
}

/// A compile error under `knotmeter run`: the compiler's message is printed once (it was
/// printed once per case), each case's note names the first error (it read "the build
/// failed:" with nothing after), and the exit status says the build failed.
#[test]
fn knotmeter_run_prints_a_build_error_once_and_names_it_in_the_note() {
    let fx = fixture("basic");
    let broken = fx.read("benches/nested/child.rs").replace(
        "basic_fixture::work(knotmeter::black_box(20))",
        "let x: u64 = \"text\"; x",
    );
    fx.write("benches/nested/child.rs", &broken);
    let out = Command::new(common::knotmeter())
        .args(["run", ".", "basic::"])
        .current_dir(fx.root())
        .env("KNOTMETER_HISTORY", fx.path("history.db"))
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stdout}\n{stderr}");
    let rendered = |text: &str| {
        text.lines()
            .filter(|l| l.starts_with("error[E0308]"))
            .count()
    };
    assert_eq!(rendered(&stderr), 1, "{stderr}");
    assert_eq!(
        rendered(&stdout),
        0,
        "not repeated after the table: {stdout}"
    );
    let note = "the build failed: error[E0308]: mismatched types at benches/nested/child.rs:5:";
    let rows = stdout.lines().filter(|l| l.contains(note)).count();
    assert!(rows > 10, "every case's note names the error: {stdout}");
}

/// A bench target without `harness = false` in a manifest the scan cannot read for sure (a
/// multi-line string makes it step back): the engine's own compile-time check fails the build
/// and says what to add; `knotmeter run` shows it once, names it in the note, and exits 3.
#[test]
fn a_missing_harness_false_the_scan_cannot_see_fails_the_build_with_the_engines_words() {
    let fx = fixture("basic");
    let manifest = fx
        .read("Cargo.toml")
        .replace("harness = false\n", "")
        .replace(
            "publish = false\n",
            "publish = false\ndescription = \"\"\"\nA fixture.\n\"\"\"\n",
        );
    fx.write("Cargo.toml", &manifest);
    let out = Command::new(common::knotmeter())
        .args(["run", ".", "basic::plain", "--format", "json"])
        .current_dir(fx.root())
        .env("KNOTMETER_HISTORY", fx.path("history.db"))
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stdout}\n{stderr}");
    let explained = stderr
        .lines()
        .filter(|l| l.starts_with("error[E0080]") && l.contains("libtest's harness"))
        .count();
    assert_eq!(explained, 1, "{stderr}");
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    let message = doc["items"][0]["message"].as_str().unwrap();
    let first = message.lines().next().unwrap();
    assert!(
        first
            .starts_with("the build failed: error[E0080]: evaluation panicked: knotmeter::main!()")
            && first.ends_with("at benches/basic.rs:84:1"),
        "{first}"
    );
}

/// A bench binary that crashes in a case: `knotmeter run` names the case on standard error,
/// runs the rest in a fresh process, and exits 4 (it exited 1, like a failed benchmark).
#[test]
fn knotmeter_run_names_a_crashed_case_and_exits_4() {
    let fx = fixture("basic");
    let out = Command::new(common::knotmeter())
        .args(["run", ".", "basic::", "--quick", "--time", "0.02"])
        .args(["--skip", "basic::faults::hangs"])
        .current_dir(fx.root())
        .env("KNOTMETER_HISTORY", fx.path("history.db"))
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(
        stderr.contains("knotmeter: `basic::faults::aborts` crashed: the process measuring it was killed by signal SIGABRT"),
        "{stderr}"
    );
    // Measured in the fresh process (`warned` when a loaded machine makes it noisy).
    assert!(
        stderr.contains("basic::plain passed") || stderr.contains("basic::plain warned"),
        "{stderr}"
    );
}

/// A real benchmark whose calls take 1.5 s, with a 1 s case timeout: the engine reports
/// progress after its cold call and after each long step, so the daemon lets it finish (the
/// old fixed per-case timeout killed it after 1 s).
#[test]
fn a_benchmark_slower_per_call_than_the_case_timeout_is_measured() {
    let fx = fixture("slow");
    let out = Command::new(common::knotmeter())
        .args([
            "run",
            ".",
            "--quick",
            "--case-timeout",
            "1",
            "--format",
            "json",
        ])
        .current_dir(fx.root())
        .env("KNOTMETER_HISTORY", fx.path("history.db"))
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let doc: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    let item = &doc["items"][0];
    assert_eq!(item["state"], "passed", "{doc}\n{stderr}");
    assert!(item["result"]["samples"].as_u64().unwrap() >= 1, "{doc}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}

/// `--save-baseline` then a typo in `--baseline`, through `knotmeter run` with the real engine:
/// the engine refuses before measuring; `knotmeter run` shows its words once (naming the saved
/// baseline), measures nothing, prints nothing on standard output, and exits 2.
#[test]
fn knotmeter_run_says_an_unknown_baseline_once_and_exits_2() {
    let fx = fixture("basic");
    let knotmeter_run = |args: &[&str]| {
        Command::new(common::knotmeter())
            .args(["run", ".", "basic::plain", "--quick", "--time", "0.02"])
            .args(args)
            .current_dir(fx.root())
            .env("KNOTMETER_HISTORY", fx.path("history.db"))
            .env_remove("CARGO_TARGET_DIR")
            .output()
            .unwrap()
    };
    let saved = knotmeter_run(&["--save-baseline", "main"]);
    assert!(
        saved.status.success(),
        "{}",
        String::from_utf8_lossy(&saved.stderr)
    );
    for format in ["pretty", "jsonl"] {
        let out = knotmeter_run(&["--baseline", "mian", "--format", format]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert_eq!(
            stderr.matches("no baseline named `mian`").count(),
            1,
            "{stderr}"
        );
        assert!(stderr.contains("main"), "the saved one is named: {stderr}");
        assert!(
            stderr.contains(
                "nothing was measured: the bench binary of `basic` refused its command line"
            ),
            "{stderr}"
        );
        assert!(
            out.stdout.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}
