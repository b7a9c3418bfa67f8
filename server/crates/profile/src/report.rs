//! From what a profiler counted to a [`Profile`]: costs per operation, shares of the region,
//! and the workspace's own lines.
//!
//! A line is charged with its **own** instructions (those whose innermost source line it is)
//! and with what runs **below** it: the calls made from it, and the code inlined into it from
//! elsewhere. The bench body is inlined into the engine's timed loop and the standard library
//! into the body, so callgrind's innermost line of `v.sort()`'s instructions is the standard
//! library's; the instruction's inline chain, read from the profile build's debug information
//! ([`Dwarf`]), names the body's line too, and it is charged as well.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::Path;

use knotmeter_protocol::{CallFrame, Profile, ProfileTool, ProfiledFunction, ProfiledLine};

use crate::callgrind::{Callgrind, LineKey};
use crate::tree;

/// Functions kept: the costliest, down to a thousandth of the region.
pub(crate) const MIN_FUNCTION_SHARE: f64 = 0.001;
/// Lines kept: the costliest of the workspace's own, down to a two-hundredth of the region.
pub(crate) const MIN_LINE_SHARE: f64 = 0.005;
/// At most this many of each.
pub(crate) const MAX_ROWS: usize = 200;

/// One source line's costs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LineCost {
    /// Instructions whose innermost source line it is.
    pub own: u64,
    /// Instructions run below it: by calls made from it (the callees and all they called) and
    /// by code inlined into it; charged only where the caller ran inside the region, so the
    /// frames that lead to the region are not charged with it.
    pub below: u64,
}

/// An instruction's source lines, from its innermost inlined frame out.
pub trait InlineChains {
    /// The lines of the instruction at `address` of `object`; empty when not known.
    fn chain(&self, object: &str, address: u64) -> Vec<LineKey>;
}

/// No inline chains: each cost is charged to callgrind's innermost line only.
pub struct NoInlining;

impl InlineChains for NoInlining {
    fn chain(&self, _: &str, _: u64) -> Vec<LineKey> {
        Vec::new()
    }
}

/// Inline chains from the debug information of one executable (the profile build's bench
/// binary), read with the `addr2line` crate; other objects (the C library) have none.
pub struct Dwarf {
    object: String,
    loader: Option<addr2line::Loader>,
    cache: RefCell<HashMap<u64, Vec<LineKey>>>,
}

impl Dwarf {
    /// The chains of `executable`; none when its debug information cannot be read.
    pub fn of(executable: &Path) -> Self {
        let loader = addr2line::Loader::new(executable).ok();
        Dwarf {
            object: executable.display().to_string(),
            loader,
            cache: RefCell::new(HashMap::new()),
        }
    }
}

impl Dwarf {
    /// The object name its chains answer for: the executable's path.
    pub fn object(&self) -> &str {
        &self.object
    }
}

impl InlineChains for Dwarf {
    fn chain(&self, object: &str, address: u64) -> Vec<LineKey> {
        let Some(loader) = self.loader.as_ref().filter(|_| object == self.object) else {
            return Vec::new();
        };
        if let Some(known) = self.cache.borrow().get(&address) {
            return known.clone();
        }
        let mut chain = Vec::new();
        if let Ok(mut frames) = loader.find_frames(address) {
            while let Ok(Some(frame)) = frames.next() {
                if let Some(location) = frame.location {
                    if let (Some(file), Some(line)) = (location.file, location.line) {
                        chain.push(LineKey {
                            file: file.to_owned(),
                            line,
                        });
                    }
                }
            }
        }
        self.cache.borrow_mut().insert(address, chain.clone());
        chain
    }
}

/// Every line's costs: own at the innermost line; below at every outer line of the chain.
pub fn line_costs(counted: &Callgrind, chains: &dyn InlineChains) -> HashMap<LineKey, LineCost> {
    let mut lines: HashMap<LineKey, LineCost> = HashMap::new();
    for function in &counted.functions {
        for (spot, &cost) in &function.spots {
            if spot.call && !function.in_region() {
                continue;
            }
            let entry = lines.entry(spot.at.clone()).or_default();
            if spot.call {
                entry.below += cost;
            } else {
                entry.own += cost;
            }
            let Some(address) = spot.address else {
                continue;
            };
            // The chain's innermost line is callgrind's own (charged above) when the debug
            // information has one; when the innermost frame has none, the first line of the
            // chain is an outer one, and is charged like the rest.
            let mut charged: HashSet<LineKey> = HashSet::from([spot.at.clone()]);
            for outer in chains.chain(&function.object, address) {
                if charged.insert(outer.clone()) {
                    lines.entry(outer).or_default().below += cost;
                }
            }
        }
    }
    lines
}

/// Whether `file` is the workspace's own source: under its root and not under a target
/// directory (generated code) or a vendored dependency.
pub fn is_workspace_file(file: &str, root: &Path) -> bool {
    let path = Path::new(file);
    path.starts_with(root)
        && !path
            .strip_prefix(root)
            .unwrap_or(path)
            .components()
            .any(|c| matches!(c.as_os_str().to_str(), Some("target" | "vendor")))
}

/// The profile of case `id` from callgrind's counts over `operations` operations, with the
/// lines of the workspace at `root`, each charged through `chains`.
pub fn from_callgrind(
    id: &str,
    counted: &Callgrind,
    operations: u64,
    root: &Path,
    chains: &dyn InlineChains,
) -> Profile {
    let per_op = |cost: u64| cost as f64 / operations.max(1) as f64;
    let total = counted.total.max(1) as f64;
    let costs = line_costs(counted, chains);
    let line_of = |key: &LineKey, cost: &LineCost| ProfiledLine {
        file: key.file.clone(),
        line: key.line,
        own_per_op: per_op(cost.own),
        calls_per_op: per_op(cost.below),
        share: (cost.own + cost.below) as f64 / total,
    };
    let mut lines: Vec<ProfiledLine> = costs
        .iter()
        .filter(|(key, _)| key.line > 0 && is_workspace_file(&key.file, root))
        .map(|(key, cost)| line_of(key, cost))
        .filter(|line| line.share >= MIN_LINE_SHARE)
        .collect();
    lines.sort_by(|a, b| {
        b.share
            .total_cmp(&a.share)
            .then_with(|| (&a.file, a.line).cmp(&(&b.file, b.line)))
    });
    lines.truncate(MAX_ROWS);
    let mut functions: Vec<ProfiledFunction> = counted
        .functions
        .iter()
        .filter(|f| f.own as f64 / total >= MIN_FUNCTION_SHARE)
        .map(|f| {
            let hottest = f
                .own_by_line()
                .into_iter()
                .filter(|(key, _)| key.line > 0 && is_workspace_file(&key.file, root))
                .max_by(|(a, x), (b, y)| x.cmp(y).then_with(|| b.cmp(a)));
            ProfiledFunction {
                name: f.name.clone(),
                own_per_op: per_op(f.own),
                own_share: f.own as f64 / total,
                // A recursive function's calls to itself count the same work at every depth
                // (callgrind's `'2` names a second level): nothing is more than the region.
                inclusive_per_op: per_op(f.inclusive.min(counted.total)),
                line: hottest.map(|(key, _)| line_of(key, &costs[key])),
            }
        })
        .collect();
    functions.sort_by(|a, b| {
        b.own_share
            .total_cmp(&a.own_share)
            .then_with(|| a.name.cmp(&b.name))
    });
    functions.truncate(MAX_ROWS);
    // Each function's hottest workspace line, for the tree's frames to link to.
    let hottest: HashMap<&str, ProfiledLine> = counted
        .functions
        .iter()
        .filter_map(|f| {
            let (key, _) = f
                .own_by_line()
                .into_iter()
                .filter(|(key, _)| key.line > 0 && is_workspace_file(&key.file, root))
                .max_by(|(a, x), (b, y)| x.cmp(y).then_with(|| b.cmp(a)))?;
            Some((f.name.as_str(), line_of(key, &costs[key])))
        })
        .collect();
    Profile {
        id: id.to_owned(),
        tool: ProfileTool::Callgrind,
        unit: "instructions".to_owned(),
        operations,
        total_per_op: per_op(counted.total),
        functions,
        lines,
        samples: None,
        tree: tree::call_tree(counted, operations).map(|frame| call_frame(frame, &hottest)),
    }
}

/// A frame of the tree as the protocol has it, linked to its function's hottest workspace line.
pub(crate) fn call_frame(frame: tree::Frame, hottest: &HashMap<&str, ProfiledLine>) -> CallFrame {
    CallFrame {
        line: hottest.get(frame.name.as_str()).cloned(),
        name: frame.name,
        value_per_op: frame.value,
        own_per_op: frame.own,
        estimated: frame.estimated,
        children: frame
            .children
            .into_iter()
            .map(|child| call_frame(child, hottest))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::callgrind::parse;

    const PROFILE: &str = "\
events: Ir
fl=/ws/benches/b.rs
fn=b::body
10 300
fi=/home/u/.cargo/registry/src/dep/src/lib.rs
3 100
fe=/ws/benches/b.rs
cfn=b::helper
calls=1 20
11 600
fn=b::helper
20 596
21 4
fl=/ws/target/release/build/out.rs
fn=generated
1 0
fl=/ws/src/main.rs
fn=main
cfn=b::body
calls=1 10
7 1000
";

    #[test]
    fn costs_are_per_operation_and_only_the_workspaces_lines_are_marked() {
        let counted = parse(PROFILE).unwrap();
        let p = from_callgrind("b::body", &counted, 100, Path::new("/ws"), &NoInlining);
        assert_eq!(p.operations, 100);
        assert_eq!(p.total_per_op, 10.0);
        let names: Vec<&str> = p.functions.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["b::helper", "b::body"]);
        let body = &p.functions[1];
        assert_eq!(body.own_per_op, 4.0);
        assert_eq!(body.inclusive_per_op, 10.0);
        assert_eq!(body.line.as_ref().unwrap().line, 10);
        // The dependency's line is not the workspace's; the call site holds the call's cost;
        // a line of a two-hundredth or less (line 21) is left out; `main`, which led to the
        // region and ran nothing in it, is not charged with it (line 7).
        let marked: Vec<(u32, f64)> = p.lines.iter().map(|l| (l.line, l.share)).collect();
        assert_eq!(marked, [(11, 0.6), (20, 0.596), (10, 0.3)]);
        assert!(p.lines.iter().all(|l| l.file.starts_with("/ws/benches")));
    }

    /// Chains that say the instruction at 0x10 (the standard library's line) was inlined into
    /// the body's line 5, itself inlined into the harness's loop at line 90.
    struct Inlined;

    impl InlineChains for Inlined {
        fn chain(&self, object: &str, address: u64) -> Vec<LineKey> {
            let at = |file: &str, line| LineKey {
                file: file.into(),
                line,
            };
            match (object, address) {
                ("/ws/b", 0x10) => vec![
                    at("/rustc/core/src/slice/sort.rs", 40),
                    at("/ws/benches/b.rs", 5),
                    at("/reg/knotmeter/src/measure/routine.rs", 90),
                    at("/ws/benches/b.rs", 5),
                ],
                // An instruction whose innermost frame has no line in the debug information:
                // the chain starts at the line it was inlined into.
                ("/ws/b", 0x20) => vec![at("/ws/benches/b.rs", 6)],
                _ => Vec::new(),
            }
        }
    }

    /// The body's line is charged with the standard library's code inlined into it (once,
    /// though the chain names it twice), which callgrind's innermost line alone never shows.
    #[test]
    fn code_inlined_into_a_line_is_charged_to_it() {
        let counted = parse(
            "positions: instr line\nevents: Ir\nob=/ws/b\n\
             fl=/reg/knotmeter/src/measure/routine.rs\nfn=time_batch\n\
             fi=/rustc/core/src/slice/sort.rs\n0x10 40 900\n\
             fe=/reg/knotmeter/src/measure/routine.rs\n0x20 91 100\n",
        )
        .unwrap();
        let root = Path::new("/ws");
        let plain = from_callgrind("b::sort", &counted, 10, root, &NoInlining);
        assert!(plain.lines.is_empty(), "{:?}", plain.lines);
        let p = from_callgrind("b::sort", &counted, 10, root, &Inlined);
        let lines: Vec<(&str, u32, f64, f64, f64)> = p
            .lines
            .iter()
            .map(|l| {
                (
                    l.file.as_str(),
                    l.line,
                    l.own_per_op,
                    l.calls_per_op,
                    l.share,
                )
            })
            .collect();
        assert_eq!(
            lines,
            [
                ("/ws/benches/b.rs", 5, 0.0, 90.0, 0.9),
                // The first line of a chain whose innermost frame had none is charged too.
                ("/ws/benches/b.rs", 6, 0.0, 10.0, 0.1),
            ]
        );
    }

    /// callgrind counts a recursive call's work at every depth: with what it calls, a function
    /// never costs more than the whole region.
    #[test]
    fn recursion_costs_no_more_than_the_region() {
        let counted = parse("events: Ir\nfn=r\n1 10\ncfn=r\ncalls=1 1\n1 10\n").unwrap();
        assert_eq!(counted.functions[0].inclusive, 20);
        let p = from_callgrind("r", &counted, 1, Path::new("/ws"), &NoInlining);
        assert_eq!(p.functions[0].inclusive_per_op, 10.0);
    }

    #[test]
    fn generated_and_vendored_code_is_not_the_workspaces() {
        let root = Path::new("/ws");
        assert!(is_workspace_file("/ws/src/lib.rs", root));
        assert!(!is_workspace_file(
            "/ws/target/release/build/x/out.rs",
            root
        ));
        assert!(!is_workspace_file("/ws/vendor/dep/src/lib.rs", root));
        assert!(!is_workspace_file(
            "/rustc/abc/library/core/src/iter.rs",
            root
        ));
        // A workspace that itself lies under a directory named `target` is still one.
        assert!(is_workspace_file(
            "/home/u/target/ws/src/lib.rs",
            Path::new("/home/u/target/ws")
        ));
    }
}
