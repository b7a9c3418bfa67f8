//! The stamp of a generated section of `docs/`: the commit its figures were measured on, as a
//! line right after the section's begin marker,
//!
//! ```text
//! <!-- xtask perf: begin -->
//! <!-- measured-at: 0123456789abcdef0123456789abcdef01234567 -->
//! ```
//!
//! written by [`Stamp::seal`], the one place a stamp is made, and read by the check that
//! `cargo test` runs (`check.rs`): it fails when a commit after the stamp changed a path the
//! section depends on (`sections.rs`), so a stale section is caught by CI, not by a reader.
//!
//! A stamp names a commit, so the figures must be of that commit: a writer takes its stamp
//! ([`take`]) before measuring, and **refuses** to measure when a path the section depends on
//! has uncommitted changes (rather than recording the dirtiness for the check to fail on later:
//! a refusal costs nothing, a refused page costs a measurement). Before writing, [`Stamp::seal`]
//! checks again: HEAD must still be the stamp's commit and the paths still clean. The order of
//! work is then: commit the code, measure, commit the page on its own (a commit that touches
//! only `docs/` keeps the stamp fresh). A section measured on fresh clones of committed code
//! (`Measures::Clones`) never builds the working tree, and is stamped whatever its state.

mod check;
pub(crate) mod git;
pub(crate) mod sections;
pub(crate) mod stale;
#[cfg(test)]
mod tests;

use std::path::Path;

use crate::cargo;
use sections::{Measures, Section};

/// The commit a section's figures are measured on, taken before measuring.
#[derive(Debug)]
pub(crate) struct Stamp {
    section: &'static Section,
    /// The repository the figures are measured in.
    root: std::path::PathBuf,
    /// The full hash of HEAD when the stamp was taken.
    commit: String,
}

/// The stamp of `section`, taken before measuring it in this repository: see [`take_at`].
pub(crate) fn take(section: &'static Section) -> Result<Stamp, String> {
    take_at(&cargo::root(), section)
}

/// The stamp of `section` in the repository at `root`: HEAD's commit. An error when `root` is not
/// in a git repository, or when the section measures the working tree and a path it depends on
/// has uncommitted changes (the error names them and says to commit them first).
pub(crate) fn take_at(root: &Path, section: &'static Section) -> Result<Stamp, String> {
    let commit = git::head(root)?;
    refuse_dirty(root, section, "before measuring")?;
    Ok(Stamp {
        section,
        root: root.to_owned(),
        commit,
    })
}

impl Stamp {
    /// The full hash of the commit measured.
    pub(crate) fn commit(&self) -> &str {
        &self.commit
    }

    /// `text`, the writer's section from its begin marker on, with the stamp line after the begin
    /// marker. An error, and nothing to write, when HEAD is no longer the stamp's commit or a
    /// dependency changed while measuring (for a section measured from the working tree).
    pub(crate) fn seal(&self, text: &str) -> Result<String, String> {
        let (begin, end) = (self.section.begin(), self.section.end());
        let rest = text
            .strip_prefix(&begin)
            .and_then(|t| t.strip_prefix('\n'))
            .filter(|t| t.contains(&end))
            .ok_or_else(|| {
                format!(
                    "the text written to {} does not go from `{begin}` to `{end}`",
                    self.section.page
                )
            })?;
        if self.section.measures == Measures::WorkingTree {
            let now = git::head(&self.root)?;
            if now != self.commit {
                return Err(format!(
                    "HEAD moved from {} to {} while `{}` measured: the figures may be of either \
                     commit, and {} was not written; run it again",
                    short(&self.commit),
                    short(&now),
                    self.section.command,
                    self.section.page
                ));
            }
            refuse_dirty(&self.root, self.section, "while measuring")?;
        }
        Ok(format!("{begin}\n{}\n{rest}", line(&self.commit)))
    }
}

/// The stamp line for `commit`.
fn line(commit: &str) -> String {
    format!("<!-- measured-at: {commit} -->")
}

/// The commit the stamp line inside `block` names: `None` when there is no stamp line, an error
/// when there are several or the commit is not a full hash. (Only the check reads stamps.)
fn read(block: &str) -> Result<Option<&str>, String> {
    let stamps: Vec<&str> = block
        .lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("<!-- measured-at:")?
                .strip_suffix("-->")
                .map(str::trim)
        })
        .collect();
    match stamps[..] {
        [] => Ok(None),
        [commit] if commit.len() == 40 && commit.bytes().all(|b| b.is_ascii_hexdigit()) => {
            Ok(Some(commit))
        }
        [commit] => Err(format!(
            "its stamp names `{commit}`, not a full commit hash (40 hexadecimal digits)"
        )),
        _ => Err(format!("it has {} stamp lines, not one", stamps.len())),
    }
}

/// The section's text in `page`, from its begin marker to its end marker, or `None`.
fn block<'p>(page: &'p str, section: &Section) -> Option<&'p str> {
    let (begin, end) = (section.begin(), section.end());
    let start = page.find(&begin)?;
    let stop = start + page[start..].find(&end)? + end.len();
    Some(&page[start..stop])
}

/// An error naming the uncommitted changes to `section`'s dependencies, found `when`.
fn refuse_dirty(root: &Path, section: &Section, when: &str) -> Result<(), String> {
    if section.measures == Measures::Clones {
        return Ok(());
    }
    let dirty = git::dirty(root, &section.paths())?;
    if dirty.is_empty() {
        return Ok(());
    }
    Err(format!(
        "{}'s section `xtask {}` would be stamped with commit {}, but files its figures depend on \
         have uncommitted changes ({when}), which the stamp would not name:\n    {}\nCommit them \
         first, then run `{}` and commit the page on its own.",
        section.page,
        section.name,
        git::run(root, &["rev-parse", "--short", "HEAD"])?,
        dirty.join("\n    "),
        section.command
    ))
}

/// The first ten digits of a commit hash.
fn short(commit: &str) -> &str {
    &commit[..commit.len().min(10)]
}
