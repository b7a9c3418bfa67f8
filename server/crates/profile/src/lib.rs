//! knotmeter-server-profile: where one case's time goes. It builds the bench binary in a
//! profile build of its own (line tables, symbols kept; the measured build is left as it is),
//! runs the case under a profiler that sees its timed region only, and turns what the profiler
//! counted into a [`Profile`]: costs per operation by function and by the workspace's source
//! lines. It serves the headless `knotmeter profile` and the session alike and knows neither:
//! no LSP type, no terminal; it reports through a callback.
//!
//! One file per step: `tool` (finding the profiler, or the package to install), `run` (the
//! case under the profiler), `callgrind` (reading callgrind's output) and `report` (its
//! [`Profile`]), `perf` (perf's commands and its samples) and `sampled` (their [`Profile`]);
//! `tree` is a count's call tree; `job` runs profiles as a job of the daemon's queue. [`store`]
//! keeps a profile in the history.

#![deny(missing_docs)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod callgrind;
pub mod compared;
pub mod job;
pub mod perf;
pub mod report;
pub mod run;
pub mod sampled;
pub mod tool;
pub mod tree;

use std::path::{Path, PathBuf};

use knotmeter_protocol::{Profile, ProfileTool};
use knotmeter_server_discovery::discovery::{TargetRef, Workspace};
use knotmeter_server_process::process;
use knotmeter_server_runs::cargo_build::{self, BuildAs, BuildEvent, CompilerError};
use tokio_util::sync::CancellationToken;

use process::Children;

/// The wall-time budget of the profiled case by default, in seconds of the bench binary's own
/// clock: under callgrind a program runs some fifty times slower, so this is about a
/// twenty-fifth of a second of the case at full speed, thousands of operations for most
/// benchmarks (the operations are counted, so the costs per operation are exact whatever it is).
pub const DEFAULT_SECONDS: f64 = 2.0;

/// One case to profile.
#[derive(Debug, Clone)]
pub struct ProfileRequest {
    /// The workspace the case belongs to.
    pub workspace: Workspace,
    /// The bench target that holds it.
    pub target: TargetRef,
    /// Its id (`quickstart::sort_stable`).
    pub id: String,
    /// The bench binary's time budget for it under the profiler, in seconds.
    pub seconds: f64,
    /// The profiler: callgrind counts instructions, perf samples CPU time.
    pub tool: ProfileTool,
}

/// What a profile reports while it runs.
#[derive(Debug, Clone, PartialEq)]
pub enum ProfileEvent {
    /// The profile build's output and progress.
    Build(BuildEvent),
    /// The build is done; the case runs under the profiler (the command, shortened).
    Counting(String),
    /// The case has run; perf's samples are being read (`perf script`).
    Reading,
}

/// Why there is no profile.
#[derive(Debug)]
pub enum ProfileError {
    /// The profiler is not installed: one line naming its package.
    Missing(String),
    /// The profile build failed: the message, and the compiler errors for the editor.
    Build {
        /// What to tell the user.
        message: String,
        /// Every compiler error.
        errors: Vec<CompilerError>,
    },
    /// The case failed, or the profiler did.
    Failed(String),
    /// Cancelled.
    Cancelled,
}

impl std::fmt::Display for ProfileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProfileError::Missing(message)
            | ProfileError::Build { message, .. }
            | ProfileError::Failed(message) => f.write_str(message),
            ProfileError::Cancelled => f.write_str("the profile was cancelled"),
        }
    }
}

impl std::error::Error for ProfileError {}

/// Stores `profile` in the history of the workspace whose target directory is `target_dir`
/// (or wherever `KNOTMETER_HISTORY` points), beside its case's results; returns when, in
/// seconds since the Unix epoch, or why it could not.
pub fn store(target_dir: &Path, profile: &Profile) -> Result<i64, String> {
    let path = knotmeter_history::resolve_path(Some(target_dir));
    let mut history = knotmeter_history::History::open(&path).map_err(|e| e.to_string())?;
    let stored = history.record_profile(profile).map_err(|e| e.to_string())?;
    Ok(stored.timestamp)
}

/// Where a case's profiler output is written: `<target dir>/knotmeter/profile/<id>/<tool>/`,
/// the id's characters other than letters, digits, `_` and `-` as `_` (one directory per
/// profiler, so a count and a sampling of one case at once do not clobber each other's files).
pub fn scratch_dir(workspace: &Workspace, id: &str, tool: ProfileTool) -> PathBuf {
    let name: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    workspace
        .target_dir
        .join("knotmeter")
        .join("profile")
        .join(name)
        .join(tool::program_name(tool))
}

/// Profiles `request`'s case with its profiler: the profile build, the case under the
/// profiler, its output read.
pub async fn profile(
    request: &ProfileRequest,
    children: &Children,
    cancel: &CancellationToken,
    events: &mut (dyn FnMut(ProfileEvent) + Send),
) -> Result<Profile, ProfileError> {
    let program = tool::require(request.tool).map_err(ProfileError::Missing)?;
    let built = cargo_build::build_as(
        &request.workspace,
        std::slice::from_ref(&request.target),
        BuildAs::Profile,
        children,
        cancel,
        &mut |event| events(ProfileEvent::Build(event)),
    )
    .await;
    if built.cancelled || cancel.is_cancelled() {
        return Err(ProfileError::Cancelled);
    }
    let Some(executable) = built.executables.get(&request.target) else {
        let message = match (&built.failure, built.errors.first()) {
            (Some(failure), _) => format!("the profile build failed: {failure}"),
            (None, Some(error)) => format!(
                "the profile build of {} failed: {}",
                request.target.package, error.message
            ),
            (None, None) => format!(
                "the profile build left no executable for bench target {}",
                request.target.target
            ),
        };
        return Err(ProfileError::Build {
            message,
            errors: built.errors,
        });
    };
    let scratch = scratch_dir(&request.workspace, &request.id, request.tool);
    std::fs::create_dir_all(&scratch)
        .map_err(|e| ProfileError::Failed(format!("cannot create {}: {e}", scratch.display())))?;
    for stale in ["callgrind.out", "perf.data", "operations"] {
        let _ = std::fs::remove_file(scratch.join(stale));
    }
    let not_counted = |error| match error {
        run::NotCounted::Cancelled => ProfileError::Cancelled,
        run::NotCounted::Failed(why) => ProfileError::Failed(why),
    };
    match request.tool {
        ProfileTool::Callgrind => {
            let command =
                run::command(&program, executable, &request.id, request.seconds, &scratch);
            events(ProfileEvent::Counting(format!(
                "valgrind --tool=callgrind {} --exact {}",
                executable.display(),
                request.id
            )));
            let operations = run::count(command, "valgrind", &scratch, children, cancel)
                .await
                .map_err(not_counted)?;
            let output = scratch.join("callgrind.out");
            let text = std::fs::read_to_string(&output).map_err(|e| {
                ProfileError::Failed(format!(
                    "callgrind wrote no profile to {}: {e}",
                    output.display()
                ))
            })?;
            let parsed = callgrind::parse(&text).map_err(|e| {
                ProfileError::Failed(format!(
                    "callgrind's profile {} cannot be read: {e}",
                    output.display()
                ))
            })?;
            Ok(report::from_callgrind(
                &request.id,
                &parsed,
                operations,
                &request.workspace.root,
                &report::Dwarf::of(executable),
            ))
        }
        ProfileTool::Perf => {
            perf::make_fifos(&scratch).map_err(ProfileError::Failed)?;
            let command =
                perf::record_command(&program, executable, &request.id, request.seconds, &scratch);
            events(ProfileEvent::Counting(format!(
                "perf record -e cpu-clock {} --exact {}",
                executable.display(),
                request.id
            )));
            let operations = run::count(command, "perf", &scratch, children, cancel)
                .await
                .map_err(not_counted)?;
            events(ProfileEvent::Reading);
            let script = run::capture(
                perf::script_command(&program, &scratch),
                "perf script",
                children,
                cancel,
            )
            .await
            .map_err(not_counted)?;
            let samples = perf::parse_script(&script).map_err(ProfileError::Failed)?;
            let dwarf = report::Dwarf::of(executable);
            let segments = perf::Segments::of(executable);
            let canonical = std::fs::canonicalize(executable).ok();
            let symbols = sampled::Symbols {
                chains: &dwarf,
                chains_object: &dwarf.object(),
                executable: samples.objects.iter().position(|object| {
                    Path::new(object) == executable
                        || std::fs::canonicalize(object).ok() == canonical
                }),
                segments: &segments,
            };
            sampled::from_samples(
                &request.id,
                &samples,
                operations,
                perf::PERIOD_NS,
                &request.workspace.root,
                &symbols,
            )
            .map_err(ProfileError::Failed)
        }
    }
}
