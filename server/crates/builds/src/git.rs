//! What `knotmeter compare` asks git: where the repository is, what a revision names, whether
//! the working tree has changes, the merge base with the upstream branch, and a worktree of a
//! commit kept under the target directory.
//!
//! Every question is one `git` command; a failure becomes a message that says what to do.
//! Worktrees live in `<target dir>/knotmeter/compare/<commit>`: one per commit, made once and
//! reused (cargo then finds its build fresh), repaired when it was left half made or changed.

use knotmeter_format::suggest::edit_distance;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use anyhow::{bail, Context};

/// The repository that holds `path`: its top-level directory.
pub fn toplevel(path: &Path) -> anyhow::Result<PathBuf> {
    let dir = if path.is_dir() {
        path
    } else {
        path.parent().unwrap_or(Path::new("."))
    };
    let out = git(dir, &["rev-parse", "--show-toplevel"])?;
    if !out.status.success() {
        bail!(
            "{} is not in a git repository: knotmeter compare compares two commits (or the \
             working tree and a commit) of one repository ({})",
            dir.display(),
            stderr(&out)
        );
    }
    Ok(PathBuf::from(stdout(&out)))
}

/// The commit `rev` names in the repository at `root`, if it names one.
pub fn commit_of(root: &Path, rev: &str) -> anyhow::Result<Option<String>> {
    if rev.starts_with('-') {
        return Ok(None);
    }
    let out = git(
        root,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ],
    )?;
    Ok(out.status.success().then(|| stdout(&out)))
}

/// The message for a revision that names no commit: the branches and tags that come closest.
pub fn unknown_rev(root: &Path, rev: &str) -> String {
    let names = git(
        root,
        &[
            "for-each-ref",
            "--format=%(refname:short)",
            "refs/heads",
            "refs/remotes",
            "refs/tags",
        ],
    )
    .map(|out| stdout(&out))
    .unwrap_or_default();
    let mut near: Vec<&str> = names
        .lines()
        .filter(|name| edit_distance(name, rev) <= 2 || name.ends_with(&format!("/{rev}")))
        .collect();
    near.sort_by_key(|name| edit_distance(name, rev));
    near.truncate(3);
    let mut message = format!(
        "`{rev}` is not a commit, branch or tag of the repository at {} (nor a path)",
        root.display()
    );
    if !near.is_empty() {
        message.push_str(&format!("; did you mean `{}`?", near.join("`, `")));
    }
    message.push_str(
        " (knotmeter compare [REV] [PATH] [FILTER]: to compare with HEAD and keep only cases \
         matching a text, write `knotmeter compare HEAD . TEXT`)",
    );
    message
}

/// Whether the working tree at `root` has changes git would commit: modified or staged files,
/// and new files that are not ignored.
pub fn dirty(root: &Path) -> anyhow::Result<bool> {
    changed(root, "normal")
}

/// Whether files git tracks changed at `root` (new files do not count).
fn changed(root: &Path, untracked: &str) -> anyhow::Result<bool> {
    let out = git(
        root,
        &[
            "status",
            "--porcelain",
            &format!("--untracked-files={untracked}"),
        ],
    )?;
    if !out.status.success() {
        bail!(
            "`git status` failed in {}: {}",
            root.display(),
            stderr(&out)
        );
    }
    Ok(!stdout(&out).is_empty())
}

/// The base to compare the working tree with when none is named: `HEAD` when the tree has
/// changes, else the merge base of `HEAD` with its upstream branch. Returns (label, commit).
pub fn default_base(root: &Path, dirty: bool) -> anyhow::Result<(String, String)> {
    if dirty {
        let head = commit_of(root, "HEAD")?.context(
            "the repository has no commit yet, so there is nothing to compare the working tree \
             with: commit once, then run knotmeter compare",
        )?;
        return Ok(("HEAD".to_owned(), head));
    }
    let upstream = git(
        root,
        &[
            "rev-parse",
            "--abbrev-ref",
            "--symbolic-full-name",
            "@{upstream}",
        ],
    )?;
    if !upstream.status.success() {
        bail!(
            "nothing to compare with: the working tree has no uncommitted changes and the current \
             branch has no upstream; name the base, for example `knotmeter compare main` or \
             `knotmeter compare HEAD~1`"
        );
    }
    let upstream = stdout(&upstream);
    let base = git(root, &["merge-base", "HEAD", &upstream])?;
    if !base.status.success() {
        bail!(
            "HEAD and its upstream `{upstream}` have no common ancestor; name the base, for \
             example `knotmeter compare {upstream}`"
        );
    }
    let base = stdout(&base);
    if commit_of(root, "HEAD")?.as_deref() == Some(base.as_str()) {
        bail!(
            "nothing to compare with: the working tree has no uncommitted changes and HEAD is \
             the merge base with `{upstream}`; name the base, for example `knotmeter compare \
             HEAD~1`"
        );
    }
    Ok((upstream, base))
}

/// A worktree of `commit` under `dir` (`<target dir>/knotmeter/compare`), made when missing and
/// reused when it is already there, clean and at that commit; submodules are checked out.
pub fn worktree(root: &Path, dir: &Path, commit: &str) -> anyhow::Result<PathBuf> {
    let path = dir.join(commit);
    if path.join(".git").exists() {
        let at = commit_of(&path, "HEAD").ok().flatten();
        // New files do not count: cargo writes a Cargo.lock where the commit has none.
        let clean = !changed(&path, "no").unwrap_or(true);
        if at.as_deref() == Some(commit) && clean {
            return Ok(path);
        }
        // Changed or half made: make it again.
        let _ = git(root, &["worktree", "remove", "--force", &path_text(&path)]);
    }
    if path.exists() {
        std::fs::remove_dir_all(&path)
            .with_context(|| format!("cannot clear the old worktree {}", path.display()))?;
    }
    // A worktree whose directory was deleted (`cargo clean`) is still registered until pruned.
    let _ = git(root, &["worktree", "prune"]);
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let out = git(
        root,
        &[
            "worktree",
            "add",
            "--detach",
            "--force",
            &path_text(&path),
            commit,
        ],
    )?;
    if !out.status.success() {
        bail!(
            "cannot check out {commit} in {}: {}",
            path.display(),
            stderr(&out)
        );
    }
    if path.join(".gitmodules").exists() {
        let out = git(&path, &["submodule", "update", "--init", "--recursive"])?;
        if !out.status.success() {
            bail!(
                "the base commit has submodules, and `git submodule update --init --recursive` \
                 failed in {}: {}",
                path.display(),
                stderr(&out)
            );
        }
    }
    Ok(path)
}

/// `path` relative to the repository root `root` (`.` for the root itself).
pub fn relative(root: &Path, path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let canonical = absolute.canonicalize().unwrap_or(absolute);
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    canonical
        .strip_prefix(&root)
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

fn git(dir: &Path, args: &[&str]) -> anyhow::Result<Output> {
    Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .context("cannot run git; knotmeter compare needs git on PATH")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).trim().to_owned()
}

fn path_text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}
