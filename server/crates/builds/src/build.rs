//! Building both sides: `cargo bench --no-run` for the bench targets that hold cases to
//! compare, the head first, with the same profile and flags.
//!
//! **Each side has a target directory of its own.** Cargo names a workspace crate's artifacts
//! by its path *relative to the workspace root*, and decides they are fresh from the
//! timestamps of its sources: two checkouts of one workspace in one target directory write the
//! same files, and the second build finds the first one's bench executable "fresh" (its
//! sources are older) and hands it over. We saw exactly that: the base "measured" the head's
//! binary. So the working tree builds in its own target directory, as always, and the base in
//! `<target dir>/knotmeter/compare/target` (`--head REV` in `…/target-head`). That directory
//! is shared by every base commit, so the dependencies are built there once, ever; a marker
//! file names the commit last built there, and switching to another commit first touches every
//! file of its worktree, so cargo rebuilds the workspace's crates (never the dependencies) and
//! never takes another commit's executable for this one's. The same commit again finds its
//! build fresh: a base is built once per commit and reused, as long as no other commit was
//! built in between.
//!
//! A head that does not build is an error. A base that does not build is not the head's
//! loss: its cases are measured on their own as a run (stored in the history like one) and
//! reported with the base's error.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use tokio_util::sync::CancellationToken;

use super::measure::TargetPlan;
use super::render;
use super::sides::Sides;
use super::BuildsRequest;
use crate::cargo_build::{self, BuildEvent, BuildOutcome, CompilerError};
use crate::discovery::{Discovery, TargetRef, Workspace};
use crate::process::Children;
use crate::runs;

/// Both sides' executables, per target.
#[derive(Debug)]
pub struct Built {
    /// The targets compared, in the head's order, then the base's own.
    pub targets: Vec<TargetRef>,
    /// The head's executable of each target, or why there is none.
    pub head: HashMap<TargetRef, Result<PathBuf, String>>,
    /// The base's.
    pub base: HashMap<TargetRef, Result<PathBuf, String>>,
    /// Set when the base did not build at all.
    pub base_failure: Option<String>,
    /// The head's compiler errors (of targets that did not build), for the editor's
    /// diagnostics: the head is the user's own code.
    pub head_errors: Vec<CompilerError>,
    /// The locks of the comparison's own target directories, held until the comparison ends.
    pub _locks: Vec<std::fs::File>,
}

/// The bench targets of `ws` that hold a case matching `filter` (all of them without one).
fn matching_targets(ws: &Workspace, filter: Option<&str>) -> Vec<TargetRef> {
    let mut discovery = Discovery::new(ws.clone());
    discovery
        .tree()
        .select(None, &[])
        .into_iter()
        .filter(|(_, ids)| filter.is_none_or(|f| ids.iter().any(|id| id.contains(f))))
        .map(|(target, _)| target)
        .collect()
}

/// The head does not build, so there is nothing to compare: the error of [`build`], with the
/// compiler errors for the editor's diagnostics.
#[derive(Debug)]
pub struct HeadUnbuilt {
    /// What to tell the user: the head named, and each target's failure.
    pub message: String,
    /// Every compiler error of the head's build.
    pub errors: Vec<CompilerError>,
}

impl std::fmt::Display for HeadUnbuilt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HeadUnbuilt {}

/// The builds were cancelled (a signal, or the editor's cancel) before both sides were built:
/// nothing was measured.
#[derive(Debug)]
pub struct BuildCancelled;

impl std::fmt::Display for BuildCancelled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("cancelled while building")
    }
}

impl std::error::Error for BuildCancelled {}

/// Whether `ws` has the bench target `target`.
fn has_target(ws: &Workspace, target: &TargetRef) -> bool {
    ws.packages
        .iter()
        .any(|p| p.name == target.package && p.targets.iter().any(|t| t.name == target.target))
}

/// Builds both sides.
pub async fn build(
    sides: &Sides,
    children: &Children,
    cancel: &CancellationToken,
    note: &mut (dyn FnMut(&str) + Send),
) -> anyhow::Result<Built> {
    let filter = sides.filter.as_deref();
    // A target whose cases match on either side is built on both sides that have it: a case
    // only one side has is reported as added or removed from that side's binary.
    let mut all = matching_targets(&sides.head_ws, filter);
    for target in matching_targets(&sides.base_ws, filter) {
        if !all.contains(&target) {
            all.push(target);
        }
    }
    let on = |ws: &Workspace| -> Vec<TargetRef> {
        all.iter().filter(|t| has_target(ws, t)).cloned().collect()
    };
    let (head_targets, base_targets) = (on(&sides.head_ws), on(&sides.base_ws));
    if all.is_empty() {
        bail!(
            "no benchmark{} in {} on either side (`knotmeter list` shows them)",
            filter.map_or(String::new(), |f| format!(" matches `{f}`")),
            sides.head_ws.root.display()
        );
    }
    let head_name = render::side(&sides.head_side());
    let base_name = render::side(&sides.base_side());
    note(&format!("knotmeter: building the head, {head_name}"));
    let mut locks = Vec::new();
    if let Some((tree, commit)) = &sides.head_tree {
        locks.push(lock(&sides.head_ws.target_dir, note)?);
        claim(&sides.head_ws.target_dir, tree, commit)?;
    }
    let head = build_side(&sides.head_ws, &head_targets, children, cancel, note).await;
    if cancel.is_cancelled() {
        return Err(BuildCancelled.into());
    }
    let head_errors = head.errors.clone();
    let head = executables(&head, &head_targets, &sides.head_ws.root);
    if let Some(failures) = none_built(&head) {
        return Err(HeadUnbuilt {
            message: format!(
                "the head, {head_name}, does not build, so there is nothing to compare:\n{failures}"
            ),
            errors: head_errors,
        }
        .into());
    }
    note(&format!("knotmeter: building the base, {base_name}"));
    locks.push(lock(&sides.base_ws.target_dir, note)?);
    claim(
        &sides.base_ws.target_dir,
        &sides.base_tree,
        &sides.base_commit,
    )?;
    let base = build_side(&sides.base_ws, &base_targets, children, cancel, note).await;
    if cancel.is_cancelled() {
        return Err(BuildCancelled.into());
    }
    let base = executables(&base, &base_targets, &sides.base_ws.root);
    let base_failure = none_built(&base).map(|failures| {
        format!(
            "the base, {base_name}, does not build, so nothing can be compared with it:\n\
             {failures}"
        )
    });
    Ok(Built {
        targets: all,
        head,
        base,
        base_failure,
        head_errors,
        _locks: locks,
    })
}

/// Each distinct failure, one a line, when a side has targets and none of them built.
fn none_built(exes: &HashMap<TargetRef, Result<PathBuf, String>>) -> Option<String> {
    if exes.is_empty() || exes.values().any(Result::is_ok) {
        return None;
    }
    let failures: BTreeSet<&str> = exes
        .values()
        .filter_map(|r| r.as_ref().err())
        .map(String::as_str)
        .collect();
    Some(failures.into_iter().collect::<Vec<_>>().join("\n"))
}

/// Takes the lock of a comparison's target directory, waiting for another comparison that
/// holds it: between choosing which commit's files are fresh and the end of measuring its
/// executables, nobody else may build another commit there.
fn lock(target_dir: &Path, note: &mut (dyn FnMut(&str) + Send)) -> anyhow::Result<std::fs::File> {
    std::fs::create_dir_all(target_dir)
        .with_context(|| format!("cannot create {}", target_dir.display()))?;
    let path = target_dir.join("knotmeter-compare.lock");
    let file = std::fs::File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    if file.try_lock().is_err() {
        note(&format!(
            "knotmeter: waiting for another knotmeter compare that builds in {}",
            target_dir.display()
        ));
        file.lock()
            .with_context(|| format!("cannot lock {}", path.display()))?;
    }
    Ok(file)
}

/// Takes a side's target directory for building `commit`, checked out at `tree`, outside a
/// comparison's own builds (a profile build of that side): the directory's lock, held until the
/// returned file is dropped, and its files made fresh for `commit` as [`build`] does.
pub fn reserve(
    target_dir: &Path,
    tree: &Path,
    commit: &str,
    note: &mut (dyn FnMut(&str) + Send),
) -> anyhow::Result<std::fs::File> {
    let held = lock(target_dir, note)?;
    claim(target_dir, tree, commit)?;
    Ok(held)
}

/// The file in a side's target directory that names the commit last built there.
const MARKER: &str = "knotmeter-compare-commit";

/// Makes `target_dir` safe for building `commit`, checked out at `tree`: when another commit
/// was built there last (or the marker is missing), every file of the worktree gets the
/// current time, so cargo rebuilds the workspace's crates instead of taking the other commit's
/// artifacts for fresh. The marker is written first: a build cut short leaves it naming this
/// commit, whose partly rebuilt artifacts cargo then sorts out by timestamp as usual.
fn claim(target_dir: &Path, tree: &Path, commit: &str) -> anyhow::Result<()> {
    let marker = target_dir.join(MARKER);
    if std::fs::read_to_string(&marker).is_ok_and(|last| last.trim() == commit) {
        return Ok(());
    }
    touch_tree(tree)
        .with_context(|| format!("cannot update the timestamps in {}", tree.display()))?;
    std::fs::create_dir_all(target_dir)
        .and_then(|()| std::fs::write(&marker, commit))
        .with_context(|| format!("cannot write {}", marker.display()))
}

/// Sets every file under `dir` (but `.git`) to the current time.
fn touch_tree(dir: &Path) -> std::io::Result<()> {
    let now = std::time::SystemTime::now();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        if entry.file_name() == ".git" || kind.is_symlink() {
            continue;
        }
        if kind.is_dir() {
            touch_tree(&entry.path())?;
        } else {
            std::fs::File::options()
                .write(true)
                .open(entry.path())?
                .set_modified(now)?;
        }
    }
    Ok(())
}

async fn build_side(
    ws: &Workspace,
    targets: &[TargetRef],
    children: &Children,
    cancel: &CancellationToken,
    note: &mut (dyn FnMut(&str) + Send),
) -> BuildOutcome {
    if targets.is_empty() {
        return BuildOutcome::default();
    }
    let mut events = |event: BuildEvent| {
        if let BuildEvent::Progress(line) = event {
            note(&format!("  {line}"));
        }
    };
    cargo_build::build(ws, targets, children, cancel, &mut events).await
}

/// Each target's executable, or why it has none.
fn executables(
    outcome: &BuildOutcome,
    targets: &[TargetRef],
    root: &Path,
) -> HashMap<TargetRef, Result<PathBuf, String>> {
    targets
        .iter()
        .map(|target| {
            let exe = outcome
                .executables
                .get(target)
                .cloned()
                .ok_or_else(|| runs::build_failure(outcome, target, root));
            (target.clone(), exe)
        })
        .collect()
}

impl Built {
    /// How to start each target's binaries on each side.
    pub fn plans(&self, sides: &Sides, request: &BuildsRequest) -> Vec<TargetPlan> {
        self.targets
            .iter()
            .map(|target| {
                let spec =
                    |side: &'static str, exes: &HashMap<TargetRef, Result<PathBuf, String>>| {
                        match exes.get(target) {
                            Some(Ok(exe)) => Ok(sides.spec(side, target, exe.clone(), request)),
                            Some(Err(why)) => Err(why.clone()),
                            None => Err(format!(
                                "the {side} build has no bench target `{}` in `{}`",
                                target.target, target.package
                            )),
                        }
                    };
                TargetPlan {
                    target: target.clone(),
                    base: spec("base", &self.base),
                    head: spec("head", &self.head),
                }
            })
            .collect()
    }
}
