//! Shared by the daemon's integration tests: fixture workspaces in temporary directories, and
//! a small LSP client that drives `knotmeter serve` over its standard input and output.

#![allow(dead_code)]

pub mod in_process;
pub mod scripted;
pub mod stored;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// The `knotmeter` binary under test.
pub fn knotmeter() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_knotmeter"))
}

/// The target directory shared by every fixture, so the engine is compiled once: a directory
/// of the tests' own (`<target>/e2e-fixtures`), never the one `CARGO_TARGET_DIR` names.
pub fn fixture_target_dir() -> PathBuf {
    let exe = knotmeter();
    // <target>/debug/knotmeter
    exe.parent()
        .and_then(Path::parent)
        .expect("the binary sits in <target>/<profile>")
        .join("e2e-fixtures")
}

/// A fixture's `.cargo/config.toml`: the shared target directory, and the repository's own
/// build settings for the bench profile (SQLite's C file at -O1, as the workspace's Cargo.toml
/// and docs/performance.md's "Build time" have it). Every producer of `<target>/e2e-fixtures`
/// carries the same settings, or cargo builds the engine's dependency chain there twice.
pub fn fixture_cargo_config() -> String {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml");
    let manifest = std::fs::read_to_string(&workspace).unwrap();
    assert!(
        manifest.contains(BENCH_PROFILE),
        "{} no longer holds the fixtures' bench profile: make BENCH_PROFILE in \
         server/tests/common (and in tests/tests/harness.rs) its bench profile again",
        workspace.display()
    );
    format!(
        "[build]\ntarget-dir = \"{}\"\n\n{}",
        fixture_target_dir().display(),
        BENCH_PROFILE
    )
}

/// The bench profile's settings every fixture shares with the repository's workspace.
const BENCH_PROFILE: &str = "[profile.bench.package.libsqlite3-sys]\nopt-level = 1\n";

/// The history file of the workspace at `root`: inside it, so that it goes with the temporary
/// directory, and so that each fixture starts with an empty history of its own. A daemon
/// restarted on the same workspace finds what the previous one stored.
pub fn history_file(root: &Path) -> PathBuf {
    root.join(".knotmeter-test").join("history.db")
}

/// Points every process `command` starts (cargo, bench binaries, the daemon) at the fixtures'
/// target directory and at `root`'s own history file, whatever the environment says: with
/// `CARGO_TARGET_DIR` or `KNOTMETER_HISTORY` set, a test would otherwise build into the
/// user's target directory and store its runs in the user's history.
pub fn isolate<'c>(command: &'c mut Command, root: &Path) -> &'c mut Command {
    command
        .env("CARGO_TARGET_DIR", fixture_target_dir())
        .env("KNOTMETER_HISTORY", history_file(root))
        // On GitHub Actions `knotmeter run` appends to the step summary: not the tests' runs.
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
}

/// Isolates this test process itself, for tests that drive the daemon in memory: the
/// in-process session resolves the history from `KNOTMETER_HISTORY`, so with it set a test
/// would read the user's history. Points it (once per process, before the first service is
/// made) at a file in a temporary directory of the process's own, and the target directory
/// at the fixtures'. Call it first in every in-process harness.
pub fn isolate_this_process() {
    static ISOLATED: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    ISOLATED.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary directory");
        // Sequenced by the OnceLock: every in-process test calls this before it reads the
        // environment, and std serialises its own environment access.
        std::env::set_var("KNOTMETER_HISTORY", dir.path().join("history.db"));
        std::env::set_var("CARGO_TARGET_DIR", fixture_target_dir());
        std::env::remove_var("GITHUB_ACTIONS");
        std::env::remove_var("GITHUB_STEP_SUMMARY");
        dir
    });
}

/// `program` run in the workspace at `root`, isolated (see [`isolate`]).
pub fn command_in(program: impl AsRef<std::ffi::OsStr>, root: &Path) -> Command {
    let mut command = Command::new(program);
    isolate(&mut command, root).current_dir(root);
    command
}

/// A fixture workspace copied into a temporary directory.
pub struct Fixture {
    /// Keeps the directory alive.
    pub dir: tempfile::TempDir,
    /// The copy's slot (see [`claim_slot`]).
    slot: usize,
    /// Holds the slot while the copy lives.
    _slot_lock: std::fs::File,
}

impl Fixture {
    /// The workspace root.
    pub fn root(&self) -> PathBuf {
        self.dir.path().canonicalize().unwrap()
    }

    /// A file in the fixture.
    pub fn path(&self, relative: &str) -> PathBuf {
        self.root().join(relative)
    }

    /// The package version this copy must carry, its slot in it (see [`claim_slot`]): for a
    /// test that writes the copy's `Cargo.toml` itself.
    pub fn version(&self) -> String {
        format!("0.1.0-slot.{}", self.slot)
    }

    /// `knotmeter` run in the fixture, isolated (see [`isolate`]).
    pub fn knotmeter(&self) -> Command {
        command_in(knotmeter(), &self.root())
    }

    /// `file://` URI of a file in the fixture.
    pub fn uri(&self, relative: &str) -> String {
        format!("file://{}", self.path(relative).display())
    }

    /// Reads a file of the fixture.
    pub fn read(&self, relative: &str) -> String {
        std::fs::read_to_string(self.path(relative)).unwrap()
    }

    /// Writes a file of the fixture.
    pub fn write(&self, relative: &str, text: &str) {
        let path = self.path(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// A slot for a live copy of fixture `name`: the lowest number no other live copy holds, in
/// any test process, held through a file lock until the returned file is dropped.
///
/// Copies build into one target directory, and cargo names a workspace package's outputs
/// without its path: two live copies of a package would write the same files, and since cargo
/// judges freshness by modification times, a copy edited before the other's build finished
/// would be called fresh and run the other's binary. Each copy's version carries its slot, so
/// live copies have outputs of their own, while the slots stay few and their files are reused.
fn claim_slot(name: &str) -> (usize, std::fs::File) {
    let dir = fixture_target_dir().join("fixture-slots");
    std::fs::create_dir_all(&dir).unwrap();
    for slot in 0.. {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join(format!("{name}-{slot}.lock")))
            .unwrap();
        match file.try_lock() {
            Ok(()) => return (slot, file),
            Err(std::fs::TryLockError::WouldBlock) => continue,
            Err(std::fs::TryLockError::Error(e)) => panic!("cannot lock a fixture slot: {e}"),
        }
    }
    unreachable!("a slot is free")
}

/// An empty workspace in a new temporary directory, for a test that writes its own files: it
/// holds a slot for copies of `name` (see [`claim_slot`]), whose version the test's manifest
/// must carry ([`Fixture::version`]) when another test may build a copy at the same time.
pub fn empty_fixture(name: &str) -> Fixture {
    let dir = tempfile::Builder::new()
        .prefix(&format!("knotmeter-{name}-"))
        .tempdir()
        .unwrap();
    let (slot, slot_lock) = claim_slot(name);
    Fixture {
        dir,
        slot,
        _slot_lock: slot_lock,
    }
}

/// Copies `tests/fixtures/<name>` into a new temporary directory: `Cargo.toml.in` becomes
/// `Cargo.toml` with the engine's path filled in and the copy's slot in its version (see
/// [`claim_slot`]), the repository's lock file pins the dependencies, and `.cargo/config.toml`
/// points at the shared target directory ([`fixture_cargo_config`]).
pub fn fixture(name: &str) -> Fixture {
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    let fx = empty_fixture(name);
    let dir = fx.root();
    copy_dir(&source, &dir);
    let engine = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../engine")
        .canonicalize()
        .unwrap();
    let template = std::fs::read_to_string(dir.join("Cargo.toml.in")).unwrap();
    assert!(template.contains("\nversion = \"0.1.0\"\n"), "{template}");
    let manifest = template
        .replace("@KNOTMETER@", &engine.display().to_string())
        .replacen(
            "\nversion = \"0.1.0\"\n",
            &format!("\nversion = \"{}\"\n", fx.version()),
            1,
        );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::remove_file(dir.join("Cargo.toml.in")).unwrap();
    let lock = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock");
    std::fs::copy(lock, dir.join("Cargo.lock")).unwrap();
    std::fs::create_dir_all(dir.join(".cargo")).unwrap();
    std::fs::write(dir.join(".cargo/config.toml"), fixture_cargo_config()).unwrap();
    fx
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A message the server sent.
#[derive(Debug, Clone)]
pub struct Received {
    /// The whole JSON-RPC message.
    pub message: Value,
    /// When it arrived.
    pub at: Instant,
}

/// An LSP client talking to a spawned `knotmeter serve`.
pub struct Client {
    child: Child,
    stdin: Arc<Mutex<ChildStdin>>,
    incoming: mpsc::Receiver<Received>,
    /// Notifications and requests received but not yet consumed.
    pub backlog: Vec<Received>,
    /// Every notification received, in order.
    pub log: Vec<Received>,
    next_id: i64,
    /// The directory of this client's own history file (`KNOTMETER_HISTORY`).
    _history: tempfile::TempDir,
}

impl Client {
    /// Spawns `knotmeter serve` in `dir`.
    pub fn spawn(dir: &Path) -> Self {
        Self::spawn_with(dir, |_| {})
    }

    /// Spawns `knotmeter serve` in `dir`, letting the caller adjust the command. It builds
    /// into the fixtures' target directory (see [`isolate`]), and the daemon (and every bench
    /// binary it runs) uses a history file of its own, in a temporary directory, unless
    /// `adjust` sets `KNOTMETER_HISTORY`.
    pub fn spawn_with(dir: &Path, adjust: impl FnOnce(&mut Command)) -> Self {
        Self::spawn_program(&knotmeter(), dir, adjust)
    }

    /// As [`Client::spawn_with`], with another build of `knotmeter` (a benchmark comparing
    /// two daemons side by side).
    pub fn spawn_program(program: &Path, dir: &Path, adjust: impl FnOnce(&mut Command)) -> Self {
        let history = tempfile::tempdir().unwrap();
        let mut command = command_in(program, dir);
        command
            .arg("serve")
            .env("KNOTMETER_HISTORY", history.path().join("history.db"))
            .env("KNOTMETER_LOG", "knotmeter_server=debug")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        adjust(&mut command);
        let mut child = command.spawn().expect("knotmeter serve starts");
        let stdin = Arc::new(Mutex::new(child.stdin.take().unwrap()));
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        let answer = Arc::clone(&stdin);
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(message) = read_message(&mut reader) {
                // Requests from the server (progress tokens, refreshes) get a null result.
                if message.get("method").is_some() && message.get("id").is_some() {
                    let reply = json!({"jsonrpc": "2.0", "id": message["id"], "result": null});
                    let _ = write_message(&mut *answer.lock().unwrap(), &reply);
                }
                if tx
                    .send(Received {
                        message,
                        at: Instant::now(),
                    })
                    .is_err()
                {
                    return;
                }
            }
        });
        Self {
            child,
            stdin,
            incoming: rx,
            backlog: Vec::new(),
            log: Vec::new(),
            next_id: 1,
            _history: history,
        }
    }

    /// Sends raw bytes (for malformed-input tests).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let mut stdin = self.stdin.lock().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Value) {
        let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        write_message(&mut *self.stdin.lock().unwrap(), &message).unwrap();
    }

    /// Sends a request and returns its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        write_message(&mut *self.stdin.lock().unwrap(), &message).unwrap();
        id
    }

    /// Sends a request and waits for its response (the whole response object).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        self.response(id, Duration::from_secs(60))
    }

    /// Waits for a response whose id is `null` (an error about an unreadable message).
    pub fn response_with_null_id(&mut self, timeout: Duration) -> Value {
        self.wait(timeout, |m| m.get("method").is_none() && m["id"].is_null())
            .expect("an error response with a null id")
    }

    /// Waits for the response to request `id`.
    pub fn response(&mut self, id: i64, timeout: Duration) -> Value {
        let found = self.wait(timeout, |m| {
            m.get("method").is_none() && m.get("id") == Some(&json!(id))
        });
        found.unwrap_or_else(|| panic!("no response to request {id} within {timeout:?}"))
    }

    /// Waits for a notification with `method` whose params satisfy `pred`, and returns its
    /// params.
    pub fn notification(
        &mut self,
        method: &str,
        timeout: Duration,
        pred: impl Fn(&Value) -> bool,
    ) -> Value {
        self.wait(timeout, |m| m["method"] == method && pred(&m["params"]))
            .map(|m| m["params"].clone())
            .unwrap_or_else(|| {
                let seen: Vec<String> = self
                    .log
                    .iter()
                    .map(|r| r.message.to_string().chars().take(300).collect())
                    .collect();
                panic!(
                    "no {method} notification matched within {timeout:?}; received:\n{}",
                    seen.join("\n")
                )
            })
    }

    /// Collects the run's `knotmeter/runState` params until its `knotmeter/runEnd`.
    pub fn run_to_end(&mut self, run_id: i64, timeout: Duration) -> Vec<Value> {
        self.notification("knotmeter/runEnd", timeout, |p| p["runId"] == run_id);
        self.log
            .iter()
            .filter(|r| {
                r.message["method"] == "knotmeter/runState"
                    && r.message["params"]["runId"] == run_id
            })
            .map(|r| r.message["params"].clone())
            .collect()
    }

    /// The final state of each item of a run, from states already received.
    pub fn finals(&self, run_id: i64) -> Vec<(String, String)> {
        let mut finals: Vec<(String, String)> = Vec::new();
        for r in &self.log {
            let p = &r.message["params"];
            if r.message["method"] != "knotmeter/runState" || p["runId"] != run_id {
                continue;
            }
            let state = p["state"].as_str().unwrap().to_owned();
            if !["passed", "failed", "errored", "skipped"].contains(&state.as_str()) {
                continue;
            }
            let id = p["id"].as_str().unwrap().to_owned();
            match finals.iter_mut().find(|(i, _)| *i == id) {
                Some(entry) => entry.1 = state,
                None => finals.push((id, state)),
            }
        }
        finals
    }

    fn wait(&mut self, timeout: Duration, pred: impl Fn(&Value) -> bool) -> Option<Value> {
        if let Some(at) = self.backlog.iter().position(|r| pred(&r.message)) {
            return Some(self.backlog.remove(at).message);
        }
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.checked_duration_since(Instant::now())?;
            let received = self.incoming.recv_timeout(left).ok()?;
            if received.message.get("method").is_some() {
                self.log.push(received.clone());
            }
            if pred(&received.message) {
                return Some(received.message);
            }
            self.backlog.push(received);
        }
    }

    /// `initialize` + `initialized` with a workspace folder and options.
    pub fn initialize(&mut self, root: &Path, options: Value) -> Value {
        let uri = format!("file://{}", root.display());
        let response = self.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": uri,
                "workspaceFolders": [{"uri": uri, "name": "fixture"}],
                "capabilities": {
                    "window": {"workDoneProgress": true},
                    "workspace": {"codeLens": {"refreshSupport": true}}
                },
                "initializationOptions": options,
            }),
        );
        self.notify("initialized", json!({}));
        response
    }

    /// `shutdown`, `exit`, and waits for the process to end; returns its exit status.
    pub fn shutdown(mut self) -> std::process::ExitStatus {
        let response = self.request("shutdown", Value::Null);
        assert!(response.get("error").is_none(), "{response}");
        self.notify("exit", Value::Null);
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "knotmeter serve did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The server process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits for the server process to end (without asking it to); returns its exit status.
    pub fn wait_for_exit(&mut self, timeout: Duration) -> std::process::ExitStatus {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "knotmeter serve did not exit within {timeout:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Writes one message with its `Content-Length` header.
pub fn write_message(out: &mut impl Write, message: &Value) -> std::io::Result<()> {
    let body = message.to_string();
    write!(out, "Content-Length: {}\r\n\r\n{body}", body.len())?;
    out.flush()
}

fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
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
    serde_json::from_slice(&body).ok()
}

/// What `/proc` says about one live process.
pub struct ProcInfo {
    /// Its id.
    pub pid: u32,
    /// Its arguments, joined by spaces.
    pub cmdline: String,
    /// Its environment, `NAME=value` entries joined by line breaks.
    pub environ: String,
}

/// The live processes (zombies excluded: they have ended) for which `pred` holds.
pub fn processes_where(pred: impl Fn(&ProcInfo) -> bool) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let state = stat.rsplit(')').next().unwrap_or("").trim_start();
        if stat.is_empty() || state.starts_with('Z') || state.starts_with('X') {
            continue;
        }
        let read = |name: &str| {
            let bytes = std::fs::read(entry.path().join(name)).unwrap_or_default();
            String::from_utf8_lossy(&bytes)
                .replace('\0', if name == "environ" { "\n" } else { " " })
        };
        let info = ProcInfo {
            pid,
            cmdline: read("cmdline"),
            environ: read("environ"),
        };
        if pred(&info) {
            found.push(pid);
        }
    }
    found
}

/// The peak resident memory of a live process, in KiB (`VmHWM`); `None` once it has ended (a
/// zombie has no memory left to report) or when it never existed.
pub fn peak_resident_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

/// Whether process `pid` is alive (zombies have ended).
pub fn alive(pid: u32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let state = stat.rsplit(')').next().unwrap_or("").trim_start();
    !stat.is_empty() && !state.starts_with('Z') && !state.starts_with('X')
}

/// A unique marker for the processes one test starts: put in their environment, inherited by
/// everything they start, and found again in `/proc`.
pub struct Marker(String);

impl Marker {
    /// A marker no other process carries.
    pub fn new() -> Self {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        Self(format!("{}-{n}-{nanos}", std::process::id()))
    }

    /// Puts the marker in `command`'s environment.
    pub fn mark(&self, command: &mut Command) {
        command.env("KNOTMETER_TEST_MARKER", &self.0);
    }

    /// The live processes carrying the marker.
    pub fn alive(&self) -> Vec<ProcInfo> {
        let entry = format!("KNOTMETER_TEST_MARKER={}", self.0);
        let pids = processes_where(|p| p.environ.lines().any(|l| l == entry));
        pids.into_iter()
            .map(|pid| ProcInfo {
                pid,
                cmdline: std::fs::read(format!("/proc/{pid}/cmdline"))
                    .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
                    .unwrap_or_default(),
                environ: String::new(),
            })
            .collect()
    }

    /// Waits up to `timeout` for every marked process to end; returns the survivors'
    /// command lines.
    pub fn survivors_after(&self, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        loop {
            let alive = self.alive();
            if alive.is_empty() || Instant::now() >= deadline {
                return alive
                    .into_iter()
                    .map(|p| format!("{} {}", p.pid, p.cmdline))
                    .collect();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Kills every marked process (the clean-up of a failed test).
    pub fn kill_all(&self) {
        for p in self.alive() {
            let _ = Command::new("kill")
                .args(["-9", &p.pid.to_string()])
                .status();
        }
    }
}

impl Default for Marker {
    fn default() -> Self {
        Self::new()
    }
}

/// A failed test leaves nothing running either.
impl Drop for Marker {
    fn drop(&mut self) {
        self.kill_all();
    }
}
