//! The +10% change trials: on a fresh history, one case measured as it is, then with its work
//! made about 10% larger (`KNOTMETER_CALIBRATION_PLUS10`, read by `examples/calibration`);
//! the second run's before/after verdict should be `slower`.

use std::path::Path;

use super::report::Run;
use super::run::{Binary, FreshHistory, Invocation};

/// The environment variable `examples/calibration` reads (its `PLUS10_ENV`).
pub(super) const PLUS10_ENV: &str = "KNOTMETER_CALIBRATION_PLUS10";

/// The cases `examples/calibration/benches/calibration.rs` can make larger, each with what the
/// change is (kept in step with the sizes there).
pub(super) const CHANGES: [(&str, &str); 8] = [
    (
        "sort_stable",
        "1088 elements instead of 1000 (n log n: +10.1%)",
    ),
    (
        "sort_unstable",
        "1088 elements instead of 1000 (n log n: +10.1%)",
    ),
    ("parse_csv", "70 numbers instead of 64 (+9.4%)"),
    ("fnv1a_4k", "4506 bytes instead of 4096 (+10.0%)"),
    (
        "hash_map",
        "1100 keys instead of 1000, in as many buckets (+10%)",
    ),
    ("btree_map", "542 keys instead of 500 (n log n: +9.8%)"),
    ("chain_short", "110 steps instead of 100 (+10%)"),
    ("chain_long", "11 000 steps instead of 10 000 (+10%)"),
];

/// The cases tried by default: one whose figure is steady between processes, one that is not.
pub(super) const DEFAULT_CASES: [&str; 2] = ["fnv1a_4k", "sort_stable"];

/// What the change to `case` is, when the calibration can make it.
pub(super) fn change(case: &str) -> Option<&'static str> {
    CHANGES
        .iter()
        .find(|(c, _)| *c == case)
        .map(|(_, what)| *what)
}

/// One trial: the +10% run's before/after comparison with the unchanged run before it.
pub(super) struct Trial {
    /// The unchanged run's median, in nanoseconds.
    pub(super) before_ns: f64,
    /// The changed run's median, in nanoseconds.
    pub(super) after_ns: f64,
    /// The changed run's verdict (`unknown` when it was not compared).
    pub(super) verdict: String,
}

/// One case's trials.
pub(super) struct Trials {
    /// The benchmark's name.
    pub(super) case: String,
    /// Its trials, in order.
    pub(super) trials: Vec<Trial>,
}

/// The two commands of a trial of `case` against the history file `history`: unchanged, then
/// changed.
pub(super) fn invocations(bin: &Binary, case: &str, history: &Path) -> [Invocation; 2] {
    let mut args = bin.settings();
    args.extend(["--exact".to_owned(), format!("calibration::{case}")]);
    let base = Invocation::with_history(args, history);
    let mut changed = base.clone();
    changed.env.push((PLUS10_ENV.to_owned(), case.to_owned()));
    [base, changed]
}

/// `count` trials of each of `cases`, the cases taking turns trial by trial; each trial on a
/// history of its own, removed after it.
pub(super) fn run(bin: &Binary, cases: &[String], count: usize) -> Result<Vec<Trials>, String> {
    let mut all: Vec<Trials> = cases
        .iter()
        .map(|case| Trials {
            case: case.clone(),
            trials: Vec::new(),
        })
        .collect();
    for trial in 1..=count {
        for trials in &mut all {
            eprintln!("calibration: +10% trial {trial}/{count} of {}", trials.case);
            let history = FreshHistory::new(bin, &format!("plus10-{}-{trial}", trials.case))?;
            let [base, changed] = invocations(bin, &trials.case, &history.file());
            let before = bin.measure(&base)?;
            let after = bin.measure(&changed)?;
            trials.trials.push(outcome(&trials.case, &before, &after)?);
        }
    }
    Ok(all)
}

/// The trial's outcome from its two runs.
fn outcome(case: &str, before: &Run, after: &Run) -> Result<Trial, String> {
    let missing = || format!("a +10% trial reported no case `{case}`");
    let (b, a) = (
        before.find(case).ok_or_else(missing)?,
        after.find(case).ok_or_else(missing)?,
    );
    let compared = a.comparison.as_ref().filter(|c| c.is_history());
    Ok(Trial {
        before_ns: b.median,
        after_ns: a.median,
        verdict: compared.map_or_else(|| "unknown".to_owned(), |c| c.verdict.clone()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_cases_can_be_changed_and_vec_push_cannot() {
        for case in DEFAULT_CASES {
            assert!(change(case).is_some(), "{case}");
        }
        assert!(change("vec_push").is_none());
    }

    #[test]
    fn the_changed_run_differs_from_the_unchanged_by_the_variable_alone() {
        let bin = Binary {
            path: "/nowhere/calibration".into(),
            quick: true,
        };
        let [base, changed] = invocations(&bin, "fnv1a_4k", Path::new("h.db"));
        assert_eq!(base.args, changed.args);
        assert_eq!(
            base.args,
            vec!["--quick", "--exact", "calibration::fnv1a_4k"]
        );
        assert_eq!(base.history, changed.history);
        assert!(base.env.is_empty());
        assert_eq!(
            changed.env,
            vec![(PLUS10_ENV.to_owned(), "fnv1a_4k".to_owned())]
        );
    }
}
