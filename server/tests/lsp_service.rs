//! The LSP service driven in memory (no process, no build), each test under a timeout:
//! discovery, unsaved text (no tree pushed per edit to a client that only knows LSP), code
//! lenses and hovers before a run,
//! errors for bad requests, and workspaces without benchmarks.

use crate::common;

use std::time::Duration;

use serde_json::{json, Value};
use tower::{Service, ServiceExt};
use tower_lsp_server::jsonrpc::{Request, Response};
use tower_lsp_server::LspService;

use common::in_process::with_timeout;
use knotmeter_server::lsp::Backend;

struct Harness {
    service: LspService<Backend>,
    /// Everything the server sends to the client, drained continuously (the server waits
    /// when the client does not read).
    from_server: tokio::sync::mpsc::UnboundedReceiver<Value>,
    next_id: i64,
}

impl Harness {
    fn new() -> Self {
        let (service, from_server) = common::in_process::connect();
        Self {
            service,
            from_server,
            next_id: 1,
        }
    }

    async fn call(&mut self, request: Request) -> Option<Response> {
        self.service
            .ready()
            .await
            .unwrap()
            .call(request)
            .await
            .unwrap()
    }

    /// A request; returns the response as JSON (`result` or `error`).
    async fn request(&mut self, method: &'static str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let request = Request::build(method).id(id).params(params).finish();
        let response = self.call(request).await.expect("a response");
        serde_json::to_value(response).unwrap()
    }

    async fn notify(&mut self, method: &'static str, params: Value) {
        let request = Request::build(method).params(params).finish();
        assert!(self.call(request).await.is_none());
    }

    async fn initialize(&mut self, root: &std::path::Path) {
        let uri = format!("file://{}", root.display());
        let response = self
            .request(
                "initialize",
                json!({"processId": null, "rootUri": uri, "capabilities": {}}),
            )
            .await;
        assert!(response.get("result").is_some(), "{response}");
        self.notify("initialized", json!({})).await;
    }

    /// The next message to the client with `method`, skipping others.
    async fn next(&mut self, method: &str) -> Value {
        loop {
            let value = self
                .from_server
                .recv()
                .await
                .expect("the client socket is open");
            if value["method"] == method {
                return value["params"].clone();
            }
        }
    }

    /// Waits for a pushed tree that holds `id` (earlier pushes, such as the empty tree of a
    /// workspace that does not load, are skipped).
    async fn next_tree_with(&mut self, id: &str) {
        loop {
            let pushed = self.next("knotmeter/discovered").await;
            if ids(&pushed["items"]).iter().any(|i| i == id) {
                return;
            }
        }
    }

    /// Whether a message with `method` arrives within `wait`.
    async fn arrives(&mut self, method: &str, wait: Duration) -> bool {
        tokio::time::timeout(wait, self.next(method)).await.is_ok()
    }
}

fn ids(items: &Value) -> Vec<String> {
    items
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn discover_returns_the_tree_with_engine_ids_and_ranges() {
    let fixture = common::fixture("basic");
    with_timeout(Duration::from_secs(30), async {
        let mut h = Harness::new();
        h.initialize(&fixture.root()).await;
        let response = h.request("knotmeter/discover", json!({})).await;
        let items = &response["result"]["items"];
        let ids = ids(items);
        assert_eq!(ids[0], "pkg:basic-fixture");
        assert_eq!(ids[1], "target:basic-fixture/basic");
        for expected in [
            "basic::plain",
            "basic::signed/-5",
            "basic::signed/1<<3",
            "basic::strings/\"a b\"",
            "basic::inline::deeper::deepest/2",
            "basic::nested::from_file",
            "basic::nested::child::first",
        ] {
            assert!(ids.contains(&expected.to_owned()), "{expected} in {ids:?}");
        }
        let first = items
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["id"] == "basic::nested::child::first")
            .unwrap();
        assert_eq!(first["kind"], "bench");
        assert_eq!(first["parent"], "target:basic-fixture/basic");
        assert_eq!(first["group"], "pair");
        assert_eq!(first["uri"], fixture.uri("benches/nested/child.rs"));
        // `#[bench(group = "pair", baseline)]` is on line 3 (index 2); the body ends on 6.
        assert_eq!(first["range"]["start"], json!({"line": 2, "character": 0}));
        assert_eq!(first["range"]["end"], json!({"line": 5, "character": 1}));
        let case = items
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["id"] == "basic::signed/1<<3")
            .unwrap();
        assert_eq!(case["kind"], "case");
        assert_eq!(case["label"], "1<<3");
        assert_eq!(case["parent"], "basic::signed");
    });
}

/// Unsaved text is discovered: `knotmeter/discover` answers with the editor's text, keeps the
/// last good tree through a syntax error and goes back to the disk's text on close. This client
/// announced no `treeChanged`, so after the first tree it is sent none per edit (it was sent the
/// whole tree after each; scale.rs measures it on a large workspace).
#[test]
fn unsaved_text_is_discovered_and_a_plain_client_is_sent_no_tree_per_edit() {
    let fixture = common::fixture("basic");
    with_timeout(Duration::from_secs(30), async {
        let mut h = Harness::new();
        h.initialize(&fixture.root()).await;
        // The first tree is pushed after `initialized`.
        let pushed = h.next("knotmeter/discovered").await;
        assert!(ids(&pushed["items"]).contains(&"basic::plain".to_owned()));
        let third = "basic::nested::child::third/3".to_owned();

        let uri = fixture.uri("benches/nested/child.rs");
        let text = fixture.read("benches/nested/child.rs");
        h.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "rust", "version": 1, "text": text}}),
        )
        .await;
        let added = format!("{text}\n#[bench(args = [3])]\nfn third(n: u64) -> u64 {{ n }}\n");
        h.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": added}]}),
        )
        .await;
        let tree = h.request("knotmeter/discover", json!({})).await;
        assert!(ids(&tree["result"]["items"]).contains(&third));

        // A syntax error while typing keeps the last good tree.
        let broken = format!("{added}\nfn oops( {{");
        h.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": broken}]}),
        )
        .await;
        let tree = h.request("knotmeter/discover", json!({})).await;
        assert!(ids(&tree["result"]["items"]).contains(&third));

        // Closing without saving goes back to the disk's text.
        h.notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
        let tree = h.request("knotmeter/discover", json!({})).await;
        assert!(!ids(&tree["result"]["items"]).contains(&third));
        assert!(
            !h.arrives("knotmeter/discovered", Duration::from_millis(300))
                .await,
            "a tree pushed after an edit"
        );
    });
}

#[test]
fn lenses_and_hovers_before_any_run() {
    let fixture = common::fixture("basic");
    // A target directory of its own, so its history (read when the workspace loads) is empty.
    let target = fixture.root().join("target");
    fixture.write(
        ".cargo/config.toml",
        &format!("[build]\ntarget-dir = \"{}\"\n", target.display()),
    );
    with_timeout(Duration::from_secs(30), async {
        let mut h = Harness::new();
        h.initialize(&fixture.root()).await;
        let uri = fixture.uri("benches/basic.rs");
        let lenses = h
            .request(
                "textDocument/codeLens",
                json!({"textDocument": {"uri": uri}}),
            )
            .await;
        let lenses = lenses["result"].as_array().unwrap().clone();
        // One "▶ Run", one "⇄ Compare with base" and one "◔ Profile" per benchmark of the file
        // (nested files have their own).
        assert_eq!(lenses.len(), 30, "{lenses:?}");
        let compare = &lenses[1];
        assert_eq!(compare["command"]["title"], "⇄ Compare with base");
        assert_eq!(
            compare["command"]["arguments"][0],
            json!({"include": ["basic::plain"], "compare": ""})
        );
        let profile = &lenses[2];
        assert_eq!(profile["command"]["title"], "◔ Profile");
        assert_eq!(
            profile["command"]["arguments"][0],
            json!({"include": ["basic::plain"], "profile": true})
        );
        let plain = &lenses[0];
        assert_eq!(plain["command"]["title"], "▶ Run");
        assert_eq!(plain["command"]["command"], "knotmeter.run");
        assert_eq!(
            plain["command"]["arguments"][0],
            json!({"include": ["basic::plain"]})
        );
        // `fn plain` is on line 8 (index 7), the name at column 3.
        assert_eq!(plain["range"]["start"], json!({"line": 7, "character": 3}));

        let hover = h
            .request(
                "textDocument/hover",
                json!({"textDocument": {"uri": uri}, "position": {"line": 7, "character": 5}}),
            )
            .await;
        let text = hover["result"]["contents"]["value"].as_str().unwrap();
        assert!(
            text.contains("basic::plain") && text.contains("Not measured yet"),
            "{text}"
        );
        let nothing = h
            .request(
                "textDocument/hover",
                json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}),
            )
            .await;
        assert_eq!(nothing["result"], Value::Null);
        let hints = h
            .request(
                "textDocument/inlayHint",
                json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 99, "character": 0}}}),
            )
            .await;
        assert_eq!(hints["result"], json!([]));
    });
}

#[test]
fn bad_requests_get_json_rpc_errors_and_the_server_keeps_serving() {
    let fixture = common::fixture("basic");
    with_timeout(Duration::from_secs(30), async {
        let mut h = Harness::new();
        h.initialize(&fixture.root()).await;
        let unknown = h.request("knotmeter/frobnicate", json!({})).await;
        assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
        let invalid = h.request("knotmeter/run", json!({"mode": "slow"})).await;
        assert_eq!(invalid["error"]["code"], -32602, "{invalid}");
        let invalid = h.request("knotmeter/history", json!({"limit": 3})).await;
        assert_eq!(invalid["error"]["code"], -32602, "{invalid}");
        let command = h
            .request(
                "workspace/executeCommand",
                json!({"command": "rm -rf", "arguments": []}),
            )
            .await;
        assert_eq!(command["error"]["code"], -32602, "{command}");
        // Cancelling a run that does not exist is harmless.
        let cancel = h.request("knotmeter/cancel", json!({"runId": 999})).await;
        assert_eq!(cancel["result"], Value::Null, "{cancel}");
        // Still serving.
        let discover = h.request("knotmeter/discover", json!({})).await;
        assert!(!ids(&discover["result"]["items"]).is_empty());
    });
}

#[test]
fn a_workspace_without_benchmarks_gives_an_empty_tree_and_empty_runs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"nothing\"\nversion = \"0.1.0\"\nedition = \"2021\"\n[workspace]\n",
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), "").unwrap();
    with_timeout(Duration::from_secs(30), async {
        let mut h = Harness::new();
        h.initialize(dir.path()).await;
        let discover = h.request("knotmeter/discover", json!({})).await;
        assert_eq!(discover["result"]["items"], json!([]));
        let run = h.request("knotmeter/run", json!({})).await;
        let run_id = run["result"]["runId"].clone();
        let end = h.next("knotmeter/runEnd").await;
        assert_eq!(end["runId"], run_id);
        // No history yet: no points, no error.
        let history = h
            .request("knotmeter/history", json!({"id": "nothing::x"}))
            .await;
        assert_eq!(history["result"], json!({"points": []}), "{history}");
    });
}

#[test]
fn a_folder_without_a_cargo_manifest_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    with_timeout(Duration::from_secs(30), async {
        let mut h = Harness::new();
        h.initialize(dir.path()).await;
        let message = h.next("window/showMessage").await;
        let text = message["message"].as_str().unwrap();
        assert!(text.contains("no Cargo.toml"), "{text}");
        let discover = h.request("knotmeter/discover", json!({})).await;
        assert_eq!(discover["result"]["items"], json!([]));
        let run = h.request("knotmeter/run", json!({})).await;
        assert!(run["result"]["runId"].is_number());
    });
}

/// A folder whose Cargo.toml appears after start: the watcher sees it and the tree comes, with
/// no refresh asked for (it used to stay empty until a manual refresh).
#[test]
fn a_cargo_manifest_created_after_start_is_loaded() {
    let fixture = common::fixture("basic");
    let root = fixture.root();
    let manifest = fixture.read("Cargo.toml");
    std::fs::remove_file(fixture.path("Cargo.toml")).unwrap();
    with_timeout(Duration::from_secs(30), async {
        let mut h = Harness::new();
        h.initialize(&root).await;
        let message = h.next("window/showMessage").await;
        assert!(message["message"]
            .as_str()
            .unwrap()
            .contains("no Cargo.toml"));
        fixture.write("Cargo.toml", &manifest);
        h.next_tree_with("basic::plain").await;
    });
}

/// A Cargo.toml broken at start and mended on disk: the same.
#[test]
fn a_broken_cargo_manifest_mended_on_disk_is_loaded() {
    let fixture = common::fixture("basic");
    let manifest = fixture.read("Cargo.toml");
    fixture.write("Cargo.toml", &format!("{manifest}\n[[[ not toml\n"));
    with_timeout(Duration::from_secs(30), async {
        let mut h = Harness::new();
        h.initialize(&fixture.root()).await;
        let message = h.next("window/showMessage").await;
        assert!(
            message["message"]
                .as_str()
                .unwrap()
                .contains("cargo metadata"),
            "{message}"
        );
        fixture.write("Cargo.toml", &manifest);
        h.next_tree_with("basic::plain").await;
    });
}
