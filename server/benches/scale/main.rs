//! The daemon at scale, measured on the real `knotmeter serve` over stdio:
//! `cargo bench -p knotmeter-server --bench scale`. Targets (docs/performance.md, issue 15) at
//! 1 000 and 10 000 benchmarks: hover and codeLens p95 under 50 ms while typing in a bench
//! file, while a run of everything starts and while it runs; didChange → tree p95 under 50 ms;
//! cancel → runEnd under 200 ms; resident memory after a 10 000-case run under 100 MB; bytes on
//! the wire per keystroke proportional to the change, not to the workspace. Also the start-up
//! with 50 000 directories under `target/`.
//!
//! The workspace is generated in a temporary directory ([`workspace`]): 20 benchmarks per
//! file, 50 files per package. Builds and bench binaries are stand-ins (a Python cargo and
//! bench binary that emits results with 1 000 raw samples per vector every 2 ms), because
//! compiling 10 000 benchmarks takes longer than this machine allows; the daemon is the real
//! one. `KNOTMETER_SCALE_DAEMON=/path/to/knotmeter` measures another build of the daemon (the
//! one before a change, say) with the same harness. `--sizes 1000,10000` picks the sizes.
//! Without `--bench` (as under `cargo test`) it runs once on 100 benchmarks, briefly.
//! `--plain` measures a client that announces no knotmeter feature (Neovim's, Helix's: no
//! `treeChanged`, no `runStates`); it waits for the last edit with `knotmeter/discover` instead
//! of a pushed tree, and skips the start-up with directories under `target/`.

mod client;
mod workspace;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;

use client::{is_tree, rss_kib, states, Daemon, Sender};

/// What one size measured.
#[derive(Debug, Default)]
struct Figures {
    benches: usize,
    cases: usize,
    files: usize,
    startup_ms: f64,
    idle_rss_mb: f64,
    edits: usize,
    change_to_tree_ms: Vec<f64>,
    tree_bytes: usize,
    tree_pushes: usize,
    typing_rss_mb: f64,
    hover_typing: Vec<f64>,
    lens_typing: Vec<f64>,
    hover_start: Vec<f64>,
    lens_start: Vec<f64>,
    hover_running: Vec<f64>,
    lens_running: Vec<f64>,
    start_messages: usize,
    start_bytes: usize,
    run_secs: f64,
    run_bytes: usize,
    after_run_rss_mb: f64,
    peak_rss_mb: f64,
    cancel_to_end_ms: f64,
    tree_agrees: bool,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let measure = args.iter().any(|a| a == "--bench");
    let sizes: Vec<usize> = match args.iter().position(|a| a == "--sizes") {
        Some(i) => args[i + 1].split(',').map(|s| s.parse().unwrap()).collect(),
        None if measure => vec![1000, 10_000],
        None => vec![100],
    };
    let exe = std::env::var_os("KNOTMETER_SCALE_DAEMON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_knotmeter")));
    println!("daemon: {}", exe.display());
    let plain = args.iter().any(|a| a == "--plain");
    let edits = if measure { 50 } else { 5 };
    for size in sizes {
        let f = scenario(&exe, size, edits, plain);
        report(&f);
        // A plain client keeps no live tree (docs/protocol.md): it asks for it.
        assert!(
            f.tree_agrees || plain,
            "the tree built from the messages differs from discover's"
        );
    }
    if plain {
        return;
    }
    let dirs = if measure { 50_000 } else { 500 };
    let (plain, with_dirs) = startup_with_target_dirs(&exe, dirs);
    println!(
        "start-up (initialize → first tree), 1 000 benchmarks: {:.0} ms, RSS {:.1} MB; with {dirs} \
         directories under target/: {:.0} ms, RSS {:.1} MB",
        plain.0, plain.1, with_dirs.0, with_dirs.1
    );
}

fn initialize(daemon: &mut Daemon, root: &std::path::Path, plain: bool) -> Instant {
    let uri = format!("file://{}", root.display());
    let started = Instant::now();
    let sender = daemon.sender();
    let features = if plain {
        json!({})
    } else {
        json!({"knotmeter": {"treeChanged": true, "runStates": true}})
    };
    let id = sender.request(
        "initialize",
        json!({
            "processId": null,
            "rootUri": uri,
            "workspaceFolders": [{"uri": uri, "name": "generated"}],
            "capabilities": {
                "experimental": features,
                "workspace": {"codeLens": {"refreshSupport": true}}
            },
            "initializationOptions": {},
        }),
    );
    daemon.response(id, Duration::from_secs(60));
    sender.notify("initialized", json!({}));
    started
}

fn scenario(exe: &std::path::Path, size: usize, edits: usize, plain: bool) -> Figures {
    let ws = workspace::generate(size);
    let root = ws.root();
    let (edited, module) = ws.edited();
    let probe = format!("{module}::f10");
    let mut f = Figures {
        benches: ws.benches,
        cases: ws.cases,
        files: ws.files,
        edits,
        ..Figures::default()
    };
    let mut daemon = Daemon::spawn(exe, &root, &ws.cargo(), &[], &probe);
    let started = initialize(&mut daemon, &root, plain);
    let first = daemon
        .until(Duration::from_secs(120), |r| is_tree(&r.message))
        .expect("a first tree");
    f.startup_ms = ms(first.at - started);
    // Where the tree puts the probe benchmark before the edits (its range starts at its
    // attributes); each edit moves it one line down.
    let probe_line = first.message["params"]["probe"]
        .as_u64()
        .expect("the first tree has the probe benchmark") as u32;
    daemon.drain_for(Duration::from_millis(500));
    f.idle_rss_mb = mb(rss_kib(daemon.pid()));

    // Typing: one line added at the top of a bench file per keystroke, every 40 ms, while
    // hovers and code lenses are asked for every 25 ms.
    let uri = format!("file://{}", edited.display());
    let mut text = std::fs::read_to_string(&edited).unwrap();
    let base_line = workspace::f10_line(&text);
    let sender = daemon.sender();
    sender.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "rust", "version": 1, "text": text}}),
    );
    daemon.drain_for(Duration::from_millis(300));
    let asker = Asker::start(daemon.sender(), uri.clone(), base_line);
    let typing_from = Instant::now();
    let mut sent = Vec::new();
    for i in 1..=edits {
        text.insert_str(0, &format!("// edit {i}\n"));
        asker.line.store(base_line + i as u32, Ordering::Relaxed);
        sender.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": i + 1},
                   "contentChanges": [{"text": text}]}),
        );
        sent.push(Instant::now());
        daemon.drain_for(Duration::from_millis(40));
    }
    let last_line = probe_line + edits as u32;
    if plain {
        // Its `knotmeter/discover` is answered once every edit is in the tree.
        let id = sender.request("knotmeter/discover", json!({}));
        daemon.response(id, Duration::from_secs(120));
    }
    let is_last =
        |r: &client::Received| is_tree(&r.message) && r.message["params"]["probe"] == last_line;
    let already = plain || daemon.log.iter().any(is_last);
    already
        .then_some(())
        .or_else(|| daemon.until(Duration::from_secs(120), is_last).map(|_| ()))
        .unwrap_or_else(|| {
            let seen: Vec<String> = daemon
                .log
                .iter()
                .filter(|r| is_tree(&r.message))
                .map(|r| r.message["params"].to_string())
                .collect();
            panic!("no tree with the last edit (line {last_line}); trees: {seen:?}")
        });
    let typing_to = Instant::now();
    let pushes: Vec<(Instant, Option<u32>, usize)> = daemon
        .log
        .iter()
        .filter(|r| is_tree(&r.message) && r.at >= typing_from)
        .map(|r| {
            let line = r.message["params"]["probe"].as_u64().map(|l| l as u32);
            (r.at, line, r.bytes)
        })
        .collect();
    f.tree_pushes = pushes.len();
    f.tree_bytes = pushes.iter().map(|p| p.2).sum();
    for (i, at) in sent.iter().enumerate() {
        let want = probe_line + i as u32 + 1;
        if let Some((arrived, _, _)) = pushes
            .iter()
            .find(|(t, line, _)| t >= at && line.is_some_and(|l| l >= want))
        {
            f.change_to_tree_ms.push(ms(*arrived - *at));
        }
    }
    daemon.drain_for(Duration::from_millis(300));
    f.typing_rss_mb = mb(rss_kib(daemon.pid()));
    // The tree the messages built is the tree a fresh discover gives.
    let id = sender.request("knotmeter/discover", json!({}));
    let answer = daemon.response(id, Duration::from_secs(60));
    f.tree_agrees = answer["result"]["equal"] == true;

    // A run of everything, to its end.
    let run_from = Instant::now();
    let id = sender.request("knotmeter/run", json!({"mode": "quick"}));
    let run_id = daemon.response(id, Duration::from_secs(60))["result"]["runId"].clone();
    let first_started = daemon
        .until(Duration::from_secs(600), |r| {
            states(&r.message)
                .iter()
                .any(|s| s["runId"] == run_id && s["state"] == "started")
        })
        .expect("a case starts")
        .at;
    let run_end = daemon
        .until(Duration::from_secs(3600), |r| {
            r.message["method"] == "knotmeter/runEnd" && r.message["params"]["runId"] == run_id
        })
        .expect("the run ends")
        .at;
    f.run_secs = (run_end - run_from).as_secs_f64();
    for r in daemon.log.iter().filter(|r| r.at >= run_from) {
        if r.message.get("method").is_some() && r.at <= first_started {
            f.start_messages += 1;
            f.start_bytes += r.bytes;
        }
        if r.at <= run_end {
            f.run_bytes += r.bytes;
        }
    }
    daemon.drain_for(Duration::from_secs(1));
    f.after_run_rss_mb = mb(rss_kib(daemon.pid()));
    f.peak_rss_mb = mb(peak_kib(daemon.pid()));

    // Another run of everything, cancelled once it measures.
    let id = sender.request("knotmeter/run", json!({"mode": "quick"}));
    let cancel_run = daemon.response(id, Duration::from_secs(60))["result"]["runId"].clone();
    daemon
        .until(Duration::from_secs(600), |r| {
            states(&r.message)
                .iter()
                .any(|s| s["runId"] == cancel_run && s["state"] == "passed")
        })
        .expect("a case passes");
    daemon.drain_for(Duration::from_millis(300));
    let cancel_at = Instant::now();
    sender.request("knotmeter/cancel", json!({"runId": cancel_run}));
    let ended = daemon
        .until(Duration::from_secs(600), |r| {
            r.message["method"] == "knotmeter/runEnd" && r.message["params"]["runId"] == cancel_run
        })
        .expect("the cancelled run ends")
        .at;
    f.cancel_to_end_ms = ms(ended - cancel_at);
    let asked = asker.stop();
    daemon.drain_for(Duration::from_millis(200));

    for (id, kind, at) in asked {
        let Some(answer) = daemon
            .log
            .iter()
            .find(|r| r.message.get("method").is_none() && r.message.get("id") == Some(&json!(id)))
        else {
            continue;
        };
        let latency = ms(answer.at - at);
        let hover = kind == "hover";
        let bucket = if at >= typing_from && at <= typing_to {
            if hover {
                &mut f.hover_typing
            } else {
                &mut f.lens_typing
            }
        } else if at >= run_from && at <= first_started {
            if hover {
                &mut f.hover_start
            } else {
                &mut f.lens_start
            }
        } else if at > first_started && at <= run_end {
            if hover {
                &mut f.hover_running
            } else {
                &mut f.lens_running
            }
        } else {
            continue;
        };
        bucket.push(latency);
    }
    daemon.shutdown();
    f
}

/// Requests sent: id, method, when.
type Asked = Vec<(i64, &'static str, Instant)>;

/// Asks for a hover and the code lenses of the edited file, alternately, every 25 ms, from
/// its own thread; the line of the hover follows the edits.
struct Asker {
    line: Arc<AtomicU32>,
    stop: Arc<AtomicBool>,
    asked: Arc<Mutex<Asked>>,
    thread: std::thread::JoinHandle<()>,
}

impl Asker {
    fn start(sender: Sender, uri: String, line: u32) -> Self {
        let line = Arc::new(AtomicU32::new(line));
        let stop = Arc::new(AtomicBool::new(false));
        let asked = Arc::new(Mutex::new(Vec::new()));
        let thread = {
            let (line, stop, asked) = (Arc::clone(&line), Arc::clone(&stop), Arc::clone(&asked));
            std::thread::spawn(move || {
                let mut hover = true;
                while !stop.load(Ordering::Relaxed) {
                    let at = Instant::now();
                    let (kind, id) = if hover {
                        let l = line.load(Ordering::Relaxed);
                        let id = sender.request(
                            "textDocument/hover",
                            json!({"textDocument": {"uri": uri},
                                   "position": {"line": l, "character": 4}}),
                        );
                        ("hover", id)
                    } else {
                        let id = sender.request(
                            "textDocument/codeLens",
                            json!({"textDocument": {"uri": uri}}),
                        );
                        ("codeLens", id)
                    };
                    asked.lock().unwrap().push((id, kind, at));
                    hover = !hover;
                    std::thread::sleep(Duration::from_millis(25));
                }
            })
        };
        Self {
            line,
            stop,
            asked,
            thread,
        }
    }

    fn stop(self) -> Asked {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().unwrap();
        Arc::try_unwrap(self.asked).unwrap().into_inner().unwrap()
    }
}

/// Start-up time and resident memory on 1 000 benchmarks, then again with `dirs` directories
/// under `target/`.
fn startup_with_target_dirs(exe: &std::path::Path, dirs: usize) -> ((f64, f64), (f64, f64)) {
    let ws = workspace::generate(1000);
    let root = ws.root();
    let once = || {
        let mut daemon = Daemon::spawn(exe, &root, &ws.cargo(), &[], "");
        let started = initialize(&mut daemon, &root, false);
        let first = daemon
            .until(Duration::from_secs(120), |r| is_tree(&r.message))
            .expect("a first tree");
        daemon.drain_for(Duration::from_millis(500));
        let figures = (ms(first.at - started), mb(rss_kib(daemon.pid())));
        daemon.shutdown();
        figures
    };
    let plain = once();
    ws.add_target_dirs(dirs);
    (plain, once())
}

fn peak_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn mb(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// "p50 x / p95 y / max z ms (n)".
fn spread(values: &[f64]) -> String {
    if values.is_empty() {
        return "no samples".into();
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let q = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
    format!(
        "p50 {:.1} / p95 {:.1} / max {:.1} ms (n = {})",
        q(0.5),
        q(0.95),
        q(1.0),
        v.len()
    )
}

fn report(f: &Figures) {
    println!(
        "\n## {} benchmarks ({} cases) in {} files",
        f.benches, f.cases, f.files
    );
    println!(
        "start-up (initialize → first tree): {:.0} ms; idle RSS {:.1} MB",
        f.startup_ms, f.idle_rss_mb
    );
    println!(
        "typing ({} edits, one line each, 40 ms apart): didChange → tree {}",
        f.edits,
        spread(&f.change_to_tree_ms)
    );
    println!(
        "  tree messages: {} pushes, {:.1} KB in all, {:.1} KB per keystroke; RSS after {:.1} MB",
        f.tree_pushes,
        f.tree_bytes as f64 / 1e3,
        f.tree_bytes as f64 / 1e3 / f.edits as f64,
        f.typing_rss_mb
    );
    println!("  hover    {}", spread(&f.hover_typing));
    println!("  codeLens {}", spread(&f.lens_typing));
    println!(
        "run of everything: start (request → first `started`): {} messages, {:.1} KB",
        f.start_messages,
        f.start_bytes as f64 / 1e3
    );
    println!("  hover while it starts    {}", spread(&f.hover_start));
    println!("  codeLens while it starts {}", spread(&f.lens_start));
    println!("  hover while it runs      {}", spread(&f.hover_running));
    println!("  codeLens while it runs   {}", spread(&f.lens_running));
    println!(
        "  whole run {:.1} s, {:.1} MB on the wire; RSS after the run {:.1} MB (peak {:.1} MB)",
        f.run_secs,
        f.run_bytes as f64 / 1e6,
        f.after_run_rss_mb,
        f.peak_rss_mb
    );
    println!("cancel → runEnd: {:.0} ms", f.cancel_to_end_ms);
    println!("tree from the messages = discover: {}", f.tree_agrees);
}
