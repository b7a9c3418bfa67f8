//! From perf's samples to a [`Profile`]: time per operation by function, by the workspace's
//! source lines, and as a call tree.
//!
//! Every sample was taken inside the timed region (the engine enables perf's events around each
//! sampled batch only), and stands for [`crate::perf::PERIOD_NS`] of CPU time. Two kinds are set
//! apart:
//!
//! - **The toggles**: a sample whose chain passes through the engine's `region` module was
//!   taken while the engine told perf to stop or waited for its acknowledgement, harness
//!   bookkeeping between two batches, not the workload's; it is left out (the profile says how
//!   many).
//! - **The frames that lead to the region** (`main`, the engine's run down to its timed loop)
//!   are cut off: a chain is kept from its innermost frame out to the engine's timed loop
//!   ([`TIMED_LOOP`]), the root of the tree, as in a callgrind profile. A chain perf could not
//!   unwind that far hangs under [`NOT_UNWOUND`] beside it, rather than being dropped.
//!
//! Unlike callgrind's call graph, a sample's chain is a path: the tree is exact (no frame is
//! `estimated`), and recursion shows as the nesting it was.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use knotmeter_protocol::{Profile, ProfileTool, ProfiledFunction, ProfiledLine};

use crate::callgrind::LineKey;
use crate::report::{self, InlineChains};
use crate::samples::{Samples, Segments};
use crate::tree::{self, Frame};

/// The engine's timed loop: the function every sampled batch runs in (`#[inline(never)]`).
pub const TIMED_LOOP: &str = "knotmeter::measure::routine::time_batch";

/// The engine's module that tells perf to start and stop.
const TOGGLES: &str = "knotmeter::measure::region::";

/// The frame under which chains not unwound to the timed loop hang.
pub const NOT_UNWOUND: &str = "[not unwound to the timed loop]";

/// The deepest a sampled tree goes; deeper frames are counted in the frame at this depth.
const MAX_DEPTH: usize = 256;

/// How sampled addresses become source lines: the profile build's inline chains, for the
/// frames in its executable.
pub struct Symbols<'a> {
    /// The chains of the executable's addresses.
    pub chains: &'a dyn InlineChains,
    /// The object name `chains` answers for.
    pub chains_object: &'a str,
    /// Which of the samples' objects is the executable (perf names it by the path it mapped).
    pub executable: Option<usize>,
    /// The executable's segments, to turn perf's file offsets into addresses.
    pub segments: &'a Segments,
}

impl Symbols<'_> {
    /// The source lines of a frame, innermost first. A caller's frame is looked up one byte
    /// before the address perf gives: its return address, which is the next instruction's and
    /// may be the next line's, or (perf's DWARF unwinders already step back one byte) one byte
    /// into the call; a call instruction is at least two bytes, so either way the byte looked up
    /// is the call's.
    fn lines(&self, object: usize, address: u64, caller: bool) -> Vec<LineKey> {
        if Some(object) != self.executable {
            return Vec::new();
        }
        let offset = if caller {
            address.saturating_sub(1)
        } else {
            address
        };
        self.segments
            .address_of(offset)
            .map(|address| self.chains.chain(self.chains_object, address))
            .unwrap_or_default()
    }
}

/// The counts of samples: per function, per line, and as a tree.
#[derive(Default)]
struct Tally {
    kept: u64,
    toggles: u64,
    own: HashMap<usize, u64>,
    inclusive: HashMap<usize, u64>,
    line_own: HashMap<LineKey, u64>,
    line_below: HashMap<LineKey, u64>,
    /// Per function, its own samples by innermost line.
    own_lines: HashMap<usize, HashMap<LineKey, u64>>,
    tree: Node,
}

/// A frame of the tree being counted.
#[derive(Default)]
struct Node {
    count: u64,
    own: u64,
    children: HashMap<String, Node>,
}

impl Node {
    /// Counts one sample down `path` (outermost first).
    fn add(&mut self, path: &[&str]) {
        self.count += 1;
        match path.split_first() {
            None => self.own += 1,
            Some((first, rest)) => self
                .children
                .entry((*first).to_owned())
                .or_default()
                .add(rest),
        }
    }
}

/// The profile of case `id` from perf's `samples` over `operations` operations, each sample
/// `period_ns` of CPU time; the workspace at `root`. An error when no sample was in the region.
pub fn from_samples(
    id: &str,
    samples: &Samples,
    operations: u64,
    period_ns: u64,
    root: &Path,
    symbols: &Symbols<'_>,
) -> Result<Profile, String> {
    let tally = tally(samples, symbols);
    if tally.kept == 0 {
        return Err(format!(
            "perf took no sample in the timed region ({} in the engine's own toggles): the \
             region ran for less than one sampling period ({} µs of CPU); give it a longer \
             --time",
            tally.toggles,
            period_ns / 1000
        ));
    }
    let per_op = PerOp {
        period_ns,
        operations: operations.max(1),
    };
    let lines = hot_lines(&tally, root, per_op);
    let hottest = hottest_lines(&tally, root, per_op);
    let functions = costliest_functions(&tally, samples, per_op, &hottest);
    let by_name: HashMap<&str, ProfiledLine> = hottest
        .iter()
        .map(|(&name, line)| (samples.names[name].as_str(), line.clone()))
        .collect();
    let root_name = if samples.names.iter().any(|n| n == TIMED_LOOP) {
        TIMED_LOOP
    } else {
        "timed region"
    };
    let mut frames = 0;
    let tree = frame(
        root_name,
        &tally.tree,
        per_op.of(1),
        tree::MIN_SHARE * tally.kept as f64,
        0,
        &mut frames,
    );
    Ok(Profile {
        id: id.to_owned(),
        tool: ProfileTool::Perf,
        unit: "ns".to_owned(),
        operations,
        total_per_op: per_op.of(tally.kept),
        samples: Some(tally.kept),
        functions,
        lines,
        tree: Some(report::call_frame(tree, &by_name)),
    })
}

/// Samples as nanoseconds per operation: each sample stands for one sampling period.
#[derive(Debug, Clone, Copy)]
struct PerOp {
    period_ns: u64,
    operations: u64,
}

impl PerOp {
    /// `samples` samples' time, per operation.
    fn of(self, samples: u64) -> f64 {
        (samples * self.period_ns) as f64 / self.operations as f64
    }
}

/// Whether `key` is a line of the workspace's own code.
fn in_workspace(key: &LineKey, root: &Path) -> bool {
    key.line > 0 && report::is_workspace_file(&key.file, root)
}

/// The line `key` as the profile shows it: its own time, the time below it, its share.
fn line_of(tally: &Tally, key: &LineKey, per_op: PerOp) -> ProfiledLine {
    let own = tally.line_own.get(key).copied().unwrap_or(0);
    let below = tally.line_below.get(key).copied().unwrap_or(0);
    ProfiledLine {
        file: key.file.clone(),
        line: key.line,
        own_per_op: per_op.of(own),
        calls_per_op: per_op.of(below),
        share: (own + below) as f64 / tally.kept as f64,
    }
}

/// The workspace's lines with a share worth showing, the hottest first.
fn hot_lines(tally: &Tally, root: &Path, per_op: PerOp) -> Vec<ProfiledLine> {
    let mut keys: HashSet<&LineKey> = tally.line_own.keys().collect();
    keys.extend(tally.line_below.keys());
    let mut lines: Vec<ProfiledLine> = keys
        .into_iter()
        .filter(|key| in_workspace(key, root))
        .map(|key| line_of(tally, key, per_op))
        .filter(|line| line.share >= report::MIN_LINE_SHARE)
        .collect();
    lines.sort_by(|a, b| {
        b.share
            .total_cmp(&a.share)
            .then_with(|| (&a.file, a.line).cmp(&(&b.file, b.line)))
    });
    lines.truncate(report::MAX_ROWS);
    lines
}

/// Each function's hottest line of the workspace's own code, by the function's name index.
fn hottest_lines(tally: &Tally, root: &Path, per_op: PerOp) -> HashMap<usize, ProfiledLine> {
    tally
        .own_lines
        .iter()
        .filter_map(|(&name, by_line)| {
            let (key, _) = by_line
                .iter()
                .filter(|(key, _)| in_workspace(key, root))
                .max_by(|(a, x), (b, y)| x.cmp(y).then_with(|| b.cmp(a)))?;
            Some((name, line_of(tally, key, per_op)))
        })
        .collect()
}

/// The functions with a share worth showing, the costliest first, each with its hottest line.
fn costliest_functions(
    tally: &Tally,
    samples: &Samples,
    per_op: PerOp,
    hottest: &HashMap<usize, ProfiledLine>,
) -> Vec<ProfiledFunction> {
    let total = tally.kept as f64;
    let mut functions: Vec<ProfiledFunction> = tally
        .own
        .iter()
        .filter(|(_, &own)| own as f64 / total >= report::MIN_FUNCTION_SHARE)
        .map(|(&name, &own)| ProfiledFunction {
            name: samples.names[name].clone(),
            own_per_op: per_op.of(own),
            own_share: own as f64 / total,
            inclusive_per_op: per_op.of(tally.inclusive[&name]),
            line: hottest.get(&name).cloned(),
        })
        .collect();
    functions.sort_by(|a, b| {
        b.own_share
            .total_cmp(&a.own_share)
            .then_with(|| a.name.cmp(&b.name))
    });
    functions.truncate(report::MAX_ROWS);
    functions
}

/// Counts every sample's chain.
fn tally(samples: &Samples, symbols: &Symbols<'_>) -> Tally {
    let toggles: HashSet<usize> = (0..samples.names.len())
        .filter(|&n| samples.names[n].starts_with(TOGGLES))
        .collect();
    let timed_loop = samples.names.iter().position(|n| n == TIMED_LOOP);
    let mut tally = Tally::default();
    for chain in &samples.chains {
        if chain.iter().any(|f| toggles.contains(&f.name)) {
            tally.toggles += 1;
            continue;
        }
        let Some(leaf) = chain.first() else { continue };
        tally.kept += 1;
        let cut = chain.iter().position(|f| Some(f.name) == timed_loop);
        let frames = &chain[..cut.map_or(chain.len(), |i| i + 1)];
        *tally.own.entry(leaf.name).or_default() += 1;
        let names: HashSet<usize> = frames.iter().map(|f| f.name).collect();
        for name in names {
            *tally.inclusive.entry(name).or_default() += 1;
        }
        let mut own_line = None;
        let mut below: HashSet<LineKey> = HashSet::new();
        for (depth, frame) in frames.iter().enumerate() {
            let mut lines = symbols
                .lines(frame.object, frame.address, depth > 0)
                .into_iter();
            if depth == 0 {
                own_line = lines.next();
            }
            below.extend(lines);
        }
        if let Some(line) = own_line {
            below.remove(&line);
            *tally
                .own_lines
                .entry(leaf.name)
                .or_default()
                .entry(line.clone())
                .or_default() += 1;
            *tally.line_own.entry(line).or_default() += 1;
        }
        for line in below {
            *tally.line_below.entry(line).or_default() += 1;
        }
        let mut path: Vec<&str> = frames
            .iter()
            .rev()
            .map(|f| samples.names[f.name].as_str())
            .collect();
        if cut.is_some() {
            path.remove(0);
        } else {
            path.insert(0, NOT_UNWOUND);
        }
        path.truncate(MAX_DEPTH);
        tally.tree.add(&path);
    }
    tally
}

/// The tree's frame of `node`: children narrower than `min_count` samples, past [`MAX_DEPTH`]
/// or past [`tree::MAX_FRAMES`] frames are counted in its own cost.
fn frame(
    name: &str,
    node: &Node,
    per_sample: f64,
    min_count: f64,
    depth: usize,
    frames: &mut usize,
) -> Frame {
    *frames += 1;
    let mut own = node.own;
    let mut children: Vec<(&String, &Node)> = node.children.iter().collect();
    children.sort_by(|a, b| b.1.count.cmp(&a.1.count).then_with(|| a.0.cmp(b.0)));
    let mut kept = Vec::new();
    for (child_name, child) in children {
        if (child.count as f64) < min_count || depth + 1 >= MAX_DEPTH || *frames >= tree::MAX_FRAMES
        {
            own += child.count;
        } else {
            kept.push(frame(
                child_name,
                child,
                per_sample,
                min_count,
                depth + 1,
                frames,
            ));
        }
    }
    Frame {
        name: name.to_owned(),
        value: node.count as f64 * per_sample,
        own: own as f64 * per_sample,
        estimated: false,
        children: kept,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples::parse_script;

    /// Lines from a table: address → chain, innermost first.
    struct Table(HashMap<u64, Vec<LineKey>>);

    impl InlineChains for Table {
        fn chain(&self, _: &str, address: u64) -> Vec<LineKey> {
            self.0.get(&address).cloned().unwrap_or_default()
        }
    }

    fn key(file: &str, line: u32) -> LineKey {
        LineKey {
            file: file.to_owned(),
            line,
        }
    }

    /// Four samples in the body (three in the helper it calls from line 11, one in its own
    /// line 10), one in the engine's toggle, one not unwound.
    const SCRIPT: &str = "
\t100 b::helper (/t/bench)
\t210 b::body (/t/bench)
\t300 knotmeter::measure::routine::time_batch (/t/bench)
\t400 main (/t/bench)

\t100 b::helper (/t/bench)
\t210 b::body (/t/bench)
\t300 knotmeter::measure::routine::time_batch (/t/bench)
\t400 main (/t/bench)

\t100 b::helper (/t/bench)
\t210 b::body (/t/bench)
\t300 knotmeter::measure::routine::time_batch (/t/bench)
\t400 main (/t/bench)

\t200 b::body (/t/bench)
\t300 knotmeter::measure::routine::time_batch (/t/bench)

\tffffffff8224f5f9 vfs_write ([kernel.kallsyms])
\t500 knotmeter::measure::region::perf_command (/t/bench)
\t300 knotmeter::measure::routine::time_batch (/t/bench)

\t7000 memcpy (/lib/libc.so.6)
";

    fn profile() -> Profile {
        let samples = parse_script(SCRIPT).unwrap();
        let table = Table(HashMap::from([
            (0x100, vec![key("/ws/src/helper.rs", 3)]),
            // The call's last byte, 0x20f, one before the 0x210 perf gave: line 11 of the body.
            (0x20f, vec![key("/ws/benches/b.rs", 11)]),
            // The body's own instruction, inlined std code inside its line 10.
            (
                0x200,
                vec![
                    key("/rust/lib/std/src/x.rs", 7),
                    key("/ws/benches/b.rs", 10),
                ],
            ),
            (0x2ff, vec![key("/ws/engine/routine.rs", 103)]),
        ]));
        let segments = Segments::from_ranges(vec![(0, 1 << 40, 0)]);
        let symbols = Symbols {
            chains: &table,
            chains_object: "/t/bench",
            executable: samples.objects.iter().position(|o| o == "/t/bench"),
            segments: &segments,
        };
        from_samples(
            "b::body",
            &samples,
            4_000,
            1_000,
            Path::new("/ws"),
            &symbols,
        )
        .unwrap()
    }

    #[test]
    fn the_toggles_are_left_out_and_each_sample_is_its_period() {
        let profile = profile();
        assert_eq!(
            profile.samples,
            Some(5),
            "four in the body, one not unwound"
        );
        assert_eq!(profile.unit, "ns");
        // 5 samples of 1 µs over 4 000 operations.
        assert!((profile.total_per_op - 1.25).abs() < 1e-9);
        let helper = &profile.functions[0];
        assert_eq!(helper.name, "b::helper");
        assert!((helper.own_share - 0.6).abs() < 1e-9);
        let body = profile
            .functions
            .iter()
            .find(|f| f.name == "b::body")
            .unwrap();
        assert!((body.inclusive_per_op - 1.0).abs() < 1e-9, "{body:?}");
        assert!(!profile.functions.iter().any(|f| f.name.contains("region")));
    }

    #[test]
    fn lines_are_charged_through_calls_and_inline_chains() {
        let profile = profile();
        let line = |file: &str, n: u32| {
            profile
                .lines
                .iter()
                .find(|l| l.file == file && l.line == n)
                .unwrap_or_else(|| panic!("{file}:{n} in {:?}", profile.lines))
        };
        let call = line("/ws/benches/b.rs", 11);
        assert!(
            (call.share - 0.6).abs() < 1e-9,
            "the helper's three samples"
        );
        assert_eq!(call.own_per_op, 0.0);
        let own = line("/ws/benches/b.rs", 10);
        assert!(
            (own.share - 0.2).abs() < 1e-9,
            "inlined std code charged to it"
        );
        assert!((line("/ws/src/helper.rs", 3).own_per_op - 0.75).abs() < 1e-9);
        assert!((line("/ws/engine/routine.rs", 103).share - 0.8).abs() < 1e-9);
        assert!(!profile.lines.iter().any(|l| l.file.starts_with("/rust")));
    }

    #[test]
    fn the_tree_is_the_chains_from_the_timed_loop_and_exact() {
        let tree = profile().tree.unwrap();
        assert_eq!(tree.name, TIMED_LOOP);
        assert!((tree.value_per_op - 1.25).abs() < 1e-9);
        let names: Vec<&str> = tree.children.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["b::body", NOT_UNWOUND]);
        let body = &tree.children[0];
        assert!((body.own_per_op - 0.25).abs() < 1e-9);
        assert_eq!(body.children[0].name, "b::helper");
        assert!(!body.estimated && !body.children[0].estimated);
        assert_eq!(body.children[0].line.as_ref().unwrap().line, 3);
        assert_eq!(tree.children[1].children[0].name, "memcpy");
    }

    #[test]
    fn no_sample_in_the_region_is_an_error_saying_so() {
        let samples =
            parse_script("\n\t500 knotmeter::measure::region::perf_command (/t/bench)\n").unwrap();
        let segments = Segments::default();
        let symbols = Symbols {
            chains: &report::NoInlining,
            chains_object: "",
            executable: None,
            segments: &segments,
        };
        let error = from_samples("b", &samples, 10, 1_000, Path::new("/ws"), &symbols).unwrap_err();
        assert!(error.contains("no sample in the timed region"), "{error}");
        assert!(error.contains("1 in the engine's own toggles"), "{error}");
    }
}
