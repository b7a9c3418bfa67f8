//! The order of work: single cases, and group members paired with their group's baseline.
//!
//! A group member is paired with the baseline of its group that has the same argument (or
//! none). The pair runs at the member's place in the run order; the baseline's own result is
//! reported from its first pairing. A baseline that is selected but pairs with no selected
//! member runs alone, and so does a member whose group has no matching baseline. A member
//! selected without its baseline (`--exact member`) still pairs with it, since the comparison
//! is what the member is for; the baseline's result is then not reported.

use crate::registry::Case;

/// One unit of measuring work.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Step<'c> {
    /// A case measured on its own.
    Single(&'c Case),
    /// A member measured interleaved with its group's baseline.
    Pair {
        /// The group's baseline case.
        base: &'c Case,
        /// The member.
        member: &'c Case,
        /// Whether the baseline's result is reported from this pair (its first one, when the
        /// baseline was selected).
        report_base: bool,
    },
}

/// Plans the selected cases; `all` is every case of the binary, to find baselines.
pub(crate) fn plan<'c>(selected: &'c [Case], all: &'c [Case]) -> Vec<Step<'c>> {
    let baseline_of = |member: &Case| -> Option<&'c Case> {
        let group = member.group.as_deref()?;
        if member.baseline {
            return None;
        }
        all.iter()
            .find(|b| b.group.as_deref() == Some(group) && b.baseline && b.args == member.args)
    };
    let is_selected = |case: &Case| selected.iter().any(|s| s.id == case.id);
    let mut reported_bases: Vec<&str> = Vec::new();
    let mut steps = Vec::new();
    for case in selected {
        if let Some(base) = baseline_of(case) {
            let report_base = is_selected(base) && !reported_bases.contains(&base.id.as_str());
            if report_base {
                reported_bases.push(&base.id);
            }
            steps.push(Step::Pair {
                base,
                member: case,
                report_base,
            });
        } else if !selected
            .iter()
            .any(|m| baseline_of(m).is_some_and(|b| b.id == case.id))
        {
            steps.push(Step::Single(case));
        }
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{cases, BenchDef, Filter};
    use crate::Bencher;

    fn noop(_: &mut Bencher<'_>, _: usize) {}

    fn def(name: &'static str, line: u32, group: Option<&'static str>, baseline: bool) -> BenchDef {
        BenchDef {
            name,
            module_path: "t",
            file: "t.rs",
            line,
            group,
            baseline,
            args: &[],
            run: noop,
        }
    }

    fn describe(steps: &[Step<'_>]) -> Vec<String> {
        steps
            .iter()
            .map(|s| match s {
                Step::Single(c) => format!("single {}", c.short_name()),
                Step::Pair {
                    base,
                    member,
                    report_base,
                } => {
                    format!(
                        "pair {} vs {}{}",
                        member.short_name(),
                        base.short_name(),
                        if *report_base { " +base" } else { "" }
                    )
                }
            })
            .collect()
    }

    #[test]
    fn members_pair_with_their_baseline() {
        let defs: &'static [BenchDef] = Box::leak(Box::new([
            def("alone", 1, None, false),
            def("stable", 2, Some("sort"), true),
            def("unstable", 3, Some("sort"), false),
            def("radix", 4, Some("sort"), false),
            def("orphan", 5, Some("nobase"), false),
        ]));
        let all = cases(defs);
        let steps = plan(&all, &all);
        assert_eq!(
            describe(&steps),
            [
                "single alone",
                "pair unstable vs stable +base",
                "pair radix vs stable",
                "single orphan"
            ]
        );
        let only_member: Vec<Case> = all
            .iter()
            .filter(|c| {
                Filter {
                    patterns: vec!["radix".into()],
                    ..Filter::default()
                }
                .matches(c)
            })
            .cloned()
            .collect();
        assert_eq!(
            describe(&plan(&only_member, &all)),
            ["pair radix vs stable"]
        );
        let only_base: Vec<Case> = all.iter().filter(|c| c.name == "stable").cloned().collect();
        assert_eq!(describe(&plan(&only_base, &all)), ["single stable"]);
    }
}
