//! The save loop: from saving a benchmark in the editor to its result, on the real `knotmeter
//! serve` over stdio with run-on-save on, a real cargo build and the real engine.
//!
//! `cargo bench -p knotmeter-server --bench save_loop -- --saves N [--before PATH]`: a fixture
//! with twenty-two benchmarks in one file (`tests/fixtures/save_loop`), built once; then `N`
//! times, one benchmark's body is edited (its work changes, so cargo compiles and links again),
//! the file is saved (`didChange`, `didSave`), and the times from the save are read off the
//! messages as they arrive at the client. With `--before` (another build of `knotmeter`, say
//! the commit before a change), each save goes to that daemon and to this one in turn, so their
//! figures are taken side by side (`cargo xtask save-loop` does that and writes the figures to
//! `docs/performance.md`). Each save prints one JSON line on standard output, its `daemon`
//! `before` or `after`, and its times in seconds from the save:
//!
//! - `queued`: the run is enqueued (the debounce and the tree's update);
//! - `built`: cargo's build has ended (`$/progress` reports `running`);
//! - `started`: the bench binary measures its first case;
//! - `edited`: the edited benchmark's result;
//! - `all`: the run's end, every case of the file measured.
//!
//! Run-on-save measures with the engine's `--quick` budget, as the editor does. Without
//! `--bench` (as under `cargo test`) it makes one save on a short budget and checks that the
//! edited benchmark's result arrives.

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// How long one save's run may take before the benchmark gives up.
const RUN_LIMIT: Duration = Duration::from_secs(120);

/// The times of one save, in seconds from the `didSave`.
#[derive(Debug)]
struct Timeline {
    queued: f64,
    built: f64,
    started: f64,
    edited: f64,
    all: f64,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let measuring = args.iter().any(|a| a == "--bench");
    let saves: usize = value_of(&args, "--saves").map_or(if measuring { 7 } else { 1 }, |v| {
        v.parse().expect("--saves takes a number")
    });
    let mut daemons: Vec<(&str, PathBuf)> = Vec::new();
    if let Some(before) = value_of(&args, "--before") {
        let before = std::fs::canonicalize(before).expect("--before names a program");
        daemons.push(("before", before));
    }
    daemons.push(("after", common::knotmeter()));
    // Under `cargo test`, a short budget: this only checks the loop works.
    let options = if measuring {
        json!({"runOnSave": true})
    } else {
        json!({"runOnSave": true, "quickTimeSecs": 0.01})
    };
    let mut loops: Vec<SaveLoop> = daemons
        .iter()
        .map(|(_, program)| SaveLoop::start(program, options.clone()))
        .collect();
    for save in 0..saves {
        for ((daemon, program), save_loop) in daemons.iter().zip(&mut loops) {
            let t = save_loop.save(save);
            println!(
                "{}",
                json!({"daemon": daemon, "save": save, "bench": save_loop.edited_id(save),
                       "queued": t.queued, "built": t.built, "started": t.started,
                       "edited": t.edited, "all": t.all})
            );
            eprintln!(
                "save {save}: queued {:.3} s, built {:.3} s, started {:.3} s, edited {:.3} s, \
                 all {:.3} s ({})",
                t.queued,
                t.built,
                t.started,
                t.edited,
                t.all,
                program.display()
            );
        }
    }
}

fn value_of<'a>(args: &'a [String], flag: &str) -> Option<&'a str> {
    args.windows(2)
        .find(|w| w[0] == flag)
        .map(|w| w[1].as_str())
}

/// One daemon on its own copy of the fixture, the file open in the "editor".
struct SaveLoop {
    fixture: common::Fixture,
    client: common::Client,
    uri: String,
    text: String,
    version: i64,
}

impl SaveLoop {
    fn start(daemon: &Path, options: Value) -> Self {
        let fixture = common::fixture("save_loop");
        let root = fixture.root();
        let mut client = common::Client::spawn_program(daemon, &root, |c| {
            c.env("KNOTMETER_LOG", "warn");
        });
        client.initialize(&root, options);
        // The first build and run, so that every save finds a warm target.
        let run = client.request("knotmeter/run", json!({"mode": "quick"}));
        let run_id = run["result"]["runId"].as_i64().expect("a run id");
        client.notification("knotmeter/runEnd", RUN_LIMIT, |p| p["runId"] == run_id);
        let uri = fixture.uri("benches/suite.rs");
        let text = fixture.read("benches/suite.rs");
        client.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "rust", "version": 1, "text": text}}),
        );
        Self {
            fixture,
            client,
            uri,
            text,
            version: 1,
        }
    }

    /// The benchmark edited by save `n`: a different one each time.
    fn edited_id(&self, n: usize) -> String {
        format!("suite::work_{:02}", (n * 7 + 3) % 20)
    }

    /// Edits one benchmark's work, saves, and waits for the run's end.
    fn save(&mut self, n: usize) -> Timeline {
        let id = self.edited_id(n);
        let name = id.rsplit("::").next().expect("a name");
        let at = self
            .text
            .find(&format!("fn {name}()"))
            .expect("the function");
        let start = at + self.text[at..].find("black_box(").expect("its work") + 10;
        let start = start + self.text[start..].find(", black_box(").expect("its size") + 12;
        let end = start + self.text[start..].find(')').expect("the size's end");
        let size: u64 = self.text[start..end].parse().expect("a size");
        self.text
            .replace_range(start..end, &(100 + (size + 1) % 50).to_string());
        self.fixture.write("benches/suite.rs", &self.text);
        self.version += 1;
        // Only what this save causes: the earlier runs' messages are done with.
        self.client.backlog.clear();
        self.client.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": self.uri, "version": self.version},
                   "contentChanges": [{"text": self.text}]}),
        );
        let saved = Instant::now();
        self.client.notify(
            "textDocument/didSave",
            json!({"textDocument": {"uri": self.uri}, "text": self.text}),
        );
        let queued = self
            .client
            .notification("knotmeter/runState", RUN_LIMIT, |p| {
                p["state"] == "enqueued"
            });
        let run_id = queued["runId"].as_i64().expect("a run id");
        self.client
            .notification("knotmeter/runEnd", RUN_LIMIT, |p| p["runId"] == run_id);
        self.timeline(saved, run_id, &id)
    }

    /// The times of the run's messages, from the client's log.
    fn timeline(&self, saved: Instant, run_id: i64, edited: &str) -> Timeline {
        let since = |pred: &dyn Fn(&Value) -> bool| -> f64 {
            self.client
                .log
                .iter()
                .filter(|r| r.at >= saved && pred(&r.message))
                .map(|r| r.at.duration_since(saved).as_secs_f64())
                .next()
                .unwrap_or_else(|| panic!("the run of {edited} lacks a message"))
        };
        let state = |m: &Value, s: &str| {
            m["method"] == "knotmeter/runState"
                && m["params"]["runId"] == run_id
                && m["params"]["state"] == s
        };
        let timeline = Timeline {
            queued: since(&|m| state(m, "enqueued")),
            built: since(&|m| {
                m["method"] == "$/progress" && m["params"]["value"]["message"] == "running"
            }),
            started: since(&|m| state(m, "started")),
            edited: since(&|m| state(m, "passed") && m["params"]["id"] == edited),
            all: since(&|m| m["method"] == "knotmeter/runEnd" && m["params"]["runId"] == run_id),
        };
        let passed: std::collections::HashSet<&Value> = self
            .client
            .log
            .iter()
            .filter(|r| r.at >= saved && state(&r.message, "passed"))
            .map(|r| &r.message["params"]["id"])
            .collect();
        let passed = passed.len();
        assert_eq!(passed, 22, "every benchmark of the saved file passes");
        timeline
    }
}
