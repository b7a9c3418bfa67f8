//! Which discovered cases `knotmeter run` chooses: PATH and FILTER, the bench binary's rules
//! for a filter, `--exact` and `--skip`, then the shard of `--partition`.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use knotmeter_protocol::{partition_unit, Partition, PartitionKind};

use crate::discovery::{TargetRef, Tree};

/// The PATH and FILTER of `knotmeter run`, and whether a lone word was taken as FILTER because
/// no such file or directory exists.
pub(super) fn path_and_filter(
    path: Option<&str>,
    filter: Option<String>,
) -> Result<(PathBuf, Option<String>, bool), String> {
    match (path, filter) {
        (None, filter) => Ok((PathBuf::from("."), filter, false)),
        (Some(path), filter) if Path::new(path).exists() => {
            Ok((PathBuf::from(path), filter, false))
        }
        (Some(word), None) => Ok((PathBuf::from("."), Some(word.to_owned()), true)),
        (Some(path), Some(_)) => Err(format!(
            "`{path}` does not exist: the first of two arguments is the package or workspace \
             directory (or its Cargo.toml), the second the filter"
        )),
    }
}

/// Which discovered cases run: the bench binary's rules for a filter, `--exact` and `--skip`.
pub(super) struct Selection {
    pub(super) filter: Option<String>,
    pub(super) exact: bool,
    pub(super) skip: Vec<String>,
}

impl Selection {
    fn hit(&self, pattern: &str, id: &str, bench_id: &str) -> bool {
        let strip = |id: &str| id.split_once("::").map_or(id, |(_, rest)| rest).to_owned();
        if self.exact {
            [
                id.to_owned(),
                strip(id),
                bench_id.to_owned(),
                strip(bench_id),
            ]
            .iter()
            .any(|name| name == pattern)
        } else {
            id.contains(pattern)
        }
    }

    fn matches(&self, id: &str, bench_id: &str) -> bool {
        self.filter
            .as_deref()
            .is_none_or(|f| self.hit(f, id, bench_id))
            && !self.skip.iter().any(|s| self.hit(s, id, bench_id))
    }

    /// The selected leaf ids, by target, in the tree's order.
    pub(super) fn apply(&self, tree: &Tree) -> Vec<(TargetRef, Vec<String>)> {
        let bench_of: HashMap<String, &str> = tree
            .benches()
            .flat_map(|b| {
                b.leaf_ids()
                    .into_iter()
                    .map(move |leaf| (leaf, b.id.as_str()))
            })
            .collect();
        tree.select(None, &[])
            .into_iter()
            .map(|(target, ids)| {
                let ids = ids
                    .into_iter()
                    .filter(|id| self.matches(id, bench_of.get(id).copied().unwrap_or(id)))
                    .collect::<Vec<_>>();
                (target, ids)
            })
            .filter(|(_, ids)| !ids.is_empty())
            .collect()
    }
}

/// The shard `--partition` keeps of the selected leaves.
pub(super) struct Shard {
    /// The leaves of this shard, by target, in the tree's order.
    pub(super) targets: Vec<(TargetRef, Vec<String>)>,
    /// Partition units (comparison groups, benchmark functions) among the selected leaves.
    pub(super) units: usize,
    /// Units in this shard.
    pub(super) kept: usize,
}

/// The leaves of `targets` in shard `partition`: whole comparison groups and whole functions,
/// keyed as the engine keys them ([`partition_unit`]), so `knotmeter run --partition` and
/// `cargo bench -- --partition` choose the same cases. `count` and `hash` partition each
/// bench target on its own, as a bench binary does; `slice` deals the units of every target
/// in turn. A criterion target not built yet is selected whole: under `count` and `hash` its
/// benchmarks are partitioned once its binary lists them (`RunOptions::partition`); under
/// `slice` it is one unit.
pub(super) fn shard(
    tree: &Tree,
    targets: Vec<(TargetRef, Vec<String>)>,
    partition: Partition,
) -> Shard {
    let unit_of: HashMap<String, String> = tree
        .benches()
        .flat_map(|b| {
            let unit = partition_unit(&b.id, b.group.as_deref());
            b.leaf_ids()
                .into_iter()
                .map(move |leaf| (leaf, unit.clone()))
        })
        .collect();
    let unit = |leaf: &String| unit_of.get(leaf).cloned().unwrap_or_else(|| leaf.clone());
    let mut order: Vec<TargetRef> = targets.iter().map(|(t, _)| t.clone()).collect();
    order.sort();
    // Per target for count and hash; one sequence across targets, in target order, for slice.
    let key = |target: &TargetRef, leaf: &String| match partition.kind {
        PartitionKind::Slice => {
            let rank = order.iter().position(|t| t == target).unwrap_or(0);
            format!("{rank:08}\u{1f}{}", unit(leaf))
        }
        PartitionKind::Count | PartitionKind::Hash => unit(leaf),
    };
    let keyed: Vec<(TargetRef, Vec<(String, String)>)> = targets
        .into_iter()
        .map(|(target, leaves)| {
            let leaves = leaves
                .into_iter()
                .map(|leaf| (key(&target, &leaf), leaf))
                .collect();
            (target, leaves)
        })
        .collect();
    // The scope a target's units are dealt in: its own, or one for every target (slice).
    let scope_of = |index: usize| match partition.kind {
        PartitionKind::Slice => 0,
        PartitionKind::Count | PartitionKind::Hash => index,
    };
    let mut scopes: Vec<Vec<&str>> = vec![Vec::new(); keyed.len().max(1)];
    for (index, (_, leaves)) in keyed.iter().enumerate() {
        scopes[scope_of(index)].extend(leaves.iter().map(|(key, _)| key.as_str()));
    }
    let mut units = 0;
    let mut kept: HashSet<(usize, String)> = HashSet::new();
    for (scope, keys) in scopes.iter().enumerate() {
        units += keys.iter().collect::<HashSet<_>>().len();
        let shard = partition.shard_units(keys.iter().copied());
        kept.extend(shard.into_iter().map(|key| (scope, key.to_owned())));
    }
    let kept_units = kept.len();
    let targets = keyed
        .into_iter()
        .enumerate()
        .map(|(index, (target, leaves))| {
            let ids = leaves
                .into_iter()
                .filter(|(key, _)| kept.contains(&(scope_of(index), key.clone())))
                .map(|(_, leaf)| leaf)
                .collect::<Vec<_>>();
            (target, ids)
        })
        .filter(|(_, ids)| !ids.is_empty())
        .collect();
    Shard {
        targets,
        units,
        kept: kept_units,
    }
}
