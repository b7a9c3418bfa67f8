//! Which discovered cases `knotmeter run` chooses: PATH and FILTER, and the bench binary's
//! rules for a filter, `--exact` and `--skip`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

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
            .benches
            .iter()
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
