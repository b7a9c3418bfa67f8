//! Running git in a repository, with errors that say what failed.

use std::path::Path;
use std::process::{Command, Output};

/// Runs `git ARGS` in `dir`, whatever its exit status; an error only when git cannot be started.
/// The repository is the one at `dir`, whatever the caller's environment says (a hook's
/// `GIT_DIR`).
pub(crate) fn output(dir: &Path, args: &[&str]) -> Result<Output, String> {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .map_err(|e| {
            format!(
                "cannot run git in {} (is git installed, and on PATH?): {e}",
                dir.display()
            )
        })
}

/// Runs `git ARGS` in `dir`: its standard output without the trailing newline, or an error naming
/// the command with what git said.
pub(crate) fn run(dir: &Path, args: &[&str]) -> Result<String, String> {
    let out = output(dir, args)?;
    if !out.status.success() {
        return Err(format!(
            "`git {}` failed in {}: {}",
            args.join(" "),
            dir.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim_end().to_owned())
}

/// The full hash of HEAD in the repository at `dir`; an error that says so when `dir` is not in a
/// git repository, or the repository has no commit.
pub(crate) fn head(dir: &Path) -> Result<String, String> {
    let out = output(dir, &["rev-parse", "--git-dir"])?;
    if !out.status.success() {
        return Err(format!(
            "{} is not in a git repository ({}): a generated section's stamp names a commit of \
             the repository",
            dir.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    run(dir, &["rev-parse", "--verify", "HEAD^{commit}"])
}

/// The uncommitted changes under `paths` (git pathspecs from `dir`): staged, unstaged and
/// untracked files, each as `git status --short` shows it (`M engine/src/lib.rs`).
pub(crate) fn dirty(dir: &Path, paths: &[&str]) -> Result<Vec<String>, String> {
    let args = [
        &["status", "--porcelain", "--untracked-files=all", "--"],
        paths,
    ]
    .concat();
    Ok(run(dir, &args)?
        .lines()
        .map(|l| l.trim().to_owned())
        .filter(|l| !l.is_empty())
        .collect())
}
