//! The command line of `cargo xtask calibration`.

use super::trials;

/// The usage line.
pub(super) const USAGE: &str = "usage: cargo xtask calibration [--runs N] [--trials T] \
[--plus10 CASE[,CASE…]] [--scenario quiet|busy] [--no-experiment] [--quick] [--write]";

/// The command line's choices.
#[derive(Debug)]
pub(crate) struct Options {
    /// Runs per measurement (fresh, with a history, quick; and per arm of the experiment).
    pub(super) runs: usize,
    /// Trials per +10% change.
    pub(super) trials: usize,
    /// The cases whose +10% change is tried.
    pub(super) plus10: Vec<String>,
    /// The scenarios to measure, in order.
    pub(super) scenarios: Vec<Scenario>,
    /// Measure what moves the numbers.
    pub(super) experiment: bool,
    /// Pass `--quick` to the bench binary.
    pub(super) quick: bool,
    /// Write the report into `docs/calibration.md`.
    pub(super) write: bool,
}

impl Options {
    /// Reads the flags; every one is optional.
    pub(super) fn parse(args: &[String]) -> Result<Self, String> {
        let mut options = Self {
            runs: 10,
            trials: 10,
            plus10: trials::DEFAULT_CASES.map(str::to_owned).to_vec(),
            scenarios: Scenario::ALL.to_vec(),
            experiment: true,
            quick: false,
            write: false,
        };
        let mut args = args.iter();
        while let Some(flag) = args.next() {
            let mut value = || {
                args.next()
                    .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))
            };
            match flag.as_str() {
                "--runs" => options.runs = number(flag, value()?)?.max(2),
                "--trials" => options.trials = number(flag, value()?)?,
                "--plus10" => options.plus10 = cases(value()?)?,
                "--scenario" => {
                    let name = value()?;
                    let scenario = Scenario::named(name)
                        .ok_or_else(|| format!("--scenario takes quiet or busy, not {name}"))?;
                    options.scenarios = vec![scenario];
                }
                "--no-experiment" => options.experiment = false,
                "--quick" => options.quick = true,
                "--write" => options.write = true,
                _ => return Err(USAGE.into()),
            }
        }
        Ok(options)
    }
}

/// `value` as a count for `flag`.
fn number(flag: &str, value: &str) -> Result<usize, String> {
    value
        .parse()
        .map_err(|_| format!("{flag} takes a number, not {value}"))
}

/// The comma-separated cases of `--plus10`, each one the calibration can change.
fn cases(value: &str) -> Result<Vec<String>, String> {
    value
        .split(',')
        .map(|case| match trials::change(case) {
            Some(_) => Ok(case.to_owned()),
            None => Err(format!(
                "--plus10: `{case}` has no +10% change; these do: {}",
                trials::CHANGES.map(|(c, _)| c).join(", ")
            )),
        })
        .collect()
}

/// What else runs on the machine while a scenario is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scenario {
    /// Nothing the calibration starts.
    Quiet,
    /// One thread of the calibration spinning for the whole scenario.
    Busy,
}

impl Scenario {
    /// Both, in the order they run.
    pub(super) const ALL: [Self; 2] = [Self::Quiet, Self::Busy];

    /// The scenario's name on the command line and in the report.
    pub(super) fn name(self) -> &'static str {
        match self {
            Self::Quiet => "quiet",
            Self::Busy => "busy",
        }
    }

    /// The scenario named `name`.
    pub(super) fn named(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }

    /// What the machine does meanwhile, for the report.
    pub(super) fn described(self) -> &'static str {
        match self {
            Self::Quiet => "nothing else started by the calibration",
            Self::Busy => {
                "one core kept busy for the whole scenario by a thread of the calibration that \
                 computes without pause (not pinned: the scheduler places it)"
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Options, String> {
        Options::parse(&args.iter().map(|a| (*a).to_owned()).collect::<Vec<_>>())
    }

    #[test]
    fn the_defaults_are_both_scenarios_ten_runs_and_ten_trials_of_two_cases() {
        let o = parse(&[]).unwrap();
        assert_eq!((o.runs, o.trials, o.quick, o.write), (10, 10, false, false));
        assert_eq!(o.scenarios, Scenario::ALL);
        assert_eq!(o.plus10, ["fnv1a_4k", "sort_stable"]);
        assert!(o.experiment);
    }

    #[test]
    fn every_flag_is_read_and_wrong_values_are_refused() {
        let o = parse(&[
            "--runs",
            "3",
            "--trials",
            "0",
            "--plus10",
            "chain_long,hash_map",
            "--scenario",
            "busy",
            "--no-experiment",
            "--quick",
            "--write",
        ])
        .unwrap();
        assert_eq!((o.runs, o.trials, o.quick, o.write), (3, 0, true, true));
        assert_eq!(o.plus10, ["chain_long", "hash_map"]);
        assert_eq!(o.scenarios, [Scenario::Busy]);
        assert!(!o.experiment);
        assert_eq!(parse(&["--runs", "1"]).unwrap().runs, 2);
        assert!(parse(&["--runs"]).is_err());
        assert!(parse(&["--runs", "x"]).is_err());
        assert!(parse(&["--scenario", "loud"]).is_err());
        assert!(parse(&["--plus10", "vec_push"])
            .unwrap_err()
            .contains("fnv1a_4k"));
        assert!(parse(&["--rounds", "3"]).is_err());
    }
}
