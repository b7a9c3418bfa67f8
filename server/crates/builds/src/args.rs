//! What a two-build comparison is asked to do: [`BuildsRequest`], which the editor's
//! comparison builds directly and `knotmeter compare`'s command line ([`BuildsArgs`], parsed
//! by clap) turns into with [`BuildsArgs::request`]. Everything that measures reads the
//! request; only the command line's output format and gate stay with the command line.
//!
//! `[REV] [PATH] [FILTER]` ([`Words`]): the first word is REV unless it is an existing path and
//! names no commit; the next is PATH when it exists (with three words it must), else FILTER.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::bail;
use clap::ValueEnum;
use knotmeter_format::values;
use knotmeter_protocol::Measure;

use super::git;

/// A two-build comparison, typed: which sides, which cases, how long.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildsRequest {
    /// The base's revision (a commit, branch or tag); `None` for the default base (the
    /// working tree's `HEAD`, or its merge base with the main branch).
    pub base: Option<String>,
    /// The package or workspace directory to compare.
    pub path: PathBuf,
    /// Only cases whose id contains this.
    pub filter: Option<String>,
    /// The head's revision instead of the working tree.
    pub head: Option<String>,
    /// About 100 ms per case and side, in five rounds, instead of about 1 s in ten.
    pub quick: bool,
    /// Time budget per case and side in seconds (the engine's `--time`).
    pub time: Option<f64>,
    /// Changes smaller than this percentage are `same` (the bench binary's default without).
    pub noise_threshold: Option<f64>,
    /// A case whose bench binaries send nothing for this long has hung.
    pub case_timeout: Duration,
    /// Both bench binaries run on one CPU, the idlest.
    pub pin: bool,
    /// The comparison is stored in the history.
    pub store: bool,
    /// What is compared: times, or instructions counted under callgrind (one count of each
    /// side, no rounds: the same build counts the same in any process).
    pub measure: Measure,
}

/// `knotmeter compare`.
#[derive(Debug, Clone, clap::Args)]
pub struct BuildsArgs {
    /// `[REV] [PATH] [FILTER]`: the commit, branch or tag to compare with; a package or
    /// workspace directory (default: the current directory); only cases whose id contains
    /// FILTER. A first word that is an existing path and not a revision is the PATH.
    #[arg(value_name = "REV PATH FILTER", num_args = 0..=3)]
    pub words: Vec<String>,
    /// Compare this commit instead of the working tree.
    #[arg(long, value_name = "REV")]
    pub head: Option<String>,
    /// About 100 ms per case and side instead of about 1 s.
    #[arg(long)]
    pub quick: bool,
    /// Time budget per case and side in seconds (the engine's `--time`), above 0 and at most
    /// 86400.
    #[arg(long, value_name = "SECS", value_parser = values::seconds, allow_negative_numbers = true)]
    pub time: Option<f64>,
    /// Changes smaller than PCT percent are called `same` (default 0.5, the bench binary's).
    #[arg(long, value_name = "PCT", value_parser = values::percent, allow_negative_numbers = true)]
    pub noise_threshold: Option<f64>,
    /// Exit with status 1 when a case is `slower` by more than PCT percent, or when nothing
    /// could be compared.
    #[arg(long, value_name = "PCT", value_parser = values::percent, allow_negative_numbers = true)]
    pub fail_on_regression: Option<f64>,
    /// Stop a case whose bench binaries send nothing for this many seconds (a hang); above 0
    /// and at most 86400.
    #[arg(
        long,
        value_name = "SECS",
        default_value = "120",
        value_parser = values::seconds,
        allow_negative_numbers = true
    )]
    pub case_timeout: f64,
    /// Let the two bench binaries run on any CPU (by default both are pinned to one, so
    /// neither side gets a slower CPU than the other; a benchmark's threads then share it).
    #[arg(long)]
    pub no_pin: bool,
    /// Do not store the comparison in the history.
    #[arg(long)]
    pub no_history: bool,
    /// Output: a table (`pretty`), a pull-request comment (`markdown`), or the whole comparison
    /// (`json`).
    #[arg(long, value_enum, default_value_t = BuildsFormat::Pretty)]
    pub format: BuildsFormat,
    /// Profile case CASE (its id or name, whole) on both builds instead of measuring, and list
    /// the functions whose own cost changed most (docs/profile.md). `--time` is then the budget
    /// under the profiler.
    #[arg(long, value_name = "CASE", conflicts_with_all = ["quick", "fail_on_regression", "noise_threshold"])]
    pub profile: Option<String>,
    /// With `--profile`: `callgrind` counts instructions, `perf` samples CPU time.
    #[arg(long, value_enum, default_value_t = Profiler::Callgrind, requires = "profile")]
    pub profiler: Profiler,
    /// With `--profile`: how many functions to list.
    #[arg(long, value_name = "N", default_value_t = 15, requires = "profile")]
    pub top: usize,
    /// What to compare: `time`, or `instructions`: each case's instructions per operation
    /// counted under Valgrind's callgrind on both builds (needs `valgrind`;
    /// docs/instructions.md). A count needs no rounds: each side is counted once.
    #[arg(long, value_enum, default_value_t = MeasureArg::Time, conflicts_with = "profile")]
    pub measure: MeasureArg,
}

/// What `--measure` measures (`knotmeter run`, `knotmeter compare`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MeasureArg {
    /// Wall time per operation.
    Time,
    /// Instructions per operation, counted under Valgrind's callgrind.
    Instructions,
}

impl From<MeasureArg> for Measure {
    fn from(arg: MeasureArg) -> Self {
        match arg {
            MeasureArg::Time => Measure::Time,
            MeasureArg::Instructions => Measure::Instructions,
        }
    }
}

/// The profilers of `--profiler` (`knotmeter profile`, `knotmeter compare --profile`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Profiler {
    /// Valgrind's callgrind: instructions executed, counted.
    Callgrind,
    /// Linux perf: CPU time, sampled.
    Perf,
}

impl From<Profiler> for knotmeter_protocol::ProfileTool {
    fn from(profiler: Profiler) -> Self {
        match profiler {
            Profiler::Callgrind => knotmeter_protocol::ProfileTool::Callgrind,
            Profiler::Perf => knotmeter_protocol::ProfileTool::Perf,
        }
    }
}

impl BuildsArgs {
    /// The request this command line makes: `[REV] [PATH] [FILTER]` told apart (a word is a
    /// revision, a path or a filter by what it names in the current directory's repository).
    pub fn request(&self) -> anyhow::Result<BuildsRequest> {
        let Words { rev, path, filter } = Words::parse(&self.words)?;
        Ok(BuildsRequest {
            base: rev,
            path: path.unwrap_or_else(|| PathBuf::from(".")),
            filter,
            head: self.head.clone(),
            quick: self.quick,
            time: self.time,
            noise_threshold: self.noise_threshold,
            case_timeout: Duration::from_secs_f64(self.case_timeout.max(0.001)),
            pin: !self.no_pin,
            store: !self.no_history,
            measure: self.measure.into(),
        })
    }
}

/// Output formats of `knotmeter compare`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BuildsFormat {
    /// A table for people.
    Pretty,
    /// A table for a pull-request comment.
    Markdown,
    /// The `CompareReport` document (docs/json-format.md).
    Json,
}

/// The command line's `[REV] [PATH] [FILTER]`, told apart.
pub struct Words {
    /// The base's revision, as given.
    pub rev: Option<String>,
    /// The package or workspace to compare.
    pub path: Option<PathBuf>,
    /// Only cases whose id contains this.
    pub filter: Option<String>,
}

impl Words {
    /// Tells REV, PATH and FILTER apart in `words`: the first is REV unless it is an existing
    /// path and names no commit; the next is PATH when it exists (with three words it must),
    /// else FILTER.
    pub fn parse(words: &[String]) -> anyhow::Result<Words> {
        let cwd_root = git::toplevel(Path::new("."));
        let is_rev = |word: &str| {
            cwd_root
                .as_ref()
                .ok()
                .and_then(|root| git::commit_of(root, word).ok().flatten())
                .is_some()
        };
        let mut words = words.iter();
        let (mut rev, mut path, mut filter) = (None, None, None);
        if let Some(first) = words.next() {
            if Path::new(first).exists() && !is_rev(first) {
                path = Some(PathBuf::from(first));
            } else {
                rev = Some(first.clone());
            }
        }
        let rest: Vec<&String> = words.collect();
        match (path.is_some(), rest.as_slice()) {
            (_, []) => {}
            (true, [f]) => filter = Some((*f).clone()),
            (false, [p]) if Path::new(p.as_str()).exists() => path = Some(PathBuf::from(p)),
            (false, [f]) => filter = Some((*f).clone()),
            (false, [p, f]) => {
                if !Path::new(p.as_str()).exists() {
                    bail!(
                        "the PATH `{p}` does not exist (knotmeter compare [REV] [PATH] [FILTER])"
                    );
                }
                path = Some(PathBuf::from(p));
                filter = Some((*f).clone());
            }
            _ => bail!(
                "too many words: knotmeter compare [REV] [PATH] [FILTER], and a first word that \
                 is a path leaves room for one more"
            ),
        }
        Ok(Words { rev, path, filter })
    }
}
