//! A check run by `cargo test`: no two sibling modules of a crate depend on each other, directly
//! or through others (docs/architecture.md, "Invariants").
//!
//! A module is a file of `src/` (`a/mod.rs` is `a`). Module `x` depends on module `y` when its
//! code (not its comments, not its `#[cfg(test)] mod tests`) names a path into `y`:
//! `crate::y::…`, or `super::…` that lands in `y`, each path of a brace group
//! (`crate::{y::A, z::B}`) counted, and a name another module imports or re-exports followed to
//! the module it comes from (`crate::Name` where the root says `pub use y::Name` is `y`). Under each module, its child modules with
//! everything below each are the nodes; a cycle among them is a knot a reader cannot follow
//! one way. A parent and its own children are not compared (the parent declares them).
//!
//! Cycles found before this check are listed in [`KNOWN`], to be taken apart: the check fails
//! on a cycle that is not listed, and on a listed one that is gone (so the list stays true).

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};
    use std::path::Path;

    /// A module: its path under the crate root (`["session", "runs"]`).
    type Module = Vec<String>;

    /// Cycles that existed when the check was written, as `crate: members` (the children of one
    /// module, joined by `::` from the crate root, sorted). Each is to be taken apart; remove
    /// its line then.
    const KNOWN: &[&str] = &[
        // criterion's own API: `Criterion::benchmark_group` returns a group that holds the
        // `Criterion` it came from.
        "compat/criterion/src: criterion group",
        "engine/src: cli manifest rounds run",
    ];

    fn modules(src: &Path) -> BTreeMap<Module, String> {
        let mut found = BTreeMap::new();
        let mut dirs = vec![src.to_path_buf()];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                    continue;
                }
                if path.extension().is_none_or(|e| e != "rs") {
                    continue;
                }
                let relative = path.strip_prefix(src).unwrap().with_extension("");
                let mut module: Module = relative
                    .iter()
                    .map(|p| p.to_string_lossy().into_owned())
                    .collect();
                if matches!(
                    module.last().map(String::as_str),
                    Some("mod" | "lib" | "main")
                ) {
                    module.pop();
                }
                found.insert(module, std::fs::read_to_string(&path).unwrap());
            }
        }
        found
    }

    /// The text without its test module and without comment lines.
    fn code_of(text: &str) -> String {
        let end = text.find("#[cfg(test)]\nmod tests").unwrap_or(text.len());
        text[..end]
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The paths `code` names: after `crate::` (from the root), or after `super::` (from the
    /// module's parent, one level up per `super`); a brace group (`crate::{a::X, b::{Y, Z}}`)
    /// names each of its paths.
    fn named_paths(module: &Module, code: &str) -> Vec<Module> {
        let mut paths = Vec::new();
        let bytes = code.as_bytes();
        let word_start = |at: usize| {
            at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_')
        };
        for (at, _) in code
            .match_indices("crate::")
            .filter(|(at, _)| word_start(*at))
        {
            paths.extend(tree(&code[at + "crate::".len()..]));
        }
        for (at, _) in code
            .match_indices("super::")
            .filter(|(at, _)| word_start(*at))
        {
            if at >= "super::".len() && code[..at].ends_with("super::") {
                continue; // counted from the first `super::`
            }
            let mut anchor = module.clone();
            let mut rest = &code[at..];
            while let Some(after) = rest.strip_prefix("super::") {
                anchor.pop();
                rest = after;
            }
            for path in tree(rest) {
                let mut full = anchor.clone();
                full.extend(path);
                paths.push(full);
            }
        }
        paths
    }

    /// The paths of a use tree at the start of `text`: `a::b::C` is one; `a::{b::C, D, self}`
    /// is `a::b::C`, `a::D` and `a`; `X as Y` is `X`.
    fn tree(text: &str) -> Vec<Module> {
        let text = text.trim_start();
        let head = segments(text);
        let mut rest = text.trim_start();
        for segment in &head {
            rest = rest[segment.len()..].trim_start();
            rest = rest.strip_prefix("::").unwrap_or(rest).trim_start();
        }
        let Some(group) = rest.strip_prefix('{') else {
            return vec![head];
        };
        let mut paths = Vec::new();
        for item in split_group(group) {
            for tail in tree(item) {
                let mut path = head.clone();
                if tail.first().is_some_and(|s| s != "self") {
                    path.extend(tail);
                }
                paths.push(path);
            }
        }
        paths
    }

    /// The comma-separated items of a brace group whose opening brace was just read, up to its
    /// closing brace (nested groups kept whole).
    fn split_group(text: &str) -> Vec<&str> {
        let (mut items, mut depth, mut start) = (Vec::new(), 0usize, 0usize);
        for (at, c) in text.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    items.push(&text[start..at]);
                    break;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    items.push(&text[start..at]);
                    start = at + 1;
                }
                _ => {}
            }
        }
        items.into_iter().filter(|i| !i.trim().is_empty()).collect()
    }

    /// The names each module imports or re-exports (`use`, `pub use`, `pub(crate) use`), each
    /// with the path it names: a path to `crate::x::Name` where `x` re-exports `Name` from its
    /// child `y` is a dependency on `x::y`, not on `x` alone (and so is `super::Name` from a
    /// child of `x`, which sees `x`'s private imports too).
    fn reexports(modules: &BTreeMap<Module, String>) -> BTreeMap<(Module, String), Module> {
        let mut found = BTreeMap::new();
        for (module, text) in modules {
            let code = code_of(text);
            for line_start in code.match_indices("use ").map(|(at, _)| at) {
                // A `use` at the start of a line or after `pub…`: a private import is seen by
                // the module's children too (`super::Name`).
                let before = code[..line_start].trim_end_matches([' ', '\t']);
                let item = before.is_empty()
                    || before.ends_with('\n')
                    || before.ends_with("pub")
                    || before.ends_with(')');
                if !item {
                    continue;
                }
                let statement = &code[line_start + "use ".len()..];
                let statement = &statement[..statement.find(';').unwrap_or(statement.len())];
                for path in tree(statement) {
                    let Some(name) = path.last().cloned() else {
                        continue;
                    };
                    let full = match path.first().map(String::as_str) {
                        Some("crate") => path[1..].to_vec(),
                        Some("self") => module
                            .iter()
                            .cloned()
                            .chain(path[1..].iter().cloned())
                            .collect(),
                        Some("super") => {
                            let mut anchor = module.clone();
                            let mut rest = path.as_slice();
                            while rest.first().is_some_and(|s| s == "super") {
                                anchor.pop();
                                rest = &rest[1..];
                            }
                            anchor.extend(rest.iter().cloned());
                            anchor
                        }
                        // A child module of this one, or another crate (left alone).
                        _ => module.iter().cloned().chain(path.iter().cloned()).collect(),
                    };
                    found.insert((module.clone(), name), full);
                }
            }
        }
        found
    }

    /// `a::b::C` of `a::b::C…` (identifiers joined by `::`).
    fn segments(text: &str) -> Module {
        let mut out = Vec::new();
        let mut rest = text;
        loop {
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            if end == 0 {
                break;
            }
            out.push(rest[..end].to_owned());
            match rest[end..].strip_prefix("::") {
                Some(after) => rest = after,
                None => break,
            }
        }
        out
    }

    /// Module → the modules its code (not comments or tests) depends on: where each path it
    /// names lands, following re-exports to the module that defines the name.
    fn dependencies(modules: &BTreeMap<Module, String>) -> BTreeMap<Module, BTreeSet<Module>> {
        let reexported = reexports(modules);
        let longest_module = |path: &[String]| -> Option<usize> {
            (0..=path.len())
                .rev()
                .find(|k| modules.contains_key(&path[..*k].to_vec()))
        };
        let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
        for (module, code) in modules {
            for mut path in named_paths(module, &code_of(code)) {
                // A chain of re-exports is short; the bound only guards against a loop.
                for _ in 0..8 {
                    let Some(k) = longest_module(&path) else {
                        break;
                    };
                    let Some(source) = path
                        .get(k)
                        .and_then(|name| reexported.get(&(path[..k].to_vec(), name.clone())))
                    else {
                        break;
                    };
                    let mut next = source.clone();
                    next.extend(path[k + 1..].iter().cloned());
                    if next == path {
                        break;
                    }
                    path = next;
                }
                let target = longest_module(&path).map(|k| path[..k].to_vec());
                if let Some(target) = target.filter(|t| t != module) {
                    edges.entry(module.clone()).or_default().insert(target);
                }
            }
        }
        edges
    }

    /// The cycles among the children of each module, as sorted member lists.
    fn cycles(edges: &BTreeMap<Module, BTreeSet<Module>>, all: &[Module]) -> Vec<Vec<Module>> {
        let parents: BTreeSet<Module> = all
            .iter()
            .filter(|m| !m.is_empty())
            .map(|m| m[..m.len() - 1].to_vec())
            .collect();
        let mut found = Vec::new();
        for parent in parents {
            let child = |m: &Module| -> Option<Module> {
                (m.len() > parent.len() && m.starts_with(&parent))
                    .then(|| m[..=parent.len()].to_vec())
            };
            let mut graph: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
            for (from, tos) in edges {
                let Some(a) = child(from) else { continue };
                for b in tos.iter().filter_map(child).filter(|b| *b != a) {
                    graph.entry(a.clone()).or_default().insert(b);
                }
            }
            found.extend(
                strongly_connected(&graph)
                    .into_iter()
                    .filter(|c| c.len() > 1),
            );
        }
        found
    }

    /// The strongly connected components of `graph` (each sorted), by reachability: small
    /// graphs only.
    fn strongly_connected(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
        let reach = |from: &Module| -> BTreeSet<Module> {
            let mut seen = BTreeSet::new();
            let mut todo = vec![from.clone()];
            while let Some(m) = todo.pop() {
                for next in graph.get(&m).into_iter().flatten() {
                    if seen.insert(next.clone()) {
                        todo.push(next.clone());
                    }
                }
            }
            seen
        };
        let reaches: BTreeMap<&Module, BTreeSet<Module>> =
            graph.keys().map(|m| (m, reach(m))).collect();
        let mut components: BTreeSet<Vec<Module>> = BTreeSet::new();
        for (m, from_m) in &reaches {
            let mut component: Vec<Module> = from_m
                .iter()
                .filter(|other| reaches.get(other).is_some_and(|r| r.contains(*m)))
                .cloned()
                .collect();
            if !component.is_empty() {
                component.sort();
                components.insert(component);
            }
        }
        components.into_iter().collect()
    }

    #[test]
    fn no_new_module_cycle_and_the_known_ones_are_still_there() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let mut now: BTreeSet<String> = BTreeSet::new();
        for src in crate::sources::PRODUCT
            .iter()
            .chain(crate::sources::TOOLING)
        {
            let modules = modules(&root.join(src));
            let all: Vec<Module> = modules.keys().cloned().collect();
            for cycle in cycles(&dependencies(&modules), &all) {
                let names: Vec<String> = cycle.iter().map(|m| m.join("::")).collect();
                now.insert(format!("{src}: {}", names.join(" ")));
            }
        }
        let known: BTreeSet<String> = KNOWN.iter().map(|k| (*k).to_owned()).collect();
        let new: Vec<&String> = now.difference(&known).collect();
        let gone: Vec<&String> = known.difference(&now).collect();
        assert!(
            new.is_empty(),
            "modules that depend on each other (take the shared part into a module of its own): {new:?}"
        );
        assert!(
            gone.is_empty(),
            "these cycles are gone: remove them from KNOWN in xtask/src/module_cycles.rs: {gone:?}"
        );
    }

    #[test]
    fn a_cycle_through_super_and_crate_paths_is_found() {
        let mut modules = BTreeMap::new();
        let m = |s: &str| -> Module { s.split("::").map(str::to_owned).collect() };
        modules.insert(Vec::new(), "mod a; mod b; mod c;".to_owned());
        modules.insert(m("a"), "use super::b::Thing;".to_owned());
        modules.insert(m("b"), "fn f() { crate::a::g() }".to_owned());
        modules.insert(m("c"), "// crate::a::g\nuse crate::a;".to_owned());
        let all: Vec<Module> = modules.keys().cloned().collect();
        assert_eq!(
            cycles(&dependencies(&modules), &all),
            vec![vec![m("a"), m("b")]]
        );
        // A comment is not a dependency, and a parent is not its child's sibling.
        modules.insert(
            m("b"),
            "// crate::a::g()\nfn f() { super::super::x() }".to_owned(),
        );
        let all: Vec<Module> = modules.keys().cloned().collect();
        assert!(cycles(&dependencies(&modules), &all).is_empty());
    }

    /// Issue 25: the check missed cycles that went through a brace group of imports or
    /// through a name the parent re-exports (`use crate::{Name}` where the root says
    /// `pub use child::Name`): the protocol's `driven` → `editor` → `shown` → `driven`.
    #[test]
    fn a_cycle_through_grouped_imports_and_reexports_is_found() {
        let m = |s: &str| -> Module { s.split("::").map(str::to_owned).collect() };
        let mut modules = BTreeMap::new();
        modules.insert(
            Vec::new(),
            "mod a; mod b; mod c;\npub use a::Alpha;\npub use c::{Gamma, Other as Renamed};"
                .to_owned(),
        );
        modules.insert(m("a"), "use crate::{b::Beta, x::y};".to_owned());
        modules.insert(
            m("b"),
            "use crate::{\n    Gamma,\n    Unrelated,\n};".to_owned(),
        );
        modules.insert(m("c"), "use super::{Alpha, self as root};".to_owned());
        let all: Vec<Module> = modules.keys().cloned().collect();
        assert_eq!(
            cycles(&dependencies(&modules), &all),
            vec![vec![m("a"), m("b"), m("c")]]
        );
        assert_eq!(
            tree("a::{b::C, D as E, self, f::{g, h}}"),
            vec![m("a::b::C"), m("a::D"), m("a"), m("a::f::g"), m("a::f::h")]
        );
    }
}
