//! The daemon at scale, from a client's side: tree changes that add up to the tree a fresh
//! discover gives (over a random sequence of edits, renames, deletions and new files), only
//! what changed on the wire per keystroke, lenses and hovers right after an edit answering for
//! it, every workspace folder served, and the watch's fallback said aloud. Run states in
//! batches, raw samples on request and a run across workspace folders are checked with the
//! scripted bench binary.

use crate::common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};
use tower::{Service, ServiceExt};
use tower_lsp_server::jsonrpc::Request;
use tower_lsp_server::LspService;

use common::in_process::with_timeout;
use knotmeter_server::lsp::Backend;

/// An in-memory client that holds the tree as the protocol says a client should.
struct Client {
    service: LspService<Backend>,
    from_server: tokio::sync::mpsc::UnboundedReceiver<Value>,
    next_id: i64,
    /// Items by id, and the version held.
    tree: HashMap<String, Value>,
    version: u64,
    /// Every tree message, in order.
    tree_messages: Vec<Value>,
    /// Every other notification, in order.
    notifications: Vec<Value>,
}

impl Client {
    fn new() -> Self {
        let (service, from_server) = common::in_process::connect();
        Self {
            service,
            from_server,
            next_id: 1,
            tree: HashMap::new(),
            version: 0,
            tree_messages: Vec::new(),
            notifications: Vec::new(),
        }
    }

    async fn request(&mut self, method: &'static str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let request = Request::build(method).id(id).params(params).finish();
        let response = self
            .service
            .ready()
            .await
            .unwrap()
            .call(request)
            .await
            .unwrap()
            .expect("a response");
        serde_json::to_value(response).unwrap()
    }

    async fn notify(&mut self, method: &'static str, params: Value) {
        let request = Request::build(method).params(params).finish();
        let none = self.service.ready().await.unwrap().call(request).await;
        assert!(none.unwrap().is_none());
    }

    async fn initialize(&mut self, roots: &[&Path]) {
        self.initialize_with(roots, json!({"treeChanged": true, "runStates": true}))
            .await;
    }

    /// `initialize` announcing `features` (`{}`: a client that knows only LSP).
    async fn initialize_with(&mut self, roots: &[&Path], features: Value) {
        let folders: Vec<Value> = roots
            .iter()
            .map(|r| json!({"uri": format!("file://{}", r.display()), "name": "f"}))
            .collect();
        let response = self
            .request(
                "initialize",
                json!({"processId": null, "workspaceFolders": folders,
                       "capabilities": {"experimental": {"knotmeter": features}}}),
            )
            .await;
        let caps = &response["result"]["capabilities"];
        assert_eq!(caps["experimental"]["knotmeter"]["treeChanged"], true);
        assert_eq!(
            caps["workspace"]["workspaceFolders"]["changeNotifications"],
            true
        );
        self.notify("initialized", json!({})).await;
    }

    /// Takes what the server sent so far (waiting up to `wait` for the first message), and
    /// applies tree messages as a client does.
    async fn receive(&mut self, wait: Duration) {
        let mut first = true;
        loop {
            let message = if first {
                match tokio::time::timeout(wait, self.from_server.recv()).await {
                    Ok(Some(m)) => m,
                    _ => return,
                }
            } else {
                match self.from_server.try_recv() {
                    Ok(m) => m,
                    Err(_) => return,
                }
            };
            first = false;
            let params = &message["params"];
            match message["method"].as_str() {
                Some("knotmeter/discovered") => {
                    self.tree = by_id(&params["items"]);
                    self.version = params["version"].as_u64().unwrap();
                    self.tree_messages.push(message.clone());
                }
                Some("knotmeter/treeChanged") => {
                    let version = params["version"].as_u64().unwrap();
                    if version > self.version {
                        assert_eq!(
                            params["base"].as_u64().unwrap(),
                            self.version,
                            "a change that does not follow: {params}"
                        );
                        for id in params["removed"].as_array().unwrap() {
                            self.tree.remove(id.as_str().unwrap());
                        }
                        for item in params["items"].as_array().unwrap() {
                            self.tree
                                .insert(item["id"].as_str().unwrap().to_owned(), item.clone());
                        }
                        self.version = version;
                    }
                    self.tree_messages.push(message.clone());
                }
                Some(_) => self.notifications.push(message.clone()),
                None => {}
            }
        }
    }

    /// Waits until the tree held is `discover`'s (same version), and checks they are equal.
    async fn converges_to_discover(&mut self, context: &str) {
        let discover = self.request("knotmeter/discover", json!({})).await;
        let version = discover["result"]["version"].as_u64().unwrap();
        let fresh = by_id(&discover["result"]["items"]);
        for _ in 0..200 {
            if self.version >= version {
                break;
            }
            self.receive(Duration::from_millis(50)).await;
        }
        assert_eq!(self.version, version, "{context}: the client is behind");
        if self.tree != fresh {
            let mut missing: Vec<&String> = fresh
                .keys()
                .filter(|k| !self.tree.contains_key(*k))
                .collect();
            let mut extra: Vec<&String> = self
                .tree
                .keys()
                .filter(|k| !fresh.contains_key(*k))
                .collect();
            let mut differ: Vec<&String> = fresh
                .keys()
                .filter(|k| self.tree.get(*k).is_some_and(|v| v != &fresh[*k]))
                .collect();
            missing.sort();
            extra.sort();
            differ.sort();
            panic!("{context}: missing {missing:?}, extra {extra:?}, different {differ:?}");
        }
    }
}

fn by_id(items: &Value) -> HashMap<String, Value> {
    items
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["id"].as_str().unwrap().to_owned(), i.clone()))
        .collect()
}

/// A package `name` in `root` whose bench target declares `modules` files of benchmarks.
fn package(root: &Path, name: &str, modules: usize) {
    std::fs::create_dir_all(root.join("benches")).unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/lib.rs"), "").unwrap();
    std::fs::write(
        root.join("Cargo.toml"),
        format!(
            "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\nautobenches = false\n\n\
             [dev-dependencies]\nknotmeter = \"0.1\"\n\n[[bench]]\nname = \"{name}\"\nharness = false\n\n[workspace]\n"
        ),
    )
    .unwrap();
    let mut root_text = String::new();
    for m in 0..modules {
        root_text.push_str(&format!("mod m{m};\n"));
        std::fs::write(root.join(format!("benches/m{m}.rs")), module_text(m, 4)).unwrap();
    }
    root_text.push_str("\n#[knotmeter::bench]\nfn top() {}\n\nknotmeter::main!();\n");
    std::fs::write(root.join(format!("benches/{name}.rs")), root_text).unwrap();
}

fn module_text(m: usize, benches: usize) -> String {
    let mut text = String::from("use knotmeter::bench;\n\n");
    for b in 0..benches {
        text.push_str(&format!("#[bench]\nfn b{m}_{b}() {{}}\n\n"));
    }
    text
}

fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// A small random generator (xorshift), seeded so a failure can be replayed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// A client that applies every `knotmeter/treeChanged` ends with the tree a fresh
/// `knotmeter/discover` gives, over a random sequence of unsaved edits (lines added, benchmarks
/// added, renamed, removed, given `args`), files closed back to their disk text, module files
/// created and deleted on disk, and saves.
#[test]
fn tree_changes_add_up_to_the_tree_of_a_fresh_discover() {
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    println!("seed {seed} (set KNOTMETER_SCALE_SEED to replay)");
    let seed = std::env::var("KNOTMETER_SCALE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(seed);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    package(&root, "rnd", 4);
    with_timeout(Duration::from_secs(60), async move {
        let mut rng = Rng(seed);
        let mut c = Client::new();
        c.initialize(&[&root]).await;
        c.receive(Duration::from_secs(20)).await;
        c.converges_to_discover("at start").await;
        let root_file = root.join("benches/rnd.rs");
        // The editor's text of each open file.
        let mut open: HashMap<PathBuf, (String, i32)> = HashMap::new();
        let mut modules: Vec<usize> = (0..4).collect();
        let mut next = 100;
        for step in 0..60 {
            let op = rng.below(9);
            let module = modules[rng.below(modules.len())];
            let path = root.join(format!("benches/m{module}.rs"));
            let what;
            match op {
                // Unsaved edits of a module: open it first.
                0..=4 => {
                    if !open.contains_key(&path) {
                        let text = std::fs::read_to_string(&path).unwrap();
                        c.notify(
                            "textDocument/didOpen",
                            json!({"textDocument": {"uri": uri(&path), "languageId": "rust",
                                   "version": 1, "text": text}}),
                        )
                        .await;
                        open.insert(path.clone(), (text, 1));
                    }
                    let (text, version) = open.get_mut(&path).unwrap();
                    next += 1;
                    let lines: Vec<&str> = text.lines().collect();
                    *text = match op {
                        0 => {
                            let at = rng.below(lines.len() + 1);
                            let mut l: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
                            l.insert(at.min(l.len()), format!("// line {next}"));
                            what = "lines added";
                            l.join("\n") + "\n"
                        }
                        1 => {
                            what = "benchmark added";
                            format!("{text}#[bench]\nfn n{next}() {{}}\n")
                        }
                        2 => {
                            what = "benchmark renamed";
                            let names: Vec<String> = lines
                                .iter()
                                .filter_map(|l| l.strip_prefix("fn "))
                                .map(|l| l.split('(').next().unwrap().to_owned())
                                .collect();
                            match names.get(rng.below(names.len().max(1))) {
                                Some(name) => {
                                    text.replace(&format!("fn {name}("), &format!("fn r{next}("))
                                }
                                None => text.clone(),
                            }
                        }
                        3 => {
                            what = "benchmark removed";
                            match text.find("#[bench") {
                                Some(at) => {
                                    let end =
                                        text[at..].find("}\n").map_or(text.len(), |e| at + e + 2);
                                    format!("{}{}", &text[..at], &text[end..])
                                }
                                None => text.clone(),
                            }
                        }
                        _ => {
                            what = "args added";
                            format!("{text}#[bench(args = [1, 2 + 3])]\nfn a{next}(n: u64) -> u64 {{ n }}\n")
                        }
                    };
                    *version += 1;
                    c.notify(
                        "textDocument/didChange",
                        json!({"textDocument": {"uri": uri(&path), "version": *version},
                               "contentChanges": [{"text": text.clone()}]}),
                    )
                    .await;
                }
                // Closed: back to the disk's text.
                5 => {
                    what = "closed";
                    if open.remove(&path).is_some() {
                        c.notify(
                            "textDocument/didClose",
                            json!({"textDocument": {"uri": uri(&path)}}),
                        )
                        .await;
                    }
                }
                // Saved: the editor's text goes to disk.
                6 => {
                    what = "saved";
                    if let Some((text, _)) = open.get(&path) {
                        std::fs::write(&path, text).unwrap();
                        c.notify(
                            "textDocument/didSave",
                            json!({"textDocument": {"uri": uri(&path)}, "text": text}),
                        )
                        .await;
                    }
                }
                // A new module file on disk, declared in the (unopened) root file.
                7 => {
                    what = "module added on disk";
                    next += 1;
                    std::fs::write(
                        root.join(format!("benches/m{next}.rs")),
                        module_text(next, 3),
                    )
                    .unwrap();
                    let text = std::fs::read_to_string(&root_file).unwrap();
                    std::fs::write(&root_file, format!("mod m{next};\n{text}")).unwrap();
                    modules.push(next);
                }
                // A module deleted on disk, and its declaration with it.
                _ => {
                    what = "module deleted on disk";
                    if modules.len() > 1 && !open.contains_key(&path) {
                        let text = std::fs::read_to_string(&root_file).unwrap();
                        std::fs::write(&root_file, text.replace(&format!("mod m{module};\n"), ""))
                            .unwrap();
                        std::fs::remove_file(&path).unwrap();
                        modules.retain(|m| *m != module);
                    }
                }
            }
            c.receive(Duration::from_millis(rng.below(40) as u64)).await;
            if step % 10 == 9 {
                c.converges_to_discover(&format!("seed {seed}, step {step} ({what})"))
                    .await;
            }
        }
        c.converges_to_discover(&format!("seed {seed}, at the end"))
            .await;
        // After the first whole tree, only changes went out.
        let whole = c
            .tree_messages
            .iter()
            .filter(|m| m["method"] == "knotmeter/discovered")
            .count();
        assert_eq!(whole, 1, "one whole tree, then changes");
    });
}

/// Bytes per keystroke: an edit that moves the benchmarks of one file sends those items, not
/// the tree of the workspace (it sent every item, 2.45 MB at 10 000 benchmarks).
#[test]
fn a_keystroke_sends_the_items_it_moved_not_the_whole_tree() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    package(&root, "wide", 30);
    with_timeout(Duration::from_secs(60), async move {
        let mut c = Client::new();
        c.initialize(&[&root]).await;
        c.receive(Duration::from_secs(20)).await;
        c.converges_to_discover("at start").await;
        let all = c.tree.len();
        assert!(all > 120, "{all} items");
        let path = root.join("benches/m7.rs");
        let text = std::fs::read_to_string(&path).unwrap();
        c.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri(&path), "languageId": "rust", "version": 1, "text": text}}),
        )
        .await;
        let before = c.tree_messages.len();
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri(&path), "version": 2},
                   "contentChanges": [{"text": format!("// a new first line\n{text}")}]}),
        )
        .await;
        c.converges_to_discover("after the keystroke").await;
        let sent: Vec<&Value> = c.tree_messages[before..].iter().collect();
        assert_eq!(sent.len(), 1, "{sent:?}");
        assert_eq!(sent[0]["method"], "knotmeter/treeChanged");
        let items: Vec<&str> = sent[0]["params"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["id"].as_str().unwrap())
            .collect();
        // The four benchmarks of m7 moved one line down; nothing else was sent.
        assert_eq!(
            items,
            [
                "wide::m7::b7_0",
                "wide::m7::b7_1",
                "wide::m7::b7_2",
                "wide::m7::b7_3"
            ]
        );
        assert!(sent[0]["params"]["removed"].as_array().unwrap().is_empty());
    });
}

/// A client that does not announce `treeChanged` (Neovim's, Helix's) was sent the whole tree
/// after every edit: 2.45 MB per keystroke at 10 000 benchmarks, 118.6 MB for 50 edits, with
/// hovers waiting behind it. It gets the tree once the workspace has loaded, then nothing per
/// edit: its lenses and hovers follow the text as it is typed, and `knotmeter/discover` answers
/// with the edited tree when it asks.
#[test]
fn plain_client_got_the_whole_tree_after_every_edit() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    package(&root, "plain", 100);
    with_timeout(Duration::from_secs(120), async move {
        let mut c = Client::new();
        c.initialize_with(&[&root], json!({})).await;
        for _ in 0..1200 {
            if !c.tree_messages.is_empty() {
                break;
            }
            c.receive(Duration::from_millis(50)).await;
        }
        assert_eq!(c.tree_messages.len(), 1, "the first tree, once loaded");
        let tree_bytes = c.tree_messages[0].to_string().len();
        assert!(c.tree.len() > 400, "{} items", c.tree.len());
        let path = root.join("benches/m7.rs");
        let original = std::fs::read_to_string(&path).unwrap();
        c.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri(&path), "languageId": "rust", "version": 1, "text": original}}),
        )
        .await;
        let (before_trees, before_other) = (c.tree_messages.len(), c.notifications.len());
        let edits = 30u64;
        for added in 1..=edits {
            let text = format!("{}{original}", "// a line\n".repeat(added as usize));
            c.notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri(&path), "version": added + 1},
                       "contentChanges": [{"text": text}]}),
            )
            .await;
            // `fn b7_0` is on line 3 of the module, below the lines added.
            let hover = c
                .request(
                    "textDocument/hover",
                    json!({"textDocument": {"uri": uri(&path)},
                           "position": {"line": 3 + added, "character": 4}}),
                )
                .await;
            let said = hover["result"]["contents"]["value"].as_str().unwrap_or("");
            assert!(
                said.contains("plain::m7::b7_0"),
                "hover after edit {added}: {hover}"
            );
            c.receive(Duration::from_millis(1)).await;
        }
        // Asked for, the tree has every edit.
        let discover = c.request("knotmeter/discover", json!({})).await;
        let fresh = by_id(&discover["result"]["items"]);
        assert_eq!(
            fresh["plain::m7::b7_0"]["range"]["start"]["line"],
            2 + edits,
            "{}",
            fresh["plain::m7::b7_0"]
        );
        c.receive(Duration::from_millis(500)).await;
        let trees = &c.tree_messages[before_trees..];
        let sent: usize = trees
            .iter()
            .chain(&c.notifications[before_other..])
            .map(|m| m.to_string().len())
            .sum();
        assert!(
            trees.is_empty(),
            "{} whole trees for {edits} edits ({sent} bytes; one tree is {tree_bytes})",
            trees.len()
        );
        assert!(
            sent < tree_bytes / 10,
            "{sent} bytes for {edits} edits; one tree is {tree_bytes}"
        );
    });
}

/// Every workspace folder is served (only the first was), and folders added and removed at run
/// time come and go; two folders with the same package are said, not silently merged.
#[test]
fn every_workspace_folder_is_served_and_folders_come_and_go() {
    let dirs: Vec<tempfile::TempDir> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let roots: Vec<PathBuf> = dirs
        .iter()
        .map(|d| d.path().canonicalize().unwrap())
        .collect();
    package(&roots[0], "alpha", 1);
    package(&roots[1], "beta", 1);
    package(&roots[2], "gamma", 1);
    let clash = tempfile::tempdir().unwrap();
    let clash_root = clash.path().canonicalize().unwrap();
    package(&clash_root, "alpha", 2);
    with_timeout(Duration::from_secs(60), async move {
        let mut c = Client::new();
        c.initialize(&[&roots[0], &roots[1]]).await;
        c.receive(Duration::from_secs(20)).await;
        c.converges_to_discover("two folders").await;
        for id in ["pkg:alpha", "alpha::m0::b0_0", "pkg:beta", "beta::top"] {
            assert!(c.tree.contains_key(id), "{id} in {:?}", c.tree.keys());
        }
        let folder = |r: &Path| json!({"uri": uri(r), "name": "f"});
        c.notify(
            "workspace/didChangeWorkspaceFolders",
            json!({"event": {"added": [folder(&roots[2])], "removed": [folder(&roots[0])]}}),
        )
        .await;
        // The change lands once the new folder has loaded.
        for _ in 0..100 {
            c.receive(Duration::from_millis(100)).await;
            if c.tree.contains_key("gamma::top") {
                break;
            }
        }
        c.converges_to_discover("a folder added, one removed").await;
        assert!(c.tree.contains_key("gamma::m0::b0_0"));
        assert!(
            !c.tree.keys().any(|id| id.contains("alpha")),
            "{:?}",
            c.tree.keys()
        );
        // A folder whose package has the name of another folder's: said, the first kept.
        c.notify(
            "workspace/didChangeWorkspaceFolders",
            json!({"event": {"added": [folder(&clash_root), folder(&roots[0])], "removed": []}}),
        )
        .await;
        let mut said = None;
        for _ in 0..100 {
            c.receive(Duration::from_millis(100)).await;
            said = c.notifications.iter().find(|n| {
                n["method"] == "window/showMessage"
                    && n["params"]["message"]
                        .as_str()
                        .is_some_and(|m| m.contains("same id"))
            });
            if said.is_some() {
                break;
            }
        }
        let said = said.expect("the clash is said").clone();
        assert!(
            said["params"]["message"]
                .as_str()
                .unwrap()
                .contains("pkg:alpha"),
            "{said}"
        );
        c.converges_to_discover("a clash").await;
        // The first folder that has `alpha` wins: the clash's, with two modules.
        assert!(c.tree.contains_key("alpha::m1::b1_0"));
    });
}

/// When the system refuses file watches, the daemon says so (`window/showMessage`) and still
/// sees files changed on disk, by polling (it watched nothing and said nothing).
#[test]
fn refused_watches_are_said_and_changes_on_disk_are_still_found() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    package(&root, "polled", 2);
    let mut client = common::Client::spawn_with(&root, |c| {
        c.env("KNOTMETER_WATCH_LIMIT", "1");
    });
    client.initialize(&root, json!({}));
    let message = client.notification("window/showMessage", Duration::from_secs(30), |p| {
        p["message"]
            .as_str()
            .is_some_and(|m| m.contains("scanning the sources"))
    });
    assert_eq!(message["type"], 2, "a warning: {message}");
    client.notification("knotmeter/discovered", Duration::from_secs(30), |_| true);
    std::fs::write(
        root.join("benches/m1.rs"),
        format!(
            "{}#[bench]\nfn found_by_polling() {{}}\n",
            module_text(1, 1)
        ),
    )
    .unwrap();
    // This client announced no `treeChanged`, so it asks for the tree.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let answer = client.request("knotmeter/discover", json!({}));
        let items = answer["result"]["items"].as_array().unwrap().clone();
        if items
            .iter()
            .any(|i| i["id"] == "polled::m1::found_by_polling")
        {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "not found by polling within 30 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(client.shutdown().success());
}

/// The states of one run, flattened from `knotmeter/runState` or `knotmeter/runStates`, with
/// the position of its `knotmeter/runEnd`.
fn run_states(client: &common::Client, run_id: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for r in &client.log {
        let m = &r.message;
        let states: Vec<&Value> = match m["method"].as_str() {
            Some("knotmeter/runState") => vec![&m["params"]],
            Some("knotmeter/runStates") => {
                m["params"]["states"].as_array().unwrap().iter().collect()
            }
            Some("knotmeter/runEnd") if &m["params"]["runId"] == run_id => {
                out.push(("".into(), "runEnd".into()));
                continue;
            }
            _ => continue,
        };
        for s in states {
            if &s["runId"] == run_id {
                assert!(
                    s["result"].is_null()
                        || s["result"]["raw"] == json!({"workload_ns": [], "baseline_ns": []}),
                    "raw samples travel only on request: {s}"
                );
                out.push((
                    s["id"].as_str().unwrap().to_owned(),
                    s["state"].as_str().unwrap().to_owned(),
                ));
            }
        }
    }
    out
}

/// Batched run states lose nothing and keep their order: the same run reported one state per
/// message and in batches gives the same sequence, every state before `runEnd`. Raw samples
/// leave the results and come back on request.
#[test]
fn batched_run_states_keep_every_state_in_order_and_samples_come_on_request() {
    let cases: serde_json::Map<String, Value> = (0..60)
        .map(|i| (format!("c{i:02}"), json!({"kind": "pass"})))
        .collect();
    let mut sequences = Vec::new();
    for batched in [false, true] {
        let sc = common::scripted::Scripted::new(json!({"cases": cases, "raw": 50}));
        let root = sc.root();
        let mut client = common::Client::spawn_with(&root, |c| {
            c.env("CARGO", sc.cargo()).env_remove("CARGO_TARGET_DIR");
        });
        let folder = format!("file://{}", root.display());
        client.request(
            "initialize",
            json!({"processId": null, "rootUri": folder,
                   "workspaceFolders": [{"uri": folder, "name": "sc"}],
                   "capabilities": {"experimental": {"knotmeter": {"runStates": batched}}}}),
        );
        client.notify("initialized", json!({}));
        let run = client.request("knotmeter/run", json!({"mode": "quick"}));
        let run_id = run["result"]["runId"].clone();
        client.run_to_end(run_id.as_i64().unwrap(), Duration::from_secs(60));
        let batches = client
            .log
            .iter()
            .filter(|r| r.message["method"] == "knotmeter/runStates")
            .count();
        let singles = client
            .log
            .iter()
            .filter(|r| r.message["method"] == "knotmeter/runState")
            .count();
        if batched {
            assert_eq!(singles, 0);
            assert!((1..60 * 4).contains(&batches), "{batches} batches");
        } else {
            assert_eq!(batches, 0);
        }
        sequences.push(run_states(&client, &run_id));
        // The samples of a case, on request.
        let samples = client.request("knotmeter/samples", json!({"id": "sc::c07"}));
        assert_eq!(samples["result"]["source"], "measured", "{samples}");
        assert_eq!(
            samples["result"]["raw"]["workload_ns"]
                .as_array()
                .unwrap()
                .len(),
            50
        );
        let none = client.request("knotmeter/samples", json!({"id": "sc::nothing"}));
        assert_eq!(none["result"]["raw"], Value::Null, "{none}");
        assert!(client.shutdown().success());
    }
    let (single, batched) = (&sequences[0], &sequences[1]);
    assert_eq!(single, batched);
    // Each case: enqueued, building, started, passed, in that order; then runEnd, last.
    assert_eq!(single.last().unwrap().1, "runEnd");
    for i in 0..60 {
        let id = format!("sc::c{i:02}");
        let states: Vec<&str> = single
            .iter()
            .filter(|(s, _)| *s == id)
            .map(|(_, st)| st.as_str())
            .collect();
        assert_eq!(
            states,
            ["enqueued", "building", "started", "passed"],
            "{id}"
        );
    }
}

/// A run of everything in two workspace folders builds and runs each folder's part (with that
/// folder's cargo workspace), under one run id and one `knotmeter/runEnd` after both; the run
/// is asked for before the folders have loaded, so it also waits for the second folder's tree.
#[test]
fn a_run_across_workspace_folders_runs_every_folders_part_under_one_run() {
    let pass = json!({"kind": "pass"});
    let left = common::scripted::Scripted::new(
        json!({"crate": "left", "cases": {"l0": pass, "l1": pass}, "raw": 5}),
    );
    let right = common::scripted::Scripted::new(
        json!({"crate": "right", "cases": {"r0": pass, "r1": pass, "r2": pass}, "raw": 5}),
    );
    // The daemon runs cargo in the folder it builds: each folder's own stand-in answers.
    let bin = tempfile::tempdir().unwrap();
    let cargo = bin.path().join("cargo");
    std::fs::write(&cargo, "#!/bin/sh\nexec \"$(pwd)/bin/cargo\" \"$@\"\n").unwrap();
    let status = std::process::Command::new("chmod")
        .arg("+x")
        .arg(&cargo)
        .status()
        .unwrap();
    assert!(status.success());
    let mut client = common::Client::spawn_with(&left.root(), |c| {
        c.env("CARGO", &cargo).env_remove("CARGO_TARGET_DIR");
    });
    let folder = |root: &Path| json!({"uri": format!("file://{}", root.display()), "name": "f"});
    client.request(
        "initialize",
        json!({"processId": null, "rootUri": folder(&left.root())["uri"],
               "workspaceFolders": [folder(&left.root()), folder(&right.root())],
               "capabilities": {}}),
    );
    client.notify("initialized", json!({}));
    let run = client.request("knotmeter/run", json!({"mode": "quick"}));
    let run_id = run["result"]["runId"]
        .as_i64()
        .unwrap_or_else(|| panic!("{run}"));
    client.run_to_end(run_id, Duration::from_secs(60));
    let states = run_states(&client, &json!(run_id));
    let ends = states.iter().filter(|(_, s)| s == "runEnd").count();
    assert_eq!(ends, 1, "one runEnd: {states:?}");
    assert_eq!(states.last().unwrap().1, "runEnd", "{states:?}");
    let mut finals = client.finals(run_id);
    finals.sort();
    assert_eq!(
        finals,
        [
            ("left::l0", "passed"),
            ("left::l1", "passed"),
            ("right::r0", "passed"),
            ("right::r1", "passed"),
            ("right::r2", "passed"),
        ]
        .map(|(id, state)| (id.to_owned(), state.to_owned()))
    );
    // Each folder's bench binary ran its own cases, once.
    let ran = |invocations: Vec<Vec<String>>| -> Vec<String> {
        invocations
            .into_iter()
            .filter(|args| args.iter().any(|a| a == "--exact"))
            .flat_map(|args| {
                let at = args.iter().position(|a| a == "--exact").unwrap();
                args[at + 1..].to_vec()
            })
            .collect()
    };
    assert_eq!(ran(left.invocations()), ["left::l0", "left::l1"]);
    assert_eq!(
        ran(right.invocations()),
        ["right::r0", "right::r1", "right::r2"]
    );
    assert_eq!((left.builds(), right.builds()), (1, 1));
    assert!(client.shutdown().success());
}

/// The lines of a `textDocument/codeLens` answer's lenses, in order.
fn lens_lines(response: &Value) -> Vec<u64> {
    let mut lines: Vec<u64> = response["result"]
        .as_array()
        .unwrap_or_else(|| panic!("lenses: {response}"))
        .iter()
        .map(|l| l["range"]["start"]["line"].as_u64().unwrap())
        .collect();
    lines.sort();
    lines.dedup();
    lines
}

/// Code lenses and hovers asked for right after an edit answer for the edited text, edit after
/// edit: with parsing off the session, they could be answered from the tree before the edit
/// (every lens a line off, a hover on the wrong benchmark or on none).
#[test]
fn lenses_and_hovers_right_after_an_edit_answer_for_the_edited_text() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    package(&root, "fresh", 3);
    with_timeout(Duration::from_secs(60), async move {
        let mut c = Client::new();
        c.initialize(&[&root]).await;
        c.receive(Duration::from_secs(20)).await;
        c.converges_to_discover("at start").await;
        let path = root.join("benches/m1.rs");
        let original = std::fs::read_to_string(&path).unwrap();
        c.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri(&path), "languageId": "rust", "version": 1, "text": original}}),
        )
        .await;
        let lenses = json!({"textDocument": {"uri": uri(&path)}});
        let before = lens_lines(&c.request("textDocument/codeLens", lenses.clone()).await);
        assert_eq!(before.len(), 4, "{before:?}");
        // `fn b1_0` is on the first lens's line.
        let first = before[0];
        for added in 1..=20u64 {
            let text = format!("{}{original}", "// a line\n".repeat(added as usize));
            c.notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri(&path), "version": added + 1},
                       "contentChanges": [{"text": text}]}),
            )
            .await;
            let now = lens_lines(&c.request("textDocument/codeLens", lenses.clone()).await);
            let want: Vec<u64> = before.iter().map(|l| l + added).collect();
            assert_eq!(now, want, "lenses right after edit {added}");
            let hover = c
                .request(
                    "textDocument/hover",
                    json!({"textDocument": {"uri": uri(&path)},
                           "position": {"line": first + added, "character": 4}}),
                )
                .await;
            let said = hover["result"]["contents"]["value"].as_str().unwrap_or("");
            assert!(
                said.contains("fresh::m1::b1_0"),
                "hover right after edit {added}: {hover}"
            );
        }
    });
}

/// A folder without a `Cargo.toml` beside a Rust folder (the web front end or the docs of a
/// multi-root workspace) is passed over with a log line: it was an error pop-up at every
/// start, and "the workspace did not load" in every run's explanation.
#[test]
fn a_folder_without_cargo_beside_a_rust_folder_is_passed_over_quietly() {
    let rust = tempfile::tempdir().unwrap();
    let rust_root = rust.path().canonicalize().unwrap();
    package(&rust_root, "served", 1);
    let web = tempfile::tempdir().unwrap();
    let web_root = web.path().canonicalize().unwrap();
    std::fs::write(web_root.join("index.html"), "<p>not rust</p>").unwrap();
    with_timeout(Duration::from_secs(60), async move {
        let mut c = Client::new();
        c.initialize(&[&web_root, &rust_root]).await;
        c.receive(Duration::from_secs(20)).await;
        c.converges_to_discover("a Rust folder and another").await;
        assert!(
            c.tree.contains_key("served::m0::b0_0"),
            "{:?}",
            c.tree.keys()
        );
        let nothing = c
            .request("knotmeter/run", json!({"include": ["served::gone"]}))
            .await;
        let why = nothing["error"]["message"].as_str().unwrap_or_default();
        assert!(
            why.contains("the workspace has 5 benchmark(s)"),
            "{nothing}"
        );
        c.receive(Duration::from_millis(200)).await;
        let shown: Vec<&Value> = c
            .notifications
            .iter()
            .filter(|n| n["method"] == "window/showMessage")
            .collect();
        assert!(shown.is_empty(), "{shown:?}");
        let logged = c.notifications.iter().any(|n| {
            n["method"] == "window/logMessage"
                && n["params"]["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("no Cargo.toml") && m.contains("not served"))
        });
        assert!(logged, "{:?}", c.notifications);
        // A package made there later is served.
        package(&web_root, "later", 1);
        for _ in 0..100 {
            c.receive(Duration::from_millis(100)).await;
            if c.tree.contains_key("later::m0::b0_0") {
                break;
            }
        }
        c.converges_to_discover("a Cargo.toml made in the other folder")
            .await;
        assert!(
            c.tree.contains_key("later::m0::b0_0"),
            "{:?}",
            c.tree.keys()
        );
        assert!(c.tree.contains_key("served::m0::b0_0"));
    });
}

/// The samples of a result the daemon read from the history (measured before it started, so
/// never in its memory) come from the history's compact form, marked `stored`: sorted, at
/// most the stored count, the largest and smallest kept.
#[test]
fn samples_of_a_stored_result_come_from_the_history_in_its_compact_form() {
    let sc = common::scripted::Scripted::new(json!({"cases": {"kept": {"kind": "pass"}}}));
    let root = sc.root();
    let history_dir = tempfile::tempdir().unwrap();
    let history_file = history_dir.path().join("history.db");
    let manifest: knotmeter_protocol::Manifest = serde_json::from_value(json!({
        "knotmeter_version": "0.0.0", "rustc": "rustc", "profile": "bench", "opt_level": "3",
        "debug_assertions": false, "target": "x", "cpu": "x", "cores": 1,
        "timer": {"kind": "instant", "precision_ns": 1.0, "read_cost_ns": 1.0},
        "git_commit": null, "timestamp": 1, "seed": 1, "budget_ms": 1000,
        "target_precision": 0.01, "warnings": []
    }))
    .unwrap();
    // 2 000 samples in time order, descending: the stored form is sorted and shorter.
    let workload: Vec<f64> = (0..2000).rev().map(|i| 10.0 + i as f64).collect();
    let result: knotmeter_protocol::BenchResult = serde_json::from_value(json!({
        "id": "sc::kept", "name": "kept", "args": null, "group": null, "baseline": false,
        "file": "benches/sc.rs", "line": 1,
        "estimate": {"median_ns": 1009.5, "low_ns": 1000.0, "high_ns": 1020.0, "mean_ns": 1009.5},
        "quantiles": {"min_ns": 10.0, "p5_ns": 110.0, "q1_ns": 510.0, "q3_ns": 1510.0,
                      "p95_ns": 1910.0, "max_ns": 2009.0, "std_dev_ns": 577.0, "outliers": 0},
        "precision": 0.01, "overhead": {"per_op_ns": 0.0, "drift": 0.0, "capped": 0},
        "cold_ns": 20.0, "ops_per_sample": 1, "samples": 2000, "wall_ns": 5.0e6,
        "partial": false, "warnings": [], "comparison": null, "allocations": null,
        "raw": {"workload_ns": workload, "baseline_ns": vec![0.5; 2000]}
    }))
    .unwrap();
    knotmeter_history::History::open(&history_file)
        .unwrap()
        .record_run(&manifest, &[result], None)
        .unwrap();
    let mut client = common::Client::spawn_with(&root, |c| {
        c.env("CARGO", sc.cargo())
            .env_remove("CARGO_TARGET_DIR")
            .env("KNOTMETER_HISTORY", &history_file);
    });
    client.initialize(&root, json!({}));
    let stored = client.notification("knotmeter/stored", Duration::from_secs(30), |_| true);
    let shown = &stored["results"][0];
    assert_eq!(shown["id"], "sc::kept", "{stored}");
    assert_eq!(
        shown["raw"],
        json!({"workload_ns": [], "baseline_ns": []}),
        "results travel without samples"
    );
    let answer = client.request("knotmeter/samples", json!({"id": "sc::kept"}));
    assert_eq!(answer["result"]["source"], "stored", "{answer}");
    let raw: Vec<f64> = serde_json::from_value(answer["result"]["raw"]["workload_ns"].clone())
        .unwrap_or_else(|e| panic!("{e}: {answer}"));
    assert!(
        (2..=knotmeter_history::STORED_WORKLOAD_SAMPLES).contains(&raw.len()),
        "{} stored samples",
        raw.len()
    );
    assert!(raw.windows(2).all(|w| w[0] <= w[1]), "sorted: {raw:?}");
    assert_eq!((raw[0], raw[raw.len() - 1]), (10.0, 2009.0));
    assert!(client.shutdown().success());
}
