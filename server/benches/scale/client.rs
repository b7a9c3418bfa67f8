//! A client for measuring: it writes from any thread, and a reader thread stamps every message
//! the daemon sends with its arrival time and its size on the wire before parsing it. It speaks
//! both forms of the tree and of run states (whole trees and `knotmeter/runState` from daemons
//! that predate the incremental protocol, `knotmeter/treeChanged` and `knotmeter/runStates`
//! from those that have it), so one harness measures the daemon before and after.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// One message from the daemon.
#[derive(Debug, Clone)]
pub struct Received {
    /// The whole JSON-RPC message.
    pub message: Value,
    /// When its last byte was read.
    pub at: Instant,
    /// Its size on the wire, header included.
    pub bytes: usize,
}

/// A running `knotmeter serve`.
pub struct Daemon {
    child: Child,
    stdin: Arc<Mutex<ChildStdin>>,
    incoming: mpsc::Receiver<Received>,
    next_id: Arc<Mutex<i64>>,
    /// Everything received so far, in order (tree messages and results reduced, see
    /// [`slim`]).
    pub log: Vec<Received>,
    _history: tempfile::TempDir,
}

impl Daemon {
    /// Starts `exe serve` in `root` with `cargo` as its cargo.
    pub fn spawn(exe: &Path, root: &Path, cargo: &Path, env: &[(&str, &str)], probe: &str) -> Self {
        let history = tempfile::tempdir().unwrap();
        let mut command = Command::new(exe);
        command
            .arg("serve")
            .current_dir(root)
            .env("CARGO", cargo)
            .env("KNOTMETER_HISTORY", history.path().join("history.db"))
            .env("KNOTMETER_LOG", "warn")
            .env_remove("CARGO_TARGET_DIR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        for (k, v) in env {
            command.env(k, v);
        }
        let mut child = command.spawn().expect("knotmeter serve starts");
        let stdin = Arc::new(Mutex::new(child.stdin.take().unwrap()));
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        let answer = Arc::clone(&stdin);
        // The tree as a client that applies every tree message holds it.
        let shared = Arc::new(Mutex::new(ClientTree::default()));
        let probe = probe.to_owned();
        std::thread::spawn(move || {
            let mut reader = BufReader::with_capacity(1 << 20, stdout);
            while let Some((body, bytes, at)) = read_frame(&mut reader) {
                let Ok(mut message) = serde_json::from_slice::<Value>(&body) else {
                    continue;
                };
                if message.get("method").is_some() && message.get("id").is_some() {
                    let reply = json!({"jsonrpc": "2.0", "id": message["id"], "result": null});
                    let _ = write_message(&mut *answer.lock().unwrap(), &reply);
                }
                slim(&mut message, &shared, &probe);
                if tx.send(Received { message, at, bytes }).is_err() {
                    return;
                }
            }
        });
        Self {
            child,
            stdin,
            incoming: rx,
            next_id: Arc::new(Mutex::new(1)),
            log: Vec::new(),
            _history: history,
        }
    }

    /// A handle that sends requests from another thread.
    pub fn sender(&self) -> Sender {
        Sender {
            stdin: Arc::clone(&self.stdin),
            next_id: Arc::clone(&self.next_id),
        }
    }

    /// The daemon's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Receives until `pred` holds for a message (kept in the log), or `timeout` passes.
    pub fn until(
        &mut self,
        timeout: Duration,
        pred: impl Fn(&Received) -> bool,
    ) -> Option<Received> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.checked_duration_since(Instant::now())?;
            let received = self.incoming.recv_timeout(left).ok()?;
            self.log.push(received.clone());
            if pred(&received) {
                return Some(received);
            }
        }
    }

    /// Receives whatever arrives within `time`.
    pub fn drain_for(&mut self, time: Duration) {
        self.until(time, |_| false);
    }

    /// The response to request `id`.
    pub fn response(&mut self, id: i64, timeout: Duration) -> Value {
        if let Some(r) = self.log.iter().find(|r| is_response(&r.message, id)) {
            return r.message.clone();
        }
        self.until(timeout, |r| is_response(&r.message, id))
            .unwrap_or_else(|| panic!("no response to request {id} within {timeout:?}"))
            .message
    }

    /// `shutdown` and `exit`; waits for the process to end.
    pub fn shutdown(mut self) {
        let id = self.sender().request("shutdown", Value::Null);
        self.response(id, Duration::from_secs(60));
        self.sender().notify("exit", Value::Null);
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.child.try_wait().unwrap().is_none() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Writes requests and notifications; cheap to clone into other threads.
#[derive(Clone)]
pub struct Sender {
    stdin: Arc<Mutex<ChildStdin>>,
    next_id: Arc<Mutex<i64>>,
}

impl Sender {
    /// Sends a request; returns its id.
    pub fn request(&self, method: &str, params: Value) -> i64 {
        let id = {
            let mut next = self.next_id.lock().unwrap();
            *next += 1;
            *next
        };
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        write_message(&mut *self.stdin.lock().unwrap(), &message).unwrap();
        id
    }

    /// Sends a notification.
    pub fn notify(&self, method: &str, params: Value) {
        let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        write_message(&mut *self.stdin.lock().unwrap(), &message).unwrap();
    }
}

fn is_response(message: &Value, id: i64) -> bool {
    message.get("method").is_none() && message.get("id") == Some(&json!(id))
}

fn write_message(out: &mut impl Write, message: &Value) -> std::io::Result<()> {
    let body = message.to_string();
    write!(out, "Content-Length: {}\r\n\r\n{body}", body.len())?;
    out.flush()
}

fn read_frame(reader: &mut impl BufRead) -> Option<(Vec<u8>, usize, Instant)> {
    let mut length = None;
    let mut header = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        header += line.len();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length:") {
            length = value.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    let at = Instant::now();
    let bytes = header + body.len();
    Some((body, bytes, at))
}

/// The tree as a client holds it: items by id, kept up to date from whole trees and deltas.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ClientTree {
    /// The version of the last tree applied (0 for daemons without versions).
    pub version: u64,
    /// Every item, by id.
    pub items: HashMap<String, Value>,
}

impl ClientTree {
    /// Applies a tree message (`knotmeter/discovered` or `knotmeter/treeChanged`) or a
    /// `knotmeter/discover` result. Returns false when a delta does not follow this tree (ask
    /// for the whole tree then).
    pub fn apply(&mut self, params: &Value) -> bool {
        if let Some(items) = params.get("items").filter(|_| params.get("base").is_none()) {
            self.items = items
                .as_array()
                .unwrap()
                .iter()
                .map(|i| (i["id"].as_str().unwrap().to_owned(), i.clone()))
                .collect();
            self.version = params["version"].as_u64().unwrap_or(0);
            return true;
        }
        let base = params["base"].as_u64().unwrap();
        let version = params["version"].as_u64().unwrap();
        if version <= self.version {
            return true; // older than what we hold
        }
        if base != self.version {
            return false;
        }
        for id in params["removed"].as_array().into_iter().flatten() {
            self.items.remove(id.as_str().unwrap());
        }
        for item in params["items"].as_array().into_iter().flatten() {
            self.items
                .insert(item["id"].as_str().unwrap().to_owned(), item.clone());
        }
        self.version = version;
        true
    }
}

/// Applies a tree message to `tree` and replaces its params with `{"probe": line}` (the start
/// line of the item `probe` if the message carries it, and `"stale": true` when a delta did not
/// follow); drops the `result`s of run states (a 10 000-case run would otherwise keep gigabytes
/// of samples here). The sizes on the wire are counted before.
fn slim(message: &mut Value, tree: &Mutex<ClientTree>, probe: &str) {
    if is_tree(message) {
        let params = &message["params"];
        let line = params["items"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|i| i["id"] == probe)
            .map(|i| i["range"]["start"]["line"].clone());
        let fits = tree.lock().unwrap().apply(params);
        message["params"] = json!({"probe": line, "stale": !fits});
    } else if message.get("method").is_none() {
        // A `knotmeter/discover` answer: compared with the tree the messages built.
        if let Some(items) = message["result"].get("items") {
            let count = items.as_array().map_or(0, Vec::len);
            let mut fresh = ClientTree::default();
            fresh.apply(&message["result"]);
            let held = tree.lock().unwrap();
            let equal = fresh.items == held.items;
            message["result"] = json!({"count": count, "equal": equal, "held": held.items.len()});
        }
    }
    if message["method"] == "knotmeter/runState" {
        if let Some(result) = message["params"].get_mut("result") {
            *result = json!(true);
        }
    }
    if message["method"] == "knotmeter/runStates" {
        for state in message["params"]["states"]
            .as_array_mut()
            .into_iter()
            .flatten()
        {
            if let Some(result) = state.get_mut("result") {
                *result = json!(true);
            }
        }
    }
}

/// Whether a message carries the tree (whole or a change).
pub fn is_tree(message: &Value) -> bool {
    message["method"] == "knotmeter/discovered" || message["method"] == "knotmeter/treeChanged"
}

/// The run-state changes a message carries: one for `knotmeter/runState`, a batch for
/// `knotmeter/runStates`.
pub fn states(message: &Value) -> Vec<&Value> {
    match message["method"].as_str() {
        Some("knotmeter/runState") => vec![&message["params"]],
        Some("knotmeter/runStates") => message["params"]["states"]
            .as_array()
            .map(|a| a.iter().collect())
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// The daemon's resident memory, in KiB.
pub fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}
