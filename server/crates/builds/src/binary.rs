//! One bench binary in driven mode (`--driven`): started in its own process group, spoken to
//! one command per line, read one event per line, and stopped.
//!
//! Whatever the benchmark prints goes to the binary's standard error (the engine keeps
//! standard output for events); the last lines are kept to explain a crash.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use knotmeter_protocol::{DrivenCommand, DrivenEvent, ListEntry, Manifest, DRIVEN_VERSION};
use tokio::io::AsyncWriteExt;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::time::Instant;

use crate::process::{Children, Group};
use crate::runs::{describe, LineReader, MAX_LINE_BYTES};

/// What a start failure says when the bench binary's knotmeter has no driven mode: such a side
/// can measure nothing with this command, whatever the case.
pub const PREDATES_DRIVEN_MODE: &str =
    "does not know --driven: its knotmeter dependency predates `knotmeter compare`";

/// Lines of standard error kept to explain how a process ended.
const STDERR_TAIL: usize = 20;

/// How to start a bench binary of one side.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    /// Which build: `base` or `head`, for messages.
    pub side: &'static str,
    /// The executable.
    pub exe: PathBuf,
    /// Its working directory (its package's directory, as under `cargo bench`).
    pub dir: PathBuf,
    /// Arguments after `--driven` (the time budget, the noise threshold).
    pub args: Vec<String>,
    /// Extra environment (the history file).
    pub env: Vec<(String, PathBuf)>,
}

/// A running driven bench binary that said `ready`.
pub struct Binary {
    /// Its manifest.
    pub manifest: Manifest,
    /// Its cases, in its order.
    pub cases: Vec<ListEntry>,
    /// The version of the driven mode it speaks: a base from before rounds speaks 1.
    pub driven_version: u32,
    io: Io,
}

/// The process and its streams.
struct Io {
    side: &'static str,
    child: Child,
    group: Group,
    stdin: Option<ChildStdin>,
    stdout: LineReader<ChildStdout>,
    stderr_tail: Arc<Mutex<Vec<String>>>,
}

/// Why no event came.
#[derive(Debug, Clone, PartialEq)]
pub enum Silence {
    /// The process ended (or closed its output): how, and its last lines of standard error.
    Ended(String),
    /// Nothing came before the deadline.
    TimedOut,
}

impl Binary {
    /// Starts `spec` and waits up to `timeout` for `ready`.
    pub async fn start(
        spec: &Spec,
        children: &Children,
        timeout: Duration,
    ) -> Result<Binary, String> {
        let mut command = Command::new(&spec.exe);
        command
            .arg("--driven")
            .args(&spec.args)
            .current_dir(&spec.dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // A layout of its own, as a run's round workers have: between two builds whose paths
        // differ in length, one fixed layout each would be a bias no number of rounds removes.
        let (stack_pad, heap_offset) = knotmeter_protocol::layout(random());
        command
            .env(knotmeter_protocol::LAYOUT_PAD_ENV, "x".repeat(stack_pad))
            .env(knotmeter_protocol::HEAP_OFFSET_ENV, heap_offset.to_string());
        for (key, value) in &spec.env {
            command.env(key, value);
        }
        let (mut child, group) = children.spawn(command).await.map_err(|e| {
            format!(
                "cannot start the {} build's bench binary {}: {e}",
                spec.side,
                spec.exe.display()
            )
        })?;
        let stdin = child.stdin.take();
        let stdout = LineReader::new(child.stdout.take().expect("piped"));
        let stderr_tail = Arc::new(Mutex::new(Vec::new()));
        // A benchmark's one huge line is cut as it is read, not held whole in the tail.
        let mut stderr =
            LineReader::with_limit(child.stderr.take().expect("piped"), MAX_LINE_BYTES);
        let tail = Arc::clone(&stderr_tail);
        tokio::spawn(async move {
            while let Some(line) = stderr.next_line().await {
                tracing::debug!(target: "knotmeter::compare::bench", "{line}");
                if let Ok(mut tail) = tail.lock() {
                    tail.push(line);
                    if tail.len() > STDERR_TAIL {
                        tail.remove(0);
                    }
                }
            }
        });
        let mut io = Io {
            side: spec.side,
            child,
            group,
            stdin,
            stdout,
            stderr_tail,
        };
        match io.recv(Instant::now() + timeout).await {
            Ok(DrivenEvent::Ready {
                driven_version,
                manifest,
                cases,
                ..
            }) if speaks(spec.side, driven_version) => Ok(Binary {
                manifest: *manifest,
                cases,
                driven_version,
                io,
            }),
            Ok(DrivenEvent::Ready { driven_version, .. }) => Err(format!(
                "the {} build's bench binary speaks version {driven_version} of the driven mode \
                 and this knotmeter version {DRIVEN_VERSION}: build both sides with the same \
                 knotmeter version as this command",
                spec.side
            )),
            Ok(other) => Err(format!(
                "the {} build's bench binary began with {} instead of `ready`",
                spec.side,
                serde_json::to_string(&other).unwrap_or_default()
            )),
            Err(Silence::TimedOut) => Err(format!(
                "the {} build's bench binary did not say `ready` within {} s",
                spec.side,
                timeout.as_secs()
            )),
            Err(Silence::Ended(how)) => {
                let too_old = how.contains("--driven");
                Err(if too_old {
                    format!(
                        "the {} build's bench binary {PREDATES_DRIVEN_MODE} (use a knotmeter with \
                         driven mode on both sides). It said: {how}",
                        spec.side
                    )
                } else {
                    format!("the {} build's bench binary {how}", spec.side)
                })
            }
        }
    }

    /// The process id (for pinning and thread counts).
    pub fn pid(&self) -> Option<u32> {
        self.io.child.id()
    }

    /// Sends one command; an error means the process is gone.
    pub async fn send(&mut self, command: &DrivenCommand) -> Result<(), Silence> {
        self.io.send(command).await
    }

    /// The next event, waiting until `deadline`.
    pub async fn recv(&mut self, deadline: Instant) -> Result<DrivenEvent, Silence> {
        self.io.recv(deadline).await
    }

    /// Ends the session: closes standard input (the engine's end of session) and waits a
    /// moment; the process group is killed when this value drops.
    pub async fn stop(mut self) {
        self.io.stdin = None;
        let _ = tokio::time::timeout(Duration::from_secs(2), self.io.child.wait()).await;
    }
}

impl Io {
    async fn send(&mut self, command: &DrivenCommand) -> Result<(), Silence> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(Silence::Ended("had its input closed".into()));
        };
        let mut line = serde_json::to_vec(command).expect("commands serialise");
        line.push(b'\n');
        let written = async {
            stdin.write_all(&line).await?;
            stdin.flush().await
        }
        .await;
        match written {
            Ok(()) => Ok(()),
            Err(_) => Err(Silence::Ended(self.ended().await)),
        }
    }

    async fn recv(&mut self, deadline: Instant) -> Result<DrivenEvent, Silence> {
        loop {
            let line = tokio::select! {
                line = self.stdout.next_line() => line,
                _ = tokio::time::sleep_until(deadline) => return Err(Silence::TimedOut),
            };
            let Some(line) = line else {
                return Err(Silence::Ended(self.ended().await));
            };
            match serde_json::from_str(&line) {
                Ok(event) => return Ok(event),
                Err(e) => tracing::warn!(
                    "the {} build's bench binary wrote an unreadable event ({e}): {line}",
                    self.side
                ),
            }
        }
    }

    /// How the process ended, with its last lines of standard error (waits for it briefly).
    async fn ended(&mut self) -> String {
        self.stdin = None;
        let status = match tokio::time::timeout(Duration::from_secs(2), self.child.wait()).await {
            Ok(Ok(status)) => Some(status),
            _ => {
                self.group.signal(nix::sys::signal::Signal::SIGKILL);
                self.child.wait().await.ok()
            }
        };
        // Let the standard-error reader catch up with the last lines.
        tokio::time::sleep(Duration::from_millis(20)).await;
        let tail = self
            .stderr_tail
            .lock()
            .map(|t| t.join("\n"))
            .unwrap_or_default();
        if tail.is_empty() {
            describe(status)
        } else {
            format!("{}:\n{tail}", describe(status))
        }
    }
}

/// Whether a bench binary of `side` speaking `driven_version` can take part: a head must speak
/// this knotmeter's version (it pairs in slots of rounds and combines them); a base only
/// answers `open`, `cold`, `workload`, `baseline` and `close`, which version 1 has too, so a
/// base built before rounds can still be compared with.
fn speaks(side: &str, driven_version: u32) -> bool {
    driven_version == DRIVEN_VERSION || (side == "base" && driven_version == 1)
}

/// 64 random bits, from the standard library's per-process random hash keys (a new key for
/// every `RandomState`).
fn random() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A base built before rounds (driven version 1) answers everything a base is asked; a
    /// head must pair in slots and combine, which only this version does.
    #[test]
    fn a_base_from_before_rounds_is_compared_with_and_a_head_must_speak_this_version() {
        assert!(speaks("base", 1));
        assert!(speaks("base", DRIVEN_VERSION));
        assert!(speaks("head", DRIVEN_VERSION));
        assert!(!speaks("head", 1));
        assert!(!speaks("base", DRIVEN_VERSION + 1));
    }
}
