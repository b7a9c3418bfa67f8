//! `knotmeter compare --profile CASE [REV] [PATH]` on a terminal: the sides resolved as for
//! `knotmeter compare` (the builds room), the case profiled on each (the head first, each in
//! its own profile build; the profile room's `compared::profile_both`), and the functions whose
//! own cost changed most on standard output: a table, a pull-request comment or JSON (the
//! protocol's `ProfileComparison`). Nothing is stored: a base's profile is not of the code in
//! the editor. Signals as for `knotmeter profile`: 128 + the signal's number.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use tokio_util::sync::CancellationToken;

use crate::builds::{BuildsArgs, BuildsFormat};
use crate::process::Children;
use crate::profile::compared::{self, Side};
use crate::profile::tool::program_name;
use crate::profile::{ProfileEvent, DEFAULT_SECONDS};

use super::profile::{find_case, until_profiled};
use super::profile_progress::ProfileProgress;

/// `knotmeter compare --profile CASE`: returns the exit status.
pub fn compare_profile(args: &BuildsArgs, case: &str) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let children = Children::default();
    let code = runtime.block_on(follow(args, case, &children));
    // Nothing may outlive `knotmeter compare`, whichever way it ends.
    children.kill_all();
    code
}

/// Resolves, profiles both sides until done or a second signal, and prints the comparison.
async fn follow(args: &BuildsArgs, case: &str, children: &Children) -> anyhow::Result<ExitCode> {
    let request = args.request()?;
    if request.filter.is_some() {
        anyhow::bail!(
            "with --profile, the case is --profile's: give `[REV] [PATH]`, not a FILTER as well"
        );
    }
    // git and cargo metadata, off the async runtime (as compare's own pipeline does).
    let resolving = request.clone();
    let sides = tokio::task::spawn_blocking(move || crate::builds::resolve(&resolving))
        .await
        .context("resolving the sides")??;
    for note in &sides.notes {
        eprintln!("knotmeter: {note}");
    }
    let (target, id) = find_case(&sides.head_ws, case)?;

    let cancel = CancellationToken::new();
    let tool = args.profiler.into();
    let progress = ProfileProgress::new(&id, program_name(tool));
    let mut on = |side: Side, event: ProfileEvent| progress.event(Some(side), event);
    let wanted = compared::Wanted {
        target,
        id,
        tool,
        seconds: request.time.unwrap_or(DEFAULT_SECONDS),
    };
    let work = compared::profile_both(&sides, &wanted, children, &cancel, &mut on);
    let comparison =
        match until_profiled(work, &cancel, "comparison of profiles", &progress).await? {
            Ok(comparison) => comparison,
            Err(code) => return Ok(code),
        };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match args.format {
        BuildsFormat::Json => {
            serde_json::to_writer_pretty(&mut out, &comparison)?;
            writeln!(out)?;
        }
        BuildsFormat::Markdown => write!(
            out,
            "{}",
            knotmeter_format::profile_compared::comparison_markdown(&comparison, args.top)
        )?,
        BuildsFormat::Pretty => write!(
            out,
            "{}",
            knotmeter_format::profile_compared::comparison_text(&comparison, args.top)
        )?,
    }
    Ok(ExitCode::SUCCESS)
}
