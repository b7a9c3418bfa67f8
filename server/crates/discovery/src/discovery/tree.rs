//! The tree, kept in shares: one [`Part`] per bench target, behind an `Arc`.
//!
//! An edit changes one file, so one target's part; the others are the very same `Arc`s as in
//! the previous tree. Building the next tree, comparing it with the last and dropping the old
//! one cost the size of the changed part, not of the workspace: at 10 000 benchmarks, a whole
//! rebuild took 35–40 ms of CPU per keystroke, far too much on a busy machine.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use knotmeter_protocol::editor::TestItem;

use super::{Bench, TargetRef};

/// One bench target's share of the tree: its item, its benchmarks' and cases' items, and the
/// benchmarks behind them, with lookups by file and id.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// The target.
    pub target: TargetRef,
    /// The target item, then each benchmark followed by its cases.
    pub items: Vec<TestItem>,
    /// The benchmarks, in tree order.
    pub benches: Vec<Bench>,
    /// Indices into `benches` by defining file.
    by_file: HashMap<PathBuf, Vec<usize>>,
    /// Index into `benches` by benchmark id and case id.
    by_id: HashMap<String, usize>,
    /// A criterion target whose binary was never listed: its benchmarks are unknown until a
    /// build, so selecting the target selects it whole ([`Tree::select`]).
    pub unlisted: bool,
}

impl Part {
    /// A part with its lookups built.
    pub fn new(target: TargetRef, items: Vec<TestItem>, benches: Vec<Bench>) -> Self {
        let mut by_file: HashMap<PathBuf, Vec<usize>> = HashMap::new();
        let mut by_id = HashMap::new();
        for (i, bench) in benches.iter().enumerate() {
            by_file.entry(bench.file.clone()).or_default().push(i);
            by_id.insert(bench.id.clone(), i);
            for case in &bench.cases {
                by_id.insert(case.id.clone(), i);
            }
        }
        Self {
            target,
            items,
            benches,
            by_file,
            by_id,
            unlisted: false,
        }
    }

    /// The part without the ids in `taken` (an earlier target of the same crate name has
    /// them), and the ids it lost.
    pub fn without(&self, taken: &HashSet<String>) -> (Part, Vec<String>) {
        let mut lost = Vec::new();
        let benches: Vec<Bench> = self
            .benches
            .iter()
            .filter(|b| {
                let clash = taken.contains(&b.id);
                if clash {
                    tracing::warn!(id = %b.id, "a benchmark id appears twice; keeping the first");
                    lost.push(b.id.clone());
                }
                !clash
            })
            .cloned()
            .collect();
        let kept: HashSet<&str> = benches
            .iter()
            .flat_map(|b| {
                std::iter::once(b.id.as_str()).chain(b.cases.iter().map(|c| c.id.as_str()))
            })
            .collect();
        let items = self
            .items
            .iter()
            .filter(|i| {
                i.parent.is_none() || kept.contains(i.id.as_str()) || i.id == self.target.item_id()
            })
            .cloned()
            .collect();
        let mut part = Part::new(self.target.clone(), items, benches);
        part.unlisted = self.unlisted;
        (part, lost)
    }
}

/// A package's item and its targets' parts.
#[derive(Debug, Clone, PartialEq)]
pub struct PackageNode {
    /// The package item.
    pub item: TestItem,
    /// Its bench targets with benchmarks, in order.
    pub parts: Vec<Arc<Part>>,
}

/// The result of a discovery: the items for the editor and the benchmarks behind them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tree {
    /// Packages, each with its targets' parts, in tree order.
    pub packages: Vec<PackageNode>,
    /// Files that did not parse, with the error (their last good parse is used meanwhile).
    pub errors: Vec<(PathBuf, String)>,
    /// Every source file reached, with the target it belongs to.
    pub files: HashMap<PathBuf, Vec<TargetRef>>,
    /// Parts that define benchmarks in each file.
    parts_by_file: HashMap<PathBuf, Vec<(usize, usize)>>,
    /// Parts by crate name (the first segment of their ids).
    parts_by_crate: HashMap<String, Vec<(usize, usize)>>,
}

impl Tree {
    /// A tree of `packages`, with its lookups built.
    pub fn new(
        packages: Vec<PackageNode>,
        errors: Vec<(PathBuf, String)>,
        files: HashMap<PathBuf, Vec<TargetRef>>,
    ) -> Self {
        let mut tree = Tree {
            packages,
            errors,
            files,
            parts_by_file: HashMap::new(),
            parts_by_crate: HashMap::new(),
        };
        for (p, package) in tree.packages.iter().enumerate() {
            for (t, part) in package.parts.iter().enumerate() {
                for file in part.by_file.keys() {
                    tree.parts_by_file
                        .entry(file.clone())
                        .or_default()
                        .push((p, t));
                }
                for bench in &part.benches {
                    let krate = crate_of(&bench.id);
                    let entry = tree.parts_by_crate.entry(krate.to_owned()).or_default();
                    if !entry.contains(&(p, t)) {
                        entry.push((p, t));
                    }
                }
            }
        }
        tree
    }

    /// Every item, parents before children: each package, then its targets' items.
    pub fn items(&self) -> impl Iterator<Item = &TestItem> + '_ {
        self.packages.iter().flat_map(|p| {
            std::iter::once(&p.item).chain(p.parts.iter().flat_map(|part| part.items.iter()))
        })
    }

    /// Every benchmark, in tree order.
    pub fn benches(&self) -> impl Iterator<Item = &Bench> + '_ {
        self.parts().flat_map(|part| part.benches.iter())
    }

    /// Every target's part, in tree order.
    pub fn parts(&self) -> impl Iterator<Item = &Arc<Part>> + '_ {
        self.packages.iter().flat_map(|p| p.parts.iter())
    }

    /// Whether the tree has no benchmark.
    pub fn is_empty(&self) -> bool {
        self.benches().next().is_none()
    }

    /// The number of benchmarks.
    pub fn bench_count(&self) -> usize {
        self.parts().map(|p| p.benches.len()).sum()
    }

    /// The benchmarks defined in `file`.
    pub fn benches_in<'a>(&'a self, file: &'a Path) -> impl Iterator<Item = &'a Bench> + 'a {
        self.parts_by_file
            .get(file)
            .into_iter()
            .flatten()
            .flat_map(move |&(p, t)| {
                let part = &self.packages[p].parts[t];
                part.by_file
                    .get(file)
                    .into_iter()
                    .flatten()
                    .map(move |&i| &part.benches[i])
            })
    }

    /// The benchmark that owns a leaf id (a case id or a benchmark id).
    pub fn bench_of(&self, leaf: &str) -> Option<&Bench> {
        self.parts_by_crate
            .get(crate_of(leaf))?
            .iter()
            .find_map(|&(p, t)| {
                let part = &self.packages[p].parts[t];
                part.by_id.get(leaf).map(|&i| &part.benches[i])
            })
    }

    /// The leaf ids (cases, or benchmarks without `args`) selected by item ids at any
    /// level, grouped by bench target in tree order. `include: None` selects everything.
    pub fn select(
        &self,
        include: Option<&[String]>,
        exclude: &[String],
    ) -> Vec<(TargetRef, Vec<String>)> {
        let parent_of: HashMap<&str, Option<&str>> = self
            .items()
            .map(|i| (i.id.as_str(), i.parent.as_deref()))
            .collect();
        let include: Option<HashSet<&str>> =
            include.map(|names| names.iter().map(String::as_str).collect());
        let exclude: HashSet<&str> = exclude.iter().map(String::as_str).collect();
        // An item is chosen when it or one of its ancestors is named.
        let named = |id: &str, names: &HashSet<&str>| {
            let mut at = Some(id);
            while let Some(current) = at {
                if names.contains(current) {
                    return true;
                }
                at = parent_of.get(current).copied().flatten();
            }
            false
        };
        let mut out: Vec<(TargetRef, Vec<String>)> = Vec::new();
        for bench in self.benches() {
            for leaf in bench.leaf_ids() {
                let included = include.as_ref().is_none_or(|names| named(&leaf, names));
                if !included || (!exclude.is_empty() && named(&leaf, &exclude)) {
                    continue;
                }
                match out.iter_mut().find(|(t, _)| *t == bench.target) {
                    Some((_, ids)) => ids.push(leaf),
                    None => out.push((bench.target.clone(), vec![leaf])),
                }
            }
        }
        // A criterion target not listed yet is selected whole, by its own id.
        for part in self.parts().filter(|p| p.unlisted) {
            let id = part.target.item_id();
            let included = include.as_ref().is_none_or(|names| named(&id, names));
            if included && !named(&id, &exclude) {
                out.push((part.target.clone(), vec![id]));
            }
        }
        out
    }
}

/// The crate part of an id: everything before the first `::`.
fn crate_of(id: &str) -> &str {
    id.split_once("::").map_or(id, |(c, _)| c)
}

/// What changed from `old` to `new`: ids gone, and items new or different, parents before
/// children. Parts that are the same `Arc` in both are not looked into.
pub fn diff(old: &Tree, new: &Tree) -> (Vec<String>, Vec<TestItem>) {
    let old_parts: HashMap<&TargetRef, &Arc<Part>> = old.parts().map(|p| (&p.target, p)).collect();
    let new_parts: HashMap<&TargetRef, &Arc<Part>> = new.parts().map(|p| (&p.target, p)).collect();
    let old_packages: HashMap<&str, &TestItem> = old
        .packages
        .iter()
        .map(|p| (p.item.id.as_str(), &p.item))
        .collect();
    let new_packages: HashSet<&str> = new.packages.iter().map(|p| p.item.id.as_str()).collect();
    let mut removed = Vec::new();
    let mut changed = Vec::new();
    for package in &new.packages {
        if old_packages.get(package.item.id.as_str()) != Some(&&package.item) {
            changed.push(package.item.clone());
        }
        for part in &package.parts {
            match old_parts.get(&part.target) {
                Some(before) if Arc::ptr_eq(before, part) => {}
                Some(before) => {
                    let was: HashMap<&str, &TestItem> =
                        before.items.iter().map(|i| (i.id.as_str(), i)).collect();
                    let now: HashSet<&str> = part.items.iter().map(|i| i.id.as_str()).collect();
                    removed.extend(
                        before
                            .items
                            .iter()
                            .filter(|i| !now.contains(i.id.as_str()))
                            .map(|i| i.id.clone()),
                    );
                    changed.extend(
                        part.items
                            .iter()
                            .filter(|i| was.get(i.id.as_str()).copied() != Some(*i))
                            .cloned(),
                    );
                }
                None => changed.extend(part.items.iter().cloned()),
            }
        }
    }
    for part in old.parts() {
        if !new_parts.contains_key(&part.target) {
            removed.extend(part.items.iter().map(|i| i.id.clone()));
        }
    }
    for package in &old.packages {
        if !new_packages.contains(package.item.id.as_str()) {
            removed.push(package.item.id.clone());
        }
    }
    // An id that moved from one target to another is both removed and changed: it stays.
    let re_added: HashSet<&str> = changed.iter().map(|i| i.id.as_str()).collect();
    removed.retain(|id| !re_added.contains(id.as_str()));
    (removed, changed)
}
