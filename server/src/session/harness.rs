//! Diagnostics for bench targets that lack `harness = false`: on the target's `[[bench]]`
//! entry in Cargo.toml, or on its bench file (at `knotmeter::main!`) when cargo found the file
//! by itself and there is no entry to point at.
//!
//! Two sources: the manifest scan at load time ([`crate::discovery::harness`]), and a build
//! whose binary answered like libtest although the scan could not tell. Only targets with
//! knotmeter benchmarks in the tree are flagged: a libtest bench of the same package is none
//! of knotmeter's business.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use tower_lsp_server::ls_types::{Diagnostic, DiagnosticSeverity, NumberOrString, Position, Range};

use crate::discovery::harness::{self, Harness as Scanned};
use crate::discovery::{TargetRef, Tree, Workspace};

/// The current diagnostics, by file.
#[derive(Debug, Default)]
pub struct Harness {
    by_file: BTreeMap<PathBuf, Vec<Diagnostic>>,
    /// Targets whose built binary answered like libtest, since the workspace was loaded.
    built_libtest: HashSet<TargetRef>,
}

impl Harness {
    /// The manifest was read again: what the builds said no longer holds.
    pub fn workspace_changed(&mut self) {
        self.built_libtest.clear();
    }

    /// A built binary of `target` answered like libtest; returns the files to publish.
    pub fn libtest_built(
        &mut self,
        target: TargetRef,
        workspace: &Workspace,
        tree: &Tree,
    ) -> Vec<PathBuf> {
        self.built_libtest.insert(target);
        self.refresh(workspace, tree)
    }

    /// Recomputes every diagnostic; returns the files whose diagnostics changed.
    pub fn refresh(&mut self, workspace: &Workspace, tree: &Tree) -> Vec<PathBuf> {
        let mut fresh: BTreeMap<PathBuf, Vec<Diagnostic>> = BTreeMap::new();
        let with_benches: HashSet<&TargetRef> = tree.benches().map(|b| &b.target).collect();
        for package in &workspace.packages {
            let manifest = std::fs::read_to_string(&package.manifest_path).unwrap_or_default();
            for target in &package.targets {
                let reference = TargetRef {
                    package: package.name.clone(),
                    target: target.name.clone(),
                };
                if !with_benches.contains(&reference) {
                    continue;
                }
                let built = self.built_libtest.contains(&reference);
                let (file, range, implicit) = match target.harness {
                    Scanned::Custom => continue,
                    Scanned::Libtest {
                        entry_line: Some(line),
                    } => (
                        package.manifest_path.clone(),
                        whole_line(&manifest, line),
                        false,
                    ),
                    Scanned::Libtest { entry_line: None } => {
                        (target.src_path.clone(), main_call(&target.src_path), true)
                    }
                    Scanned::Unknown if built => {
                        (target.src_path.clone(), main_call(&target.src_path), false)
                    }
                    Scanned::Unknown => continue,
                };
                fresh.entry(file).or_default().push(Diagnostic {
                    range,
                    severity: Some(DiagnosticSeverity::ERROR),
                    code: Some(NumberOrString::String("harness".into())),
                    source: Some("knotmeter".into()),
                    message: harness::explain(
                        &package.name,
                        &target.name,
                        &package.manifest_path,
                        implicit,
                    ),
                    ..Diagnostic::default()
                });
            }
        }
        let mut changed: Vec<PathBuf> = Vec::new();
        for file in self.by_file.keys().chain(fresh.keys()) {
            if self.by_file.get(file) != fresh.get(file) && !changed.contains(file) {
                changed.push(file.clone());
            }
        }
        self.by_file = fresh;
        changed
    }

    /// The files that have diagnostics.
    pub fn files(&self) -> Vec<PathBuf> {
        self.by_file.keys().cloned().collect()
    }

    /// The diagnostics of `file`.
    pub fn diagnostics(&self, file: &Path) -> Vec<Diagnostic> {
        self.by_file.get(file).cloned().unwrap_or_default()
    }
}

/// Line `line` of `text`, whole.
fn whole_line(text: &str, line: u32) -> Range {
    let length = text
        .lines()
        .nth(line as usize)
        .map_or(0, |l| l.encode_utf16().count() as u32);
    Range {
        start: Position { line, character: 0 },
        end: Position {
            line,
            character: length,
        },
    }
}

/// The `knotmeter::main!` call in `file`, or its first line.
fn main_call(file: &Path) -> Range {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let line = text.lines().position(|l| l.contains("main!")).unwrap_or(0) as u32;
    whole_line(&text, line)
}
