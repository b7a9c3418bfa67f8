//! Building bench binaries: `cargo bench --no-run --message-format=json`, limited to the
//! targets a run needs, one package at a time.
//!
//! The executables come from the `compiler-artifact` messages, compiler errors from the
//! `compiler-message` messages (with their spans, for LSP diagnostics, and their rendered
//! text, for the run's output and the `errored` items). cargo's own status lines (stderr)
//! become progress. A cancelled build terminates cargo's whole process group.
//!
//! `--message-format=json` rather than `json-render-diagnostics`: the latter renders
//! compiler messages to stderr and leaves them out of the JSON, and with them the spans the
//! diagnostics need. The plain `json` format carries both the spans and the `rendered` text.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use cargo_metadata::diagnostic::{DiagnosticLevel, DiagnosticSpan};
use cargo_metadata::{Message, TargetKind};
use knotmeter_protocol::editor::{Position, Range};
use nix::sys::signal::Signal;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;
use tokio_util::sync::CancellationToken;

use crate::discovery::{TargetRef, Workspace};
use crate::process::Children;

/// What a build reports while it runs.
#[derive(Debug, Clone, PartialEq)]
pub enum BuildEvent {
    /// A line of output: cargo's status lines and rendered compiler messages.
    Output(String),
    /// What cargo is doing now ("Compiling quickstart v0.1.0").
    Progress(String),
}

/// A compiler error at a place in a source file.
#[derive(Debug, Clone, PartialEq)]
pub struct CompilerError {
    /// The file (absolute).
    pub file: PathBuf,
    /// The primary span.
    pub range: Range,
    /// The short message.
    pub message: String,
    /// The error code (`E0308`), if any.
    pub code: Option<String>,
    /// The message as rustc renders it.
    pub rendered: String,
    /// The package whose target failed to compile.
    pub package: String,
}

/// How a build ended.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BuildOutcome {
    /// The bench executable of each target that was built.
    pub executables: HashMap<TargetRef, PathBuf>,
    /// Every compiler error, in the order rustc reported them.
    pub errors: Vec<CompilerError>,
    /// Why targets have no executable when it is not a compiler error (cargo missing, a
    /// broken manifest, ...): the tail of cargo's standard error.
    pub failure: Option<String>,
    /// The build was cancelled.
    pub cancelled: bool,
}

/// Which build of the bench binaries: the one that is measured, or the one that is profiled.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum BuildAs {
    /// `cargo bench`'s own profile, `bench`: what every run measures.
    #[default]
    Bench,
    /// [`PROFILE_BUILD`]: `bench` with line tables (`debug = "line-tables-only"`) and symbols
    /// kept (`strip = "none"`), so a profile names functions and source lines. Debug
    /// information moves code (measured: `.text` shifted by 0x20), so the measured build is
    /// left as it is and this one has its own directory, `<target dir>/knotmeter-profile/`.
    Profile,
}

/// The cargo profile [`BuildAs::Profile`] builds with, defined on the command line (`--config`)
/// so that no user has to write it; one the user defines is overridden in the same three keys.
pub const PROFILE_BUILD: &str = "knotmeter-profile";

impl BuildAs {
    /// The arguments that choose this build, after `cargo bench`.
    fn args(self) -> Vec<String> {
        match self {
            BuildAs::Bench => Vec::new(),
            BuildAs::Profile => vec![
                "--profile".into(),
                PROFILE_BUILD.into(),
                "--config".into(),
                format!("profile.{PROFILE_BUILD}.inherits=\"bench\""),
                "--config".into(),
                format!("profile.{PROFILE_BUILD}.debug=\"line-tables-only\""),
                "--config".into(),
                format!("profile.{PROFILE_BUILD}.strip=\"none\""),
            ],
        }
    }
}

/// Builds `targets` (every one must belong to `workspace`), reporting through `events`.
pub async fn build(
    workspace: &Workspace,
    targets: &[TargetRef],
    children: &Children,
    cancel: &CancellationToken,
    events: &mut (dyn FnMut(BuildEvent) + Send),
) -> BuildOutcome {
    build_as(workspace, targets, BuildAs::Bench, children, cancel, events).await
}

/// [`build`], of the build `flavour` names.
pub async fn build_as(
    workspace: &Workspace,
    targets: &[TargetRef],
    flavour: BuildAs,
    children: &Children,
    cancel: &CancellationToken,
    events: &mut (dyn FnMut(BuildEvent) + Send),
) -> BuildOutcome {
    let mut outcome = BuildOutcome::default();
    let mut by_package: Vec<(&str, Vec<&str>)> = Vec::new();
    for target in targets {
        match by_package.iter_mut().find(|(p, _)| *p == target.package) {
            Some((_, names)) => names.push(&target.target),
            None => by_package.push((&target.package, vec![&target.target])),
        }
    }
    for (package, names) in by_package {
        if cancel.is_cancelled() {
            outcome.cancelled = true;
            break;
        }
        build_package(
            workspace,
            (package, &names),
            flavour,
            children,
            cancel,
            events,
            &mut outcome,
        )
        .await;
        if outcome.cancelled {
            break;
        }
    }
    outcome
}

/// `cargo bench --no-run` of `targets` of `package`, its messages as JSON on standard output.
fn bench_command(
    workspace: &Workspace,
    manifest: &Path,
    (package, targets): (&str, &[&str]),
    flavour: BuildAs,
) -> Command {
    let mut command = Command::from(crate::discovery::workspace::cargo_command());
    command
        .args([
            "bench",
            "--no-run",
            "--message-format=json",
            "--color=never",
        ])
        .arg("--manifest-path")
        .arg(manifest)
        // The workspace's own target directory, unless `knotmeter compare` chose the head's for
        // the base's worktree (to share the dependencies' build).
        .arg("--target-dir")
        .arg(&workspace.target_dir)
        .args(["--package", package])
        .args(flavour.args());
    for target in targets {
        command.args(["--bench", target]);
    }
    command
        .current_dir(&workspace.root)
        .env("CARGO_TERM_PROGRESS_WHEN", "never")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

async fn build_package(
    workspace: &Workspace,
    (package, targets): (&str, &[&str]),
    flavour: BuildAs,
    children: &Children,
    cancel: &CancellationToken,
    events: &mut (dyn FnMut(BuildEvent) + Send),
    outcome: &mut BuildOutcome,
) {
    let manifest = workspace
        .packages
        .iter()
        .find(|p| p.name == package)
        .map(|p| p.manifest_path.clone())
        .unwrap_or_else(|| workspace.root.join("Cargo.toml"));
    let command = bench_command(workspace, &manifest, (package, targets), flavour);
    tracing::info!(package, ?targets, "building");
    let profile = match flavour {
        BuildAs::Bench => String::new(),
        BuildAs::Profile => format!(" --profile {PROFILE_BUILD}"),
    };
    events(BuildEvent::Output(format!(
        "cargo bench --no-run -p {package} {}{profile}",
        targets
            .iter()
            .map(|t| format!("--bench {t}"))
            .collect::<Vec<_>>()
            .join(" ")
    )));
    let (mut child, group) = match children.spawn(command).await {
        Ok(spawned) => spawned,
        Err(e) => {
            outcome.failure = Some(format!(
                "cannot run cargo ({e}); install a Rust toolchain (https://rustup.rs) or put \
                 `cargo` on PATH"
            ));
            return;
        }
    };
    let mut stdout = BufReader::new(child.stdout.take().expect("piped")).lines();
    let mut stderr = BufReader::new(child.stderr.take().expect("piped")).lines();
    let mut stderr_tail: Vec<String> = Vec::new();
    let (mut out_open, mut err_open) = (true, true);
    while out_open || err_open {
        tokio::select! {
            _ = cancel.cancelled() => {
                group.signal(Signal::SIGTERM);
                if tokio::time::timeout(Duration::from_secs(2), child.wait()).await.is_err() {
                    group.signal(Signal::SIGKILL);
                }
                outcome.cancelled = true;
                events(BuildEvent::Output("build cancelled".into()));
                return;
            }
            line = stdout.next_line(), if out_open => match line {
                Ok(Some(line)) => message(workspace, package, targets, &manifest, &line, events, outcome),
                _ => out_open = false,
            },
            line = stderr.next_line(), if err_open => match line {
                Ok(Some(line)) => {
                    let trimmed = line.trim();
                    if let Some(rest) = trimmed.strip_prefix("Compiling ").or_else(|| trimmed.strip_prefix("Checking ")) {
                        events(BuildEvent::Progress(format!("Compiling {rest}")));
                    }
                    events(BuildEvent::Output(line.clone()));
                    stderr_tail.push(line);
                    if stderr_tail.len() > 40 {
                        stderr_tail.remove(0);
                    }
                }
                _ => err_open = false,
            },
        }
    }
    let status = child.wait().await;
    drop(group);
    let failed = !status.as_ref().is_ok_and(|s| s.success());
    if failed && outcome.errors.iter().all(|e| e.package != package) {
        let failure = cargo_failure(package, &stderr_tail);
        outcome.failure = Some(match outcome.failure.take() {
            Some(previous) => format!("{previous}\n{failure}"),
            None => failure,
        });
    }
}

/// Why cargo failed without a compiler error: the first line says it (cargo's first `error:`
/// line), the tail of its standard error follows.
fn cargo_failure(package: &str, stderr_tail: &[String]) -> String {
    let first = stderr_tail
        .iter()
        .map(|l| l.trim())
        .find(|l| l.starts_with("error"))
        .or_else(|| {
            stderr_tail
                .iter()
                .map(|l| l.trim())
                .rfind(|l| !l.is_empty())
        })
        .unwrap_or("cargo printed nothing");
    format!(
        "the build failed: cargo failed for package `{package}`: {first}\n{}",
        stderr_tail.join("\n")
    )
}

fn message(
    workspace: &Workspace,
    package: &str,
    targets: &[&str],
    manifest: &Path,
    line: &str,
    events: &mut (dyn FnMut(BuildEvent) + Send),
    outcome: &mut BuildOutcome,
) {
    let Ok(message) = serde_json::from_str::<Message>(line) else {
        events(BuildEvent::Output(line.to_owned()));
        return;
    };
    match message {
        Message::CompilerArtifact(artifact) => {
            let is_bench = artifact.target.kind.contains(&TargetKind::Bench);
            if let (true, Some(exe)) = (is_bench, artifact.executable) {
                if artifact.manifest_path.as_std_path() == manifest
                    && targets.contains(&artifact.target.name.as_str())
                {
                    outcome.executables.insert(
                        TargetRef {
                            package: package.to_owned(),
                            target: artifact.target.name.clone(),
                        },
                        exe.into_std_path_buf(),
                    );
                }
            }
        }
        Message::CompilerMessage(compiler) => {
            let diagnostic = compiler.message;
            let rendered = diagnostic
                .rendered
                .clone()
                .unwrap_or_else(|| diagnostic.message.clone());
            events(BuildEvent::Output(rendered.trim_end().to_owned()));
            if !matches!(
                diagnostic.level,
                DiagnosticLevel::Error | DiagnosticLevel::Ice
            ) {
                return;
            }
            let Some(span) = diagnostic.spans.iter().find(|s| s.is_primary) else {
                // "aborting due to previous error" and friends have no span.
                return;
            };
            let span = outermost(span);
            let file = workspace.root.join(&span.file_name);
            outcome.errors.push(CompilerError {
                range: span_range(&file, span),
                file,
                message: diagnostic.message.clone(),
                code: diagnostic.code.as_ref().map(|c| c.code.clone()),
                rendered,
                package: package.to_owned(),
            });
        }
        _ => {}
    }
}

/// A span inside a macro expansion is reported at the macro's call site.
fn outermost(span: &DiagnosticSpan) -> &DiagnosticSpan {
    let mut span = span;
    while let Some(expansion) = &span.expansion {
        span = &expansion.span;
    }
    span
}

/// rustc's 1-based line and character columns as an LSP range (UTF-16 columns, read from
/// the file when its line is not ASCII).
fn span_range(file: &Path, span: &DiagnosticSpan) -> Range {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let position = |line: usize, column: usize| {
        let line0 = line.saturating_sub(1);
        let chars = column.saturating_sub(1);
        let character = match text.lines().nth(line0) {
            Some(l) if !l.is_ascii() => l.chars().take(chars).map(char::len_utf16).sum(),
            _ => chars,
        };
        Position {
            line: line0 as u32,
            character: character as u32,
        }
    };
    Range {
        start: position(span.line_start, span.column_start),
        end: position(span.line_end, span.column_end),
    }
}
