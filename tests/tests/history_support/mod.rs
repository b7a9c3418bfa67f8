//! Helpers of the history tests: a temporary history per test, the fixture bench binaries run
//! against it, another process's lock, damage, and another user.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;

use knotmeter_history::History;
use serde_json::Value;

/// The user the "another user" tests run the bench binary as, when the tests run as root.
const NOBODY: u32 = 65_534;

/// A history file of its own in a temporary directory (the file is not created).
pub struct TempHistory {
    _dir: tempfile::TempDir,
    /// `<temp>/knotmeter/history.db`.
    pub path: PathBuf,
}

impl TempHistory {
    /// A new temporary history, in directories other users may enter (for the tests that run
    /// the bench binary as another user).
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = dir.path().join("knotmeter").join("history.db");
        Self { _dir: dir, path }
    }

    /// `fixture --bench --quick --format json ARGS` on this history.
    pub fn fixture_command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_fixture"));
        command
            .args(["--bench", "--quick", "--format", "json"])
            .args(args)
            .env("KNOTMETER_HISTORY", &self.path);
        command
    }

    /// Runs `fixture --bench --quick --format json ARGS` on this history.
    pub fn fixture(&self, args: &[&str]) -> Output {
        self.fixture_command(args).output().unwrap()
    }

    /// `midway --bench --quick ARGS` on this history, with `env` set.
    pub fn midway_command(&self, args: &[&str], env: &[(&str, &str)]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_midway"));
        command
            .args(["--bench", "--quick"])
            .args(args)
            .env("KNOTMETER_HISTORY", &self.path)
            .envs(env.iter().copied());
        command
    }

    /// Runs `midway --bench --quick ARGS` on this history, with `env` set.
    pub fn midway(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        self.midway_command(args, env).output().unwrap()
    }

    /// Starts `midway` with a slow second case, and returns once that case has taken samples
    /// (its standard output is drained in the background; standard error is piped).
    pub fn spawn_midway_until_second_case_samples(&self) -> Child {
        let mut child = self
            .midway_command(
                &["--format", "jsonl", "--time", "2"],
                &[("KNOTMETER_FIXTURE_SLOW_SECOND", "1")],
            )
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                let event: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
                let sampled = event["samples"].as_u64().is_some_and(|n| n > 0);
                if event["event"] == "progress" && event["id"] == "midway::second" && sampled {
                    let _ = tx.send(());
                }
            }
        });
        rx.recv_timeout(std::time::Duration::from_secs(60))
            .expect("the second case samples");
        child
    }

    /// The `--format json` report on standard output.
    pub fn json(&self, out: &Output) -> Value {
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not one JSON report ({e}); stderr:\n{}",
                String::from_utf8_lossy(&out.stderr)
            )
        })
    }

    /// The history, opened for reading.
    pub fn reader(&self) -> History {
        History::open_read_only(&self.path).unwrap()
    }

    /// Takes the history's write lock, as another process writing would, until dropped.
    pub fn hold_write_lock(&self) -> rusqlite::Connection {
        let conn = rusqlite::Connection::open(&self.path).unwrap();
        conn.execute_batch("BEGIN IMMEDIATE").unwrap();
        conn
    }
}

/// The names of the files in `dir`, sorted.
pub fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Every file in `dir` with a hash of its bytes.
pub fn files_with_hashes(dir: &Path) -> Vec<(String, u64)> {
    use std::hash::{Hash, Hasher};
    names(dir)
        .into_iter()
        .map(|name| {
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            std::fs::read(dir.join(&name)).unwrap().hash(&mut hasher);
            (name, hasher.finish())
        })
        .collect()
}

/// Overwrites the b-tree header of the history's last page with garbage, and returns the
/// file's new bytes.
pub fn damage_last_page(path: &Path) -> Vec<u8> {
    let mut bytes = std::fs::read(path).unwrap();
    let page = 4096;
    assert!(bytes.len() > 8 * page, "{} bytes", bytes.len());
    let at = bytes.len() - page;
    for (i, b) in bytes[at..at + 12].iter_mut().enumerate() {
        *b = 0xA5 ^ (i as u8);
    }
    std::fs::write(path, &bytes).unwrap();
    bytes
}

/// Whether the tests run as root: a file this process creates is owned by its user.
fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    let probe = tempfile::NamedTempFile::new().unwrap();
    probe.as_file().metadata().unwrap().uid() == 0
}

/// Runs the command `make` builds as a user who may read but not write `dir`: another user
/// when the tests run as root (root may write anything), else this user with `dir` made
/// read-only for the run.
pub fn as_other_user_in_read_only(dir: &Path, make: impl FnOnce() -> Command) -> Output {
    let mut command = make();
    if is_root() {
        return command.uid(NOBODY).gid(NOBODY).output().unwrap();
    }
    let before = std::fs::metadata(dir).unwrap().permissions();
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    let out = command.output().unwrap();
    std::fs::set_permissions(dir, before).unwrap();
    out
}

/// Runs the command `make` builds as a user who may not write the history's `-wal` and `-shm`
/// files: another user when the tests run as root, else this user with them made read-only.
pub fn as_other_user_with_own_files(path: &Path, make: impl FnOnce() -> Command) -> Output {
    let mut command = make();
    if is_root() {
        return command.uid(NOBODY).gid(NOBODY).output().unwrap();
    }
    for suffix in ["-wal", "-shm"] {
        let file = format!("{}{suffix}", path.display());
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o444)).unwrap();
    }
    command.output().unwrap()
}
