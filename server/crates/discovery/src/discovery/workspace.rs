//! The workspace as cargo sees it: packages and their `[[bench]]` targets, from
//! `cargo metadata --no-deps` (no build, no dependency resolution).

use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

use cargo_metadata::{MetadataCommand, TargetKind};

use super::harness::{self, Harness};

/// A cargo workspace, reduced to what discovery needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Workspace {
    /// The workspace root (where the root `Cargo.toml` is).
    pub root: PathBuf,
    /// The target directory (`cargo metadata`'s `target_directory`).
    pub target_dir: PathBuf,
    /// The packages whose bench targets are discovered, sorted by name.
    pub packages: Vec<Package>,
}

/// One package with bench targets.
#[derive(Debug, Clone, PartialEq)]
pub struct Package {
    /// The package name.
    pub name: String,
    /// Its `Cargo.toml`.
    pub manifest_path: PathBuf,
    /// Its bench targets, sorted by name.
    pub targets: Vec<BenchTarget>,
}

impl Package {
    /// The package's directory.
    pub fn dir(&self) -> &Path {
        self.manifest_path.parent().unwrap_or(Path::new("."))
    }
}

/// One `[[bench]]` target.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchTarget {
    /// The target name (`[[bench]] name`).
    pub name: String,
    /// Its crate name: the first segment of its benchmarks' ids (`-` becomes `_`).
    pub crate_name: String,
    /// The root source file.
    pub src_path: PathBuf,
    /// Whether knotmeter's `main!` runs (`harness = false`), as far as the manifest says.
    pub harness: Harness,
}

/// Why the workspace could not be read.
#[derive(Debug)]
#[non_exhaustive]
pub enum WorkspaceError {
    /// No `Cargo.toml` at or above the path.
    NoManifest(PathBuf),
    /// cargo could not be started.
    NoCargo(String),
    /// `cargo metadata` failed (a broken manifest, say).
    Metadata(String),
}

impl std::fmt::Display for WorkspaceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WorkspaceError::NoManifest(path) => write!(
                f,
                "no Cargo.toml in {} or its parents: knotmeter needs a cargo package or workspace",
                path.display()
            ),
            WorkspaceError::NoCargo(why) => write!(
                f,
                "cannot run cargo ({why}); install a Rust toolchain (https://rustup.rs) or put \
                 `cargo` on PATH (or name it with the CARGO environment variable)"
            ),
            WorkspaceError::Metadata(stderr) => {
                write!(f, "`cargo metadata` failed: {}", stderr.trim())
            }
        }
    }
}

impl std::error::Error for WorkspaceError {}

/// The cargo executable: `$CARGO` (set by cargo for the programs it runs), else `cargo`.
pub fn cargo_command() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// Reads the workspace at `path` (a directory or a `Cargo.toml`).
///
/// When `path` is a member package inside a larger workspace, only that package is kept, so
/// `knotmeter run examples/quickstart` runs the quickstart's benchmarks and nothing else. At
/// the workspace root every member is kept. Only packages that depend on `knotmeter` (or on
/// `knotmeter-criterion`, criterion's API on it) count.
pub fn load(path: &Path) -> Result<Workspace, WorkspaceError> {
    let manifest = find_manifest(path)?;
    let mut command = MetadataCommand::new();
    command.no_deps().manifest_path(&manifest);
    if let Some(cargo) = std::env::var_os("CARGO") {
        command.cargo_path(cargo);
    }
    let metadata = command.exec().map_err(|e| match e {
        cargo_metadata::Error::Io(io) if io.kind() == io::ErrorKind::NotFound => {
            WorkspaceError::NoCargo(format!("{io}: cargo was not found"))
        }
        cargo_metadata::Error::Io(io) => WorkspaceError::NoCargo(io.to_string()),
        cargo_metadata::Error::CargoMetadata { stderr } => WorkspaceError::Metadata(stderr),
        other => WorkspaceError::Metadata(other.to_string()),
    })?;
    let root = PathBuf::from(metadata.workspace_root.as_std_path());
    let at_root = manifest.parent() == Some(root.as_path());
    let mut packages: Vec<Package> = metadata
        .workspace_packages()
        .into_iter()
        .filter(|p| at_root || p.manifest_path.as_std_path() == manifest)
        .filter(|p| {
            p.dependencies
                .iter()
                .any(|d| d.name == "knotmeter" || d.name == "knotmeter-criterion")
                || p.name.as_str() == "knotmeter"
        })
        .map(|p| {
            // Unreadable now (deleted since `cargo metadata` read it): nothing to claim.
            let manifest = std::fs::read_to_string(&p.manifest_path).ok();
            let mut targets: Vec<BenchTarget> = p
                .targets
                .iter()
                .filter(|t| t.kind.contains(&TargetKind::Bench))
                .map(|t| BenchTarget {
                    name: t.name.clone(),
                    crate_name: t.name.replace('-', "_"),
                    src_path: t.src_path.clone().into_std_path_buf(),
                    harness: manifest
                        .as_deref()
                        .map_or(Harness::Unknown, |m| harness::of_target(m, &t.name)),
                })
                .collect();
            targets.sort_by(|a, b| a.name.cmp(&b.name));
            Package {
                name: p.name.to_string(),
                manifest_path: p.manifest_path.clone().into_std_path_buf(),
                targets,
            }
        })
        .filter(|p| !p.targets.is_empty())
        .collect();
    packages.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(Workspace {
        root,
        target_dir: metadata.target_directory.into_std_path_buf(),
        packages,
    })
}

/// `path` itself when it is a manifest, else the nearest `Cargo.toml` at or above it.
fn find_manifest(path: &Path) -> Result<PathBuf, WorkspaceError> {
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    if path.is_file() && path.file_name().is_some_and(|n| n == "Cargo.toml") {
        return Ok(path);
    }
    path.ancestors()
        .map(|dir| dir.join("Cargo.toml"))
        .find(|manifest| manifest.is_file())
        .ok_or(WorkspaceError::NoManifest(path))
}
