//! The command line of `knotmeter` (clap derive): `serve`, `run`, `list`, `history` and
//! `compare`.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};
use knotmeter_format::values;
use knotmeter_protocol::Partition;

pub use knotmeter_server_builds::{BuildsArgs, BuildsFormat, MeasureArg, Profiler};

/// knotmeter: discover, build and run benchmarks, for editors (`serve`) and terminals.
#[derive(Debug, Parser)]
#[command(name = "knotmeter", version, about, long_about = None)]
pub struct Cli {
    /// Write logs to this file instead of standard error.
    #[arg(long, global = true, value_name = "FILE")]
    pub log_file: Option<PathBuf>,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// What to do.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Speak the Language Server Protocol on standard input and output (for editors).
    Serve,
    /// Discover, build and run benchmarks, then print their results.
    ///
    /// The engine records every run in the history store, as `cargo bench` does. Ctrl-C (or
    /// SIGTERM) stops at the next sample boundary and keeps what was measured; a second one
    /// stops at once. On GitHub Actions (`GITHUB_ACTIONS=true`) it annotates warnings,
    /// regressions and failures, and appends a summary to `$GITHUB_STEP_SUMMARY`.
    Run(RunArgs),
    /// Print the benchmarks discovery finds, without building anything.
    List(ListArgs),
    /// Print the recorded runs, or the stored results of one case, newest first; `history
    /// prune` removes old results, `history merge` adds other histories' runs (the shards of a
    /// CI run), `history export` writes the latest results for Bencher or
    /// github-action-benchmark.
    ///
    /// The history lives at `<target dir>/knotmeter/history.db` (`cargo clean` deletes it), or
    /// wherever `KNOTMETER_HISTORY` points. Times are UTC.
    History(HistoryArgs),
    /// Is my change faster? Compare the working tree (or `--head REV`) with another commit,
    /// case by case, both builds measured in turn, round by round.
    ///
    /// REV defaults to HEAD when the working tree has uncommitted changes, else to the merge
    /// base with the upstream branch. The base is built in a git worktree under the target
    /// directory (kept, so later comparisons with the same commit reuse its build). Exits with
    /// status 1 when a case failed or `--fail-on-regression` found a regression (or compared
    /// nothing), 2 when the comparison could not be made, 128 + N when stopped by signal N
    /// (130 for Ctrl-C, 143 for SIGTERM).
    Compare(BuildsArgs),
    /// Where does the time go? Profile one case's timed region and print its costliest
    /// functions and the hottest lines of the workspace, per operation.
    ///
    /// The bench target is built again in a profile build of its own (`knotmeter-profile`:
    /// `bench` with line tables and symbols, under `<target dir>/knotmeter-profile/`; the
    /// measured build is left as it is), and the case runs under Valgrind's callgrind, which
    /// collects only inside the case's timed region: not start-up, tuning, set-up, the empty
    /// body or the drops. Instructions are counted, exactly and the same on every run; cache
    /// misses and stalls are not in them. Needs `valgrind` (Debian: `apt install valgrind`).
    /// Exits with status 1 when the case failed, 2 when nothing could be profiled, 128 + N when
    /// stopped by signal N.
    Profile(ProfileArgs),
}

/// `knotmeter profile`.
#[derive(Debug, clap::Args)]
pub struct ProfileArgs {
    /// A package or workspace directory (or its Cargo.toml), when two arguments are given.
    /// Default: the current directory.
    #[arg(value_name = "PATH")]
    pub first: String,
    /// The case: its id (`quickstart::sort_stable`) or name (`sort_stable`), whole.
    #[arg(value_name = "CASE")]
    pub case: Option<String>,
    /// The bench binary's time budget for the case under the profiler, in seconds of its own
    /// clock (callgrind runs a program some fifty times slower); above 0 and at most 86400.
    #[arg(long, value_name = "SECS", default_value_t = knotmeter_server_profile::DEFAULT_SECONDS, value_parser = values::seconds, allow_negative_numbers = true)]
    pub time: f64,
    /// The profiler: `callgrind` counts instructions exactly (no cache miss or stall shows),
    /// `perf` samples CPU time (misses and stalls show, with the noise of sampling).
    #[arg(long, value_enum, default_value_t = Profiler::Callgrind)]
    pub profiler: Profiler,
    /// How many functions and lines to print.
    #[arg(long, value_name = "N", default_value_t = 15)]
    pub top: usize,
    /// `pretty` (two tables) or `json` (the whole profile, every function and line).
    #[arg(long, value_enum, default_value_t = ListFormat::Pretty)]
    pub format: ListFormat,
}

impl ProfileArgs {
    /// PATH and CASE: one argument is the case, in the current directory.
    pub fn path_and_case(&self) -> (PathBuf, &str) {
        match &self.case {
            Some(case) => (PathBuf::from(&self.first), case),
            None => (PathBuf::from("."), &self.first),
        }
    }
}

/// `knotmeter run`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = RUN_EXIT_STATUSES)]
pub struct RunArgs {
    /// A package or workspace directory (or its Cargo.toml). Default: the current directory.
    /// A single argument that is no file or directory is taken as FILTER instead, and
    /// `knotmeter run` says so.
    pub path: Option<String>,
    /// Run only cases whose id contains this text (with `--exact`: whose id or name is it).
    pub filter: Option<String>,
    /// Match FILTER and `--skip` against whole ids or names, as the bench binary does.
    #[arg(long)]
    pub exact: bool,
    /// Leave out cases whose id contains PATTERN (whole ids or names with `--exact`).
    /// Repeatable.
    #[arg(long, value_name = "PATTERN")]
    pub skip: Vec<String>,
    /// About 100 ms per case instead of about 1 s.
    #[arg(long)]
    pub quick: bool,
    /// Time budget per case in seconds (the engine's `--time`), above 0 and at most 86400.
    #[arg(long, value_name = "SECS", value_parser = values::seconds, allow_negative_numbers = true)]
    pub time: Option<f64>,
    /// Seconds a case may stay silent before its first step (the cold call) reports; above 0
    /// and at most 86400. Once steps report, a case is taken for hung after 10 times its
    /// longest step without progress (at least 10 s), so slow benchmarks are not cut short.
    #[arg(
        long,
        value_name = "SECS",
        default_value = "120",
        value_parser = values::seconds,
        allow_negative_numbers = true
    )]
    pub case_timeout: f64,
    /// Run shard K of N of the selected benchmarks, for CI machines that share a suite:
    /// `count:K/N` and `hash:K/N` as the bench binary (per bench target; hash keeps each
    /// benchmark in its shard as the suite grows), `slice:K/N` dealt across every target.
    /// Comparison groups and the `args` cases of a function are never split.
    #[arg(long, value_name = "KIND:K/N", value_parser = parse_partition)]
    pub partition: Option<Partition>,
    /// Compare with the latest run saved as NAME instead of the previous run.
    #[arg(long, value_name = "NAME", value_parser = values::baseline_name, conflicts_with = "no_history")]
    pub baseline: Option<String>,
    /// Record this run in the history under the baseline NAME.
    #[arg(long, value_name = "NAME", value_parser = values::baseline_name, conflicts_with = "no_history")]
    pub save_baseline: Option<String>,
    /// Exit with status 1 when any case is `slower` by more than PCT percent.
    #[arg(long, value_name = "PCT", value_parser = values::percent, allow_negative_numbers = true)]
    pub fail_on_regression: Option<f64>,
    /// Do not record this run in the history store.
    #[arg(long)]
    pub no_history: bool,
    /// What to measure: `time`, or `instructions`: each case's instructions per operation,
    /// counted under Valgrind's callgrind, the same on every run of the same build (needs
    /// `valgrind`; docs/instructions.md). Counts are compared with earlier counts only.
    #[arg(long, value_enum, default_value_t = MeasureArg::Time)]
    pub measure: MeasureArg,
    /// Output: a table (`pretty`), one JSON object per finished case (`jsonl`), one JSON
    /// document at the end (`json`), or the bench binary's `csv` or `markdown` documents.
    #[arg(long, value_enum, default_value_t = Format::Pretty)]
    pub format: Format,
}

/// The exit statuses of `knotmeter run`, for its `--help`.
pub const RUN_EXIT_STATUSES: &str = "\
Exit status:
  0    every case ran and passed
  1    a benchmark failed (a panic, a misuse), or a bench binary reported failure at the end of
       its run (the --fail-on-regression gate)
  2    the command line or the workspace is wrong: a bad flag or value, no benchmark matches,
       no cargo workspace, a bench target without `harness = false`, a bench binary that
       refused its arguments (an unknown --baseline)
  3    the build failed
  4    a bench binary crashed or a case hung (the case is named on standard error)
  128+N  stopped by signal N: 130 for Ctrl-C (SIGINT), 143 for SIGTERM, 129 for SIGHUP;
       141 when the reader of the output went away (`| head`)
When several apply, the first in this order wins: a signal, 2, 3, 4, 1.";

/// A whole number above 0 (a count of runs, results or comparisons).
fn parse_count(text: &str) -> Result<u32, String> {
    match text.trim().parse::<i64>() {
        Ok(n) if n > 0 => {
            u32::try_from(n).map_err(|_| format!("must be at most {}, not {text}", u32::MAX))
        }
        Ok(_) => Err(format!("must be a whole number above 0, not {text}")),
        Err(_) => Err(format!("`{text}` is not a whole number above 0")),
    }
}

/// `count:K/N`, `hash:K/N` or `slice:K/N`.
fn parse_partition(text: &str) -> Result<Partition, String> {
    text.parse()
}

/// A commit hash or a prefix of one: at least 7 hexadecimal digits.
fn parse_commit(text: &str) -> Result<String, String> {
    let hash = text.trim().to_ascii_lowercase();
    if hash.len() >= 7 && hash.len() <= 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(hash)
    } else {
        Err(format!(
            "`{text}` is not a commit hash: give at least 7 of its hexadecimal digits (`git rev-parse HEAD` prints it)"
        ))
    }
}

/// `knotmeter list`.
#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// A package or workspace directory (or its Cargo.toml). Default: the current directory.
    pub path: Option<PathBuf>,
    /// `pretty` (an indented tree) or `json` (the `knotmeter/discover` result).
    #[arg(long, value_enum, default_value_t = ListFormat::Pretty)]
    pub format: ListFormat,
}

/// `knotmeter history`.
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct HistoryArgs {
    /// Something to do with the history instead of printing it.
    #[command(subcommand)]
    pub action: Option<HistoryAction>,
    /// A case id, as `knotmeter list` shows it (e.g. `quickstart::chain_n/1000`): print its
    /// stored results. Without one, print the recorded runs.
    pub id: Option<String>,
    /// The package or workspace whose history to read. Default: the current directory.
    #[arg(long)]
    pub path: Option<PathBuf>,
    /// At most this many runs or results (and comparisons); above 0.
    #[arg(long, default_value_t = 20, value_parser = parse_count, allow_negative_numbers = true)]
    pub limit: u32,
    /// Print the stored comparisons of two builds (`knotmeter compare`), newest first, each
    /// case with its change: `+3.1% [2.6, 3.7] slower than main`. With `--format json`:
    /// `{"comparisons": [...]}`, each as `knotmeter compare --format json` printed it (raw
    /// samples in their stored, compact form).
    #[arg(long, conflicts_with = "id")]
    pub comparisons: bool,
    /// `pretty` (a table) or `json` (the `knotmeter/history` result, or a list of runs).
    #[arg(long, value_enum, default_value_t = ListFormat::Pretty)]
    pub format: ListFormat,
}

/// What `knotmeter history` can do besides printing.
#[derive(Debug, Subcommand)]
pub enum HistoryAction {
    /// Remove old results and comparisons and shrink the file: keeps the newest `--keep`
    /// results of each case on each machine, profile and budget, every result of the latest
    /// run saved under each baseline name, runs still measuring, and the newest
    /// `--keep-comparisons` comparisons of two builds of each pair of sides on each machine.
    Prune(PruneArgs),
    /// Add to this history the runs of other history files it lacks (the shards of a CI run,
    /// each measured into its own file), with all their results, and the comparisons of two
    /// builds it lacks, with all their cases, in one transaction.
    ///
    /// Runs and comparisons are matched by their uid, so nothing is added twice and merging
    /// the same files again changes nothing. Each run keeps its commit, machine, baseline name and status.
    /// The history merged into is the workspace's (or `KNOTMETER_HISTORY`), created when
    /// there is none. Exit status 1 when a run could not be merged (it is named).
    Merge(MergeArgs),
    /// Write the latest complete result of each case for other tools, on standard output or
    /// to `--output`: Bencher's metric format (`bmf`) or github-action-benchmark's
    /// `customSmallerIsBetter` JSON. Medians in nanoseconds, with their 95% interval.
    Export(ExportArgs),
}

/// `knotmeter history merge`.
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The history files to take runs from (e.g. each shard's `history.db`).
    #[arg(required = true, value_name = "FILE")]
    pub sources: Vec<PathBuf>,
    /// The package or workspace whose history to merge into. Default: the current directory.
    #[arg(long)]
    pub path: Option<PathBuf>,
}

/// `knotmeter history export`.
#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// `bmf` (Bencher) or `github-action-benchmark` (its `customSmallerIsBetter` tool).
    #[arg(long, value_enum)]
    pub format: ExportFormat,
    /// Only results of runs made at this commit (a full hash, or its first 7 or more
    /// characters), so older results of cases this run did not measure are left out.
    #[arg(long, value_name = "HASH", value_parser = parse_commit)]
    pub commit: Option<String>,
    /// Write to FILE instead of standard output (written whole or not at all).
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The package or workspace whose history to export. Default: the current directory.
    #[arg(long)]
    pub path: Option<PathBuf>,
}

/// Formats of `knotmeter history export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// Bencher Metric Format: `{"<case id>": {"latency": {"value", "lower_value",
    /// "upper_value"}}}`, in nanoseconds.
    Bmf,
    /// github-action-benchmark's `customSmallerIsBetter`: `[{"name", "unit": "ns", "value",
    /// "range", "extra"}]`.
    GithubActionBenchmark,
}

/// `knotmeter history prune`.
#[derive(Debug, clap::Args)]
pub struct PruneArgs {
    /// Results kept per case and machine (the editor's chart shows 100); above 0.
    #[arg(long, default_value_t = 100, value_parser = parse_count, allow_negative_numbers = true)]
    pub keep: u32,
    /// Comparisons of two builds (`knotmeter compare`) kept per pair of sides (base and head
    /// label) and machine; above 0.
    #[arg(
        long,
        default_value_t = knotmeter_history::DEFAULT_KEEP_COMPARISONS as u32,
        value_parser = parse_count,
        allow_negative_numbers = true
    )]
    pub keep_comparisons: u32,
    /// Say what would be removed, and change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// The package or workspace whose history to prune. Default: the current directory.
    #[arg(long)]
    pub path: Option<PathBuf>,
}

/// Output formats of `knotmeter run`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// A table for people.
    Pretty,
    /// One JSON object per line, per finished item (the `knotmeter/runState` params).
    Jsonl,
    /// One JSON document with every finished item.
    Json,
    /// One CSV row per case, as the bench binary's `--format csv`.
    Csv,
    /// A Markdown summary for a pull request, as the bench binary's `--format markdown`.
    Markdown,
}

/// Output formats of `knotmeter list`, `knotmeter history` and `knotmeter profile`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    /// For people.
    Pretty,
    /// JSON, in the shapes of the editor protocol.
    Json,
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    fn profile_args(args: &[&str]) -> Result<ProfileArgs, clap::Error> {
        let cli = Cli::try_parse_from(["knotmeter", "profile"].iter().chain(args))?;
        match cli.command {
            Command::Profile(args) => Ok(args),
            _ => unreachable!("parsed `profile`"),
        }
    }

    /// One argument is the case, in the current directory; two are PATH and CASE.
    #[test]
    fn profile_takes_a_case_and_perhaps_a_path() {
        let one = profile_args(&["sort_stable"]).unwrap();
        assert_eq!(one.path_and_case(), (PathBuf::from("."), "sort_stable"));
        assert_eq!(one.time, knotmeter_server_profile::DEFAULT_SECONDS);
        let two = profile_args(&["examples/quickstart", "quickstart::sort_stable"]).unwrap();
        assert_eq!(
            two.path_and_case(),
            (
                PathBuf::from("examples/quickstart"),
                "quickstart::sort_stable"
            )
        );
        assert!(profile_args(&[]).is_err(), "a case is needed");
        assert!(profile_args(&["x", "--time", "-1"]).is_err());
    }

    fn run_args(args: &[&str]) -> Result<RunArgs, clap::Error> {
        let cli = Cli::try_parse_from(["knotmeter", "run"].iter().chain(args))?;
        match cli.command {
            Command::Run(args) => Ok(args),
            _ => unreachable!("parsed `run`"),
        }
    }

    #[test]
    fn case_timeout_rejects_what_is_no_duration() {
        for bad in ["inf", "-5", "nan", "0", "1e9", "soon", "-inf"] {
            let flag = format!("--case-timeout={bad}");
            let error = run_args(&[&flag]).unwrap_err();
            assert_eq!(error.exit_code(), 2, "{bad}");
            assert!(
                error.to_string().contains("above 0 and at most 86400"),
                "{bad}: {error}"
            );
        }
        assert_eq!(
            run_args(&["--case-timeout", "2.5"]).unwrap().case_timeout,
            2.5
        );
        assert_eq!(run_args(&[]).unwrap().case_timeout, 120.0);
    }

    #[test]
    fn time_is_checked_before_anything_runs() {
        for bad in ["-1", "0", "inf", "nan"] {
            assert!(run_args(&[&format!("--time={bad}")]).is_err(), "{bad}");
        }
    }

    #[test]
    fn bench_binary_flags_parse_with_their_rules() {
        let args = run_args(&[
            "--baseline",
            "main",
            "--fail-on-regression",
            "5%",
            "--exact",
            "--skip",
            "a",
            "--skip",
            "b",
        ])
        .unwrap();
        assert_eq!(args.baseline.as_deref(), Some("main"));
        assert_eq!(args.fail_on_regression, Some(5.0));
        assert!(args.exact);
        assert_eq!(args.skip, ["a", "b"]);
        // The bench binary refuses these too; here they are refused before any build.
        assert!(run_args(&["--no-history", "--save-baseline", "x"]).is_err());
        assert!(run_args(&["--no-history", "--baseline", "x"]).is_err());
        assert!(run_args(&["--fail-on-regression=-3"]).is_err());
        assert!(run_args(&["--baseline", " "]).is_err());
    }

    /// `--time -1` printed clap's tip "to pass '-1' as a value, use '-- -1'" (which makes it a
    /// filter): every numeric option takes a negative number as its value and says it must
    /// be positive.
    #[test]
    fn negative_numbers_were_taken_for_flags() {
        for args in [
            &["run", "--time", "-1"][..],
            &["run", "--case-timeout", "-5"],
            &["run", "--fail-on-regression", "-3"],
            &["compare", "--time", "-1"],
            &["compare", "--case-timeout", "-1"],
            &["compare", "--noise-threshold", "-1"],
            &["compare", "--fail-on-regression", "-1"],
            &["history", "--limit", "-1"],
            &["history", "--limit", "0"],
            &["history", "prune", "--keep", "-1"],
            &["history", "prune", "--keep-comparisons", "-2"],
        ] {
            let error = Cli::try_parse_from(["knotmeter"].iter().chain(args)).unwrap_err();
            let said = error.to_string();
            assert_eq!(error.exit_code(), 2, "{args:?}: {said}");
            assert!(said.contains("invalid value"), "{args:?}: {said}");
            assert!(
                said.contains("above 0") || said.contains("from 0 to 1000"),
                "{args:?}: {said}"
            );
            assert!(!said.contains("tip:"), "{args:?}: {said}");
        }
        let cli = Cli::try_parse_from(["knotmeter", "history", "--limit", "3"]).unwrap();
        let Command::History(history) = cli.command else {
            unreachable!("parsed `history`")
        };
        assert_eq!(history.limit, 3);
        let cli = Cli::try_parse_from(["knotmeter", "compare", "main", "--time", "0.5"]).unwrap();
        let Command::Compare(compare) = cli.command else {
            unreachable!("parsed `compare`")
        };
        assert_eq!((compare.time, compare.case_timeout), (Some(0.5), 120.0));
    }

    #[test]
    fn a_partition_is_checked_before_anything_runs() {
        let args = run_args(&["--partition", "slice:2/3"]).unwrap();
        assert_eq!(
            args.partition.map(|p| p.to_string()).as_deref(),
            Some("slice:2/3")
        );
        for bad in ["hash:4/3", "hash:1/0", "third", "count:one/3"] {
            let error = run_args(&["--partition", bad]).unwrap_err();
            assert_eq!(error.exit_code(), 2, "{bad}");
        }
    }
}
