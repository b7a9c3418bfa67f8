//! The two sides of a comparison: which code each one is (the working tree or a commit in a
//! worktree), where its workspace is, and how to start its bench binaries.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use knotmeter_protocol::{CompareReport, CompareSide, Measure, VERSION};

use super::binary::Spec;
use super::git;
use super::measure::Measured;
use super::BuildsRequest;
use crate::discovery::{workspace, TargetRef, Workspace};

/// Both sides, resolved.
#[derive(Debug, Clone)]
pub struct Sides {
    /// The head's workspace (the working tree, or a worktree of `--head`).
    pub head_ws: Workspace,
    /// The base's workspace, built into a target directory of its own (see `build`).
    pub base_ws: Workspace,
    /// The base's worktree, a checkout of `base_commit`.
    pub base_tree: PathBuf,
    /// The head's worktree and commit, with `--head`.
    pub head_tree: Option<(PathBuf, String)>,
    /// What the base is called in results: REV as given, `HEAD`, or the upstream branch.
    pub base_label: String,
    /// The base's commit.
    pub base_commit: String,
    /// `working tree`, or `--head` as given.
    pub head_label: String,
    /// The head's commit (`HEAD` for the working tree).
    pub head_commit: Option<String>,
    /// The working tree has uncommitted changes (head only).
    pub dirty: bool,
    /// Only cases whose id contains this.
    pub filter: Option<String>,
    /// The history both sides' binaries are told about.
    pub history: PathBuf,
    /// What resolving found worth saying (an A/A comparison, a lock file not shared), for the
    /// caller to show where its user reads.
    pub notes: Vec<String>,
}

impl Sides {
    /// The base as the report names it.
    pub fn base_side(&self) -> CompareSide {
        CompareSide {
            label: self.base_label.clone(),
            commit: Some(self.base_commit.clone()),
            dirty: false,
            manifest: None,
        }
    }

    /// The head as the report names it.
    pub fn head_side(&self) -> CompareSide {
        CompareSide {
            label: self.head_label.clone(),
            commit: self.head_commit.clone(),
            dirty: self.dirty,
            manifest: None,
        }
    }

    /// The report of `measured` between these sides, before it is finalised: both sides with
    /// the manifests their bench binaries gave, and every case as measured.
    pub fn report(&self, measured: &Measured) -> CompareReport {
        CompareReport {
            version: VERSION,
            base: CompareSide {
                manifest: measured.base_manifest.clone(),
                ..self.base_side()
            },
            head: CompareSide {
                manifest: measured.head_manifest.clone(),
                ..self.head_side()
            },
            cases: measured.cases.clone(),
            cancelled: measured.cancelled,
            stored: None,
        }
    }

    /// How to start `exe`, the bench binary of `target` on `side` (`base` or `head`).
    pub fn spec(
        &self,
        side: &'static str,
        target: &TargetRef,
        exe: PathBuf,
        request: &BuildsRequest,
    ) -> Spec {
        let ws = if side == "base" {
            &self.base_ws
        } else {
            &self.head_ws
        };
        let dir = ws
            .packages
            .iter()
            .find(|p| p.name == target.package)
            .map_or_else(|| ws.root.clone(), |p| p.dir().to_path_buf());
        let mut engine_args = Vec::new();
        if request.quick {
            engine_args.push("--quick".to_owned());
        }
        if let Some(time) = request.time {
            engine_args.extend(["--time".to_owned(), time.to_string()]);
        }
        if let Some(pct) = request.noise_threshold {
            engine_args.extend(["--noise-threshold".to_owned(), pct.to_string()]);
        }
        if !request.store {
            engine_args.push("--no-history".to_owned());
        }
        if request.measure == Measure::Instructions {
            engine_args.extend(["--measure".to_owned(), "instructions".to_owned()]);
        }
        Spec {
            side,
            exe,
            dir,
            args: engine_args,
            env: vec![(
                knotmeter_history::HISTORY_ENV.to_owned(),
                self.history.clone(),
            )],
        }
    }
}

/// Resolves the request into two sides, checking out worktrees as needed.
pub fn resolve(request: &BuildsRequest) -> anyhow::Result<Sides> {
    if let Some(t) = request.time {
        // The editor's settings reach here without the command line's check.
        if !(t > 0.0 && t <= knotmeter_format::values::MAX_SECONDS) {
            bail!("--time takes seconds above 0 and at most 86400, not {t}");
        }
    }
    let mut notes = Vec::new();
    let rev = &request.base;
    let path = &request.path;
    let root = git::toplevel(path)?;
    let relative = git::relative(&root, path);
    let head_ws = workspace::load(path)?;
    let dirty = git::dirty(&root)?;
    let worktrees = head_ws.target_dir.join("knotmeter").join("compare");

    let (base_label, base_commit) = match &rev {
        Some(rev) => match git::commit_of(&root, rev)? {
            Some(commit) => (rev.clone(), commit),
            None => bail!("{}", git::unknown_rev(&root, rev)),
        },
        None => git::default_base(&root, dirty && request.head.is_none())?,
    };
    let head = Head::resolve(
        request, &root, &relative, &worktrees, &head_ws, dirty, &mut notes,
    )?;
    if head.commit.as_deref() == Some(base_commit.as_str()) && !head.dirty {
        notes.push(format!(
            "both sides are commit {}: this compares identical code (an A/A comparison), which \
             shows how often noise alone reads as a change",
            &base_commit[..base_commit.len().min(10)]
        ));
    }
    let tree = git::worktree(&root, &worktrees, &base_commit)?;
    let mut base_ws = load_side(&tree.join(&relative), &relative, &base_label)?;
    base_ws.target_dir = worktrees.join("target");
    share_lock(&head_ws, &base_ws, &mut notes);
    let history = knotmeter_history::resolve_path(Some(&head_ws.target_dir));
    Ok(Sides {
        head_ws: head.ws,
        base_ws,
        base_tree: tree,
        head_tree: head.tree,
        base_label,
        base_commit,
        head_label: head.label,
        head_commit: head.commit,
        dirty: head.dirty,
        filter: request.filter.clone(),
        history,
        notes,
    })
}

/// The head side, resolved: the working tree, or a worktree of `--head`.
struct Head {
    /// `working tree`, or `--head` as given.
    label: String,
    /// The head's commit (`HEAD` for the working tree).
    commit: Option<String>,
    /// The working tree has uncommitted changes.
    dirty: bool,
    /// The worktree and commit of `--head`.
    tree: Option<(PathBuf, String)>,
    /// The head's workspace.
    ws: Workspace,
}

impl Head {
    /// The head that `request` names in the repository at `root`: with `--head`, a worktree of
    /// that commit under `worktrees` (the package at `relative` in it, with a target directory
    /// of its own); without, the working tree's workspace `head_ws`, `dirty` or not.
    fn resolve(
        request: &BuildsRequest,
        root: &Path,
        relative: &Path,
        worktrees: &Path,
        head_ws: &Workspace,
        dirty: bool,
        notes: &mut Vec<String>,
    ) -> anyhow::Result<Head> {
        let Some(head) = &request.head else {
            return Ok(Head {
                label: "working tree".to_owned(),
                commit: git::commit_of(root, "HEAD")?,
                dirty,
                tree: None,
                ws: head_ws.clone(),
            });
        };
        let Some(commit) = git::commit_of(root, head)? else {
            bail!("--head: {}", git::unknown_rev(root, head));
        };
        let tree = git::worktree(root, worktrees, &commit)?;
        let mut ws = load_side(&tree.join(relative), relative, head)?;
        ws.target_dir = worktrees.join("target-head");
        share_lock(head_ws, &ws, notes);
        Ok(Head {
            label: head.clone(),
            commit: Some(commit.clone()),
            dirty: false,
            tree: Some((tree, commit)),
            ws,
        })
    }
}

/// The workspace at `path` in a worktree of `rev`.
fn load_side(path: &Path, relative: &Path, rev: &str) -> anyhow::Result<Workspace> {
    if !path.exists() {
        bail!(
            "`{rev}` has no {} (the package or workspace being compared did not exist in that \
             commit)",
            if relative.as_os_str().is_empty() {
                "Cargo.toml at the repository's root".to_owned()
            } else {
                relative.display().to_string()
            }
        );
    }
    workspace::load(path).with_context(|| format!("the workspace of `{rev}` cannot be read"))
}

/// Gives `side` the head's `Cargo.lock` when its commit has none (a library crate often does
/// not commit one): both sides then build the same versions of their dependencies, so the
/// comparison measures the change, not a dependency released in between. A copy that fails
/// is said in `notes`.
fn share_lock(head: &Workspace, side: &Workspace, notes: &mut Vec<String>) {
    let (from, to) = (head.root.join("Cargo.lock"), side.root.join("Cargo.lock"));
    if from.exists() && !to.exists() {
        if let Err(e) = std::fs::copy(&from, &to) {
            notes.push(format!(
                "cannot copy {} to {} ({e}); cargo resolves the dependencies of that side afresh",
                from.display(),
                to.display()
            ));
        }
    }
}
