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
//!
//! Besides item states, a job reports each fault as a [`Problem`], so that a front end can
//! say once what happened and choose its exit status (`knotmeter run`).

mod binary;
pub mod hang;
mod printed;
pub mod process;

pub(crate) use binary::{describe, LineReader};

use std::collections::HashSet;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use knotmeter_protocol::editor::{ItemState, RunMode};
use knotmeter_protocol::{
    partition_unit, BenchResult, BenchSummary, Comparison, ListDocument, ListEntry, Manifest,
    Partition, PartitionKind,
};
use tokio::process::Command;
use tokio_util::sync::CancellationToken;

use crate::cargo_build::{self, BuildEvent, CompilerError};
use crate::discovery::harness::{self, Harness};
use crate::discovery::{TargetRef, Workspace};
use process::Children;

/// One run: which leaf ids of which targets, how long to measure.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// The run's id.
    pub run_id: u32,
    /// Quick or full.
    pub mode: RunMode,
    /// Leaf ids grouped by bench target, in run order.
    pub targets: Vec<(TargetRef, Vec<String>)>,
    /// Compare with this base instead of measuring alone (`knotmeter compare`; empty: the
    /// default base). Carried out by [`crate::compare::execute_job`], not [`execute`].
    pub compare: Option<String>,
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
    NotCompared {
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
    },
    /// Text the daemon writes for the run's output: the manifest line, a finished case's
    /// table, notes.
    Output {
        /// The item it is about, if any.
        id: Option<String>,
        /// The text (without a trailing line break).
        text: String,
    },
    /// A line the bench binary wrote itself (its standard error, or standard output that is
    /// not an event): the benchmark's own prints and the engine's messages.
    Printed {
        /// The case in progress when it was written, if any.
        id: Option<String>,
        /// The line, without its line break.
        text: String,
    },
    /// A fault, said once (the item states it causes follow).
    Problem(Problem),
    /// All cases of a benchmark finished: its scaling analysis.
    Summary(BenchSummary),
    /// A passed case's comparison, computed at the end of the run: its result gains it.
    Compared {
        /// The leaf id.
        id: String,
        /// The comparison with its verdict.
        comparison: Comparison,
    },
    /// A comparison run ("Compare with base") is over: the whole comparison as shown.
    Comparison(Box<knotmeter_protocol::ShownComparison>),
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
    let mut tracker = Tracker {
        finals: HashSet::new(),
        sink: &mut sink,
        stopped: None,
    };
    let ids: Vec<String> = job.ids().cloned().collect();
    for id in &ids {
        tracker.state(id, ItemState::Building, None, None);
    }
    // A target under libtest's harness cannot run: say so without building it.
    let mut targets: Vec<TargetRef> = Vec::new();
    for (target, ids) in &job.targets {
        match harness_problem(&workspace, target) {
            Some(message) => tracker.harness(target, ids, message),
            None => targets.push(target.clone()),
        }
    }
    // The engine records each run in the history store; name the file the daemon reads, so
    // both agree whatever the layout of the target directory.
    let history = knotmeter_history::resolve_path(Some(&workspace.target_dir));
    let outcome = if targets.is_empty() {
        cargo_build::BuildOutcome::default()
    } else {
        let sink = &mut *tracker.sink;
        let mut events = |event| sink(JobEvent::Build(event));
        cargo_build::build(&workspace, &targets, &children, &cancel, &mut events).await
    };
    (tracker.sink)(JobEvent::Built {
        errors: outcome.errors.clone(),
    });
    for (target, ids) in &job.targets {
        if cancel.is_cancelled() || tracker.stopped.is_some() {
            break;
        }
        if !targets.contains(target) {
            continue;
        }
        let Some(exe) = outcome.executables.get(target) else {
            if !outcome.cancelled {
                let message = build_failure(&outcome, target, &workspace.root);
                tracker.problem(Problem::Build {
                    target: target.clone(),
                    message: message.clone(),
                });
                for id in ids {
                    tracker.state(id, ItemState::Errored, None, Some(message.clone()));
                }
            }
            continue;
        };
        let dir = workspace
            .packages
            .iter()
            .find(|p| p.name == target.package)
            .map_or_else(|| workspace.root.clone(), |p| p.dir().to_path_buf());
        let listing = list(exe, &dir, &children).await;
        // A criterion target never listed before was selected whole (its id stands for its
        // benchmarks, which only the binary knows): now they are known, run every one.
        let whole = target.item_id();
        let expanded: Vec<String>;
        let ids = if ids.contains(&whole) {
            let (state, message) = match &listing {
                Ok(doc) => (
                    ItemState::Skipped,
                    format!(
                        "the build listed {} criterion benchmarks; they run as their own items",
                        doc.cases.len()
                    ),
                ),
                Err(ListFailure::Libtest) => {
                    (ItemState::Errored, libtest_message(&workspace, target))
                }
                Err(ListFailure::Other(why)) => (ItemState::Errored, why.clone()),
            };
            tracker.state(&whole, state, None, Some(message));
            expanded = listing
                .as_ref()
                .map(|doc| shard_of_listing(&doc.cases, options.partition))
                .unwrap_or_default();
            &expanded
        } else {
            ids
        };
        let present = match listing {
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
                for id in absent {
                    tracker.state(
                        &id,
                        ItemState::Skipped,
                        None,
                        Some(
                            "the built bench binary has no such benchmark (a `#[cfg]` may leave \
                             it out, or the source changed since the build)"
                                .into(),
                        ),
                    );
                }
                (tracker.sink)(JobEvent::Listed(target.clone(), doc.cases));
                present
            }
            Err(ListFailure::Libtest) => {
                let message = libtest_message(&workspace, target);
                tracker.harness(target, ids, message);
                continue;
            }
            Err(ListFailure::Other(message)) => {
                tracker.output(None, message);
                ids.clone()
            }
        };
        binary::run(
            &mut tracker,
            binary::Launch {
                target,
                exe,
                dir: &dir,
                history: &history,
                mode: job.mode,
                options: &options,
            },
            present,
            &children,
            &cancel,
        )
        .await;
    }
    let message = if cancel.is_cancelled() {
        "cancelled".to_owned()
    } else if let Some(why) = &tracker.stopped {
        format!("not run: {why}")
    } else {
        "not run".to_owned()
    };
    for id in &ids {
        if !tracker.finals.contains(id) {
            tracker.state(id, ItemState::Skipped, None, Some(message.clone()));
        }
    }
    sink(JobEvent::Finished);
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

impl Tracker<'_> {
    fn state(
        &mut self,
        id: &str,
        state: ItemState,
        result: Option<Box<BenchResult>>,
        message: Option<String>,
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
        });
    }

    fn output(&mut self, id: Option<&str>, text: String) {
        (self.sink)(JobEvent::Output {
            id: id.map(str::to_owned),
            text,
        });
    }

    fn printed(&mut self, id: Option<&str>, text: String) {
        (self.sink)(JobEvent::Printed {
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
        for id in ids {
            self.state(id, ItemState::Errored, None, Some(message.clone()));
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
pub(crate) fn build_failure(
    outcome: &cargo_build::BuildOutcome,
    target: &TargetRef,
    root: &Path,
) -> String {
    let mine: Vec<&CompilerError> = outcome
        .errors
        .iter()
        .filter(|e| e.package == target.package)
        .collect();
    let errors = if mine.is_empty() {
        if let Some(failure) = &outcome.failure {
            return failure.clone();
        }
        outcome.errors.iter().collect()
    } else {
        mine
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

/// `exe --list --format json`.
async fn list(exe: &Path, dir: &Path, children: &Children) -> Result<ListDocument, ListFailure> {
    let mut command = Command::new(exe);
    command
        .args(["--list", "--format", "json"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let (child, _group) = children.spawn(command).await.map_err(|e| {
        ListFailure::Other(format!(
            "cannot start the bench binary {}: {e}",
            exe.display()
        ))
    })?;
    let output = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output())
        .await
        .map_err(|_| {
            ListFailure::Other(format!(
                "{} --list did not answer within 30 s",
                exe.display()
            ))
        })?
        .map_err(|e| ListFailure::Other(format!("{} --list failed: {e}", exe.display())))?;
    serde_json::from_slice(&output.stdout).map_err(|e| {
        let stderr = String::from_utf8_lossy(&output.stderr);
        if LIBTEST_REPLIES.iter().any(|reply| stderr.contains(reply)) {
            return ListFailure::Libtest;
        }
        ListFailure::Other(format!(
            "{} --list --format json printed something unreadable ({e}); running the requested ids anyway",
            exe.display()
        ))
    })
}
