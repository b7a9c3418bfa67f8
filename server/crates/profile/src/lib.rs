//! knotmeter-server-profile: where one case's time goes. It builds the bench binary in a
//! profile build of its own (line tables, symbols kept; the measured build is left as it is),
//! runs the case under a profiler that sees its timed region only, and turns what the profiler
//! counted into a [`Profile`]: costs per operation by function and by the workspace's source
//! lines. It serves the headless `knotmeter profile` and the session alike and knows neither:
//! no LSP type, no terminal; it reports through a callback.
//!
//! One file per step: `tool` (finding the profiler, or the package to install), `run` (the
//! case under the profiler), `callgrind` (reading callgrind's output) and `report` (its
//! [`Profile`]), `perf` (perf's commands), `samples` (reading what it sampled) and `sampled`
//! (their [`Profile`]); `tree` is a count's call tree; `job` runs profiles as a job of the
//! daemon's queue. [`store`] keeps a profile in the history.

#![deny(missing_docs)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod callgrind;
pub mod compared;
pub mod job;
pub mod perf;
pub mod report;
pub mod run;
pub mod sampled;
pub mod samples;
pub mod tool;
pub mod tree;

use std::path::{Path, PathBuf};

use knotmeter_protocol::{Profile, ProfileTool};
use knotmeter_server_discovery::discovery::{TargetRef, Workspace};
use knotmeter_server_process::process;
use knotmeter_server_runs::cargo_build::{self, BuildAs, BuildEvent, CompilerError};
use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};
use tokio_util::sync::CancellationToken;

use process::Children;

/// The wall-time budget of the profiled case by default, in seconds of the bench binary's own
/// clock: under callgrind a program runs some fifty times slower, so this is about a
/// twenty-fifth of a second of the case at full speed, thousands of operations for most
/// benchmarks (the operations are counted, so the costs per operation are exact whatever it is).
pub const DEFAULT_SECONDS: f64 = 2.0;

/// The budget of a quick profile (a profile run in quick mode: the editor's profile on save):
/// the costs per operation of a count are as exact, from fewer operations; a sample's shares
/// are noisier.
pub const QUICK_SECONDS: f64 = 0.3;

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
    /// How much of the case's budget has been spent under the profiler, 0 to 1 (the bench
    /// binary's own progress).
    Progress(f64),
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
    /// Nothing can be profiled as asked (a case the base of a comparison does not have): said
    /// in one line; the case is not at fault.
    Unusable(String),
    /// Cancelled.
    Cancelled,
}

impl std::fmt::Display for ProfileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProfileError::Missing(message)
            | ProfileError::Build { message, .. }
            | ProfileError::Failed(message)
            | ProfileError::Unusable(message) => f.write_str(message),
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
    let _held = hold(&scratch, request, cancel, events).await?;
    for stale in ["callgrind.out", "perf.data", "operations"] {
        let _ = std::fs::remove_file(scratch.join(stale));
    }
    let subject = Subject {
        id: &request.id,
        executable,
        scratch: &scratch,
        seconds: request.seconds,
        root: &request.workspace.root,
    };
    match request.tool {
        ProfileTool::Callgrind => run::counted(&program, &subject, children, cancel, events).await,
        ProfileTool::Perf => perf::sampled(&program, &subject, children, cancel, events).await,
    }
}

/// What one profile runs and where: the case, the profile build's executable, the profiler's
/// directory, the budget and the workspace whose lines are marked.
pub(crate) struct Subject<'a> {
    pub(crate) id: &'a str,
    pub(crate) executable: &'a Path,
    pub(crate) scratch: &'a Path,
    pub(crate) seconds: f64,
    pub(crate) root: &'a Path,
}

/// Holds the profiler's directory of a case (`scratch`) for the whole profile: a second profile
/// of the same case with the same profiler waits, saying so, instead of deleting the files the
/// first is writing (the bench binary appends its operations to one file: each would read the
/// other's count and halve its costs per operation). Cancelling stops the wait.
async fn hold(
    scratch: &Path,
    request: &ProfileRequest,
    cancel: &CancellationToken,
    events: &mut (dyn FnMut(ProfileEvent) + Send),
) -> Result<Flock<std::fs::File>, ProfileError> {
    let path = scratch.join("lock");
    let cannot = |e: &dyn std::fmt::Display| {
        ProfileError::Failed(format!("cannot lock {}: {e}", path.display()))
    };
    let mut file = std::fs::File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| cannot(&e))?;
    let mut said = false;
    loop {
        match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
            Ok(held) => return Ok(held),
            Err((back, Errno::EWOULDBLOCK)) => {
                file = back;
                if !said {
                    said = true;
                    events(ProfileEvent::Build(BuildEvent::Output(format!(
                        "knotmeter: waiting for another profile of {} with {} to finish",
                        request.id,
                        tool::program_name(request.tool)
                    ))));
                }
                tokio::select! {
                    _ = cancel.cancelled() => return Err(ProfileError::Cancelled),
                    _ = tokio::time::sleep(std::time::Duration::from_millis(200)) => {}
                }
            }
            Err((_, e)) => return Err(cannot(&e)),
        }
    }
}

impl From<run::NotCounted> for ProfileError {
    fn from(error: run::NotCounted) -> Self {
        match error {
            run::NotCounted::Cancelled => ProfileError::Cancelled,
            run::NotCounted::Failed(why) => ProfileError::Failed(why),
        }
    }
}
