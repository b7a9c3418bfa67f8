//! A git repository of the `compare` fixture in a temporary directory, for the tests of
//! `knotmeter compare` (`compare.rs`, `compare_reuse.rs`).

#![allow(dead_code)] // Each test file uses a different part.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::{self, fixture, fixture_target_dir, Fixture};

/// A git repository of the compare fixture, with the commits made so far.
pub struct Repo {
    fixture: Fixture,
    history: tempfile::TempDir,
    /// Where the package is, relative to the repository's root (empty: at the root).
    member: String,
}

impl Repo {
    /// A repository whose commits hold `benches/two.rs` as each of `versions` in turn.
    pub fn new(versions: &[&str]) -> Repo {
        Repo::with_package_at(versions, "")
    }

    /// The same, with the package at `member` in a workspace whose root is the repository's.
    pub fn in_workspace(versions: &[&str], member: &str) -> Repo {
        Repo::with_package_at(versions, member)
    }

    fn with_package_at(versions: &[&str], member: &str) -> Repo {
        let fixture = fixture("compare");
        if !member.is_empty() {
            // The fixture's manifest declares a workspace of its own: move the package into
            // `member` and make the root a workspace of which it is a member.
            let manifest: String = fixture
                .read("Cargo.toml")
                .lines()
                .filter(|line| line.trim() != "[workspace]")
                .map(|line| format!("{line}\n"))
                .collect();
            fixture.write(&format!("{member}/Cargo.toml"), &manifest);
            fixture.write(&format!("{member}/src/lib.rs"), &fixture.read("src/lib.rs"));
            std::fs::remove_dir_all(fixture.path("src")).unwrap();
            fixture.write(
                "Cargo.toml",
                &format!("[workspace]\nmembers = [\"{member}\"]\nresolver = \"2\"\n"),
            );
        }
        let repo = Repo {
            fixture,
            history: tempfile::tempdir().unwrap(),
            member: member.to_owned(),
        };
        repo.git(&["init", "-q", "-b", "main"]);
        // Let cargo trim the copied lock file to the fixture's dependencies before the first
        // commit, so that building does not leave the working tree changed.
        let resolved = Command::new("cargo")
            .args(["metadata", "--format-version", "1", "--offline"])
            .current_dir(repo.root())
            .output()
            .unwrap();
        assert!(resolved.status.success(), "{}", stderr(&resolved));
        for version in versions {
            repo.checkout_version(version);
            repo.git(&["add", "-A"]);
            repo.git(&["commit", "-q", "-m", version]);
        }
        repo
    }

    pub fn root(&self) -> PathBuf {
        self.fixture.root()
    }

    /// Writes `versions/<version>.rs` as the benchmark file.
    pub fn checkout_version(&self, version: &str) {
        let text = self.fixture.read(&format!("versions/{version}.rs"));
        let bench = Path::new(&self.member).join("benches/two.rs");
        self.fixture.write(&bench.to_string_lossy(), &text);
    }

    pub fn git(&self, args: &[&str]) -> String {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
            .args(args)
            .current_dir(self.root())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    pub fn history(&self) -> PathBuf {
        self.history.path().join("history.db")
    }

    /// Runs `knotmeter compare ARGS --quick` in the repository.
    pub fn compare(&self, args: &[&str]) -> Output {
        self.compare_in(&self.root(), args)
    }

    /// Runs `knotmeter compare ARGS --quick` in `dir`, a directory of the repository.
    pub fn compare_in(&self, dir: &Path, args: &[&str]) -> Output {
        self.compare_with(dir, args, &[])
    }

    /// Runs `knotmeter compare ARGS --quick` in `dir` with the environment variables `env`.
    pub fn compare_with(&self, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
        self.compare_command(dir, args)
            .envs(env.iter().copied())
            .output()
            .unwrap()
    }

    /// `knotmeter compare ARGS --quick` in `dir`, not started yet.
    pub fn compare_command(&self, dir: &Path, args: &[&str]) -> Command {
        let mut command = self.knotmeter_command(dir, &["compare"]);
        command.args(args).arg("--quick");
        command
    }

    /// `knotmeter ARGS` in `dir`, against the repository's own history, not started yet.
    pub fn knotmeter_command(&self, dir: &Path, args: &[&str]) -> Command {
        let mut command = Command::new(common::knotmeter());
        command
            .args(args)
            .current_dir(dir)
            .env("KNOTMETER_HISTORY", self.history())
            // The fixture's .cargo/config.toml names its target directory.
            .env_remove("CARGO_TARGET_DIR");
        command
    }
}

impl Drop for Repo {
    fn drop(&mut self) {
        // The worktrees live in the shared fixture target directory, named by commit.
        let commits = self.git(&["rev-list", "--all"]);
        let worktrees = fixture_target_dir().join("knotmeter").join("compare");
        for commit in commits.lines() {
            let _ = std::fs::remove_dir_all(worktrees.join(commit));
        }
    }
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            stderr(out)
        )
    })
}

pub fn case<'r>(report: &'r Value, id: &str) -> &'r Value {
    report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no case {id} in {report:#}"))
}
