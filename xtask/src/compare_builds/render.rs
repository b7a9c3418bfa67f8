//! The tables of `docs/compare.md`, from what `cargo xtask compare-builds` measured.

use std::fmt::Write as _;

use knotmeter_protocol::Verdict;

use super::fixture::{body, Body, CHANGED};
use super::{cases, expected, Answer, Run, Scenario, Settings};

/// The share of false verdicts on identical code the issue sets as the target.
const TARGET: f64 = 0.05;

fn median(mut values: Vec<f64>) -> f64 {
    values.retain(|v| v.is_finite());
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn percent(ratio: f64) -> String {
    if ratio.is_finite() {
        format!("{:+.1}%", (ratio - 1.0) * 100.0)
    } else {
        "—".into()
    }
}

/// `18/20`: runs whose verdict for `case` was `want`.
fn right(runs: &[Run], case: &str, want: Verdict) -> String {
    if runs.is_empty() {
        return "—".into();
    }
    let n = runs
        .iter()
        .filter(|r| r.answers.get(case).and_then(|a| a.verdict) == Some(want))
        .count();
    format!("{n}/{}", runs.len())
}

/// The median change and the median interval of `case` over `runs`.
fn change(runs: &[Run], case: &str) -> String {
    let get = |f: fn(&Answer) -> f64| {
        median(
            runs.iter()
                .filter_map(|r| r.answers.get(case))
                .map(f)
                .collect(),
        )
    };
    let (ratio, low, high) = (get(|a| a.ratio), get(|a| a.low), get(|a| a.high));
    if !ratio.is_finite() {
        return "—".into();
    }
    format!(
        "{} [{:.1}, {:.1}]",
        percent(ratio),
        (low - 1.0) * 100.0,
        (high - 1.0) * 100.0
    )
}

fn true_change(case: &str) -> String {
    CHANGED
        .iter()
        .find(|(name, _, _)| *name == case)
        .map_or("0 (same code)".to_owned(), |(_, base, head)| {
            format!("{:+.0}%", (*head as f64 / *base as f64 - 1.0) * 100.0)
        })
}

/// `1 run`, `20 runs`.
fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// Verdicts on identical code: how many were not `same`, of how many verdicts, and the cases
/// that got none (not compared, or missing from a run).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    pub(crate) wrong: usize,
    pub(crate) verdicts: usize,
    pub(crate) missing: usize,
}

impl Tally {
    /// The verdicts of `cases` over `runs`, every one of which should be `same`.
    pub(crate) fn of(runs: &[Run], cases: &[&str]) -> Tally {
        let mut tally = Tally::default();
        for run in runs {
            for case in cases {
                match run.answers.get(*case).and_then(|a| a.verdict) {
                    Some(verdict) => {
                        tally.verdicts += 1;
                        tally.wrong += usize::from(verdict != Verdict::Same);
                    }
                    None => tally.missing += 1,
                }
            }
        }
        tally
    }

    /// The share of verdicts not `same`; `None` without verdicts.
    pub(crate) fn rate(self) -> Option<f64> {
        (self.verdicts > 0).then(|| self.wrong as f64 / self.verdicts as f64)
    }

    /// `2/20`, with the cases that got no verdict when there are some.
    fn short(self) -> String {
        if self.verdicts + self.missing == 0 {
            return "—".into();
        }
        format!("{}/{}{}", self.wrong, self.verdicts, self.missing_text())
    }

    /// `2 of 120 (1.7%)`, with the cases that got no verdict when there are some.
    fn long(self) -> String {
        if self.verdicts + self.missing == 0 {
            return "—".into();
        }
        match self.rate() {
            Some(rate) => format!(
                "{} of {} ({:.1}%){}",
                self.wrong,
                self.verdicts,
                rate * 100.0,
                self.missing_text()
            ),
            None => format!("no verdicts{}", self.missing_text()),
        }
    }

    fn missing_text(self) -> String {
        if self.missing == 0 {
            String::new()
        } else {
            format!(", {} not compared", self.missing)
        }
    }
}

/// The cases with a body of `kind`, in table order; only those whose code is the same on both
/// sides of the A/B comparison when `unchanged`.
fn of_body(kind: Body, unchanged: bool) -> Vec<&'static str> {
    cases()
        .into_iter()
        .filter(|c| body(c) == kind && (!unchanged || expected(c) == Verdict::Same))
        .collect()
}

/// The headline of a scenario: the A/A's false verdicts, realistic bodies apart from
/// chain-like ones, against the target; and the A/B's on its unchanged realistic cases.
pub(crate) fn headline(aa: &[Run], ab: &[Run]) -> String {
    let realistic = Tally::of(aa, &of_body(Body::Realistic, false));
    let chain = Tally::of(aa, &of_body(Body::ChainLike, false));
    let ab_realistic = Tally::of(ab, &of_body(Body::Realistic, true));
    let verdict = match realistic.rate() {
        Some(rate) if rate <= TARGET => "within",
        Some(_) => "**over**",
        None => "not measured against",
    };
    format!(
        "Identical code, `knotmeter compare {}` (A/A): **{} verdicts not `same` on the realistic \
         bodies**, {verdict} the target of at most {:.0}%; {} on the chain-like ones. The A/B \
         comparison, whose builds differ elsewhere, called its unchanged realistic cases \
         changed in {}.",
        super::AA[0],
        realistic.long(),
        TARGET * 100.0,
        chain.long(),
        ab_realistic.long()
    )
}

/// The A/B table: every case, its right verdict, and how often each way of comparing gave it.
fn detection_table(out: &mut String, s: &Scenario) {
    let _ = writeln!(
        out,
        "| case | body | true change | right verdict | `knotmeter compare`: right | median change \
         [interval] | before/after through the history: right | median change | in-binary \
         groups: right | median change |"
    );
    let _ = writeln!(out, "|---|---|---|---|---:|---|---:|---|---:|---|");
    for case in cases() {
        let want = expected(case);
        let _ = writeln!(
            out,
            "| `{case}` | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            body(case).name(),
            true_change(case),
            want.as_str(),
            right(&s.ab, case, want),
            change(&s.ab, case),
            right(&s.before_after, case, want),
            change(&s.before_after, case),
            right(&s.grouped, case, want),
            change(&s.grouped, case),
        );
    }
}

/// The identical-code table: per case, the verdicts not `same` of every way of comparing where
/// both sides run the same code (the A/A comparison for every case; the others for the
/// unchanged cases), and the totals per kind of body.
fn identical_table(out: &mut String, s: &Scenario) {
    let _ = writeln!(
        out,
        "| identical code: not `same` | body | `knotmeter compare {}` (A/A) | median change \
         [interval] | A/B, unchanged cases | before/after, unchanged cases | in-binary groups |",
        super::AA[0]
    );
    let _ = writeln!(out, "|---|---|---:|---|---:|---:|---:|");
    let unchanged_only = |runs: &[Run], case: &str| {
        if expected(case) == Verdict::Same {
            Tally::of(runs, &[case]).short()
        } else {
            "—".into()
        }
    };
    for case in cases() {
        let _ = writeln!(
            out,
            "| `{case}` | {} | {} | {} | {} | {} | {} |",
            body(case).name(),
            Tally::of(&s.aa, &[case]).short(),
            change(&s.aa, case),
            unchanged_only(&s.ab, case),
            unchanged_only(&s.before_after, case),
            unchanged_only(&s.grouped, case),
        );
    }
    for kind in [Body::Realistic, Body::ChainLike] {
        let (all, unchanged) = (of_body(kind, false), of_body(kind, true));
        let _ = writeln!(
            out,
            "| **all {}** | | **{}** | | {} | {} | {} |",
            kind.name(),
            Tally::of(&s.aa, &all).long(),
            Tally::of(&s.ab, &unchanged).long(),
            Tally::of(&s.before_after, &unchanged).long(),
            Tally::of(&s.grouped, &unchanged).long(),
        );
    }
}

/// The generated section.
pub(crate) fn section(scenarios: &[Scenario], settings: &Settings, total_s: f64) -> String {
    let mut out = String::new();
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let _ = writeln!(
        out,
        "Measured with `cargo xtask compare-builds{}` on {cores} cores shared with other work, \
         {} per figure, in {}. Load averages are the machine's at the start and end of each \
         scenario.\n",
        settings
            .time
            .map_or(String::new(), |t| format!(" --time {t}")),
        plural(settings.runs, "run"),
        plural((total_s / 60.0).round() as usize, "minute"),
    );
    let _ = writeln!(
        out,
        "The fixture repository (`xtask/fixtures/compare-builds`) has three commits: `base`; on \
         top of it `a comment changed`, the working tree, whose one difference is a comment; \
         and a branch `change` off `base`, where `plus_1pct`, `plus_5pct` and `minus_5pct` do \
         1% and 5% more and 5% less work. **A/A** is `knotmeter compare {aa}` in the working \
         tree: two builds of identical code, as in issue 20. **A/B** is `knotmeter compare \
         --head {change} {aa}`. Chain-like bodies are dependency chains of arithmetic (the \
         changed cases, `same_chain`, FNV-1a); realistic bodies allocate and touch memory (a \
         `Vec` push loop, a `BTreeMap` and a `HashMap` build, two sorts of random data, parsing \
         a CSV line).\n",
        aa = super::AA[0],
        change = super::AB[1],
    );
    if settings.before_after {
        let _ = writeln!(
            out,
            "Before/after through the history: the A/B's base's bench binary with \
             `--save-baseline base`, then its head's with `--baseline base`, each run in a copy \
             of a history that holds {} runs of the base alone, so its run-to-run noise estimate \
             (the floor of a before/after verdict) is learned from unchanged code.\n",
            super::LEARNING_RUNS
        );
    }
    let budget = 2.0 * settings.time.unwrap_or(1.0);
    for s in scenarios {
        let _ = writeln!(
            out,
            "### {} (load average {} → {})\n",
            s.name, s.load.0, s.load.1
        );
        let _ = writeln!(out, "{}\n", headline(&s.aa, &s.ab));
        detection_table(&mut out, s);
        out.push('\n');
        identical_table(&mut out, s);
        let compare_s = median(s.ab.iter().map(|r| r.measuring_s).collect());
        let aa_s = median(s.aa.iter().map(|r| r.measuring_s).collect());
        let group_s = median(s.grouped.iter().map(|r| r.measuring_s).collect());
        let case_s = |runs: &[Run]| {
            median(
                runs.iter()
                    .flat_map(|r| r.answers.values().map(|a| a.wall_s))
                    .filter(|w| *w > 0.0)
                    .collect(),
            )
        };
        let _ = writeln!(
            out,
            "\nTime (medians): `knotmeter compare` measured the {} cases in **{compare_s:.1} s** \
             (A/B; {aa_s:.1} s A/A), from the start of measuring to the report: every round's \
             processes, every pair, the verdicts; builds excluded. The in-binary groups took \
             **{group_s:.1} s**: **{:.2}×**. A case took {:.2} s over all its rounds across two \
             builds and {:.2} s in one binary (the budget is {budget} s per case).\n",
            cases().len(),
            compare_s / group_s,
            case_s(&s.ab),
            case_s(&s.grouped),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(verdicts: &[(&str, Option<Verdict>)]) -> Run {
        Run {
            answers: verdicts
                .iter()
                .map(|(case, verdict)| {
                    let answer = Answer {
                        verdict: *verdict,
                        ratio: 1.0,
                        low: 0.99,
                        high: 1.01,
                        wall_s: 1.0,
                    };
                    ((*case).to_owned(), answer)
                })
                .collect(),
            measuring_s: 1.0,
        }
    }

    #[test]
    fn a_tally_counts_what_is_not_same_and_keeps_missing_verdicts_apart() {
        let runs = [
            run(&[
                ("same_push", Some(Verdict::Slower)),
                ("same_sort", Some(Verdict::Same)),
                ("same_chain", Some(Verdict::Faster)),
            ]),
            run(&[("same_push", None), ("same_sort", Some(Verdict::Faster))]),
        ];
        let tally = Tally::of(&runs, &["same_push", "same_sort"]);
        assert_eq!(
            tally,
            Tally {
                wrong: 2,
                verdicts: 3,
                missing: 1
            }
        );
        assert_eq!(tally.short(), "2/3, 1 not compared");
        assert_eq!(tally.long(), "2 of 3 (66.7%), 1 not compared");
        assert_eq!(Tally::of(&runs, &[]).rate(), None);
        assert_eq!(Tally::of(&[], &["same_push"]).long(), "—");
    }

    /// A run in which every case reads `same` but `changed`, which read `slower`.
    fn all_same_but(changed: &[&str]) -> Run {
        let verdicts: Vec<(&str, Option<Verdict>)> = cases()
            .into_iter()
            .map(|c| {
                let verdict = if changed.contains(&c) {
                    Verdict::Slower
                } else {
                    Verdict::Same
                };
                (c, Some(verdict))
            })
            .collect();
        run(&verdicts)
    }

    #[test]
    fn the_headline_counts_realistic_and_chain_like_bodies_apart() {
        // Ten runs: two realistic false verdicts, and one chain-like one.
        let mut aa = vec![
            all_same_but(&["same_hashmap", "plus_1pct"]),
            all_same_but(&["same_push"]),
        ];
        aa.extend((0..8).map(|_| all_same_but(&[])));
        let realistic = of_body(Body::Realistic, false).len() * 10;
        let chain = of_body(Body::ChainLike, false).len() * 10;
        let ab: Vec<Run> = (0..4)
            .map(|i| {
                all_same_but(if i == 0 {
                    &["plus_1pct", "same_parse"]
                } else {
                    &["plus_1pct"]
                })
            })
            .collect();
        let text = headline(&aa, &ab);
        let want = format!(
            "**2 of {realistic} ({:.1}%) verdicts not `same` on the realistic bodies**, within",
            200.0 / realistic as f64
        );
        assert!(text.contains(&want), "{text}");
        let want = format!(
            "1 of {chain} ({:.1}%) on the chain-like",
            100.0 / chain as f64
        );
        assert!(text.contains(&want), "{text}");
        let realistic_ab = of_body(Body::Realistic, true).len() * 4;
        let want = format!(
            "unchanged realistic cases changed in 1 of {realistic_ab} ({:.1}%).",
            100.0 / realistic_ab as f64
        );
        assert!(text.contains(&want), "{text}");
        // Every realistic verdict `slower` in one run of ten is over 5%.
        aa[3] = all_same_but(&of_body(Body::Realistic, false));
        let text = headline(&aa, &ab);
        assert!(text.contains("**over** the target"), "{text}");
    }

    #[test]
    fn a_changed_case_counts_as_identical_code_only_in_the_a_a_comparison() {
        // Where the code differs, `slower` is right: neither a false verdict nor counted.
        let changed = ["plus_1pct", "plus_5pct"];
        let scenario = Scenario {
            aa: vec![all_same_but(&[])],
            ab: vec![all_same_but(&changed)],
            before_after: vec![all_same_but(&changed)],
            grouped: vec![all_same_but(&changed)],
            ..Scenario::default()
        };
        let mut out = String::new();
        identical_table(&mut out, &scenario);
        assert!(
            out.contains("| `plus_1pct` | chain-like | 0/1 | +0.0% [-1.0, 1.0] | — | — | — |"),
            "{out}"
        );
        let unchanged = of_body(Body::ChainLike, true).len();
        let all = of_body(Body::ChainLike, false).len();
        let want = format!(
            "| **all chain-like** | | **0 of {all} (0.0%)** | | 0 of {unchanged} (0.0%) | 0 of \
             {unchanged} (0.0%) | 0 of {unchanged} (0.0%) |"
        );
        assert!(out.contains(&want), "{out}");
    }

    #[test]
    fn the_unchanged_cases_of_a_kind_leave_out_the_changed_ones() {
        let chain = of_body(Body::ChainLike, true);
        assert!(
            chain.contains(&"same_chain") && !chain.contains(&"plus_1pct"),
            "{chain:?}"
        );
        assert!(of_body(Body::ChainLike, false).contains(&"plus_1pct"));
        assert_eq!(
            of_body(Body::Realistic, true),
            of_body(Body::Realistic, false)
        );
    }
}
