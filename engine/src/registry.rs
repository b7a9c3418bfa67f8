//! The registry of benchmarks: filled at link time by `#[bench]`, read once by the runner.
//!
//! Each `#[bench]` adds one [`BenchDef`] to the distributed slice [`BENCHES`] (the `linkme`
//! crate collects them at link time, so there is no central list and no life before `main`).
//! The runner expands definitions into [`Case`]s, one per `args` value, and filters them.
//! Benchmarks declared at run time (criterion's API, through `knotmeter-criterion`) arrive as
//! [`Case`]s directly; from then on nothing tells the two kinds apart.

use std::time::Duration;

use knotmeter_protocol::{
    canonical_arg, case_id, partition_unit, ListEntry, Partition, ThroughputUnit,
};

use crate::bencher::Bencher;

/// One `#[bench]` function, as the macro registers it. Not covered by SemVer.
#[derive(Debug)]
pub struct BenchDef {
    /// The function's name.
    pub name: &'static str,
    /// `module_path!()` at the function: the bench target's crate name, then modules.
    pub module_path: &'static str,
    /// `file!()` at the function.
    pub file: &'static str,
    /// The line of the function's name.
    pub line: u32,
    /// The comparison group, if any.
    pub group: Option<&'static str>,
    /// Whether this function is its group's baseline.
    pub baseline: bool,
    /// The source text of each `args` value; empty for a benchmark without `args`.
    pub args: &'static [&'static str],
    /// Runs case `i` (0 for a benchmark without `args`) against the bencher.
    pub run: fn(&mut Bencher, usize),
}

/// Every benchmark linked into this binary.
#[linkme::distributed_slice]
pub static BENCHES: [BenchDef];

/// One runnable case, however it was declared: a `#[bench]` function (with one of its `args`
/// values if it has them), or a benchmark declared while the binary runs (criterion's
/// `bench_function` calls, through `knotmeter-criterion`). Everything downstream (filters,
/// `--list`, the plan, measuring, reporting, history) sees only this. Not covered by SemVer.
#[derive(Debug, Clone)]
pub struct Case {
    /// The case id: the benchmark's id, then `/` and the argument for a case of several.
    pub id: String,
    /// The id of the benchmark the case belongs to (cases of one benchmark are analysed
    /// together for scaling).
    pub bench_id: String,
    /// The benchmark's name: the function's name, or a run-time declared name.
    pub name: String,
    /// The argument text of one case of several, `None` otherwise.
    pub args: Option<String>,
    /// The comparison group, if any.
    pub group: Option<String>,
    /// Whether this case is its group's baseline.
    pub baseline: bool,
    /// Source file, as `file!()` spells it.
    pub file: String,
    /// 1-based source line: the function's name, or the call that declared the case.
    pub line: u32,
    /// Work per operation, when declared; the result then carries a rate.
    pub throughput: Option<(ThroughputUnit, u64)>,
    /// This case's time budget, when its declaration set one; `--quick` and `--time` on the
    /// command line take precedence.
    pub budget: Option<Duration>,
    /// Runs the case against the bencher: called with [`index`](Self::index).
    pub run: fn(&mut Bencher, usize),
    /// What `run` is called with: the `args` index of a `#[bench]` case, or the declarer's
    /// own number for the case.
    pub index: usize,
}

impl Case {
    /// The id without its leading crate segment, as libtest names tests.
    pub(crate) fn short_name(&self) -> &str {
        strip_crate(&self.id)
    }

    /// The partition unit the case belongs to: its comparison group, or its benchmark.
    pub(crate) fn partition_unit(&self) -> String {
        partition_unit(&self.bench_id, self.group.as_deref())
    }

    /// The case as `--list --format json` and the `run_started` event describe it.
    pub(crate) fn list_entry(&self) -> ListEntry {
        ListEntry {
            id: self.id.clone(),
            bench_id: self.bench_id.clone(),
            name: self.name.clone(),
            args: self.args.clone(),
            group: self.group.clone(),
            baseline: self.baseline,
            file: self.file.clone(),
            line: self.line,
        }
    }
}

fn strip_crate(id: &str) -> &str {
    id.split_once("::").map_or(id, |(_, rest)| rest)
}

/// Expands definitions into cases, sorted by module path, then source position, so the run
/// order is the same on every build whatever order the linker chose.
pub(crate) fn cases(defs: &'static [BenchDef]) -> Vec<Case> {
    let mut defs: Vec<&'static BenchDef> = defs.iter().collect();
    defs.sort_by(|a, b| {
        (a.module_path, a.file, a.line, a.name).cmp(&(b.module_path, b.file, b.line, b.name))
    });
    let mut cases = Vec::new();
    for def in defs {
        let bench_id = format!("{}::{}", def.module_path, def.name);
        let case = |index: usize, id: String, args: Option<String>| Case {
            id,
            bench_id: bench_id.clone(),
            name: def.name.to_owned(),
            args,
            group: def.group.map(str::to_owned),
            baseline: def.baseline,
            file: def.file.to_owned(),
            line: def.line,
            throughput: None,
            budget: None,
            run: def.run,
            index,
        };
        if def.args.is_empty() {
            cases.push(case(0, bench_id.clone(), None));
            continue;
        }
        for (index, arg) in def.args.iter().enumerate() {
            cases.push(case(
                index,
                case_id(&bench_id, Some(arg)),
                Some(canonical_arg(arg)),
            ));
        }
    }
    cases
}

/// The first id that two cases share, if any: ids name cases on the command line, in the
/// history and in the editor, so each must be unique.
pub(crate) fn duplicate_id(cases: &[Case]) -> Option<&Case> {
    let mut seen = std::collections::HashSet::new();
    cases.iter().find(|c| !seen.insert(c.id.as_str()))
}

/// Checks the comparison groups of the `selected` cases against every case of the binary
/// (`all`): each group needs exactly one baseline benchmark, since its members are measured
/// against it. Returns every problem found, one per line, naming the benchmarks.
pub(crate) fn check_groups(selected: &[Case], all: &[Case]) -> Result<(), String> {
    let mut groups: Vec<&str> = selected.iter().filter_map(|c| c.group.as_deref()).collect();
    groups.sort_unstable();
    groups.dedup();
    let mut problems = Vec::new();
    for group in groups {
        let mut seen = std::collections::HashSet::new();
        let benches: Vec<&Case> = all
            .iter()
            .filter(|c| c.group.as_deref() == Some(group) && seen.insert(c.bench_id.as_str()))
            .collect();
        let describe = |cases: &[&Case]| -> String {
            let names: Vec<String> = cases
                .iter()
                .map(|c| format!("{} ({}:{})", c.name, c.file, c.line))
                .collect();
            names.join(", ")
        };
        let baselines: Vec<&Case> = benches.iter().copied().filter(|c| c.baseline).collect();
        match baselines.len() {
            1 => {}
            0 => problems.push(format!(
                "comparison group `{group}` has no baseline: its members ({}) are measured \
                 against it, so mark one of them `#[bench(group = \"{group}\", baseline)]` \
                 (with knotmeter-criterion: `knotmeter_compare_against` must name one of them)",
                describe(&benches)
            )),
            n => problems.push(format!(
                "comparison group `{group}` has {n} baselines ({}): keep `baseline` on one of \
                 them, or give the others their own group",
                describe(&baselines)
            )),
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// Which cases to run, as the command line says.
#[derive(Debug, Clone, Default)]
pub(crate) struct Filter {
    /// Substring patterns (or exact names with `exact`); none means all.
    pub(crate) patterns: Vec<String>,
    /// Match patterns exactly instead of as substrings.
    pub(crate) exact: bool,
    /// Cases to leave out: substrings, or exact names with `exact`.
    pub(crate) skip: Vec<String>,
}

impl Filter {
    /// Whether `case` is selected.
    pub(crate) fn matches(&self, case: &Case) -> bool {
        let hit = |pattern: &String| {
            if self.exact {
                [
                    case.id.as_str(),
                    case.short_name(),
                    case.bench_id.as_str(),
                    strip_crate(&case.bench_id),
                ]
                .contains(&pattern.as_str())
            } else {
                case.id.contains(pattern.as_str())
            }
        };
        (self.patterns.is_empty() || self.patterns.iter().any(hit)) && !self.skip.iter().any(hit)
    }
}

/// The cases of `selected` that shard `partition` holds: whole comparison groups and whole
/// benchmark functions (every `args` case), as `knotmeter_protocol::Partition` assigns them.
pub(crate) fn in_shard(selected: Vec<Case>, partition: &Partition) -> Vec<Case> {
    let units: Vec<String> = selected.iter().map(Case::partition_unit).collect();
    let kept: std::collections::HashSet<String> = partition
        .shard_units(units.iter().map(String::as_str))
        .into_iter()
        .map(str::to_owned)
        .collect();
    selected
        .into_iter()
        .zip(units)
        .filter(|(_, unit)| kept.contains(unit))
        .map(|(case, _)| case)
        .collect()
}

/// How many partition units `cases` make up.
pub(crate) fn unit_count(cases: &[Case]) -> usize {
    cases
        .iter()
        .map(Case::partition_unit)
        .collect::<std::collections::HashSet<_>>()
        .len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn noop(_: &mut Bencher, _: usize) {}

    static DEFS: [BenchDef; 2] = [
        BenchDef {
            name: "sort",
            module_path: "demo::sorting",
            file: "benches/demo.rs",
            line: 20,
            group: Some("sort"),
            baseline: true,
            args: &[],
            run: noop,
        },
        BenchDef {
            name: "chain_n",
            module_path: "demo",
            file: "benches/demo.rs",
            line: 5,
            group: None,
            baseline: false,
            args: &["10", "1 << 10"],
            run: noop,
        },
    ];

    fn ids(filter: &Filter) -> Vec<String> {
        cases(&DEFS)
            .into_iter()
            .filter(|c| filter.matches(c))
            .map(|c| c.id)
            .collect()
    }

    #[test]
    fn cases_are_expanded_and_sorted() {
        let all = cases(&DEFS);
        let ids: Vec<_> = all.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "demo::chain_n/10",
                "demo::chain_n/1<<10",
                "demo::sorting::sort"
            ]
        );
        assert_eq!(all[1].args.as_deref(), Some("1<<10"));
        assert_eq!(all[1].index, 1);
        assert_eq!(all[2].short_name(), "sorting::sort");
    }

    fn grouped(name: &'static str, group: &'static str, baseline: bool, line: u32) -> BenchDef {
        BenchDef {
            name,
            module_path: "demo",
            file: "benches/demo.rs",
            line,
            group: Some(group),
            baseline,
            args: &[],
            run: noop,
        }
    }

    #[test]
    fn a_group_without_a_baseline_or_with_two_is_refused_naming_its_functions() {
        let none: &'static [BenchDef] = Box::leak(Box::new([
            grouped("stable", "sort", false, 3),
            grouped("unstable", "sort", false, 9),
        ]));
        let all = cases(none);
        let error = check_groups(&all, &all).unwrap_err();
        assert_eq!(
            error,
            "comparison group `sort` has no baseline: its members (stable (benches/demo.rs:3), \
             unstable (benches/demo.rs:9)) are measured against it, so mark one of them \
             `#[bench(group = \"sort\", baseline)]` (with knotmeter-criterion: \
             `knotmeter_compare_against` must name one of them)"
        );
        let two: &'static [BenchDef] = Box::leak(Box::new([
            grouped("stable", "sort", true, 3),
            grouped("unstable", "sort", true, 9),
            grouped("radix", "sort", false, 15),
            grouped("alone", "other", true, 20),
        ]));
        let all = cases(two);
        let error = check_groups(&all, &all).unwrap_err();
        assert_eq!(
            error,
            "comparison group `sort` has 2 baselines (stable (benches/demo.rs:3), unstable \
             (benches/demo.rs:9)): keep `baseline` on one of them, or give the others their own \
             group"
        );
        // Only the groups of the selected cases are checked.
        let other: Vec<Case> = all.iter().filter(|c| c.name == "alone").cloned().collect();
        assert_eq!(check_groups(&other, &all), Ok(()));
    }

    #[test]
    fn a_duplicate_id_is_found_whichever_way_the_cases_were_declared() {
        let mut all = cases(&DEFS);
        assert!(duplicate_id(&all).is_none());
        let declared = Case {
            file: "benches/criterion.rs".into(),
            line: 9,
            ..all[0].clone()
        };
        all.push(declared);
        let twice = duplicate_id(&all).expect("the id is there twice");
        assert_eq!((twice.id.as_str(), twice.line), ("demo::chain_n/10", 9));
    }

    #[test]
    fn a_shard_holds_whole_groups_and_whole_functions() {
        let all = cases(&DEFS);
        let shards: Vec<Vec<String>> = (1..=2)
            .map(|k| {
                let part: Partition = format!("count:{k}/2").parse().unwrap();
                in_shard(all.clone(), &part)
                    .into_iter()
                    .map(|c| c.id)
                    .collect()
            })
            .collect();
        // Two units (the `args` function, the group), one per shard; the cases of chain_n
        // never part.
        assert_eq!(unit_count(&all), 2);
        assert_eq!(shards[0], ["demo::sorting::sort"]);
        assert_eq!(shards[1], ["demo::chain_n/10", "demo::chain_n/1<<10"]);
    }

    #[test]
    fn substring_exact_and_skip() {
        let sub = Filter {
            patterns: vec!["chain".into()],
            ..Filter::default()
        };
        assert_eq!(ids(&sub), ["demo::chain_n/10", "demo::chain_n/1<<10"]);
        let exact = Filter {
            patterns: vec!["chain_n/10".into()],
            exact: true,
            ..Filter::default()
        };
        assert_eq!(ids(&exact), ["demo::chain_n/10"]);
        let whole_bench = Filter {
            patterns: vec!["demo::chain_n".into()],
            exact: true,
            ..Filter::default()
        };
        assert_eq!(ids(&whole_bench).len(), 2);
        let skip = Filter {
            skip: vec!["<<".into()],
            ..Filter::default()
        };
        assert_eq!(ids(&skip), ["demo::chain_n/10", "demo::sorting::sort"]);
        let none = Filter {
            patterns: vec!["nothing".into()],
            ..Filter::default()
        };
        assert!(ids(&none).is_empty());
    }
}
