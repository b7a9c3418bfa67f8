//! The command line of `knotmeter` (clap derive): `serve`, `run`, `list` and `history`.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

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
    /// The engine records every run in the history store, as `cargo bench` does.
    Run(RunArgs),
    /// Print the benchmarks discovery finds, without building anything.
    List(ListArgs),
    /// Print the recorded runs, or the stored results of one case, newest first; `history
    /// prune` removes old results.
    ///
    /// The history lives at `<target dir>/knotmeter/history.db` (`cargo clean` deletes it), or
    /// wherever `KNOTMETER_HISTORY` points. Times are UTC.
    History(HistoryArgs),
}

/// `knotmeter run`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// A package or workspace directory (or its Cargo.toml). Default: the current directory.
    /// When this is not an existing path it is taken as FILTER.
    pub path: Option<String>,
    /// Run only cases whose id contains this text.
    pub filter: Option<String>,
    /// About 100 ms per case instead of about 1 s.
    #[arg(long)]
    pub quick: bool,
    /// Time budget per case in seconds (the engine's `--time`).
    #[arg(long, value_name = "SECS")]
    pub time: Option<f64>,
    /// Stop a case that runs longer than this many seconds and mark it errored.
    #[arg(long, value_name = "SECS", default_value_t = 120.0)]
    pub case_timeout: f64,
    /// Output: a table (`pretty`), one JSON object per finished case (`jsonl`), or one JSON
    /// document at the end (`json`).
    #[arg(long, value_enum, default_value_t = Format::Pretty)]
    pub format: Format,
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
    /// At most this many runs or results.
    #[arg(long, default_value_t = 20)]
    pub limit: u32,
    /// `pretty` (a table) or `json` (the `knotmeter/history` result, or a list of runs).
    #[arg(long, value_enum, default_value_t = ListFormat::Pretty)]
    pub format: ListFormat,
}

/// What `knotmeter history` can do besides printing.
#[derive(Debug, Subcommand)]
pub enum HistoryAction {
    /// Remove old results and shrink the file: keeps the newest `--keep` results of each case
    /// on each machine, profile and budget, every result of the latest run saved under each
    /// baseline name, and runs still measuring.
    Prune(PruneArgs),
}

/// `knotmeter history prune`.
#[derive(Debug, clap::Args)]
pub struct PruneArgs {
    /// Results kept per case and machine (the editor's chart shows 100).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..))]
    pub keep: u32,
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
}

/// Output formats of `knotmeter list` and `knotmeter history`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    /// For people.
    Pretty,
    /// JSON, in the shapes of the editor protocol.
    Json,
}
