//! The bench binary's command line: what `cargo bench` and the daemon pass.
//!
//! libtest's conventions where they exist (`--bench`, filters, `--exact`, `--skip`, `--list`),
//! knotmeter's own flags beside them. Bad flags and values exit with code 2, as clap does.
//!
//! A flag is never silently ignored when the user relies on what it promises. Flags that only
//! shape measurement (`--quick`, `--time`, `--precision`, `--seed`, `--timer`, `--color`,
//! `--stdin-cancel`) are accepted anywhere, so a tool can add `--list` to the command line it
//! measures with. Flags that promise an outcome (a stored baseline, a comparison, a gate, an
//! output format) are errors where that outcome cannot happen: `--save-baseline` or
//! `--baseline` with `--no-history`, anything but `--format pretty|json` with `--list`, and
//! the measuring flags without `--bench` (test mode measures nothing).

use std::ffi::OsString;
use std::time::Duration;

use std::io::Write;
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::parser::ValueSource;
use clap::{value_parser, Arg, ArgAction, ArgMatches, Command};
use knotmeter_format::values;

use knotmeter_protocol::{Measure, Partition, PartitionKind};

use crate::measure::TimerKind;
use crate::registry::Filter;
use crate::report::Format;
use crate::rounds::{DEFAULT_ROUNDS, QUICK_ROUNDS};

/// Default time budget per case.
pub(crate) const DEFAULT_BUDGET: Duration = Duration::from_secs(1);
/// Time budget per case under `--quick`.
pub(crate) const QUICK_BUDGET: Duration = Duration::from_millis(100);
/// Default target for the relative half-width of the median's interval.
pub(crate) const DEFAULT_PRECISION: f64 = 0.01;
/// Default noise threshold, in percent: a change is called only when its whole 95% interval
/// lies beyond it.
pub(crate) const DEFAULT_NOISE_PERCENT: f64 = 0.5;
/// Target precision under `--quick`.
pub(crate) const QUICK_PRECISION: f64 = 0.03;

/// Everything the command line decides.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    /// Which cases run.
    pub(crate) filter: Filter,
    /// The shard of a partitioned suite this run measures (`--partition count:K/N|hash:K/N`),
    /// applied after the filters.
    pub(crate) partition: Option<Partition>,
    /// Print the cases instead of running them.
    pub(crate) list: bool,
    /// Output format.
    pub(crate) format: Format,
    /// Time budget per case.
    pub(crate) budget: Duration,
    /// `--quick` or `--time` chose the budget: it then overrides a case's own (criterion's
    /// `measurement_time`), so run-on-save stays quick.
    pub(crate) budget_from_command_line: bool,
    /// Target relative half-width of the median's interval.
    pub(crate) precision: f64,
    /// `--bench` was given: measure. Without it (as under `cargo test`), each case runs once.
    pub(crate) bench: bool,
    /// The clock.
    pub(crate) timer: TimerKind,
    /// Colour in the pretty output: `Some` when `--color always|never` decided it, `None` to
    /// decide from where the report goes (see [`auto_color`]).
    pub(crate) color: Option<bool>,
    /// Seed for the sample-length jitter; from the clock when not given.
    pub(crate) seed: Option<u64>,
    /// Cancel the run when standard input closes (the daemon's lifeline).
    pub(crate) stdin_cancel: bool,
    /// Do not record the run in the history store.
    pub(crate) no_history: bool,
    /// Record the run under this baseline name.
    pub(crate) save_baseline: Option<String>,
    /// Compare against the latest run saved under this name instead of the previous run.
    pub(crate) baseline: Option<String>,
    /// Relative change below which a difference is noise (0.01 = 1%).
    pub(crate) noise_threshold: f64,
    /// Exit non-zero when a case is `slower` by more than this many percent.
    pub(crate) fail_on_regression: Option<f64>,
    /// Take commands on standard input instead of running the selected cases (see `driven`).
    pub(crate) driven: bool,
    /// The most rounds a case is measured in (see `rounds`).
    pub(crate) rounds: u32,
    /// Measure every round in this process instead of a worker process per round.
    pub(crate) in_process: bool,
    /// This process is a worker of another one's rounds (`--round-worker`, internal).
    pub(crate) round_worker: Option<WorkerSpec>,
    /// What is measured: time, or instructions counted under callgrind (`--measure`).
    pub(crate) measure: Measure,
    /// With instructions: callgrind's cache simulation as well (`--cache-sim`).
    pub(crate) cache_simulation: bool,
}

impl Options {
    /// Whether this process counts instructions: `--measure instructions` with `--bench`, or
    /// with `--driven` (`knotmeter compare --measure instructions`, each side under callgrind).
    pub(crate) fn counts_instructions(&self) -> bool {
        (self.bench || self.driven) && self.measure == Measure::Instructions && !self.list
    }
}

/// What a worker process is told by its coordinator: who its parent is, and the clock
/// calibration to measure with (calibrating again would cost every round the time).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct WorkerSpec {
    /// The coordinator's process id: the worker dies with it.
    pub(crate) parent: u32,
    /// Nanoseconds per clock tick.
    pub(crate) ns_per_tick: f64,
    /// The clock's precision, in nanoseconds.
    pub(crate) precision_ns: f64,
    /// The cost of one clock read, in nanoseconds.
    pub(crate) read_cost_ns: f64,
}

fn command() -> Command {
    Command::new("knotmeter bench binary")
        .about("Runs the knotmeter benchmarks linked into this binary")
        .args(selection_args())
        .args(measurement_args())
        .args(history_args())
        .args(process_args())
        .args(libtest_args())
}

/// The cases to run or list, and how the report is printed.
fn selection_args() -> Vec<Arg> {
    vec![
        Arg::new("filter")
            .num_args(0..)
            .help("Run only cases whose id contains one of these"),
        Arg::new("exact")
            .long("exact")
            .action(ArgAction::SetTrue)
            .help("Match filters and --skip against whole ids or names"),
        Arg::new("skip")
            .long("skip")
            .action(ArgAction::Append)
            .value_name("PATTERN")
            .help("Leave out cases matching PATTERN (repeatable)"),
        Arg::new("partition")
            .long("partition")
            .value_name("KIND:K/N")
            .value_parser(parse_partition)
            .help(
                "Run shard K of N (count:K/N or hash:K/N, as nextest): comparison groups and \
             the cases of one function stay together",
            ),
        Arg::new("list")
            .long("list")
            .action(ArgAction::SetTrue)
            .help("List the cases and exit"),
        Arg::new("format")
            .long("format")
            .value_parser(Format::NAMES.to_vec())
            .help("Output format: pretty, json, jsonl, csv or markdown (--list: pretty or json)"),
        // criterion's `--noplot`, which CI scripts written for criterion pass: knotmeter
        // draws no plots, so it is accepted and changes nothing.
        Arg::new("noplot")
            .long("noplot")
            .action(ArgAction::SetTrue)
            .hide(true),
    ]
}

/// How each case is measured.
fn measurement_args() -> Vec<Arg> {
    vec![
        Arg::new("quick")
            .long("quick")
            .action(ArgAction::SetTrue)
            .help("About 100 ms per case and a 3% precision target"),
        Arg::new("time")
            .long("time")
            .value_name("SECS")
            .value_parser(parse_seconds)
            .allow_negative_numbers(true)
            .help("Time budget per case in seconds (default 1, 0.1 with --quick)"),
        Arg::new("precision")
            .long("precision")
            .value_name("FRACTION")
            .value_parser(parse_fraction)
            .allow_negative_numbers(true)
            .help("Stop sampling once the median's 95% interval is within ± this (default 0.01)"),
        Arg::new("bench")
            .long("bench")
            .action(ArgAction::SetTrue)
            .help("Measure (cargo bench passes this)"),
        Arg::new("timer")
            .long("timer")
            .value_parser(["instant", "tsc"])
            .default_value("instant")
            .help("Clock: the OS monotonic clock, or the invariant TSC on x86_64"),
        Arg::new("measure")
            .long("measure")
            .value_parser(["time", "instructions"])
            .default_value("time")
            .help(
                "What is measured: wall time, or instructions counted under Valgrind's callgrind \
             (exact on the same build and machine: for CI gates)",
            ),
        Arg::new("cache-sim")
            .long("cache-sim")
            .action(ArgAction::SetTrue)
            .help("With --measure instructions: simulate the caches too (slower)"),
        Arg::new("color")
            .long("color")
            .value_parser(["auto", "always", "never"])
            .default_value("auto")
            .help("Colour in the pretty output"),
    ]
}

/// The history: recording, the baseline to compare with, the verdicts' threshold and the gate.
fn history_args() -> Vec<Arg> {
    vec![
        Arg::new("no-history")
            .long("no-history")
            .action(ArgAction::SetTrue)
            .help("Do not record this run in the history store (target/knotmeter/history.db)"),
        Arg::new("save-baseline")
            .long("save-baseline")
            .value_name("NAME")
            .value_parser(values::baseline_name)
            .help("Record this run in the history under the baseline NAME"),
        Arg::new("baseline")
            .long("baseline")
            .value_name("NAME")
            .value_parser(values::baseline_name)
            .help("Compare with the latest run saved as NAME instead of the previous run"),
        Arg::new("noise-threshold")
            .long("noise-threshold")
            .value_name("PCT")
            .value_parser(values::percent)
            .allow_negative_numbers(true)
            .help(
                "A change is called only when its whole 95% interval lies beyond PCT percent \
             (default 0.5)",
            ),
        Arg::new("fail-on-regression")
            .long("fail-on-regression")
            .value_name("PCT")
            .value_parser(values::percent)
            .allow_negative_numbers(true)
            .help("Exit with status 1 when any case is `slower` by more than PCT percent"),
    ]
}

/// How the process is driven: by a tool, in rounds of worker processes, with a seed.
fn process_args() -> Vec<Arg> {
    vec![
        Arg::new("stdin-cancel")
            .long("stdin-cancel")
            .action(ArgAction::SetTrue)
            .help("Stop gracefully when standard input closes (for tools that spawn the binary)"),
        Arg::new("driven")
            .long("driven")
            .action(ArgAction::SetTrue)
            .help(
                "Measure as an orchestrator (knotmeter compare) asks, one command per line \
             on standard input (docs/json-format.md)",
            ),
        Arg::new("rounds")
            .long("rounds")
            .value_name("N")
            .value_parser(parse_rounds)
            .allow_negative_numbers(true)
            .help(
                "Measure each case in up to N rounds, each in a fresh process (default 10, 5 \
             with --quick); its interval comes from the variation between them",
            ),
        Arg::new("in-process")
            .long("in-process")
            .action(ArgAction::SetTrue)
            .help(
                "Measure every round in this process (for a profiler or a debugger): the \
             intervals then cannot show what differs between processes",
            ),
        Arg::new("round-worker")
            .long("round-worker")
            .value_name("SPEC")
            .value_parser(parse_worker_spec)
            .hide(true),
        Arg::new("seed")
            .long("seed")
            .value_parser(value_parser!(u64))
            .allow_negative_numbers(true)
            .help("Seed for sample-length jitter"),
    ]
}

/// libtest's flags, accepted for compatibility: they change nothing here.
fn libtest_args() -> Vec<Arg> {
    vec![
        Arg::new("nocapture")
            .long("nocapture")
            .action(ArgAction::SetTrue)
            .hide(true),
        Arg::new("show-output")
            .long("show-output")
            .action(ArgAction::SetTrue)
            .hide(true),
        Arg::new("quiet")
            .short('q')
            .long("quiet")
            .action(ArgAction::SetTrue)
            .hide(true),
        Arg::new("test-threads")
            .long("test-threads")
            .value_parser(value_parser!(u32))
            .hide(true),
    ]
}

/// A budget: [`values::seconds`] as a duration.
fn parse_seconds(text: &str) -> Result<Duration, String> {
    values::seconds(text).map(Duration::from_secs_f64)
}

fn parse_rounds(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(n) if (1..=1000).contains(&n) => Ok(n),
        _ => Err(format!(
            "the rounds are a whole number from 1 to 1000, not `{text}`"
        )),
    }
}

/// `--round-worker`: `PARENT,NS_PER_TICK,PRECISION_NS,READ_COST_NS`, as the
/// coordinator writes it.
fn parse_worker_spec(text: &str) -> Result<WorkerSpec, String> {
    let parts: Vec<&str> = text.split(',').collect();
    let number = |i: usize| -> Result<f64, String> {
        parts
            .get(i)
            .and_then(|p| p.parse::<f64>().ok())
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| format!("`{text}` is not a worker's specification"))
    };
    Ok(WorkerSpec {
        parent: parts
            .first()
            .and_then(|p| p.parse().ok())
            .ok_or_else(|| format!("`{text}` is not a worker's specification"))?,
        ns_per_tick: number(1)?,
        precision_ns: number(2)?,
        read_cost_ns: number(3)?,
    })
}

fn parse_partition(text: &str) -> Result<Partition, String> {
    let partition: Partition = text.parse()?;
    if partition.kind == PartitionKind::Slice {
        return Err(format!(
            "`{text}`: slice spreads the benchmarks of every bench binary of a suite, and a \
             bench binary sees only its own: use `knotmeter run --partition {text}`, or count \
             or hash here (hash:{}/{} keeps each benchmark in its shard as the suite grows)",
            partition.shard, partition.total
        ));
    }
    Ok(partition)
}

fn parse_fraction(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number"))?;
    if !(value > 0.0 && value < 1.0) {
        return Err(format!(
            "the precision is a fraction between 0 and 1 (0.01 is ±1%), not {text}"
        ));
    }
    Ok(value)
}

/// Parses the command line (without the program name's special meaning: pass `std::env::args_os()`).
pub(crate) fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Options, clap::Error> {
    let mut command = command();
    let matches = command.try_get_matches_from_mut(args)?;
    if let Some(conflict) = conflict(&matches) {
        return Err(command.error(ErrorKind::ArgumentConflict, conflict));
    }
    Ok(options(&matches))
}

/// What is wrong with a combination of flags that parsed one by one, if anything.
fn conflict(m: &ArgMatches) -> Option<String> {
    let given = |name: &str| m.value_source(name) == Some(ValueSource::CommandLine);
    let format = m.get_one::<String>("format").map(String::as_str);
    let outcome_flags = [
        "save-baseline",
        "baseline",
        "fail-on-regression",
        "noise-threshold",
    ];
    if given("cache-sim")
        && m.get_one::<String>("measure").map(String::as_str) != Some("instructions")
    {
        return Some(
            "--cache-sim simulates the caches of a count: it needs --measure instructions".into(),
        );
    }
    if m.get_flag("no-history") {
        if given("save-baseline") {
            return Some(
                "--save-baseline records this run in the history, which --no-history turns off: \
                 drop one of the two"
                    .into(),
            );
        }
        if given("baseline") {
            return Some(
                "--baseline compares with a run stored in the history, which --no-history does \
                 not open at all: drop --no-history (the run is then recorded too)"
                    .into(),
            );
        }
    }
    if m.get_flag("driven") {
        let chosen_elsewhere = [
            "filter",
            "exact",
            "skip",
            "list",
            "format",
            "save-baseline",
            "baseline",
            "fail-on-regression",
            "partition",
        ];
        if let Some(flag) = chosen_elsewhere.into_iter().find(|flag| given(flag)) {
            let flag = if flag == "filter" {
                "a filter".to_owned()
            } else {
                format!("--{flag}")
            };
            return Some(format!(
                "--driven takes its cases, output and comparisons from the commands on standard \
                 input, so {flag} would do nothing: drop it"
            ));
        }
        return None;
    }
    if m.get_flag("list") {
        if let Some(format) = format.filter(|f| !matches!(*f, "pretty" | "json")) {
            return Some(format!(
                "--list prints `pretty` (libtest's `name: benchmark` lines) or `json`, not \
                 `{format}`"
            ));
        }
        if let Some(flag) = outcome_flags.into_iter().find(|flag| given(flag)) {
            return Some(format!(
                "--list only lists the cases, so --{flag} would do nothing: drop one of the two"
            ));
        }
        return None;
    }
    if !m.get_flag("bench") {
        let measuring = outcome_flags
            .into_iter()
            .find(|flag| given(flag))
            .map(|flag| format!("--{flag}"))
            .or_else(|| {
                format
                    .filter(|f| *f != "pretty")
                    .map(|f| format!("--format {f}"))
            });
        if let Some(flag) = measuring {
            return Some(format!(
                "{flag} needs --bench: without it each benchmark runs once, as a test, and \
                 nothing is measured (`cargo bench` passes --bench; run the binary with \
                 `--bench {flag}`)"
            ));
        }
    }
    None
}

/// Prints a command-line error (or `--help`) where it belongs and returns its exit status:
/// help and version on the report channel, errors on standard error.
pub(crate) fn report_error(err: &clap::Error, out: &mut impl Write) -> ExitCode {
    let text = err.render().to_string();
    if err.use_stderr() {
        eprint!("{text}");
    } else {
        let _ = write!(out, "{text}").and_then(|()| out.flush());
    }
    ExitCode::from(err.exit_code().clamp(0, 255) as u8)
}

/// Colour for `--color auto`: when the report goes to a terminal, unless `NO_COLOR` is set or
/// `CARGO_TERM_COLOR` says otherwise (`cargo bench` passes its environment on).
pub(crate) fn auto_color(terminal: bool) -> bool {
    if std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()) {
        return false;
    }
    match std::env::var("CARGO_TERM_COLOR").as_deref() {
        Ok("always") => true,
        Ok("never") => false,
        _ => terminal,
    }
}

fn options(m: &ArgMatches) -> Options {
    let strings = |name: &str| -> Vec<String> {
        m.get_many::<String>(name)
            .into_iter()
            .flatten()
            .cloned()
            .collect()
    };
    let quick = m.get_flag("quick");
    let format = m
        .get_one::<String>("format")
        .and_then(|f| Format::parse(f))
        .unwrap_or(Format::Pretty);
    let color = match m.get_one::<String>("color").map(String::as_str) {
        Some("always") => Some(true),
        Some("never") => Some(false),
        _ => None,
    };
    Options {
        filter: Filter {
            patterns: strings("filter"),
            exact: m.get_flag("exact"),
            skip: strings("skip"),
        },
        partition: m.get_one::<Partition>("partition").copied(),
        list: m.get_flag("list"),
        format,
        budget: m.get_one::<Duration>("time").copied().unwrap_or(if quick {
            QUICK_BUDGET
        } else {
            DEFAULT_BUDGET
        }),
        budget_from_command_line: quick || m.get_one::<Duration>("time").is_some(),
        precision: m.get_one::<f64>("precision").copied().unwrap_or(if quick {
            QUICK_PRECISION
        } else {
            DEFAULT_PRECISION
        }),
        bench: m.get_flag("bench"),
        timer: match m.get_one::<String>("timer").map(String::as_str) {
            Some("tsc") => TimerKind::Tsc,
            _ => TimerKind::Instant,
        },
        color,
        seed: m.get_one::<u64>("seed").copied(),
        stdin_cancel: m.get_flag("stdin-cancel"),
        no_history: m.get_flag("no-history"),
        save_baseline: m.get_one::<String>("save-baseline").cloned(),
        baseline: m.get_one::<String>("baseline").cloned(),
        noise_threshold: m
            .get_one::<f64>("noise-threshold")
            .copied()
            .unwrap_or(DEFAULT_NOISE_PERCENT)
            / 100.0,
        fail_on_regression: m.get_one::<f64>("fail-on-regression").copied(),
        driven: m.get_flag("driven") || m.get_one::<WorkerSpec>("round-worker").is_some(),
        rounds: m.get_one::<u32>("rounds").copied().unwrap_or(if quick {
            QUICK_ROUNDS
        } else {
            DEFAULT_ROUNDS
        }),
        in_process: m.get_flag("in-process"),
        round_worker: m.get_one::<WorkerSpec>("round-worker").copied(),
        measure: match m.get_one::<String>("measure").map(String::as_str) {
            Some("instructions") => Measure::Instructions,
            _ => Measure::Time,
        },
        cache_simulation: m.get_flag("cache-sim"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(args: &[&str]) -> Result<Options, clap::Error> {
        parse(
            std::iter::once("bench")
                .chain(args.iter().copied())
                .map(OsString::from),
        )
    }

    /// `--time -1` was taken for an unknown flag `-1`, with clap's tip to write `-- -1`, which
    /// would have made `-1` a filter (issue 21): every numeric option says what it takes.
    #[test]
    fn a_negative_number_is_a_value_the_option_refuses_not_a_flag() {
        for (flag, words) in [
            ("--time", "seconds above 0"),
            ("--precision", "between 0 and 1"),
            ("--noise-threshold", "-1"),
            ("--fail-on-regression", "-1"),
            ("--rounds", "from 1 to 1000"),
            ("--seed", "-1"),
        ] {
            let error = parse_str(&["--bench", flag, "-1"]).unwrap_err().to_string();
            assert!(
                error.contains(flag) && error.contains(words) && !error.contains("-- -1"),
                "{flag}: {error}"
            );
        }
    }

    #[test]
    fn cargo_bench_arguments() {
        let o = parse_str(&[
            "--bench",
            "chain",
            "--skip",
            "chain_n/10",
            "--format",
            "json",
            "--quick",
        ])
        .unwrap();
        assert!(o.bench);
        assert_eq!(o.filter.patterns, ["chain"]);
        assert_eq!(o.filter.skip, ["chain_n/10"]);
        assert_eq!(o.format, Format::Json);
        assert_eq!(o.budget, QUICK_BUDGET);
        assert_eq!(o.precision, QUICK_PRECISION);
    }

    #[test]
    fn a_partition_is_read_as_nextest_writes_it() {
        let o = parse_str(&["--bench", "--partition", "hash:2/3"]).unwrap();
        assert_eq!(
            o.partition.map(|p| p.to_string()).as_deref(),
            Some("hash:2/3")
        );
        let slice = parse_str(&["--partition", "slice:1/2"]).unwrap_err();
        assert!(
            slice
                .to_string()
                .contains("knotmeter run --partition slice:1/2"),
            "{slice}"
        );
    }

    #[test]
    fn time_overrides_quick_budget() {
        let o = parse_str(&["--quick", "--time", "2.5"]).unwrap();
        assert_eq!(o.budget, Duration::from_millis(2500));
        assert!(!o.bench);
    }

    #[test]
    fn driven_mode_refuses_flags_that_would_do_nothing() {
        let o = parse_str(&["--bench", "--driven", "--quick", "--noise-threshold", "2"]).unwrap();
        assert!(o.driven && o.bench);
        assert_eq!(o.noise_threshold, 0.02);
        for flag in [
            &["--driven", "chain"][..],
            &["--driven", "--list"],
            &["--driven", "--format", "json"],
            &["--driven", "--fail-on-regression", "5"],
            &["--driven", "--partition", "hash:1/2"],
        ] {
            let err = parse_str(flag).unwrap_err();
            assert_eq!(err.exit_code(), 2, "{flag:?}");
            assert!(err.to_string().contains("--driven"), "{err}");
        }
    }

    #[test]
    fn bad_flags_and_values_exit_with_2() {
        for bad in [
            &["--frobnicate"][..],
            &["--format", "xml"],
            &["--time", "-1"],
            &["--time", "abc"],
            &["--precision", "2"],
            &["--partition", "hash:0/2"],
            &["--partition", "hash:3/2"],
            &["--partition", "halves"],
            &["--partition", "slice:1/2"],
        ] {
            let err = parse_str(bad).unwrap_err();
            assert_eq!(err.exit_code(), 2, "{bad:?}: {err}");
        }
    }
}
