//! The fixture repository of `cargo xtask compare-builds`: a git repository in a temporary
//! directory, made from `xtask/fixtures/compare-builds`, with three commits whose differences
//! are known.
//!
//! 1. `base`: every chain 4 000 steps long.
//! 2. `base again`: the same code, one comment changed: a second build of identical code (A/A).
//! 3. `head`: `plus_1pct` 4 040 steps, `plus_5pct` 4 200, `minus_5pct` 3 800; the rest as is.
//!
//! The working tree holds `head`. Builds go to `target/compare-builds` in this repository (and
//! the base's own target directory under it), kept between runs so only the first one compiles
//! the dependencies.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cargo;

/// Chain lengths of the three changed cases: (case, base, head).
pub(crate) const CHANGED: [(&str, u64, u64); 3] = [
    ("plus_1pct", 4_000, 4_040),
    ("plus_5pct", 4_000, 4_200),
    ("minus_5pct", 4_000, 3_800),
];

/// The cases whose code is the same on both sides.
pub(crate) const UNCHANGED: [&str; 3] = ["same_chain", "same_sort", "same_hash"];

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
    /// Makes the repository and its three commits.
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
        let grouped = fill(
            &read(&source.join("benches/grouped.rs.in"))?,
            |name, side| {
                let (_, base, head) = CHANGED.iter().find(|(n, _, _)| *n == name)?;
                Some(if side == "BASE" { *base } else { *head })
            },
        );
        write(&root.join("benches/grouped.rs"), &grouped)?;
        let template = read(&source.join("benches/builds.rs.in"))?;
        let version = |head: bool, label: &str| {
            fill(&template, |name, _| {
                let (_, base, new) = CHANGED.iter().find(|(n, _, _)| *n == name)?;
                Some(if head { *new } else { *base })
            })
            .replace("@SIDE@", label)
        };
        fixture.git(&["init", "-q", "-b", "main"])?;
        // Let cargo trim the lock file to the fixture's dependencies before the first commit.
        let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
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
        for (head, label, message) in [
            (false, "base", "base"),
            (false, "base (the same code, built again)", "base again"),
            (true, "head", "head"),
        ] {
            write(&root.join("benches/builds.rs"), &version(head, label))?;
            fixture.git(&["add", "-A"])?;
            fixture.git(&["commit", "-q", "-m", message])?;
        }
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

/// Where the fixture builds: kept between runs.
pub(crate) fn target_dir() -> PathBuf {
    cargo::root().join("target/compare-builds")
}

/// Replaces `@NAME@` with `value(name, "")` and `@BASE_NAME@`/`@HEAD_NAME@` with
/// `value(name, "BASE" | "HEAD")`, names in upper case in the template, lower case here.
fn fill(template: &str, value: impl Fn(&str, &str) -> Option<u64>) -> String {
    let mut out = template.to_owned();
    for (name, _, _) in CHANGED {
        let upper = name.to_uppercase();
        for side in ["BASE", "HEAD"] {
            if let Some(v) = value(name, side) {
                out = out.replace(&format!("@{side}_{upper}@"), &v.to_string());
            }
        }
        if let Some(v) = value(name, "") {
            out = out.replace(&format!("@{upper}@"), &v.to_string());
        }
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
