//! Runs as the session sees them: the queue, the run in progress, the states its job reports,
//! cancel and run-on-save.
//!
//! A run whose benchmarks live in several workspace folders runs one job per folder, one after
//! the other, under one run id: the client sees one run and one `knotmeter/runEnd`. Raw samples
//! leave each result here ([`super::samples`]); the result itself is kept and sent without them.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use knotmeter_protocol::editor::{
    ItemState, OutputParams, ProfileComparedParams, RunEndParams, RunMode, RunParams,
    RunStateParams, SourceLocation,
};
use knotmeter_protocol::{BenchResult, BenchSummary, Measure, ProfileTool};
use tokio_util::sync::CancellationToken;
use tower_lsp_server::ls_types::MessageType;

use super::out::{Out, ProgressMsg};
use super::{Event, Life, Session, SAVE_DEBOUNCE};
use crate::builds::BuildsRequest;
use crate::cargo_build::{BuildEvent, CompilerError};
use crate::discovery::{Bench, TargetRef, Tree, Workspace};
use crate::runs::{self, Job, JobEvent, RunOptions};

/// A job waiting for its turn.
#[derive(Debug)]
pub struct Queued {
    /// The whole run (every folder's targets).
    pub job: Job,
    /// Started by a save.
    pub on_save: bool,
    /// Compare with this base instead of measuring alone (empty: the default base).
    pub base: Option<String>,
    /// Profile each case with this profiler instead of measuring it.
    pub profile: Option<ProfileTool>,
    /// What each case's figure is: its time or its instructions counted.
    pub measure: Measure,
}

/// The run in progress.
#[derive(Debug)]
pub struct Current {
    pub(super) run_id: u32,
    pub(super) cancel: CancellationToken,
    pub(super) on_save: bool,
    /// Items not yet in a final state, in run order, and as a set.
    order: Vec<String>,
    pending: HashSet<String>,
    /// The folders' jobs still to start.
    parts: VecDeque<(Option<Arc<Workspace>>, Job)>,
    /// Compare with this base instead of measuring alone (empty: the default base).
    base: Option<String>,
    /// Profile each case with this profiler instead of measuring it.
    profile: Option<ProfileTool>,
    /// What each case's figure is: its time or its instructions counted.
    measure: Measure,
    /// Items measured in this run: reported again when their benchmark's analysis or their
    /// comparison arrives.
    measured: Vec<String>,
    /// The percentage of the run last reported in its work-done progress.
    percent: u32,
    /// How much of its budget each unfinished item has spent (its rounds so far), 0 to 1.
    fractions: HashMap<String, f64>,
}

impl Current {
    /// Items not yet in a final state, in run order.
    pub(super) fn unfinished(&self) -> impl Iterator<Item = &String> {
        self.order.iter().filter(|id| self.pending.contains(*id))
    }
}

impl Session {
    /// Announces a run and queues it; returns its id.
    pub(super) fn enqueue(&mut self, params: RunParams, on_save: bool) -> u32 {
        self.enqueue_staged(params, on_save, &HashSet::new())
    }

    /// As [`Session::enqueue`], with the ids in `first` measured before the others, by bench
    /// binary processes of their own ([`first_apart`]).
    pub(super) fn enqueue_staged(
        &mut self,
        params: RunParams,
        on_save: bool,
        first: &HashSet<String>,
    ) -> u32 {
        let run_id = self.next_run;
        self.next_run += 1;
        let mode = params.mode.unwrap_or(if on_save {
            RunMode::Quick
        } else {
            RunMode::Full
        });
        let targets = first_apart(
            self.tree.select(
                params.include.as_deref(),
                params.exclude.as_deref().unwrap_or(&[]),
            ),
            first,
        );
        let job = Job {
            run_id,
            mode,
            targets,
        };
        let workspace_error = self.workspace_error();
        if let Some(error) = &workspace_error {
            self.out.push(Out::Output(OutputParams {
                run_id,
                id: None,
                text: error.clone(),
            }));
        }
        for id in job.ids() {
            self.out.push(Out::RunState(state(
                run_id,
                id.clone(),
                ItemState::Enqueued,
                None,
            )));
        }
        if !on_save {
            self.refuse_unknown(run_id, params.include.as_deref());
        }
        if job.ids().next().is_none() && workspace_error.is_none() {
            let why = if self.tree.is_empty() {
                "there are no benchmarks in the workspace (bench targets of packages that depend \
                 on knotmeter, with #[bench] functions)"
            } else {
                "every benchmark named is excluded"
            };
            self.out.push(Out::Output(OutputParams {
                run_id,
                id: None,
                text: format!("nothing to run: {why}"),
            }));
        }
        if job.ids().next().is_none() || self.life != Life::Serving {
            self.out.push(Out::RunEnd(RunEndParams { run_id }));
        } else {
            self.queue.push_back(Queued {
                job,
                on_save,
                base: params.compare,
                profile: (params.profile == Some(true))
                    .then(|| params.profiler.unwrap_or(ProfileTool::Callgrind)),
                measure: params.measure.unwrap_or_default(),
            });
        }
        run_id
    }

    /// Ids the client named that are not in the tree (renamed or deleted since it was sent):
    /// they end at once, and the client is told. (A run-on-save run names ids from the tree
    /// itself; one left over from a stale run just goes, with no pop-up on save.)
    fn refuse_unknown(&mut self, run_id: u32, include: Option<&[String]>) {
        let Some(include) = include else { return };
        let known: HashSet<&str> = self.tree.items().map(|i| i.id.as_str()).collect();
        let unknown: Vec<String> = include
            .iter()
            .filter(|id| !known.contains(id.as_str()))
            .cloned()
            .collect();
        if unknown.is_empty() {
            return;
        }
        for id in &unknown {
            self.out.push(Out::RunState(state(
                run_id,
                id.clone(),
                ItemState::Errored,
                Some(
                    "no benchmark has this id in the workspace (renamed or deleted since the tree \
                     was sent?)",
                ),
            )));
        }
        self.out.push(Out::ShowMessage(
            MessageType::WARNING,
            format!(
                "knotmeter: not run, no benchmark has the id {}",
                unknown
                    .iter()
                    .map(|id| format!("`{id}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }

    /// Starts the next queued run, if none is in progress.
    pub(super) fn start_next(&mut self) {
        if self.current.is_some() || self.life != Life::Serving {
            return;
        }
        let Some(Queued {
            job,
            on_save,
            base,
            profile,
            measure,
        }) = self.queue.pop_front()
        else {
            return;
        };
        let run_id = job.run_id;
        // One job per folder, in the order of the run.
        let mut parts: Vec<(PathBuf, Job)> = Vec::new();
        for (target, ids) in &job.targets {
            let folder = self.owners.get(target).cloned().unwrap_or_default();
            match parts.iter_mut().find(|(f, _)| *f == folder) {
                Some((_, part)) => part.targets.push((target.clone(), ids.clone())),
                None => parts.push((
                    folder,
                    Job {
                        run_id,
                        mode: job.mode,
                        targets: vec![(target.clone(), ids.clone())],
                    },
                )),
            }
        }
        let order: Vec<String> = job.ids().cloned().collect();
        self.current = Some(Current {
            run_id,
            cancel: CancellationToken::new(),
            on_save,
            pending: order.iter().cloned().collect(),
            order,
            measured: Vec::new(),
            percent: 0,
            fractions: HashMap::new(),
            parts: parts
                .into_iter()
                .map(|(folder, part)| {
                    let workspace = self.workspace_of(&folder).or_else(|| self.only_workspace());
                    (workspace, part)
                })
                .collect(),
            base,
            profile,
            measure,
        });
        if self.caps.work_done_progress {
            self.out.push(Out::Progress(
                run_id,
                ProgressMsg::Begin(format!("knotmeter run {run_id}")),
            ));
        }
        self.start_part();
    }

    /// Starts the current run's next folder job; ends the run when none is left.
    fn start_part(&mut self) {
        let Some(current) = &mut self.current else {
            return;
        };
        let run_id = current.run_id;
        let cancelled = current.cancel.is_cancelled();
        let base = current.base.clone();
        let profile = current.profile;
        let measure = current.measure;
        let Some((workspace, job)) = current.parts.pop_front() else {
            self.end_run(run_id);
            return;
        };
        let (workspace, why) = match (workspace, cancelled) {
            (_, true) => (None, "cancelled"),
            (None, false) => (None, "not run: its workspace folder was removed"),
            (Some(workspace), false) => (Some(workspace), ""),
        };
        let Some(workspace) = workspace else {
            for id in job.ids() {
                if current.pending.remove(id) {
                    self.out.push(Out::RunState(state(
                        run_id,
                        id.clone(),
                        ItemState::Skipped,
                        Some(why),
                    )));
                }
            }
            self.start_part();
            return;
        };
        let cancel = current.cancel.clone();
        let tx = self.internal_tx.clone();
        let sink: runs::Sink = Box::new(move |event: JobEvent| {
            let event = match event {
                JobEvent::Build(_) | JobEvent::Built { .. } => Event::Build(run_id, event),
                other => Event::Run(run_id, other),
            };
            let _ = tx.send(event);
        });
        let (workspace, options, children) = (
            (*workspace).clone(),
            self.run_options(measure),
            self.lifeline.children.clone(),
        );
        // A comparison of two builds is a run too, carried out by `knotmeter compare`'s pipeline.
        let builds = base
            .as_deref()
            .map(|base| builds_request(&job, &workspace, &options, base, measure));
        tokio::spawn(async move {
            match builds {
                // A profile is a run too, carried out by `knotmeter profile`'s pipeline.
                _ if profile.is_some() => {
                    let tool = profile.unwrap_or(ProfileTool::Callgrind);
                    crate::profile::job::execute_job(
                        job, tool, workspace, builds, children, cancel, sink,
                    )
                    .await
                }
                Some(request) => {
                    crate::builds::execute_job(
                        job, request, workspace, options, children, cancel, sink,
                    )
                    .await
                }
                None => runs::execute(job, workspace, options, children, cancel, sink).await,
            }
        });
    }

    /// Every item reached a final state: the run ends, the next starts.
    fn end_run(&mut self, run_id: u32) {
        if self.caps.work_done_progress {
            self.out.push(Out::Progress(run_id, ProgressMsg::End));
        }
        self.out.push(Out::RunEnd(RunEndParams { run_id }));
        if self.current.as_ref().is_some_and(|c| c.run_id == run_id) {
            self.current = None;
        }
        if self.life == Life::Stopping {
            self.finish_stop();
            return;
        }
        if self.caps.code_lens_refresh || self.caps.inlay_hint_refresh {
            self.out.push(Out::Refresh {
                lenses: self.caps.code_lens_refresh,
                hints: self.caps.inlay_hint_refresh,
            });
        }
        self.start_next();
    }

    pub(super) fn cancel(&mut self, run_id: u32) {
        if let Some(current) = self.current.as_ref().filter(|c| c.run_id == run_id) {
            current.cancel.cancel();
            return;
        }
        if let Some(at) = self.queue.iter().position(|q| q.job.run_id == run_id) {
            let queued = self.queue.remove(at).expect("found");
            self.skip_queued(&queued.job, "cancelled");
        }
    }

    pub(super) fn skip_queued(&mut self, job: &Job, why: &str) {
        for id in job.ids() {
            self.out.push(Out::RunState(state(
                job.run_id,
                id.clone(),
                ItemState::Skipped,
                Some(why),
            )));
        }
        self.out
            .push(Out::RunEnd(RunEndParams { run_id: job.run_id }));
    }

    pub(super) fn job_event(&mut self, run_id: u32, event: JobEvent) {
        match event {
            JobEvent::Build(BuildEvent::Output(text)) => self.out.push(Out::Output(OutputParams {
                run_id,
                id: None,
                text,
            })),
            JobEvent::Build(BuildEvent::Progress(message)) => {
                if self.caps.work_done_progress {
                    self.out
                        .push(Out::Progress(run_id, ProgressMsg::Report(message)));
                }
            }
            JobEvent::Built { errors } => self.built(run_id, errors),
            JobEvent::Listed(target, cases) => {
                self.worker
                    .send(super::discover::Command::Reconcile(target, cases));
            }
            JobEvent::State {
                id,
                state,
                result,
                message,
                location,
            } => self.item_state(run_id, id, state, result, message, location),
            JobEvent::Output { id, text } => {
                self.out
                    .push(Out::Output(OutputParams { run_id, id, text }));
            }
            JobEvent::Printed { id, text, held } => {
                self.out
                    .push(Out::Printed(OutputParams { run_id, id, text }, held));
            }
            JobEvent::Problem(problem) => self.problem(run_id, problem),
            JobEvent::Summary(summary) => self.summarised(run_id, summary),
            JobEvent::Comparison { id, comparison } => {
                // The comparison completes an earlier `passed`: report the result again.
                if let Some(result) = self.results.get_mut(&id) {
                    result.comparison = Some(comparison);
                    self.report_again(run_id, &id);
                }
            }
            JobEvent::BuildsShown(comparison) => {
                self.out
                    .push(Out::Compared(knotmeter_protocol::editor::ComparedParams {
                        run_id,
                        comparison: *comparison,
                    }));
            }
            JobEvent::Profiled { profile, stored_at } => {
                self.profiled(Some(run_id), stored_at, *profile)
            }
            JobEvent::ProfileCompared(comparison) => {
                use knotmeter_format::profile_compared::{comparison_heading, comparison_text};
                // Every client reads the table in the run's output; one that draws profiles
                // gets the comparison itself too.
                self.out.push(Out::Output(OutputParams {
                    run_id,
                    id: Some(comparison.id.clone()),
                    text: comparison_text(&comparison, 15),
                }));
                if self.caps.features.profiles == Some(true) {
                    let heading = comparison_heading(&comparison);
                    self.out
                        .push(Out::ProfileCompared(Box::new(ProfileComparedParams {
                            run_id,
                            comparison: *comparison,
                            heading,
                        })));
                }
            }
            JobEvent::Progress { id, fraction } => self.progressed(run_id, &id, fraction),
            JobEvent::Manifest(_) => {}
            JobEvent::Finished => {
                if self.current.as_ref().is_some_and(|c| c.run_id == run_id) {
                    self.start_part();
                } else {
                    self.end_run(run_id);
                }
            }
        }
    }

    /// The case `id` has spent `fraction` of its budget: the run's work-done progress gets its
    /// percentage (the items ended, and the share of its budget each other item has spent: a
    /// run's cases advance together, round by round), when it moved by a whole point.
    fn progressed(&mut self, run_id: u32, id: &str, fraction: f64) {
        let Some(current) = self.current.as_mut().filter(|c| c.run_id == run_id) else {
            return;
        };
        if !self.caps.work_done_progress || !current.pending.contains(id) {
            return;
        }
        let spent = current.fractions.entry(id.to_owned()).or_default();
        *spent = spent.max(fraction.clamp(0.0, 1.0));
        let done = current.order.len() - current.pending.len();
        let running: f64 = current
            .pending
            .iter()
            .filter_map(|id| current.fractions.get(id))
            .sum();
        let percent = run_percent(done, running, current.order.len());
        if percent > current.percent {
            current.percent = percent;
            self.out
                .push(Out::Progress(run_id, ProgressMsg::Percent(percent)));
        }
    }

    /// The build ended with these compiler errors: the files whose diagnostics change are
    /// published again, and the run's progress says it runs.
    fn built(&mut self, run_id: u32, errors: Vec<CompilerError>) {
        let mut files: HashSet<PathBuf> =
            self.build_errors.iter().map(|e| e.file.clone()).collect();
        files.extend(errors.iter().map(|e| e.file.clone()));
        self.build_errors = errors;
        for file in files {
            self.publish(&file);
        }
        if self.caps.work_done_progress {
            self.out
                .push(Out::Progress(run_id, ProgressMsg::Report("running".into())));
        }
    }

    /// An item changed state: the run's bookkeeping, the result kept (its samples apart) and
    /// its file's diagnostics, then the state to the client with its presentation.
    fn item_state(
        &mut self,
        run_id: u32,
        id: String,
        state: ItemState,
        mut result: Option<Box<BenchResult>>,
        message: Option<String>,
        location: Option<SourceLocation>,
    ) {
        if let Some(current) = self.current.as_mut().filter(|c| c.run_id == run_id) {
            if state.is_final() {
                current.pending.remove(&id);
            }
            if state == ItemState::Passed && result.is_some() {
                current.measured.push(id.clone());
            }
        }
        if let Some(result) = &mut result {
            self.samples.take_from(result);
            self.results.insert(id.clone(), BenchResult::clone(result));
            if let Some(file) = self.tree.bench_of(&id).map(|b| b.file.clone()) {
                self.publish(&file);
            }
        }
        let shown = result
            .as_deref()
            .map(|r| Box::new(self.shown(run_id, &id, r)));
        self.out.push(Out::RunState(RunStateParams {
            run_id,
            id,
            state,
            result,
            message,
            location,
            shown,
            bench: None,
        }));
    }

    /// A fault of the job: logged; a libtest harness gets its diagnostics, a comparison that
    /// could not be made is said once where the user looks.
    fn problem(&mut self, run_id: u32, problem: runs::Problem) {
        tracing::info!(?problem, "run {run_id}");
        match problem {
            runs::Problem::Harness { target, .. } => self.libtest_built(target),
            // Every case of the run is warned too.
            runs::Problem::BaseUnusable { message } => self.out.push(Out::ShowMessage(
                MessageType::WARNING,
                format!(
                    "knotmeter: not compared: {message}. The working tree's benchmarks \
                     were measured on their own (the run's output has the whole error)."
                ),
            )),
            _ => {}
        }
    }

    /// A benchmark's scaling analysis: kept, its file published, and its cases measured in
    /// this run reported again (a `flat_scaling` warning makes each of them warned).
    fn summarised(&mut self, run_id: u32, summary: BenchSummary) {
        let file = self.tree.bench_of(&summary.id).map(|b| b.file.clone());
        let bench_id = summary.id.clone();
        self.summary_runs.insert(summary.id.clone(), run_id);
        self.summaries.insert(summary.id.clone(), summary);
        if let Some(file) = file {
            self.publish(&file);
        }
        let measured: Vec<String> = self
            .current
            .iter()
            .filter(|c| c.run_id == run_id)
            .flat_map(|c| c.measured.iter())
            .filter(|id| knotmeter_format::text::bench_id(id) == bench_id)
            .cloned()
            .collect();
        for id in measured {
            self.report_again(run_id, &id);
        }
    }

    /// A built binary of `target` answered like libtest: its diagnostics.
    fn libtest_built(&mut self, target: TargetRef) {
        let owner = self.owners.get(&target).cloned();
        let mut changed = Vec::new();
        for folder in &mut self.folders {
            if owner.as_ref().is_some_and(|o| *o != folder.path) {
                continue;
            }
            if let Some(workspace) = &folder.workspace {
                changed.extend(
                    folder
                        .harness
                        .libtest_built(target.clone(), workspace, &self.tree),
                );
            }
        }
        for file in changed {
            self.publish(&file);
        }
    }

    /// How a run measuring `measure` runs its bench binaries, from the settings.
    pub(super) fn run_options(&self, measure: Measure) -> RunOptions {
        let s = &self.settings;
        let defaults = RunOptions::default();
        RunOptions {
            silence_limit: s
                .case_timeout_secs
                .filter(|t| super::valid_seconds(*t))
                .map_or(defaults.silence_limit, Duration::from_secs_f64),
            quick_time: s.quick_time_secs.filter(|t| super::valid_seconds(*t)),
            full_time: s.full_time_secs.filter(|t| super::valid_seconds(*t)),
            cancel_grace: s
                .cancel_grace_ms
                .map_or(defaults.cancel_grace, |ms| Duration::from_millis(ms.into())),
            bench_args: match measure {
                Measure::Time => Vec::new(),
                Measure::Instructions => vec!["--measure".to_owned(), "instructions".to_owned()],
            },
            ..defaults
        }
    }

    /// Run-on-save: note the saved file and (re)arm the debounce. Which benchmarks it concerns
    /// is decided when the debounce ends, on the tree that reflects the save.
    pub(super) fn saved(&mut self, path: &Path) {
        if self.settings.run_on_save != Some(true) || self.life != Life::Serving {
            return;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            return;
        }
        if !self.save_pending.iter().any(|p| p == path) {
            self.save_pending.push(path.to_path_buf());
        }
        self.save_generation += 1;
        let generation = self.save_generation;
        let tx = self.internal_tx.clone();
        tokio::spawn(async move {
            tokio::time::sleep(SAVE_DEBOUNCE).await;
            let _ = tx.send(Event::SaveTimer(generation));
        });
    }

    pub(super) fn save_timer(&mut self, generation: u64) {
        if generation != self.save_generation || self.life != Life::Serving {
            return; // a newer save re-armed the debounce
        }
        let files: Vec<PathBuf> = self.save_pending.clone();
        let need = files
            .iter()
            .filter_map(|f| self.edited.get(f).copied())
            .max()
            .unwrap_or(0);
        if need > self.applied {
            self.save_waiting = Some(need);
            return;
        }
        self.run_saved();
    }

    /// The saved files' benchmarks, as a quick run.
    pub(super) fn run_saved(&mut self) {
        let files = std::mem::take(&mut self.save_pending);
        let per_file: Vec<(&PathBuf, Vec<&Bench>)> = files
            .iter()
            .map(|path| (path, self.tree.benches_in(path).collect()))
            .collect();
        let saved: Vec<&Bench> = per_file
            .iter()
            .flat_map(|(_, b)| b.iter().copied())
            .collect();
        let edited = self.edited_code.take_edited(&saved);
        let first = first_ids(&self.tree, &edited);
        let mut ids: Vec<String> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        for (path, benches) in &per_file {
            let found: Vec<String> = if benches.is_empty() {
                // Another source file of a package: re-run the package's benchmarks.
                self.package_bench_ids(path)
            } else {
                benches.iter().flat_map(|b| b.leaf_ids()).collect()
            };
            for id in found {
                if seen.insert(id.clone()) {
                    ids.push(id);
                }
            }
        }
        if ids.is_empty() {
            return;
        }
        // A newer save makes an earlier run-on-save run stale: cancel it, keep its work.
        if let Some(current) = self.current.as_ref().filter(|c| c.on_save) {
            current.cancel.cancel();
            for id in current.unfinished() {
                if seen.insert(id.clone()) {
                    ids.push(id.clone());
                }
            }
        }
        let (stale, keep): (Vec<Queued>, Vec<Queued>) = std::mem::take(&mut self.queue)
            .into_iter()
            .partition(|q| q.on_save);
        self.queue = keep.into();
        for queued in stale {
            for id in queued.job.ids() {
                if seen.insert(id.clone()) {
                    ids.push(id.clone());
                }
            }
            self.skip_queued(&queued.job, "superseded by a newer save");
        }
        let params = RunParams {
            include: Some(ids),
            exclude: None,
            mode: Some(RunMode::Quick),
            compare: None,
            profile: None,
            profiler: None,
            measure: None,
        };
        self.enqueue_staged(params, true, &first);
        self.start_next();
    }

    /// The leaf ids of every benchmark of the package whose directory holds `path` (the
    /// innermost one), for a saved source file that holds none itself.
    fn package_bench_ids(&self, path: &Path) -> Vec<String> {
        let package = self
            .folders
            .iter()
            .filter_map(|f| f.workspace.as_ref())
            .flat_map(|w| &w.packages)
            .filter(|p| path.starts_with(p.dir()))
            .max_by_key(|p| p.dir().as_os_str().len());
        let Some(package) = package else {
            return Vec::new();
        };
        self.tree
            .benches()
            .filter(|b| b.target.package == package.name)
            .flat_map(|b| b.leaf_ids())
            .collect()
    }
}

/// The leaf ids to measure before the rest of a run-on-save: the `edited` benchmarks' cases,
/// with every benchmark of their comparison groups (a group's ratios need its baseline).
fn first_ids(tree: &Tree, edited: &[&Bench]) -> HashSet<String> {
    let groups: HashSet<(&TargetRef, &str)> = edited
        .iter()
        .filter_map(|b| Some((&b.target, b.group.as_deref()?)))
        .collect();
    let mates = tree.benches().filter(|b| {
        b.group
            .as_deref()
            .is_some_and(|g| groups.contains(&(&b.target, g)))
    });
    edited
        .iter()
        .copied()
        .chain(mates)
        .flat_map(Bench::leaf_ids)
        .collect()
}

/// `targets` with the ids in `first` split off each target into a bench binary process of
/// their own, and those processes first: their results come without waiting for the rest
/// (within one process the rounds interleave the cases, which all end near its end).
fn first_apart(
    targets: Vec<(TargetRef, Vec<String>)>,
    first: &HashSet<String>,
) -> Vec<(TargetRef, Vec<String>)> {
    let (mut head, mut tail) = (Vec::new(), Vec::new());
    for (target, ids) in targets {
        let (early, late): (Vec<String>, Vec<String>) =
            ids.into_iter().partition(|id| first.contains(id));
        if !early.is_empty() {
            head.push((target.clone(), early));
        }
        if !late.is_empty() {
            tail.push((target, late));
        }
    }
    head.extend(tail);
    head
}

/// A state change without a result.
/// The two-build comparison of `job`'s cases against `base` (empty: the default base), in
/// `workspace`, measured as `options` say (in `measure`): the working tree against the base,
/// each case's binaries pinned, the comparison stored.
fn builds_request(
    job: &Job,
    workspace: &Workspace,
    options: &RunOptions,
    base: &str,
    measure: Measure,
) -> BuildsRequest {
    let quick = job.mode == RunMode::Quick;
    BuildsRequest {
        base: Some(base.trim().to_owned()).filter(|rev| !rev.is_empty()),
        path: workspace.root.clone(),
        filter: None,
        head: None,
        quick,
        time: if quick {
            options.quick_time
        } else {
            options.full_time
        },
        noise_threshold: None,
        case_timeout: options.silence_limit,
        pin: true,
        store: true,
        measure,
    }
}

fn state(run_id: u32, id: String, state: ItemState, message: Option<&str>) -> RunStateParams {
    RunStateParams {
        run_id,
        id,
        state,
        result: None,
        message: message.map(str::to_owned),
        location: None,
        shown: None,
        bench: None,
    }
}

/// The whole percentage of a run of `total` items, `done` of them ended and the others
/// `running` items' worth of their budgets into their work.
fn run_percent(done: usize, running: f64, total: usize) -> u32 {
    if total == 0 {
        return 100;
    }
    let whole = (done as f64 + running.max(0.0)) / total as f64;
    (whole * 100.0).floor().min(100.0) as u32
}

#[cfg(test)]
mod tests {
    use super::run_percent;

    #[test]
    fn a_runs_percentage_counts_the_items_done_and_the_share_of_the_one_running() {
        assert_eq!(run_percent(0, 0.0, 4), 0);
        assert_eq!(run_percent(0, 0.5, 4), 12);
        assert_eq!(run_percent(1, 0.5, 4), 37);
        assert_eq!(run_percent(3, 1.0, 4), 100);
        assert_eq!(
            run_percent(0, 7.0, 1),
            100,
            "a fraction past 1 is the whole"
        );
        assert_eq!(run_percent(0, 0.3, 0), 100);
    }
}
