//! Running benchmarks: one job builds the targets it needs, lists each bench binary, then
//! runs it with `--bench --format jsonl --stdin-cancel --exact <ids>` and turns each line
//! into an item state as soon as it arrives ([`binary`]).
//!
//! The session runs one job at a time (parallel benchmarks disturb each other); this module
//! runs one job. What can go wrong and what the items become:
//!
//! | what happens | the item in progress | the other items |
//! |---|---|---|
//! | a panic in the benchmark (`case_failed`, kind `panic`) | `failed`, with message and location | run on |
//! | the binary dies of a signal or exits during a case | `errored`, with the signal or status | run on in a new process |
//! | a case falls silent (a hang, see [`hang`]) | `errored`, saying what was waited for; the group is killed | run on in a new process |
//! | a compile error | `errored`: "the build failed: " and the first error | same |
//! | the target lacks `harness = false` | `errored`, with the line to add; it is not built | same |
//! | the binary refuses its command line (status 2 before its run starts) | `skipped`; the job stops: the same flags go to every binary | `skipped` |
//! | cancel | the engine stops at the next sample boundary and reports what it measured (`skipped`, with the partial result); after the grace period the group is killed | `skipped` |
//! | a line that is not an event | reported as the binary's own output | unaffected |
//! | the binary exits while a process it started holds its pipes open | as the binary left it: the process is over when the binary exits, not when its pipes close ([`binary`]) | same |
//! | the benchmark prints faster than it is shown | its lines gathered; the oldest waiting dropped and said ([`outflow`]) | unaffected |
//!
//! Besides item states, a job reports each fault as a [`Problem`], so that a front end can
//! say once what happened and choose its exit status (`knotmeter run`).

mod binary;
pub mod hang;
mod outflow;
mod printed;

pub use binary::{describe, LineReader};
pub use outflow::Held;
pub use outflow::MAX_LINE_BYTES;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use knotmeter_protocol::editor::{ItemState, RunMode, SourceLocation};
use knotmeter_protocol::{
    partition_unit, BenchResult, BenchSummary, Comparison, ListDocument, ListEntry, Manifest,
    Partition, PartitionKind,
};
use tokio::process::Command;
use tokio_util::sync::CancellationToken;

use crate::cargo_build::{self, BuildEvent, CompilerError};
use crate::discovery::harness::{self, Harness};
use crate::discovery::{TargetRef, Workspace};
use crate::process::Children;

/// One run: which leaf ids of which targets, how long to measure.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// The run's id.
    pub run_id: u32,
    /// Quick or full.
    pub mode: RunMode,
    /// Leaf ids grouped by bench target, in run order: one bench binary process each. A
    /// target may come more than once (run-on-save's edited cases first, then the rest).
    pub targets: Vec<(TargetRef, Vec<String>)>,
}

impl Job {
    /// Every leaf id of the job.
    pub fn ids(&self) -> impl Iterator<Item = &String> {
        self.targets.iter().flat_map(|(_, ids)| ids)
    }
}

/// How runs are carried out.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOptions {
    /// The silence allowed while nothing says how long a step takes: before a case's first
    /// step reports, between cases, at start-up and at the end (`--case-timeout`). Once a
    /// step has reported, a case may be silent for ten times its longest step (see [`hang`]).
    pub silence_limit: Duration,
    /// The engine's `--time` for quick runs (default: its `--quick` budget).
    pub quick_time: Option<f64>,
    /// The engine's `--time` for full runs (default: its own).
    pub full_time: Option<f64>,
    /// How long a cancelled bench binary may take before its group is killed.
    pub cancel_grace: Duration,
    /// Flags passed to every bench binary as they are (`--baseline NAME`, `--no-history`, …):
    /// the bench binary owns their meaning and their errors.
    pub bench_args: Vec<String>,
    /// The shard of a partitioned run (`knotmeter run --partition`). The job's ids are that
    /// shard already; a criterion target selected whole is partitioned here once its binary
    /// lists its benchmarks (`count` and `hash` only: under `slice` it was one unit).
    pub partition: Option<Partition>,
}

/// The default of [`RunOptions::silence_limit`].
pub const DEFAULT_SILENCE_LIMIT: Duration = Duration::from_secs(120);

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            silence_limit: DEFAULT_SILENCE_LIMIT,
            quick_time: None,
            full_time: None,
            cancel_grace: Duration::from_secs(2),
            bench_args: Vec::new(),
            partition: None,
        }
    }
}

/// A fault of a job, reported once beside the item states it causes.
#[derive(Debug, Clone, PartialEq)]
pub enum Problem {
    /// The target could not be built; `message` starts with the first compiler error.
    Build {
        /// The target.
        target: TargetRef,
        /// Why.
        message: String,
    },
    /// The target runs under libtest's harness (`harness = false` is missing): knotmeter's
    /// `main!` never runs in it.
    Harness {
        /// The target.
        target: TargetRef,
        /// What to add where.
        message: String,
    },
    /// The bench binary refused its command line (status 2 before its run started: a bad
    /// flag, an unknown baseline). The job stopped; nothing more ran.
    Refused {
        /// The target.
        target: TargetRef,
        /// Its status and the first line it wrote (the whole text went out as
        /// [`JobEvent::Printed`]).
        message: String,
    },
    /// The bench binary died: during `case`, or before running anything.
    Crashed {
        /// The target.
        target: TargetRef,
        /// The case in progress.
        case: Option<String>,
        /// How it died.
        message: String,
    },
    /// A case (or the binary outside any case) fell silent and was taken for hung; the
    /// binary was killed.
    Hung {
        /// The target.
        target: TargetRef,
        /// The case in progress.
        case: Option<String>,
        /// What was waited for.
        message: String,
    },
    /// The bench binary ended its run but exited with a failure status: a failed case, or
    /// its `--fail-on-regression` gate.
    FailedExit {
        /// The target.
        target: TargetRef,
        /// Its exit status.
        code: i32,
    },
    /// A comparison run's base cannot be compared with (it does not build, its knotmeter
    /// predates driven mode, or no commit is named by it): the head's cases are measured on
    /// their own, each warned `not_compared`.
    BaseUnusable {
        /// One line naming the base and why: `the base (main) does not build: error[E0425]: …`.
        message: String,
    },
}

/// What a job reports, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum JobEvent {
    /// Build output and progress.
    Build(BuildEvent),
    /// The build ended; these are all its compiler errors (none: clear earlier ones).
    Built {
        /// The compiler errors.
        errors: Vec<CompilerError>,
    },
    /// A bench binary's `--list --format json`, to reconcile discovery with.
    Listed(TargetRef, Vec<ListEntry>),
    /// A bench binary started measuring: where and how.
    Manifest(Box<Manifest>),
    /// An item changed state.
    State {
        /// The leaf id.
        id: String,
        /// The new state.
        state: ItemState,
        /// The measurement, if any.
        result: Option<Box<BenchResult>>,
        /// Why, for failures, errors and skips.
        message: Option<String>,
        /// Where `message` points in the sources: a panic's location, a compiler error's.
        location: Option<SourceLocation>,
    },
    /// Text the daemon writes for the run's output: the manifest line, a finished case's
    /// table, notes.
    Output {
        /// The item it is about, if any.
        id: Option<String>,
        /// The text (without a trailing line break).
        text: String,
    },
    /// Lines the bench binary wrote itself (its standard error, or standard output that is
    /// not an event): the benchmark's own prints and the engine's messages, gathered and
    /// bounded (`runs/outflow.rs`: a line may be cut, and a marker may say what was dropped).
    Printed {
        /// The case in progress when they were written, if any.
        id: Option<String>,
        /// The lines, joined by line breaks, without a final one.
        text: String,
        /// Their share of the printed text in flight: keep it until the text is written.
        held: Held,
    },
    /// A fault, said once (the item states it causes follow).
    Problem(Problem),
    /// All cases of a benchmark finished: its scaling analysis.
    Summary(BenchSummary),
    /// A passed case's comparison (of any kind: with its group's baseline, its history, or the
    /// base build), computed at the end of the run: its result gains it.
    Comparison {
        /// The leaf id.
        id: String,
        /// The comparison with its verdict.
        comparison: Comparison,
    },
    /// A comparison of two builds ("Compare with base") is over: the whole of it as shown.
    BuildsShown(Box<knotmeter_protocol::ShownComparison>),
    /// A case's profile (a profile job: `RunParams::profile`), with when it was stored in the
    /// history (None when it could not be); the case's `passed` follows.
    Profiled {
        /// The profile.
        profile: Box<knotmeter_protocol::Profile>,
        /// When it was stored, in seconds since the Unix epoch.
        stored_at: Option<i64>,
    },
    /// A case profiled on two builds (a profile job with a base: "Compare with base" with
    /// profiling on); the case's `passed` follows.
    ProfileCompared(Box<knotmeter_protocol::ProfileComparison>),
    /// Measurement progress of a case.
    Progress {
        /// The leaf id.
        id: String,
        /// Fraction of its time budget spent.
        fraction: f64,
    },
    /// The job is over: every item has reached a final state.
    Finished,
}

/// Where a job's events go.
pub type Sink = Box<dyn FnMut(JobEvent) + Send>;

/// Carries out `job`: build, list, run; every item reaches a final state, then
/// [`JobEvent::Finished`].
pub async fn execute(
    job: Job,
    workspace: Workspace,
    options: RunOptions,
    children: Children,
    cancel: CancellationToken,
    mut sink: Sink,
) {
    let mut tracker = Tracker::new(&mut sink);
    let ids: Vec<String> = job.ids().cloned().collect();
    for id in &ids {
        tracker.state(id, ItemState::Building, None, None);
    }
    let targets = targets_to_build(&mut tracker, &workspace, &job);
    let runner = Runner {
        // The engine records each run in the history store; name the file the daemon reads,
        // so both agree whatever the layout of the target directory.
        history: knotmeter_history::resolve_path(Some(&workspace.target_dir)),
        workspace: &workspace,
        options: &options,
        children: &children,
        cancel: &cancel,
        mode: job.mode,
    };
    let outcome = runner.build(&mut tracker, &targets).await;
    (tracker.sink)(JobEvent::Built {
        errors: outcome.errors.clone(),
    });
    for (target, ids) in &job.targets {
        if cancel.is_cancelled() || tracker.stopped.is_some() {
            break;
        }
        if targets.contains(target) {
            runner.run_target(&mut tracker, &outcome, target, ids).await;
        }
    }
    tracker.skip_unfinished(&ids, cancel.is_cancelled());
    sink(JobEvent::Finished);
}

/// The distinct targets of `job` to build, in order. A target under libtest's harness cannot
/// run: its items are errored without building it. A target may come more than once
/// (run-on-save runs the edited cases in a process of their own first): it is built once.
fn targets_to_build(tracker: &mut Tracker<'_>, workspace: &Workspace, job: &Job) -> Vec<TargetRef> {
    let mut targets: Vec<TargetRef> = Vec::new();
    for (target, ids) in &job.targets {
        match harness_problem(workspace, target) {
            Some(message) => tracker.harness(target, ids, message),
            None if !targets.contains(target) => targets.push(target.clone()),
            None => {}
        }
    }
    targets
}

/// What every target of one job shares while it is built, listed and run.
struct Runner<'a> {
    /// The history store the bench binaries record into (the one the daemon reads).
    history: PathBuf,
    /// The workspace of the job's targets.
    workspace: &'a Workspace,
    /// How the job runs.
    options: &'a RunOptions,
    /// Where every child process is started.
    children: &'a Children,
    /// The job's cancel.
    cancel: &'a CancellationToken,
    /// Quick or full.
    mode: RunMode,
}

impl Runner<'_> {
    /// Builds `targets` (none: nothing is built), sending the build's events.
    async fn build(
        &self,
        tracker: &mut Tracker<'_>,
        targets: &[TargetRef],
    ) -> cargo_build::BuildOutcome {
        if targets.is_empty() {
            return cargo_build::BuildOutcome::default();
        }
        let sink = &mut *tracker.sink;
        let mut events = |event| sink(JobEvent::Build(event));
        cargo_build::build(
            self.workspace,
            targets,
            self.children,
            self.cancel,
            &mut events,
        )
        .await
    }

    /// One entry of the job: `ids` of `target`, listed, then run by its bench binary (or
    /// errored when the build gave it no executable).
    async fn run_target(
        &self,
        tracker: &mut Tracker<'_>,
        outcome: &cargo_build::BuildOutcome,
        target: &TargetRef,
        ids: &[String],
    ) {
        let Some(exe) = outcome.executables.get(target) else {
            if !outcome.cancelled {
                let message = build_failure(outcome, target, &self.workspace.root);
                tracker.problem(Problem::Build {
                    target: target.clone(),
                    message: message.clone(),
                });
                let location = first_error(outcome, target).map(location_of);
                tracker.settle_all_at(ids, ItemState::Errored, &message, location.as_ref());
            }
            return;
        };
        let dir = self.package_dir(target);
        let listing = list(exe, &dir, self.children).await;
        let expanded: Vec<String>;
        let ids = if ids.contains(&target.item_id()) {
            expanded = self.expand_whole(tracker, target, &listing);
            &expanded
        } else {
            ids
        };
        let Some(present) = self.listed(tracker, target, ids, listing) else {
            return;
        };
        binary::run(
            tracker,
            binary::Launch {
                target,
                exe,
                dir: &dir,
                history: &self.history,
                mode: self.mode,
                options: self.options,
            },
            present,
            self.children,
            self.cancel,
        )
        .await;
    }

    /// The directory of `target`'s package, where its bench binary runs (the workspace's root
    /// when the package is not found).
    fn package_dir(&self, target: &TargetRef) -> PathBuf {
        self.workspace
            .packages
            .iter()
            .find(|p| p.name == target.package)
            .map_or_else(|| self.workspace.root.clone(), |p| p.dir().to_path_buf())
    }

    /// A criterion target never listed before was selected whole (its id stands for its
    /// benchmarks, which only the binary knows): its own item is settled, and now that they
    /// are known, the ids of every listed benchmark (of the run's shard) are returned.
    fn expand_whole(
        &self,
        tracker: &mut Tracker<'_>,
        target: &TargetRef,
        listing: &Result<ListDocument, ListFailure>,
    ) -> Vec<String> {
        let (state, message) = match listing {
            Ok(doc) => (
                ItemState::Skipped,
                format!(
                    "the build listed {} criterion benchmarks; they run as their own items",
                    doc.cases.len()
                ),
            ),
            Err(ListFailure::Libtest) => {
                (ItemState::Errored, libtest_message(self.workspace, target))
            }
            Err(ListFailure::Other(why)) => (ItemState::Errored, why.clone()),
        };
        tracker.state(&target.item_id(), state, None, Some(message));
        listing
            .as_ref()
            .map(|doc| shard_of_listing(&doc.cases, self.options.partition))
            .unwrap_or_default()
    }

    /// The ids of `ids` to run, by the bench binary's `listing`: those it lacks are skipped,
    /// and the listing is sent. Without a listing all of them run, except when the binary
    /// answered like libtest: its items are errored and `None` says nothing runs.
    fn listed(
        &self,
        tracker: &mut Tracker<'_>,
        target: &TargetRef,
        ids: &[String],
        listing: Result<ListDocument, ListFailure>,
    ) -> Option<Vec<String>> {
        match listing {
            Ok(doc) => {
                let listed: HashSet<&str> = doc
                    .cases
                    .iter()
                    .flat_map(|c| [c.id.as_str(), c.bench_id.as_str()])
                    .collect();
                let (present, absent): (Vec<String>, Vec<String>) = ids
                    .iter()
                    .cloned()
                    .partition(|id| listed.contains(id.as_str()));
                tracker.settle_all(
                    &absent,
                    ItemState::Skipped,
                    "the built bench binary has no such benchmark (a `#[cfg]` may leave it out, \
                     or the source changed since the build)",
                );
                (tracker.sink)(JobEvent::Listed(target.clone(), doc.cases));
                Some(present)
            }
            Err(ListFailure::Libtest) => {
                let message = libtest_message(self.workspace, target);
                tracker.harness(target, ids, message);
                None
            }
            Err(ListFailure::Other(message)) => {
                tracker.output(None, message);
                Some(ids.to_vec())
            }
        }
    }
}

/// The ids of `cases` (a bench binary's listing) in the shard of `partition`, keyed as the
/// engine keys its units; all of them without a partition, or under `slice`.
fn shard_of_listing(cases: &[ListEntry], partition: Option<Partition>) -> Vec<String> {
    let Some(partition) = partition.filter(|p| p.kind != PartitionKind::Slice) else {
        return cases.iter().map(|c| c.id.clone()).collect();
    };
    let units: Vec<String> = cases
        .iter()
        .map(|c| partition_unit(&c.bench_id, c.group.as_deref()))
        .collect();
    let kept = partition.shard_units(units.iter().map(String::as_str));
    cases
        .iter()
        .zip(&units)
        .filter(|(_, unit)| kept.contains(unit.as_str()))
        .map(|(case, _)| case.id.clone())
        .collect()
}

/// Sends states and remembers which items are final.
struct Tracker<'a> {
    finals: HashSet<String>,
    sink: &'a mut Sink,
    /// Why the job stopped early (the remaining targets do not run), if it did.
    stopped: Option<String>,
}

impl<'a> Tracker<'a> {
    fn new(sink: &'a mut Sink) -> Self {
        Self {
            finals: HashSet::new(),
            sink,
            stopped: None,
        }
    }

    fn state(
        &mut self,
        id: &str,
        state: ItemState,
        result: Option<Box<BenchResult>>,
        message: Option<String>,
    ) {
        self.state_at(id, state, result, message, None);
    }

    /// [`Tracker::state`] with the place in the sources its message is about.
    fn state_at(
        &mut self,
        id: &str,
        state: ItemState,
        result: Option<Box<BenchResult>>,
        message: Option<String>,
        location: Option<SourceLocation>,
    ) {
        if self.finals.contains(id) {
            return;
        }
        if state.is_final() {
            self.finals.insert(id.to_owned());
        }
        (self.sink)(JobEvent::State {
            id: id.to_owned(),
            state,
            result,
            message,
            location,
        });
    }

    fn output(&mut self, id: Option<&str>, text: String) {
        (self.sink)(JobEvent::Output {
            id: id.map(str::to_owned),
            text,
        });
    }

    fn problem(&mut self, problem: Problem) {
        (self.sink)(JobEvent::Problem(problem));
    }

    /// `target` runs under libtest's harness: its items are errored with `message`.
    fn harness(&mut self, target: &TargetRef, ids: &[String], message: String) {
        self.problem(Problem::Harness {
            target: target.clone(),
            message: message.clone(),
        });
        self.settle_all(ids, ItemState::Errored, &message);
    }

    /// Each of `ids` reaches `state` (final) with `message`, unless it is final already.
    fn settle_all(&mut self, ids: &[String], state: ItemState, message: &str) {
        self.settle_all_at(ids, state, message, None);
    }

    /// [`Tracker::settle_all`] with the place in the sources the message is about.
    fn settle_all_at(
        &mut self,
        ids: &[String],
        state: ItemState,
        message: &str,
        location: Option<&SourceLocation>,
    ) {
        for id in ids {
            self.state_at(id, state, None, Some(message.to_owned()), location.cloned());
        }
    }

    /// The end of a job: each of `ids` not final yet is skipped, saying why it did not run.
    fn skip_unfinished(&mut self, ids: &[String], cancelled: bool) {
        let message = if cancelled {
            "cancelled".to_owned()
        } else if let Some(why) = &self.stopped {
            format!("not run: {why}")
        } else {
            "not run".to_owned()
        };
        for id in ids {
            if !self.finals.contains(id) {
                self.state(id, ItemState::Skipped, None, Some(message.clone()));
            }
        }
    }
}

/// The explanation when the manifest shows that `target` lacks `harness = false`.
fn harness_problem(workspace: &Workspace, target: &TargetRef) -> Option<String> {
    let package = workspace
        .packages
        .iter()
        .find(|p| p.name == target.package)?;
    let bench = package.targets.iter().find(|t| t.name == target.target)?;
    match bench.harness {
        Harness::Libtest { entry_line } => Some(harness::explain(
            &package.name,
            &bench.name,
            &package.manifest_path,
            entry_line.is_none(),
        )),
        Harness::Custom | Harness::Unknown => None,
    }
}

/// The explanation when the built binary answered like libtest.
fn libtest_message(workspace: &Workspace, target: &TargetRef) -> String {
    let manifest = workspace
        .packages
        .iter()
        .find(|p| p.name == target.package)
        .map_or_else(
            || workspace.root.join("Cargo.toml"),
            |p| p.manifest_path.clone(),
        );
    let implicit = workspace
        .packages
        .iter()
        .flat_map(|p| &p.targets)
        .find(|t| t.name == target.target)
        .is_some_and(|t| t.harness == (Harness::Libtest { entry_line: None }));
    harness::explain(&target.package, &target.target, &manifest, implicit)
}

/// Why `target` has no executable. The first line says it all: "the build failed: " and the
/// first compiler error with its place; every rendered error follows.
pub fn build_failure(
    outcome: &cargo_build::BuildOutcome,
    target: &TargetRef,
    root: &Path,
) -> String {
    let Some(errors) = errors_of(outcome, target) else {
        return outcome.failure.clone().unwrap_or_default();
    };
    let Some(first) = errors.first() else {
        return format!(
            "cargo produced no executable for the bench target `{}` of `{}`",
            target.target, target.package
        );
    };
    let code = first
        .code
        .as_deref()
        .map_or(String::new(), |c| format!("[{c}]"));
    let file = first.file.strip_prefix(root).unwrap_or(&first.file);
    let more = match errors.len() {
        1 => String::new(),
        2 => " (and 1 more error)".to_owned(),
        n => format!(" (and {} more errors)", n - 1),
    };
    let rendered: Vec<&str> = errors.iter().map(|e| e.rendered.trim_end()).collect();
    format!(
        "the build failed: error{code}: {} at {}:{}:{}{more}\n{}",
        first.message.lines().next().unwrap_or_default().trim_end(),
        file.display(),
        first.range.start.line + 1,
        first.range.start.character + 1,
        rendered.join("\n")
    )
}

/// The compiler errors that explain why `target` has no executable: its package's, or every
/// error when none is its package's; `None` when there is none of its package's and cargo
/// said why otherwise (`outcome.failure`).
fn errors_of<'a>(
    outcome: &'a cargo_build::BuildOutcome,
    target: &TargetRef,
) -> Option<Vec<&'a CompilerError>> {
    let mine: Vec<&CompilerError> = outcome
        .errors
        .iter()
        .filter(|e| e.package == target.package)
        .collect();
    if !mine.is_empty() {
        Some(mine)
    } else if outcome.failure.is_some() {
        None
    } else {
        Some(outcome.errors.iter().collect())
    }
}

/// The compiler error [`build_failure`]'s first line names for `target`.
fn first_error<'a>(
    outcome: &'a cargo_build::BuildOutcome,
    target: &TargetRef,
) -> Option<&'a CompilerError> {
    errors_of(outcome, target)?.into_iter().next()
}

/// Where a compiler error is: its primary span's start, its file absolute.
fn location_of(error: &CompilerError) -> SourceLocation {
    SourceLocation {
        file: error.file.display().to_string(),
        line: error.range.start.line,
        character: error.range.start.character,
    }
}

/// Where the first of `errors` of `package` is (of any package when none is its), for a
/// message about a failed build of that package's target.
pub fn compiler_error_location(errors: &[CompilerError], package: &str) -> Option<SourceLocation> {
    errors
        .iter()
        .find(|e| e.package == package)
        .or_else(|| errors.first())
        .map(location_of)
}

/// Why `--list --format json` gave no list.
enum ListFailure {
    /// The binary answered like libtest: `harness = false` is missing.
    Libtest,
    /// Anything else, said for the run's output.
    Other(String),
}

/// What libtest says to `--list --format json` on a stable compiler, or to a flag it lacks.
const LIBTEST_REPLIES: [&str; 2] = [
    "is only accepted on the nightly compiler",
    "Unrecognized option",
];

/// How long `--list` may take before the binary is taken for stuck.
const LIST_TIMEOUT: Duration = Duration::from_secs(30);

/// `exe --list --format json`. The list is what the binary printed before it exited: a
/// process it started (a criterion group function runs while listing) may hold its pipes open
/// for ever, so they are read until it exits and for at most a second more, and what it left
/// in its process group is ended then.
async fn list(exe: &Path, dir: &Path, children: &Children) -> Result<ListDocument, ListFailure> {
    let mut command = Command::new(exe);
    command
        .args(["--list", "--format", "json"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let (mut child, group) = children.spawn(command).await.map_err(|e| {
        ListFailure::Other(format!(
            "cannot start the bench binary {}: {e}",
            exe.display()
        ))
    })?;
    let stop_reading = CancellationToken::new();
    let stdout = tokio::spawn(read_all(child.stdout.take(), stop_reading.clone()));
    let stderr = tokio::spawn(read_all(child.stderr.take(), stop_reading.clone()));
    let exited = tokio::time::timeout(LIST_TIMEOUT, child.wait()).await;
    group.kill_leftovers();
    let stop_later = stop_reading.clone();
    tokio::spawn(async move {
        tokio::time::sleep(LIST_DRAIN).await;
        stop_later.cancel();
    });
    let _stop_on_return = stop_reading.drop_guard();
    match exited {
        Err(_) => {
            return Err(ListFailure::Other(format!(
                "{} --list did not answer within {} s",
                exe.display(),
                LIST_TIMEOUT.as_secs()
            )))
        }
        Ok(Err(e)) => {
            return Err(ListFailure::Other(format!(
                "{} --list failed: {e}",
                exe.display()
            )))
        }
        Ok(Ok(_)) => {}
    }
    let (stdout, stderr) = (
        stdout.await.unwrap_or_default(),
        stderr.await.unwrap_or_default(),
    );
    serde_json::from_slice(&stdout).map_err(|e| {
        let stderr = String::from_utf8_lossy(&stderr);
        if LIBTEST_REPLIES.iter().any(|reply| stderr.contains(reply)) {
            return ListFailure::Libtest;
        }
        ListFailure::Other(format!(
            "{} --list --format json printed something unreadable ({e}); running the requested ids anyway",
            exe.display()
        ))
    })
}

/// How long the pipes of `--list` are still read after the binary exited.
const LIST_DRAIN: Duration = Duration::from_secs(1);

/// What `pipe` gives until it closes or `stop` is cancelled (nothing when there is no pipe).
async fn read_all(
    pipe: Option<impl tokio::io::AsyncRead + Unpin>,
    stop: CancellationToken,
) -> Vec<u8> {
    let mut bytes = Vec::new();
    let Some(mut pipe) = pipe else {
        return bytes;
    };
    let mut chunk = [0u8; 8192];
    loop {
        tokio::select! {
            read = tokio::io::AsyncReadExt::read(&mut pipe, &mut chunk) => match read {
                Ok(0) | Err(_) => return bytes,
                Ok(n) => bytes.extend_from_slice(&chunk[..n]),
            },
            () = stop.cancelled() => return bytes,
        }
    }
}
