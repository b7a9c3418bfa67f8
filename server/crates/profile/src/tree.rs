//! The call tree of a callgrind profile, for a flame graph.
//!
//! callgrind records a call *graph*: each function's own cost, and for each caller → callee
//! edge the inclusive cost of those calls. A graph does not say how a function called from two
//! places splits its callees' cost between them, so no tool can draw an exact tree from it
//! (speedscope's importer, KCachegrind's "most probable" call stack and gprof2dot all say so).
//! The tree here is the graph expanded the way speedscope expands it, made consistent:
//!
//! 1. Only the timed region: functions that executed instructions there (the frames that led to
//!    it, `main` and the harness's own, executed none and are left out), and edges with a cost.
//! 2. Recursion is folded: each strongly connected component (Tarjan) becomes one frame, named
//!    by its function (callgrind's `'2` suffix of deeper levels removed) or `cycle: a ⇄ b`, as
//!    gprof and KCachegrind do; the edges inside it are dropped (their costs are counted again
//!    at every level).
//! 3. A frame's width is its own cost plus its outgoing edges' costs, so children never exceed
//!    their parent and own costs are never negative.
//! 4. A frame of width `w` gives each callee `edge × w / width`: exact where the graph is a
//!    tree; where a function has several callers, its children are its average split, and the
//!    frame and all below it are marked `estimated`.
//! 5. Frames narrower than [`MIN_SHARE`] of the whole go into their parent's own cost, and at
//!    most [`MAX_FRAMES`] frames are made, so a graph with many diamonds cannot explode.
//!
//! The flat profile (`report.rs`) stays the exact account; the tree is how it nests.

use std::collections::HashMap;

use crate::callgrind::Callgrind;

/// Frames narrower than this share of the whole are folded into their parent's own cost.
pub const MIN_SHARE: f64 = 1e-4;

/// The most frames a tree holds; past it, callees are folded into their caller's own cost.
pub const MAX_FRAMES: usize = 20_000;

/// The deepest a tree goes.
const MAX_DEPTH: usize = 256;

/// One frame of the call tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// The function, or the recursive cycle (`cycle: a ⇄ b`).
    pub name: String,
    /// What it and everything below it cost, per operation.
    pub value: f64,
    /// What it cost itself, per operation (callees too narrow to draw included).
    pub own: f64,
    /// Its width is an estimate: it, or a frame above it, is called from several places, and
    /// the profile does not say how their costs split.
    pub estimated: bool,
    /// Its callees, the widest first.
    pub children: Vec<Frame>,
}

/// The call tree of `counted`'s timed region, costs per operation; `None` when nothing ran in
/// it. Several entry points (the region entered from more than one function) hang under one
/// frame named `timed region`.
pub fn call_tree(counted: &Callgrind, operations: u64) -> Option<Frame> {
    let graph = Graph::of(counted);
    if graph.names.is_empty() {
        return None;
    }
    let condensed = Condensed::of(&graph);
    let roots: Vec<usize> = (0..condensed.names.len())
        .filter(|&c| condensed.callers[c] == 0 && condensed.width(c) > 0)
        .collect();
    let total: u64 = roots.iter().map(|&c| condensed.width(c)).sum();
    if total == 0 {
        return None;
    }
    let per_op = 1.0 / operations.max(1) as f64;
    let mut expansion = Expansion {
        condensed: &condensed,
        min_width: MIN_SHARE * total as f64,
        frames: 0,
        per_op,
    };
    let mut frames: Vec<Frame> = roots
        .iter()
        .map(|&c| expansion.expand(c, condensed.width(c) as f64, false, 0))
        .collect();
    if frames.len() == 1 {
        return frames.pop();
    }
    frames.sort_by(|a, b| b.value.total_cmp(&a.value));
    Some(Frame {
        name: "timed region".to_owned(),
        value: total as f64 * per_op,
        own: 0.0,
        estimated: false,
        children: frames,
    })
}

/// The region's call graph: functions that executed instructions in it, and their edges.
struct Graph {
    names: Vec<String>,
    own: Vec<u64>,
    /// `edges[f]`: (callee, inclusive cost), costs above zero.
    edges: Vec<Vec<(usize, u64)>>,
}

impl Graph {
    /// The graph of the region's functions, each function's recursion levels (`f'2`, `f'3`)
    /// one node with it: they are one function, and its calls between levels one cycle.
    fn of(counted: &Callgrind) -> Self {
        let mut names: Vec<&str> = counted
            .functions
            .iter()
            .filter(|f| f.in_region())
            .map(|f| base_name(&f.name))
            .collect();
        // A stable order, whatever the parser's.
        names.sort_unstable();
        names.dedup();
        let index: HashMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
        let mut own = vec![0u64; names.len()];
        let mut edges: Vec<HashMap<usize, u64>> = vec![HashMap::new(); names.len()];
        for f in counted.functions.iter().filter(|f| f.in_region()) {
            let at = index[base_name(&f.name)];
            own[at] = own[at].saturating_add(f.own);
            for (callee, cost) in f.calls.iter().filter(|(_, cost)| **cost > 0) {
                if let Some(&to) = index.get(base_name(callee)) {
                    let edge = edges[at].entry(to).or_default();
                    *edge = edge.saturating_add(*cost);
                }
            }
        }
        Graph {
            names: names.iter().map(|n| (*n).to_owned()).collect(),
            own,
            edges: edges
                .into_iter()
                .map(|out| {
                    let mut out: Vec<(usize, u64)> = out.into_iter().collect();
                    out.sort_unstable();
                    out
                })
                .collect(),
        }
    }
}

/// The graph with each strongly connected component as one node.
struct Condensed {
    names: Vec<String>,
    own: Vec<u64>,
    /// `out[c]`: (callee component, summed inclusive cost), the widest first.
    out: Vec<Vec<(usize, u64)>>,
    /// How many components call each one.
    callers: Vec<usize>,
}

impl Condensed {
    fn of(graph: &Graph) -> Self {
        let component = strongly_connected(&graph.edges);
        let count = component.iter().copied().max().map_or(0, |m| m + 1);
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); count];
        for (f, &c) in component.iter().enumerate() {
            members[c].push(f);
        }
        let mut own = vec![0u64; count];
        let mut out: Vec<HashMap<usize, u64>> = vec![HashMap::new(); count];
        for (f, edges) in graph.edges.iter().enumerate() {
            let c = component[f];
            own[c] = own[c].saturating_add(graph.own[f]);
            for &(g, cost) in edges {
                let d = component[g];
                if d != c {
                    let edge = out[c].entry(d).or_default();
                    *edge = edge.saturating_add(cost);
                }
            }
        }
        let mut callers = vec![0usize; count];
        let out: Vec<Vec<(usize, u64)>> = out
            .into_iter()
            .map(|edges| {
                let mut edges: Vec<(usize, u64)> = edges.into_iter().collect();
                edges.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
                edges
            })
            .collect();
        for edges in &out {
            for &(d, _) in edges {
                callers[d] += 1;
            }
        }
        let names = members
            .iter()
            .map(|fs| {
                let mut names: Vec<&str> = fs.iter().map(|&f| graph.names[f].as_str()).collect();
                names.sort_unstable();
                names.dedup();
                match names.as_slice() {
                    [one] => (*one).to_owned(),
                    many => format!("cycle: {}", many.join(" ⇄ ")),
                }
            })
            .collect();
        Condensed {
            names,
            own,
            out,
            callers,
        }
    }

    /// A component's width: its own cost and its calls out of it.
    fn width(&self, c: usize) -> u64 {
        self.out[c]
            .iter()
            .fold(self.own[c], |sum, (_, cost)| sum.saturating_add(*cost))
    }
}

/// A function's name without callgrind's recursion level (`f'2` is `f` called from itself).
fn base_name(name: &str) -> &str {
    match name.rsplit_once('\'') {
        Some((base, level))
            if !base.is_empty()
                && !level.is_empty()
                && level.bytes().all(|b| b.is_ascii_digit()) =>
        {
            base
        }
        _ => name,
    }
}

struct Expansion<'a> {
    condensed: &'a Condensed,
    min_width: f64,
    frames: usize,
    per_op: f64,
}

impl Expansion<'_> {
    /// Component `c` drawn `width` wide (in counted units).
    fn expand(&mut self, c: usize, width: f64, estimated: bool, depth: usize) -> Frame {
        self.frames += 1;
        let g = self.condensed;
        let full = g.width(c) as f64;
        let scale = if full > 0.0 { width / full } else { 0.0 };
        let mut own = g.own[c] as f64 * scale;
        let mut children = Vec::new();
        for &(d, cost) in &g.out[c] {
            let child_width = cost as f64 * scale;
            let drawn =
                child_width >= self.min_width && self.frames < MAX_FRAMES && depth + 1 < MAX_DEPTH;
            if drawn {
                let shared = estimated || g.callers[d] > 1;
                children.push(self.expand(d, child_width, shared, depth + 1));
            } else {
                own += child_width;
            }
        }
        Frame {
            name: g.names[c].clone(),
            value: width * self.per_op,
            own: own * self.per_op,
            estimated,
            children,
        }
    }
}

/// The strongly connected component of each node (Tarjan's algorithm, without recursion: a
/// deep call graph cannot overflow the stack); components are numbered in the order found.
fn strongly_connected(edges: &[Vec<(usize, u64)>]) -> Vec<usize> {
    const UNSEEN: usize = usize::MAX;
    let n = edges.len();
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut component = vec![UNSEEN; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut next_index = 0;
    let mut next_component = 0;
    for start in 0..n {
        if index[start] != UNSEEN {
            continue;
        }
        // (node, the next of its edges to look at)
        let mut work: Vec<(usize, usize)> = vec![(start, 0)];
        while let Some(&mut (v, ref mut next)) = work.last_mut() {
            if *next == 0 && index[v] == UNSEEN {
                index[v] = next_index;
                low[v] = next_index;
                next_index += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&(w, _)) = edges[v].get(*next) {
                *next += 1;
                if index[w] == UNSEEN {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component[w] = next_component;
                    if w == v {
                        break;
                    }
                }
                next_component += 1;
            }
        }
    }
    component
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::callgrind::FunctionCost;

    fn function(name: &str, own: u64, calls: &[(&str, u64)]) -> FunctionCost {
        FunctionCost {
            name: name.to_owned(),
            object: "/bin/b".to_owned(),
            own,
            inclusive: own + calls.iter().map(|c| c.1).sum::<u64>(),
            spots: HashMap::new(),
            calls: calls.iter().map(|&(n, c)| (n.to_owned(), c)).collect(),
        }
    }

    fn profile(functions: Vec<FunctionCost>) -> Callgrind {
        Callgrind {
            event: "Ir".into(),
            total: functions.iter().map(|f| f.own).sum(),
            functions,
        }
    }

    fn shape(frame: &Frame) -> String {
        let children: Vec<String> = frame.children.iter().map(shape).collect();
        let mark = if frame.estimated { "~" } else { "" };
        if children.is_empty() {
            format!("{mark}{}={}", frame.name, frame.value)
        } else {
            format!(
                "{mark}{}={}[{}]",
                frame.name,
                frame.value,
                children.join(" ")
            )
        }
    }

    /// A tree is drawn as it is: the harness's `main` (nothing executed in the region) is left
    /// out, the region's entry is the root, costs per operation.
    #[test]
    fn a_call_tree_is_drawn_exactly_per_operation() {
        let p = profile(vec![
            function("main", 0, &[("loop", 1000)]),
            function("loop", 100, &[("body", 900)]),
            function("body", 300, &[("sort", 500), ("alloc", 100)]),
            function("sort", 500, &[]),
            function("alloc", 100, &[]),
        ]);
        let tree = call_tree(&p, 10).unwrap();
        assert_eq!(shape(&tree), "loop=100[body=90[sort=50 alloc=10]]");
        assert_eq!(tree.own, 10.0);
        assert_eq!(tree.children[0].own, 30.0);
    }

    /// A helper called from two places: each caller gets the helper's average split, marked
    /// estimated; widths still add up.
    #[test]
    fn a_shared_callee_is_split_in_proportion_and_marked_estimated() {
        let p = profile(vec![
            function("loop", 10, &[("a", 300), ("b", 100)]),
            function("a", 100, &[("helper", 200)]),
            function("b", 50, &[("helper", 50)]),
            function("helper", 50, &[("leaf", 200)]),
            function("leaf", 200, &[]),
        ]);
        let tree = call_tree(&p, 1).unwrap();
        assert_eq!(
            shape(&tree),
            "loop=410[a=300[~helper=200[~leaf=160]] b=100[~helper=50[~leaf=40]]]"
        );
    }

    /// Recursion is one frame: `f → f'2 → f'2` folds into `f`, and a cycle of two functions
    /// is named by both.
    #[test]
    fn recursion_folds_into_one_frame() {
        let p = profile(vec![
            function("loop", 10, &[("quicksort", 1100), ("even", 100)]),
            function("quicksort", 400, &[("quicksort'2", 700)]),
            function("quicksort'2", 600, &[("quicksort'2", 400), ("swap", 100)]),
            function("swap", 100, &[]),
            function("even", 20, &[("odd", 80)]),
            function("odd", 60, &[("even", 50), ("leaf", 20)]),
            function("leaf", 20, &[]),
        ]);
        let tree = call_tree(&p, 1).unwrap();
        // quicksort's own 400 + 600 (its two levels; the edge from its second level to itself
        // counts that level again and is dropped), then swap; the cycle even ⇄ odd: own 80,
        // calls leaf 20.
        assert_eq!(
            shape(&tree),
            "loop=1210[quicksort=1100[swap=100] cycle: even ⇄ odd=100[leaf=20]]"
        );
    }

    /// Frames narrower than a ten-thousandth of the whole are folded into their parent's own.
    #[test]
    fn frames_too_narrow_to_draw_go_into_their_parent() {
        let p = profile(vec![
            function("loop", 1, &[("big", 1_000_000), ("tiny", 50)]),
            function("big", 1_000_000, &[]),
            function("tiny", 50, &[]),
        ]);
        let tree = call_tree(&p, 1).unwrap();
        assert_eq!(shape(&tree), "loop=1000051[big=1000000]");
        assert_eq!(tree.own, 51.0);
    }

    #[test]
    fn two_entries_hang_under_the_timed_region_and_an_empty_profile_has_no_tree() {
        let p = profile(vec![function("a", 30, &[]), function("b", 70, &[])]);
        assert_eq!(
            shape(&call_tree(&p, 1).unwrap()),
            "timed region=100[b=70 a=30]"
        );
        assert_eq!(call_tree(&profile(Vec::new()), 1), None);
    }

    #[test]
    fn only_a_trailing_recursion_level_is_taken_off_a_name() {
        assert_eq!(base_name("f'2"), "f");
        assert_eq!(base_name("<impl Foo<'a>>::f"), "<impl Foo<'a>>::f");
        assert_eq!(base_name("f'"), "f'");
        assert_eq!(base_name("'2"), "'2");
    }

    /// Deep recursion through many distinct functions does not overflow the stack.
    #[test]
    fn a_deep_graph_is_walked_without_recursion() {
        let depth = 100_000;
        let names: Vec<String> = (0..depth).map(|i| format!("f{i}")).collect();
        let functions: Vec<FunctionCost> = (0..depth)
            .map(|i| {
                let calls: Vec<(&str, u64)> = if i + 1 < depth {
                    vec![(names[i + 1].as_str(), (depth - i - 1) as u64)]
                } else {
                    Vec::new()
                };
                function(&names[i], 1, &calls)
            })
            .collect();
        let tree = call_tree(&profile(functions), 1).unwrap();
        assert_eq!(tree.name, "f0");
    }
}
