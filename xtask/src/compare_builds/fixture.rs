//! The fixture repository of `cargo xtask compare-builds`: a git repository in a temporary
//! directory, made from `xtask/fixtures/compare-builds`, with three commits whose differences
//! are known.
//!
//! ```text
//! base ── a comment changed     main, checked out: the working tree
//!    └─── change                branch `change`
//! ```
//!
//! 1. `base`: every chain 4 000 steps long, and the realistic bodies.
//! 2. `a comment changed` (`main`): one comment of `benches/builds.rs` says something else,
//!    nothing more: `knotmeter compare HEAD~1` in the working tree compares two builds of
//!    identical code, as the issue did (A/A).
//! 3. `change` (a branch off `base`): `plus_1pct` 4 040 steps, `plus_5pct` 4 200, `minus_5pct`
//!    3 800; the rest as is: `knotmeter compare --head change HEAD~1` (A/B).
//!
//! Both comparisons have `base` as their base, so its build (in `knotmeter compare`'s base
//! target directory, shared by every base commit) is made once and stays fresh; the working
//! tree builds in the workspace's target directory, `change` in `target-head`. Builds go to
//! `target/compare-builds` in this repository, kept between runs so only the first one compiles
//! the dependencies.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cargo;

/// The base of both comparisons: `base`, the parent of the working tree's commit.
pub(crate) const BASE_REV: &str = "HEAD~1";
/// The branch whose three chain lengths differ from the base's.
pub(crate) const CHANGE_BRANCH: &str = "change";

/// Chain lengths of the three changed cases: (case, base, head). All three are chain-like.
pub(crate) const CHANGED: [(&str, u64, u64); 3] = [
    ("plus_1pct", 4_000, 4_040),
    ("plus_5pct", 4_000, 4_200),
    ("minus_5pct", 4_000, 3_800),
];

/// The kind of a case's body, which the issue found decides whether two builds of identical
/// code read the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Body {
    /// A dependency chain of arithmetic, touching no memory but the stack (FNV-1a reads its
    /// buffer in order): read `same` every time in the issue.
    ChainLike,
    /// Allocation and memory: a `Vec` push loop, map builds, sorts, parsing: the issue's 12
    /// verdicts not `same` (of 42) were all on such bodies.
    Realistic,
}

impl Body {
    /// How the tables name it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Body::ChainLike => "chain-like",
            Body::Realistic => "realistic",
        }
    }
}

/// The cases whose code is the same on both sides, with their kind of body.
pub(crate) const UNCHANGED: [(&str, Body); 8] = [
    ("same_chain", Body::ChainLike),
    ("same_fnv", Body::ChainLike),
    ("same_sort", Body::Realistic),
    ("same_sort_stable", Body::Realistic),
    ("same_push", Body::Realistic),
    ("same_btree", Body::Realistic),
    ("same_hashmap", Body::Realistic),
    ("same_parse", Body::Realistic),
];

/// The kind of `case`'s body (a changed case's is a chain).
pub(crate) fn body(case: &str) -> Body {
    UNCHANGED
        .iter()
        .find(|(name, _)| *name == case)
        .map_or(Body::ChainLike, |(_, body)| *body)
}

/// The comment that tells the commits apart, in `benches/builds.rs`.
const COMMENTS: [(Commit, &str); 3] = [
    (Commit::Base, "Commit `base`."),
    (
        Commit::CommentChanged,
        "Commit `a comment changed`: this comment is all that differs from `base`.",
    ),
    (Commit::Change, "Commit `change`."),
];

/// The three commits of the fixture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Commit {
    Base,
    CommentChanged,
    Change,
}

/// The fixture repository.
pub(crate) struct Fixture {
    dir: tempfile_dir::TempDir,
}

/// A temporary directory removed on drop (xtask has no dependencies to spare).
mod tempfile_dir {
    use std::path::{Path, PathBuf};

    pub(crate) struct TempDir(PathBuf);

    impl TempDir {
        pub(crate) fn new(prefix: &str) -> std::io::Result<TempDir> {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            let path =
                std::env::temp_dir().join(format!("{prefix}-{}-{nanos}", std::process::id()));
            std::fs::create_dir_all(&path)?;
            Ok(TempDir(path))
        }

        pub(crate) fn path(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

impl Fixture {
    /// Makes the repository and its three commits, with `main` checked out.
    pub(crate) fn create() -> Result<Fixture, String> {
        let dir = tempfile_dir::TempDir::new("knotmeter-compare-builds")
            .map_err(|e| format!("cannot create a temporary directory: {e}"))?;
        let fixture = Fixture { dir };
        let source = cargo::root().join("xtask/fixtures/compare-builds");
        let root = fixture.root().to_owned();
        let engine = cargo::root().join("engine");
        let manifest = read(&source.join("Cargo.toml.in"))?
            .replace("@KNOTMETER@", &engine.display().to_string());
        write(&root.join("Cargo.toml"), &manifest)?;
        write(&root.join("src/lib.rs"), &read(&source.join("src/lib.rs"))?)?;
        std::fs::copy(cargo::root().join("Cargo.lock"), root.join("Cargo.lock"))
            .map_err(|e| format!("cannot copy Cargo.lock: {e}"))?;
        write(
            &root.join(".cargo/config.toml"),
            &format!("[build]\ntarget-dir = \"{}\"\n", target_dir().display()),
        )?;
        write(
            &root.join("benches/grouped.rs"),
            &grouped_source(&read(&source.join("benches/grouped.rs.in"))?),
        )?;
        let template = read(&source.join("benches/builds.rs.in"))?;
        fixture.git(&["init", "-q", "-b", "main"])?;
        // Let cargo trim the lock file to the fixture's dependencies before the first commit.
        let out = Command::new(cargo::program())
            .args(["metadata", "--format-version", "1", "--offline"])
            .current_dir(&root)
            .output()
            .map_err(|e| format!("cannot run cargo: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "cargo metadata failed in the fixture: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        let commit = |commit: Commit, message: &str| {
            write(
                &root.join("benches/builds.rs"),
                &builds_source(&template, commit),
            )?;
            fixture.git(&["add", "-A"])?;
            fixture.git(&["commit", "-q", "-m", message])
        };
        commit(Commit::Base, "base")?;
        fixture.git(&["switch", "-q", "-c", CHANGE_BRANCH])?;
        commit(
            Commit::Change,
            "change: plus_1pct +1%, plus_5pct +5%, minus_5pct -5%",
        )?;
        fixture.git(&["switch", "-q", "main"])?;
        commit(Commit::CommentChanged, "a comment changed")?;
        Ok(fixture)
    }

    /// The repository's root (its working tree holds `head`).
    pub(crate) fn root(&self) -> &Path {
        self.dir.path()
    }

    /// Runs git in the repository.
    pub(crate) fn git(&self, args: &[&str]) -> Result<String, String> {
        let out = Command::new("git")
            .args([
                "-c",
                "user.name=xtask",
                "-c",
                "user.email=xtask@example.invalid",
            ])
            .args(args)
            .current_dir(self.root())
            .output()
            .map_err(|e| format!("cannot run git: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "git {} failed: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    }
}

/// The worktrees `knotmeter compare` checked out for the fixture's commits (under
/// `target/compare-builds`) go with it: they name a repository that is about to be deleted,
/// and its commits are never built again (the next run's hashes differ). The target
/// directories stay, with the dependencies built in them.
impl Drop for Fixture {
    fn drop(&mut self) {
        let Ok(list) = self.git(&["worktree", "list", "--porcelain"]) else {
            return;
        };
        let compare_dir = target_dir().join("knotmeter/compare");
        for path in list.lines().filter_map(|l| l.strip_prefix("worktree ")) {
            let path = Path::new(path);
            if path.starts_with(&compare_dir) {
                let _ = std::fs::remove_dir_all(path);
            }
        }
    }
}

/// Where the fixture builds: kept between runs.
pub(crate) fn target_dir() -> PathBuf {
    cargo::root().join("target/compare-builds")
}

/// `benches/builds.rs` of `commit`: the template with its chain lengths and its comment.
fn builds_source(template: &str, commit: Commit) -> String {
    let comment = COMMENTS
        .iter()
        .find(|(c, _)| *c == commit)
        .map_or("", |(_, text)| text);
    let mut out = template.replace("@COMMENT@", comment);
    for (name, base, head) in CHANGED {
        let steps = if commit == Commit::Change { head } else { base };
        out = out.replace(&format!("@{}@", name.to_uppercase()), &steps.to_string());
    }
    out
}

/// `benches/grouped.rs`: the template with both chain lengths of each changed case,
/// `@BASE_NAME@` and `@HEAD_NAME@` (names in upper case).
fn grouped_source(template: &str) -> String {
    let mut out = template.to_owned();
    for (name, base, head) in CHANGED {
        let upper = name.to_uppercase();
        out = out
            .replace(&format!("@BASE_{upper}@"), &base.to_string())
            .replace(&format!("@HEAD_{upper}@"), &head.to_string());
    }
    out
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn template(name: &str) -> String {
        read(
            &cargo::root()
                .join("xtask/fixtures/compare-builds/benches")
                .join(name),
        )
        .unwrap()
    }

    /// The lines where `a` and `b` differ, by index (both have as many lines).
    fn differing(a: &str, b: &str) -> Vec<(String, String)> {
        assert_eq!(a.lines().count(), b.lines().count(), "{a}\n---\n{b}");
        a.lines()
            .zip(b.lines())
            .filter(|(x, y)| x != y)
            .map(|(x, y)| (x.to_owned(), y.to_owned()))
            .collect()
    }

    /// The functions marked `#[bench…]` in a bench file.
    fn benches(source: &str) -> Vec<String> {
        let lines: Vec<&str> = source.lines().collect();
        lines
            .windows(2)
            .filter(|w| w[0].starts_with("#[bench"))
            .filter_map(|w| w[1].strip_prefix("fn ")?.split('(').next())
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn the_a_a_commits_differ_in_one_comment_and_nothing_else() {
        let template = template("builds.rs.in");
        let base = builds_source(&template, Commit::Base);
        let again = builds_source(&template, Commit::CommentChanged);
        let diff = differing(&base, &again);
        assert_eq!(diff.len(), 1, "{diff:?}");
        let (before, after) = &diff[0];
        assert!(
            before.starts_with("// ") && after.starts_with("// "),
            "{diff:?}"
        );
    }

    #[test]
    fn the_change_is_the_three_chain_lengths_and_its_comment() {
        let template = template("builds.rs.in");
        let base = builds_source(&template, Commit::Base);
        let change = builds_source(&template, Commit::Change);
        let diff = differing(&base, &change);
        let code: Vec<&(String, String)> =
            diff.iter().filter(|(b, _)| !b.starts_with("//")).collect();
        assert_eq!(diff.len(), code.len() + 1, "{diff:?}");
        let lengths: Vec<(String, String)> = CHANGED
            .iter()
            .map(|(_, b, h)| {
                (
                    format!("    chain(black_box({b}))"),
                    format!("    chain(black_box({h}))"),
                )
            })
            .collect();
        assert_eq!(code, lengths.iter().collect::<Vec<_>>());
    }

    #[test]
    fn every_case_is_in_both_templates_once_and_no_placeholder_is_left() {
        let mut cases = super::super::cases();
        cases.sort_unstable();
        let builds = template("builds.rs.in");
        for commit in [Commit::Base, Commit::CommentChanged, Commit::Change] {
            let source = builds_source(&builds, commit);
            assert!(!source.contains('@'), "{source}");
            let mut found = benches(&source);
            found.sort_unstable();
            assert_eq!(found, cases);
        }
        let grouped = grouped_source(&template("grouped.rs.in"));
        assert!(!grouped.contains('@'), "{grouped}");
        let mut found = benches(&grouped);
        found.sort_unstable();
        let mut both: Vec<String> = cases
            .iter()
            .flat_map(|c| [format!("{c}_base"), format!("{c}_head")])
            .collect();
        both.sort_unstable();
        assert_eq!(found, both);
    }

    #[test]
    fn a_changed_case_is_chain_like_and_the_realistic_ones_are_named() {
        assert_eq!(body("plus_1pct"), Body::ChainLike);
        assert_eq!(body("same_fnv"), Body::ChainLike);
        for case in [
            "same_push",
            "same_btree",
            "same_hashmap",
            "same_sort",
            "same_parse",
        ] {
            assert_eq!(body(case), Body::Realistic, "{case}");
        }
    }
}
