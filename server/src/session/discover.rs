//! Discovery off the session's path: a thread that owns the parse caches of every workspace
//! folder, applies what the session tells it (editor texts, files changed on disk, workspaces
//! loaded, binaries listed), and sends back each new tree with what changed since the last.
//!
//! Edits coalesce here: the thread takes every command that is waiting before it builds the
//! tree once, so fifty quick keystrokes cost one parse of the last text, not fifty, and the
//! session stays free to answer requests meanwhile. Each command gets a sequence number; an
//! [`Update`] says up to which command it reflects, so the session knows when a request that
//! needs the edited file's tree can be answered.
//!
//! Several workspace folders make one tree, in folder order. Ids are global: when a later
//! folder has an item whose id an earlier one already has (the same package name in two
//! folders, say), the later item and everything under it are left out and named in
//! [`Update::collisions`], so the session can say so.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use knotmeter_protocol::editor::TestItem;
use knotmeter_protocol::ListEntry;
use tokio::sync::mpsc;

use super::Event;
use crate::discovery::tree::diff;
use crate::discovery::{Discovery, TargetRef, Tree, Workspace};

/// What the session tells the discovery thread.
#[derive(Debug)]
pub enum Command {
    /// A folder's workspace loaded (again); `None`: the folder is gone or has none.
    Workspace {
        /// The client's workspace folder.
        folder: PathBuf,
        /// Its cargo workspace.
        workspace: Option<Workspace>,
        /// Every folder, in the client's order: the order of the tree.
        order: Vec<PathBuf>,
    },
    /// The editor holds `path` with this text (`None`: it closed it).
    Overlay {
        /// The file.
        path: PathBuf,
        /// Its text in the editor.
        text: Option<Arc<str>>,
    },
    /// Files changed on disk.
    Invalidate(Vec<PathBuf>),
    /// Re-read files whose modification time changed.
    Restat,
    /// A bench binary's list, to reconcile the tree with.
    Reconcile(TargetRef, Vec<ListEntry>),
}

/// A tree, and what changed since the previous one.
#[derive(Debug, Clone)]
pub struct Update {
    /// The last command this tree reflects.
    pub seq: u64,
    /// The tree of every folder.
    pub tree: Arc<Tree>,
    /// The workspace folder each bench target belongs to.
    pub owners: Arc<HashMap<TargetRef, PathBuf>>,
    /// The tree's version: one more at each change.
    pub version: u64,
    /// What changed since version `version - 1`; `None` when nothing did.
    pub change: Option<Change>,
    /// Ids of items left out because an earlier folder has the same id.
    pub collisions: Vec<String>,
}

/// The difference between two trees.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Change {
    /// Ids no longer in the tree.
    pub removed: Vec<String>,
    /// Items new or different, whole, in tree order (parents before children).
    pub items: Vec<TestItem>,
}

/// The session's handle on the discovery thread.
#[derive(Debug)]
pub struct Worker {
    tx: std::sync::mpsc::Sender<(u64, Command)>,
    seq: u64,
}

impl Worker {
    /// Starts the thread; its updates arrive as [`Event::Tree`].
    pub fn spawn(events: mpsc::UnboundedSender<Event>) -> Self {
        let (tx, rx) = std::sync::mpsc::channel::<(u64, Command)>();
        std::thread::Builder::new()
            .name("knotmeter-discovery".into())
            .spawn(move || {
                let mut state = State::default();
                while let Ok((mut seq, command)) = rx.recv() {
                    state.apply(command);
                    // Everything already waiting goes into the same tree.
                    while let Ok((next, command)) = rx.try_recv() {
                        state.apply(command);
                        seq = next;
                    }
                    let update =
                        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            state.update(seq)
                        })) {
                            Ok(update) => update,
                            Err(_) => {
                                tracing::error!(
                                    "internal error while discovering; the tree is kept"
                                );
                                state.unchanged(seq)
                            }
                        };
                    if events.send(Event::Tree(update)).is_err() {
                        return;
                    }
                }
            })
            .expect("a thread can be started");
        Self { tx, seq: 0 }
    }

    /// Sends a command; returns its sequence number.
    pub fn send(&mut self, command: Command) -> u64 {
        self.seq += 1;
        if self.tx.send((self.seq, command)).is_err() {
            tracing::error!("the discovery thread has stopped");
        }
        self.seq
    }

    /// The sequence number of the last command sent.
    pub fn sent(&self) -> u64 {
        self.seq
    }
}

/// What the thread owns.
#[derive(Default)]
struct State {
    /// Each folder with its discovery, in the order the folders came.
    folders: Vec<(PathBuf, Discovery)>,
    /// Editor texts, kept for folders loaded later.
    overlays: HashMap<PathBuf, Arc<str>>,
    /// The last tree sent.
    last: Arc<Tree>,
    owners: Arc<HashMap<TargetRef, PathBuf>>,
    version: u64,
    collisions: Vec<String>,
}

impl State {
    fn apply(&mut self, command: Command) {
        match command {
            Command::Workspace {
                folder,
                workspace,
                order,
            } => {
                let at = self.folders.iter().position(|(f, _)| *f == folder);
                match (at, workspace) {
                    (Some(i), Some(workspace)) => self.folders[i].1.set_workspace(workspace),
                    (None, Some(workspace)) => {
                        let mut discovery = Discovery::new(workspace);
                        for (path, text) in &self.overlays {
                            discovery.set_overlay(path, text);
                        }
                        self.folders.push((folder, discovery));
                    }
                    (Some(i), None) => {
                        self.folders.remove(i);
                    }
                    (None, None) => {}
                }
                let rank = |f: &PathBuf| order.iter().position(|o| o == f).unwrap_or(usize::MAX);
                self.folders.sort_by_key(|(f, _)| rank(f));
            }
            Command::Overlay { path, text } => {
                for (_, discovery) in &mut self.folders {
                    match &text {
                        Some(text) => discovery.set_overlay(&path, text),
                        None => discovery.clear_overlay(&path),
                    }
                }
                match text {
                    Some(text) => self.overlays.insert(path, text),
                    None => self.overlays.remove(&path),
                };
            }
            Command::Invalidate(paths) => {
                for (_, discovery) in &mut self.folders {
                    discovery.invalidate(paths.iter().map(PathBuf::as_path));
                }
            }
            Command::Restat => {
                for (_, discovery) in &mut self.folders {
                    discovery.restat();
                }
            }
            Command::Reconcile(target, cases) => {
                if let Some((_, discovery)) = self
                    .folders
                    .iter_mut()
                    .find(|(folder, _)| self.owners.get(&target) == Some(folder))
                {
                    discovery.reconcile(target, cases);
                }
            }
        }
    }

    /// The tree now, and what changed.
    fn update(&mut self, seq: u64) -> Update {
        let mut trees: Vec<(&Path, Tree)> = self
            .folders
            .iter_mut()
            .map(|(folder, discovery)| (folder.as_path(), discovery.tree()))
            .collect();
        let mut collisions = Vec::new();
        let tree = if trees.len() == 1 {
            trees.pop().expect("one tree").1
        } else {
            merge(trees, &mut collisions)
        };
        // Owners change only with the targets: reuse the map while they stay.
        let same_targets = tree
            .parts()
            .map(|p| &p.target)
            .eq(self.last.parts().map(|p| &p.target));
        if !same_targets || self.owners.is_empty() {
            let mut owners = HashMap::new();
            for (folder, discovery) in &self.folders {
                for package in &discovery.workspace().packages {
                    for target in &package.targets {
                        owners
                            .entry(TargetRef {
                                package: package.name.clone(),
                                target: target.name.clone(),
                            })
                            .or_insert_with(|| folder.clone());
                    }
                }
            }
            self.owners = Arc::new(owners);
        }
        let (removed, items) = diff(&self.last, &tree);
        let changed = !removed.is_empty() || !items.is_empty();
        if changed {
            self.version += 1;
        }
        self.last = Arc::new(tree);
        self.collisions = collisions;
        Update {
            seq,
            tree: Arc::clone(&self.last),
            owners: Arc::clone(&self.owners),
            version: self.version,
            change: changed.then_some(Change { removed, items }),
            collisions: self.collisions.clone(),
        }
    }

    /// The last tree again (after a panic while building a new one).
    fn unchanged(&self, seq: u64) -> Update {
        Update {
            seq,
            tree: Arc::clone(&self.last),
            owners: Arc::clone(&self.owners),
            version: self.version,
            change: None,
            collisions: self.collisions.clone(),
        }
    }
}

/// One tree of several folders' trees, in folder order; an id an earlier folder has leaves
/// the later item out (a package, with everything under it; or a benchmark).
fn merge(trees: Vec<(&Path, Tree)>, collisions: &mut Vec<String>) -> Tree {
    let mut packages = Vec::new();
    let mut errors = Vec::new();
    let mut files: HashMap<PathBuf, Vec<TargetRef>> = HashMap::new();
    let mut seen: HashSet<String> = HashSet::new();
    for (_, tree) in trees {
        for mut package in tree.packages.iter().cloned() {
            if !seen.insert(package.item.id.clone()) {
                collisions.push(package.item.id.clone());
                continue;
            }
            let mut parts = Vec::new();
            for part in package.parts {
                let part = if part.items.iter().any(|i| seen.contains(&i.id)) {
                    let (kept, lost) = part.without(&seen);
                    collisions.extend(lost);
                    Arc::new(kept)
                } else {
                    part
                };
                seen.extend(part.items.iter().map(|i| i.id.clone()));
                parts.push(part);
            }
            package.parts = parts;
            packages.push(package);
        }
        errors.extend(tree.errors.iter().cloned());
        for (file, targets) in &tree.files {
            files
                .entry(file.clone())
                .or_default()
                .extend(targets.iter().cloned());
        }
    }
    Tree::new(packages, errors, files)
}
