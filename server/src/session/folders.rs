//! Workspace folders: every folder the client names is served, and folders come and go with
//! `workspace/didChangeWorkspaceFolders`. Each is read with `cargo metadata` on a blocking
//! thread (it takes 50–150 ms, more on a busy machine), watched, and given to the discovery
//! thread; their trees make one tree. Two folders inside the same cargo workspace are served
//! once.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tower_lsp_server::ls_types::MessageType;

use super::discover::Command;
use super::harness::Harness;
use super::out::Out;
use super::{history, Event, Session};
use crate::discovery::{self, Workspace};
use crate::watch;

/// Why a folder's workspace did not load.
#[derive(Debug)]
pub struct LoadFailure {
    /// What to tell the user.
    pub message: String,
    /// There is no `Cargo.toml` at or above the folder: not a cargo folder at all (a web
    /// front end or the docs beside the Rust code in a multi-root workspace).
    pub no_manifest: bool,
}

/// One workspace folder of the client.
#[derive(Debug)]
pub struct Folder {
    /// The folder, as the client named it.
    pub path: PathBuf,
    /// Its cargo workspace, once loaded (the last good one after a failed reload).
    pub workspace: Option<Arc<Workspace>>,
    /// Why its last load failed.
    pub error: Option<String>,
    /// Its last load found no `Cargo.toml`, and other folders were open: not a cargo folder,
    /// passed over without an error (it loads when a `Cargo.toml` appears).
    pub not_cargo: bool,
    /// `cargo metadata` is running for it.
    pub loading: bool,
    /// Another load was asked for while one ran.
    pub reload: bool,
    /// Its workspace is another folder's: not served twice.
    pub duplicate: bool,
    /// Bench targets without `harness = false`, as diagnostics.
    pub harness: Harness,
    /// The watch on its sources.
    pub watch: Option<watch::Watch>,
    /// What the watch watches.
    watching: Option<PathBuf>,
    /// The history's last results were read once.
    stored_read: bool,
}

impl Folder {
    /// A folder not loaded yet.
    pub fn new(path: PathBuf) -> Self {
        Self {
            path,
            workspace: None,
            error: None,
            not_cargo: false,
            loading: false,
            reload: false,
            duplicate: false,
            harness: Harness::default(),
            watch: None,
            watching: None,
            stored_read: false,
        }
    }

    /// The directory the folder's files live in: its workspace root once loaded.
    fn root(&self) -> &Path {
        self.workspace.as_ref().map_or(&self.path, |w| &w.root)
    }
}

impl Session {
    /// Reads folder `i`'s workspace on a blocking thread; [`Event::Loaded`] follows.
    pub(super) fn load(&mut self, i: usize) {
        let folder = &mut self.folders[i];
        if folder.loading {
            folder.reload = true;
            return;
        }
        folder.loading = true;
        let path = folder.path.clone();
        let events = self.internal_tx.clone();
        tokio::task::spawn_blocking(move || {
            let result = discovery::workspace::load(&path).map_err(|e| LoadFailure {
                no_manifest: matches!(e, discovery::workspace::WorkspaceError::NoManifest(_)),
                message: format!("knotmeter: {e}"),
            });
            let _ = events.send(Event::Loaded(path, result));
        });
    }

    /// Reloads the folders a changed `Cargo.toml` belongs to (every folder when none does).
    pub(super) fn reload_for(&mut self, manifest: &Path) {
        let owning: Vec<usize> = (0..self.folders.len())
            .filter(|&i| {
                let f = &self.folders[i];
                manifest.starts_with(f.root()) || manifest.starts_with(&f.path)
            })
            .collect();
        let all: Vec<usize> = if owning.is_empty() {
            (0..self.folders.len()).collect()
        } else {
            owning
        };
        for i in all {
            self.load(i);
        }
    }

    /// A folder's `cargo metadata` ended.
    pub(super) fn loaded(&mut self, path: PathBuf, result: Result<Workspace, LoadFailure>) {
        let Some(i) = self.folders.iter().position(|f| f.path == path) else {
            return; // removed meanwhile
        };
        self.folders[i].loading = false;
        match result {
            Ok(workspace) => self.workspace_loaded(i, path, workspace),
            Err(LoadFailure {
                message,
                no_manifest,
            }) => self.load_failed(i, path, message, no_manifest),
        }
        if std::mem::take(&mut self.folders[i].reload) {
            self.load(i);
        }
    }

    /// Folder `i` (at `path`) loaded `workspace`: served, watched and its stored results read,
    /// unless another folder serves the same workspace.
    fn workspace_loaded(&mut self, i: usize, path: PathBuf, workspace: Workspace) {
        let duplicate = self.folders.iter().enumerate().any(|(j, other)| {
            j != i
                && !other.duplicate
                && other
                    .workspace
                    .as_ref()
                    .is_some_and(|w| w.root == workspace.root)
        });
        let folder = &mut self.folders[i];
        folder.not_cargo = false;
        if folder.error.take().is_some() {
            self.out.push(Out::Log(
                MessageType::INFO,
                format!(
                    "knotmeter: the workspace at {} loads now",
                    workspace.root.display()
                ),
            ));
        }
        folder.duplicate = duplicate;
        folder.harness.workspace_changed();
        let workspace = Arc::new(workspace);
        folder.workspace = Some(Arc::clone(&workspace));
        if duplicate {
            tracing::info!(
                "{} is inside the workspace {} of another folder: served once",
                path.display(),
                workspace.root.display()
            );
            let order = self.folder_order();
            self.workspace_seq = self.worker.send(Command::Workspace {
                folder: path,
                workspace: None,
                order,
            });
        } else {
            self.watch(i, &workspace.root.clone(), &workspace.target_dir.clone());
            if !self.folders[i].stored_read {
                self.folders[i].stored_read = true;
                history::load_latest(workspace.target_dir.clone(), self.internal_tx.clone());
            }
            let order = self.folder_order();
            self.workspace_seq = self.worker.send(Command::Workspace {
                folder: path,
                workspace: Some((*workspace).clone()),
                order,
            });
        }
        self.refresh_harness(true);
    }

    /// Folder `i` (at `path`) did not load: said (in the log for a folder that is simply not
    /// Rust beside others), watched for a Cargo.toml to come, its last good workspace kept.
    fn load_failed(&mut self, i: usize, path: PathBuf, message: String, no_manifest: bool) {
        // Beside other folders, one without a Cargo.toml is simply not Rust: said in
        // the log, not as an error at every start and in every run's output.
        let not_cargo = no_manifest && self.folders.len() > 1;
        if not_cargo {
            tracing::info!("{message}; the folder is not served");
            self.out.push(Out::Log(
                MessageType::INFO,
                format!("{message}; the folder is not served (a Cargo.toml made there loads it)"),
            ));
        } else {
            tracing::warn!("{message}");
            self.out
                .push(Out::ShowMessage(MessageType::ERROR, message.clone()));
        }
        let folder = &mut self.folders[i];
        folder.error = Some(message);
        folder.not_cargo = not_cargo;
        // Watch the folder anyway: creating or mending its Cargo.toml loads it.
        if folder.workspace.is_none() {
            let target = folder.path.join("target");
            self.watch(i, &path.clone(), &target);
        }
        if self.folders[i].workspace.is_some() {
            // A reload failed: the last good workspace stays; a tree follows so that
            // requests held for the load are answered.
            self.worker.send(Command::Restat);
        } else {
            // The tree goes out (without this folder) once nothing is loading.
            let order = self.folder_order();
            self.workspace_seq = self.worker.send(Command::Workspace {
                folder: path,
                workspace: None,
                order,
            });
        }
    }

    /// Watches `dir` for folder `i` (unless it is watched already), leaving `target_dir` out.
    fn watch(&mut self, i: usize, dir: &Path, target_dir: &Path) {
        let folder = &mut self.folders[i];
        if folder.watching.as_deref() == Some(dir) && folder.watch.is_some() {
            return;
        }
        folder.watch = Some(watch::spawn(dir, target_dir, self.watch_tx.clone()));
        folder.watching = Some(dir.to_path_buf());
    }

    /// `workspace/didChangeWorkspaceFolders`.
    pub(super) fn change_folders(&mut self, added: Vec<PathBuf>, removed: Vec<PathBuf>) {
        for path in removed {
            let Some(i) = self.folders.iter().position(|f| f.path == path) else {
                continue;
            };
            let folder = self.folders.remove(i);
            let files = folder.harness.files();
            let order = self.folder_order();
            self.workspace_seq = self.worker.send(Command::Workspace {
                folder: path,
                workspace: None,
                order,
            });
            for file in files {
                self.publish(&file);
            }
        }
        for path in added {
            if self.folders.iter().any(|f| f.path == path) {
                continue;
            }
            self.folders.push(Folder::new(path));
            if self.initialized {
                self.load(self.folders.len() - 1);
            }
        }
    }

    /// The target directory whose history holds `id`: its workspace's, or the first one's.
    pub(super) fn target_dir_of(&self, id: &str) -> Option<PathBuf> {
        let owner = self
            .tree
            .bench_of(id)
            .and_then(|b| self.owners.get(&b.target));
        let workspace = |f: &super::Folder| f.workspace.as_ref().map(|w| w.target_dir.clone());
        owner
            .and_then(|o| self.folders.iter().find(|f| &f.path == o))
            .and_then(workspace)
            .or_else(|| self.folders.iter().find_map(workspace))
    }

    /// The workspace of folder `path`.
    pub(super) fn workspace_of(&self, path: &Path) -> Option<Arc<Workspace>> {
        self.folders
            .iter()
            .find(|f| f.path == path)
            .and_then(|f| f.workspace.clone())
    }

    /// The folders' paths, in the client's order.
    fn folder_order(&self) -> Vec<PathBuf> {
        self.folders.iter().map(|f| f.path.clone()).collect()
    }

    /// The one workspace served, when there is exactly one.
    pub(super) fn only_workspace(&self) -> Option<Arc<Workspace>> {
        let mut served = self
            .folders
            .iter()
            .filter(|f| !f.duplicate)
            .filter_map(|f| f.workspace.clone());
        let first = served.next()?;
        served.next().is_none().then_some(first)
    }

    /// Why workspaces did not load, if one did not.
    pub(super) fn workspace_error(&self) -> Option<String> {
        if self.folders.is_empty() {
            return Some("the client named no workspace folder".into());
        }
        // Folders that are not cargo folders count only when no folder has a workspace.
        let served = self.folders.iter().any(|f| f.workspace.is_some());
        let errors: Vec<&str> = self
            .folders
            .iter()
            .filter(|f| !(served && f.not_cargo))
            .filter_map(|f| f.error.as_deref())
            .collect();
        (!errors.is_empty()).then(|| errors.join("\n"))
    }
}
