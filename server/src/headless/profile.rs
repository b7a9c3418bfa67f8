//! `knotmeter profile [PATH] CASE` on a terminal: the profile room's pipeline
//! (`knotmeter_server_profile::profile`), the build's progress and the profiler's command as
//! lines on standard error, the profile on standard output (two tables, or JSON), and kept in
//! the history beside the case's results (the newest five of each case). A first
//! SIGINT, SIGTERM or SIGHUP cancels (the build or the profiled process group is stopped); a
//! second stops at once; either way the exit status is 128 + the signal's number.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use tokio_util::sync::CancellationToken;

use crate::cli::{ListFormat, ProfileArgs};
use crate::discovery::{workspace, Discovery};
use crate::process::Children;
use crate::profile::tool::program_name;
use crate::profile::{self, ProfileError, ProfileEvent, ProfileRequest};
use crate::signals::{self, Followed, Heard, Signals};

use super::profile_progress::ProfileProgress;
use super::select::Selection;

/// `knotmeter profile`: returns the exit status.
pub fn profile(args: ProfileArgs) -> anyhow::Result<ExitCode> {
    let (path, case) = args.path_and_case();
    let workspace = workspace::load(&path)?;
    let request = request(workspace, case, args.time, args.profiler.into())?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let children = Children::default();
    let code = runtime.block_on(follow(&request, &args, &children));
    // Nothing may outlive `knotmeter profile`, whichever way it ends.
    children.kill_all();
    code
}

/// The case named `case` (an id or a name, whole), with its bench target.
fn request(
    workspace: workspace::Workspace,
    case: &str,
    seconds: f64,
    tool: knotmeter_protocol::ProfileTool,
) -> anyhow::Result<ProfileRequest> {
    let (target, id) = find_case(&workspace, case)?;
    Ok(ProfileRequest {
        workspace,
        target,
        id,
        seconds,
        tool,
    })
}

/// The one case `case` names in `workspace` (an id or a name, whole: `knotmeter run --exact`'s
/// rule, the bench binary's), with its bench target; an error naming where to look when none
/// or several are.
pub(super) fn find_case(
    workspace: &workspace::Workspace,
    case: &str,
) -> anyhow::Result<(crate::discovery::TargetRef, String)> {
    let mut discovery = Discovery::new(workspace.clone());
    let selection = Selection {
        filter: Some(case.to_owned()),
        exact: true,
        skip: Vec::new(),
    };
    let found: Vec<(crate::discovery::TargetRef, String)> = selection
        .apply(&discovery.tree())
        .into_iter()
        .flat_map(|(target, ids)| ids.into_iter().map(move |id| (target.clone(), id)))
        .collect();
    match found.as_slice() {
        [(target, id)] => Ok((target.clone(), id.clone())),
        [] => anyhow::bail!(
            "no case is `{case}` in {} (`knotmeter list` lists them; name one case by its id \
             or its name, whole)",
            workspace.root.display()
        ),
        many => anyhow::bail!(
            "`{case}` names {} cases ({}): name one by its whole id",
            many.len(),
            many.iter()
                .map(|(_, id)| id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Profiles until done or a second signal.
async fn follow(
    request: &ProfileRequest,
    args: &ProfileArgs,
    children: &Children,
) -> anyhow::Result<ExitCode> {
    let cancel = CancellationToken::new();
    let progress = ProfileProgress::new(&request.id, program_name(request.tool));
    let mut on = |event: ProfileEvent| progress.event(None, event);
    let work = profile::profile(request, children, &cancel, &mut on);
    let profile = match until_profiled(work, &cancel, "profile", &progress).await? {
        Ok(profile) => profile,
        Err(code) => return Ok(code),
    };
    // Kept beside the case's results, for the editor.
    if let Err(why) = profile::store(&request.workspace.target_dir, &profile) {
        eprintln!("knotmeter: the profile was not stored in the history: {why}");
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match args.format {
        ListFormat::Json => {
            serde_json::to_writer_pretty(&mut out, &profile)?;
            writeln!(out)?;
        }
        ListFormat::Pretty => write!(
            out,
            "{}",
            knotmeter_format::profile::profile_text(
                &profile,
                Some(&request.workspace.root),
                args.top
            )
        )?,
    }
    Ok(ExitCode::SUCCESS)
}

/// Follows `work` (one profile, or two: `what` names it) until it ends or a second signal: its
/// result, or the exit status to end with, said on standard error: 128 + a signal's number
/// (the first cancels `cancel`), 1 when the case or the profiler failed, 2 when nothing could be
/// profiled. `progress` is cleared once `work` ends.
pub(super) async fn until_profiled<T>(
    work: impl std::future::Future<Output = Result<T, ProfileError>>,
    cancel: &CancellationToken,
    what: &str,
    progress: &ProfileProgress,
) -> anyhow::Result<Result<T, ExitCode>> {
    let mut signals = Signals::new().context("cannot listen for signals")?;
    let followed = signals
        .follow(work, |stop| {
            progress.line(&format!(
                "knotmeter: {stop}: cancelling the {what} ({stop} again stops at once)"
            ));
            cancel.cancel();
        })
        .await;
    progress.finish();
    let result = match followed {
        Followed::AtOnce { first, again } => {
            eprintln!("{}", Heard::at_once_note(again));
            return Ok(Err(ExitCode::from(signals::exit_status(first))));
        }
        Followed::Ended {
            stopped: Some(stop),
            ..
        } => {
            eprintln!("knotmeter: the {what} was cancelled ({stop})");
            return Ok(Err(ExitCode::from(signals::exit_status(stop))));
        }
        Followed::Ended { result, .. } => result,
    };
    Ok(match result {
        Ok(done) => Ok(done),
        Err(ProfileError::Failed(why)) => {
            eprintln!("knotmeter: {why}");
            Err(ExitCode::from(1))
        }
        Err(error) => {
            eprintln!("knotmeter: {error}");
            Err(ExitCode::from(2))
        }
    })
}
