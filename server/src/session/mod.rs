//! The session: the one task that owns the daemon's changing state — open documents, the
//! tree, settings, the run queue, the last results and the published diagnostics.
//!
//! Everything that happens reaches it as an [`Event`] from one `select!`: LSP messages (in
//! the order the client sent them), watcher batches, and what running jobs report. It
//! handles one event at a time with plain functions, collects what the client must be told,
//! then sends it in order. So the order of state changes, and of the notifications they
//! cause, is the order of the events. A panic while handling an event is caught and logged;
//! the session keeps serving.
//!
//! Runs: one at a time (parallel benchmarks disturb each other). A run request is answered at
//! once with its id; its items are reported `enqueued`, and the job starts when the previous
//! one ends. Run-on-save coalesces saves for [`SAVE_DEBOUNCE`], and a newer save cancels a
//! stale run-on-save run (its unfinished items join the new run).

mod history;
mod out;

use std::collections::{HashMap, HashSet, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::Duration;

use knotmeter_protocol::editor::{
    CancelParams, DiscoverResult, DiscoveredParams, HistoryParams, HistoryResult, ItemState,
    OutputParams, RunEndParams, RunMode, RunParams, RunResult, RunStateParams, Settings,
    StoredParams, TestItem,
};
use knotmeter_protocol::BenchResult;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use tower_lsp_server::ls_types::{CodeLens, Hover, InlayHint, MessageType, Position};
use tower_lsp_server::Client;

use crate::cargo_build::{BuildEvent, CompilerError};
use crate::discovery::{self, Discovery, Tree};
use crate::lsp::features::{self, Results, Summaries};
use crate::runs::process::Children;
use crate::runs::{self, Job, JobEvent, RunOptions};
use crate::watch;
use out::{Out, ProgressMsg};

/// How long saves are collected before a run-on-save run starts.
pub const SAVE_DEBOUNCE: Duration = Duration::from_millis(300);

/// Where a request's answer goes.
pub type Reply<T> = oneshot::Sender<Result<T, Failure>>;

/// Why a request failed.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// The parameters make no sense.
    InvalidParams(String),
    /// Something went wrong on the daemon's side.
    Internal(String),
}

/// What the client's capabilities allow.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ClientCaps {
    /// `workspace/codeLens/refresh`.
    pub code_lens_refresh: bool,
    /// `workspace/inlayHint/refresh`.
    pub inlay_hint_refresh: bool,
    /// `window/workDoneProgress/create`.
    pub work_done_progress: bool,
}

/// A message from the LSP front end.
#[derive(Debug)]
pub enum LspMsg {
    /// `initialize`.
    Initialize {
        /// The workspace folder.
        root: Option<PathBuf>,
        /// `initializationOptions`.
        options: Option<serde_json::Value>,
        /// What the client supports.
        caps: ClientCaps,
    },
    /// `initialized`: load the workspace and start watching.
    Initialized,
    /// `textDocument/didOpen`.
    Open(PathBuf, String),
    /// `textDocument/didChange` (full text).
    Change(PathBuf, String),
    /// `textDocument/didSave`, with the text when the client sends it.
    Save(PathBuf, Option<String>),
    /// `textDocument/didClose`.
    Close(PathBuf),
    /// `workspace/didChangeConfiguration`.
    Configuration(serde_json::Value),
    /// `knotmeter/discover`.
    Discover(Reply<DiscoverResult>),
    /// `knotmeter/run` (and the `knotmeter.run` command).
    Run(RunParams, Reply<RunResult>),
    /// `knotmeter/cancel`.
    Cancel(CancelParams, Reply<()>),
    /// `knotmeter/history`.
    History(HistoryParams, Reply<HistoryResult>),
    /// `textDocument/codeLens`.
    CodeLens(PathBuf, Reply<Vec<CodeLens>>),
    /// `textDocument/inlayHint`.
    InlayHints(PathBuf, Reply<Vec<InlayHint>>),
    /// `textDocument/hover`.
    Hover(PathBuf, Position, Reply<Option<Hover>>),
    /// `shutdown`: stop every run and kill every child process.
    Shutdown(Reply<()>),
}

/// Everything the session reacts to.
#[derive(Debug)]
pub enum Event {
    /// From the LSP front end.
    Lsp(LspMsg),
    /// Files changed on disk.
    Watch(Vec<PathBuf>),
    /// A job's build reports.
    Build(u32, JobEvent),
    /// A job's run reports.
    Run(u32, JobEvent),
    /// The run-on-save debounce of this generation expired.
    SaveTimer(u64),
    /// The last stored result of each case, read from the history after the workspace loaded.
    Stored(Vec<BenchResult>),
}

/// Starts the session task; LSP messages go to the returned sender.
pub fn spawn(client: Client) -> mpsc::UnboundedSender<LspMsg> {
    let (lsp_tx, lsp_rx) = mpsc::unbounded_channel();
    let (internal_tx, internal_rx) = mpsc::unbounded_channel();
    let (watch_tx, watch_rx) = mpsc::unbounded_channel();
    let session = Session {
        out: out::Outbox::new(client),
        internal_tx,
        watch_tx,
        watcher: None,
        root: None,
        discovery: None,
        workspace_error: None,
        tree: Tree::default(),
        pushed: None,
        settings: Settings::default(),
        caps: ClientCaps::default(),
        next_run: 1,
        queue: VecDeque::new(),
        current: None,
        results: HashMap::new(),
        summaries: HashMap::new(),
        build_errors: Vec::new(),
        published: HashSet::new(),
        save_pending: Vec::new(),
        save_generation: 0,
        children: Children::default(),
        shut_down: false,
    };
    tokio::spawn(session.run(lsp_rx, internal_rx, watch_rx));
    lsp_tx
}

/// A job waiting for its turn.
#[derive(Debug)]
struct Queued {
    job: Job,
    on_save: bool,
}

/// The job in progress.
#[derive(Debug)]
struct Current {
    run_id: u32,
    cancel: CancellationToken,
    on_save: bool,
    /// Items not yet in a final state.
    pending: Vec<String>,
}

struct Session {
    out: out::Outbox,
    internal_tx: mpsc::UnboundedSender<Event>,
    watch_tx: mpsc::UnboundedSender<Vec<PathBuf>>,
    watcher: Option<notify::RecommendedWatcher>,
    root: Option<PathBuf>,
    discovery: Option<Discovery>,
    workspace_error: Option<String>,
    tree: Tree,
    /// The items the client last received (pushed or answered), to push only changes.
    pushed: Option<Vec<TestItem>>,
    settings: Settings,
    caps: ClientCaps,
    next_run: u32,
    queue: VecDeque<Queued>,
    current: Option<Current>,
    results: Results,
    summaries: Summaries,
    build_errors: Vec<CompilerError>,
    /// Files with diagnostics on the client (so they can be cleared).
    published: HashSet<PathBuf>,
    save_pending: Vec<String>,
    save_generation: u64,
    children: Children,
    shut_down: bool,
}

impl Session {
    async fn run(
        mut self,
        mut lsp: mpsc::UnboundedReceiver<LspMsg>,
        mut internal: mpsc::UnboundedReceiver<Event>,
        mut watch: mpsc::UnboundedReceiver<Vec<PathBuf>>,
    ) {
        loop {
            let event = tokio::select! {
                biased;
                msg = lsp.recv() => match msg {
                    Some(msg) => Event::Lsp(msg),
                    None => break,
                },
                Some(event) = internal.recv() => event,
                Some(paths) = watch.recv() => Event::Watch(paths),
            };
            if let Err(panic) = catch_unwind(AssertUnwindSafe(|| self.handle(event))) {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                tracing::error!("internal error while handling an event: {what}");
                self.out.push(Out::Log(
                    MessageType::ERROR,
                    format!("knotmeter: internal error: {what}"),
                ));
            }
            self.out.flush().await;
        }
        // The front end is gone (the client exited): leave nothing running.
        self.stop_everything();
    }

    fn handle(&mut self, event: Event) {
        match event {
            Event::Lsp(msg) => self.lsp(msg),
            Event::Watch(paths) => self.watched(paths),
            Event::Build(run_id, event) | Event::Run(run_id, event) => {
                self.job_event(run_id, event)
            }
            Event::SaveTimer(generation) => self.save_timer(generation),
            Event::Stored(results) => self.stored(results),
        }
    }

    fn lsp(&mut self, msg: LspMsg) {
        match msg {
            LspMsg::Initialize {
                root,
                options,
                caps,
            } => {
                self.root = root;
                self.caps = caps;
                if let Some(options) = options {
                    self.configure(options);
                }
            }
            LspMsg::Initialized => {
                self.load_workspace();
                self.rediscover();
                if let Some(discovery) = &self.discovery {
                    let target_dir = discovery.workspace().target_dir.clone();
                    history::load_latest(target_dir, self.internal_tx.clone());
                }
            }
            LspMsg::Open(path, text) => {
                self.with_discovery(|d| d.set_overlay(&path, &text));
                self.rediscover();
                self.publish(&path);
            }
            LspMsg::Change(path, text) => {
                self.with_discovery(|d| d.set_overlay(&path, &text));
                self.rediscover();
            }
            LspMsg::Save(path, text) => {
                if let Some(text) = text {
                    self.with_discovery(|d| d.set_overlay(&path, &text));
                }
                if path.file_name().is_some_and(|n| n == "Cargo.toml") {
                    self.load_workspace();
                }
                self.rediscover();
                self.saved(&path);
            }
            LspMsg::Close(path) => {
                self.with_discovery(|d| d.clear_overlay(&path));
                self.rediscover();
            }
            LspMsg::Configuration(value) => {
                let value = value.get("knotmeter").cloned().unwrap_or(value);
                self.configure(value);
            }
            LspMsg::Discover(reply) => {
                if self.discovery.is_none() {
                    self.load_workspace();
                }
                self.with_discovery(Discovery::restat);
                self.tree = self.compute_tree();
                self.pushed = Some(self.tree.items.clone());
                let _ = reply.send(Ok(DiscoverResult {
                    items: self.tree.items.clone(),
                }));
            }
            LspMsg::Run(params, reply) => {
                let run_id = self.enqueue(params, false);
                let _ = reply.send(Ok(RunResult { run_id }));
                self.start_next();
            }
            LspMsg::Cancel(params, reply) => {
                self.cancel(params.run_id);
                let _ = reply.send(Ok(()));
            }
            LspMsg::History(params, reply) => {
                let target_dir = self
                    .discovery
                    .as_ref()
                    .map(|d| d.workspace().target_dir.clone());
                history::answer(params, target_dir, reply);
            }
            LspMsg::CodeLens(path, reply) => {
                let _ = reply.send(Ok(features::code_lenses(&self.tree, &self.results, &path)));
            }
            LspMsg::InlayHints(path, reply) => {
                let _ = reply.send(Ok(features::inlay_hints(&self.tree, &self.results, &path)));
            }
            LspMsg::Hover(path, at, reply) => {
                let hover = features::hover(&self.tree, &self.results, &self.summaries, &path, at);
                let _ = reply.send(Ok(hover));
            }
            LspMsg::Shutdown(reply) => {
                self.stop_everything();
                let _ = reply.send(Ok(()));
            }
        }
    }

    fn stop_everything(&mut self) {
        self.shut_down = true;
        if let Some(current) = &self.current {
            current.cancel.cancel();
        }
        self.children.kill_all();
        self.watcher = None;
    }

    fn configure(&mut self, value: serde_json::Value) {
        match serde_json::from_value::<Settings>(value) {
            Ok(new) => {
                let s = &mut self.settings;
                s.run_on_save = new.run_on_save.or(s.run_on_save);
                s.case_timeout_secs = new.case_timeout_secs.or(s.case_timeout_secs);
                s.quick_time_secs = new.quick_time_secs.or(s.quick_time_secs);
                s.full_time_secs = new.full_time_secs.or(s.full_time_secs);
                s.cancel_grace_ms = new.cancel_grace_ms.or(s.cancel_grace_ms);
                tracing::info!(settings = ?self.settings, "settings");
            }
            Err(e) => self.out.push(Out::Log(
                MessageType::WARNING,
                format!("knotmeter: ignoring unreadable settings: {e}"),
            )),
        }
    }

    fn run_options(&self) -> RunOptions {
        let s = &self.settings;
        let defaults = RunOptions::default();
        RunOptions {
            case_timeout: s
                .case_timeout_secs
                .filter(|t| *t > 0.0 && t.is_finite())
                .map_or(defaults.case_timeout, Duration::from_secs_f64),
            quick_time: s.quick_time_secs.filter(|t| *t > 0.0),
            full_time: s.full_time_secs.filter(|t| *t > 0.0),
            cancel_grace: s
                .cancel_grace_ms
                .map_or(defaults.cancel_grace, |ms| Duration::from_millis(ms.into())),
        }
    }

    fn with_discovery(&mut self, f: impl FnOnce(&mut Discovery)) {
        if let Some(discovery) = &mut self.discovery {
            f(discovery);
        }
    }

    /// Reads (or re-reads) the workspace with `cargo metadata` and starts watching it.
    fn load_workspace(&mut self) {
        let Some(root) = self.root.clone() else {
            self.workspace_error = Some("the client named no workspace folder".into());
            return;
        };
        match discovery::workspace::load(&root) {
            Ok(workspace) => {
                self.workspace_error = None;
                if self.watcher.is_none() {
                    match watch::spawn(
                        &workspace.root,
                        &workspace.target_dir,
                        self.watch_tx.clone(),
                    ) {
                        Ok(watcher) => self.watcher = Some(watcher),
                        Err(e) => tracing::warn!("cannot watch {}: {e}", workspace.root.display()),
                    }
                }
                match &mut self.discovery {
                    Some(discovery) => discovery.set_workspace(workspace),
                    None => self.discovery = Some(Discovery::new(workspace)),
                }
            }
            Err(e) => {
                let message = format!("knotmeter: {e}");
                tracing::warn!("{message}");
                self.out
                    .push(Out::ShowMessage(MessageType::ERROR, message.clone()));
                self.workspace_error = Some(message);
            }
        }
    }

    fn compute_tree(&mut self) -> Tree {
        let tree = match &mut self.discovery {
            Some(discovery) => discovery.tree(),
            None => Tree::default(),
        };
        for (file, error) in &tree.errors {
            tracing::debug!("{} does not parse: {error}", file.display());
        }
        tree
    }

    /// Recomputes the tree and pushes it when it changed.
    fn rediscover(&mut self) {
        self.tree = self.compute_tree();
        if self.pushed.as_ref() != Some(&self.tree.items) {
            self.pushed = Some(self.tree.items.clone());
            self.out.push(Out::Discovered(DiscoveredParams {
                items: self.tree.items.clone(),
            }));
        }
    }

    fn watched(&mut self, paths: Vec<PathBuf>) {
        tracing::debug!(?paths, "changed on disk");
        if paths
            .iter()
            .any(|p| p.file_name().is_some_and(|n| n == "Cargo.toml"))
        {
            self.load_workspace();
        }
        self.with_discovery(|d| d.invalidate(paths.iter().map(PathBuf::as_path)));
        self.rediscover();
    }

    /// Announces a run and queues it; returns its id.
    fn enqueue(&mut self, params: RunParams, on_save: bool) -> u32 {
        let run_id = self.next_run;
        self.next_run += 1;
        let mode = params.mode.unwrap_or(if on_save {
            RunMode::Quick
        } else {
            RunMode::Full
        });
        let targets = self.tree.select(
            params.include.as_deref(),
            params.exclude.as_deref().unwrap_or(&[]),
        );
        let job = Job {
            run_id,
            mode,
            targets,
        };
        if let Some(error) = &self.workspace_error {
            self.out.push(Out::Output(OutputParams {
                run_id,
                id: None,
                text: error.clone(),
            }));
        }
        for id in job.ids() {
            self.out.push(Out::RunState(RunStateParams {
                run_id,
                id: id.clone(),
                state: ItemState::Enqueued,
                result: None,
                message: None,
            }));
        }
        if job.ids().next().is_none() || self.shut_down {
            self.out.push(Out::RunEnd(RunEndParams { run_id }));
        } else {
            self.queue.push_back(Queued { job, on_save });
        }
        run_id
    }

    fn start_next(&mut self) {
        if self.current.is_some() || self.shut_down {
            return;
        }
        let Some(Queued { job, on_save }) = self.queue.pop_front() else {
            return;
        };
        let Some(discovery) = &self.discovery else {
            return;
        };
        let run_id = job.run_id;
        let cancel = CancellationToken::new();
        self.current = Some(Current {
            run_id,
            cancel: cancel.clone(),
            on_save,
            pending: job.ids().cloned().collect(),
        });
        if self.caps.work_done_progress {
            self.out.push(Out::Progress(
                run_id,
                ProgressMsg::Begin(format!("knotmeter run {run_id}")),
            ));
        }
        let tx = self.internal_tx.clone();
        let sink: runs::Sink = Box::new(move |event: JobEvent| {
            let event = match event {
                JobEvent::Build(_) | JobEvent::Built { .. } => Event::Build(run_id, event),
                other => Event::Run(run_id, other),
            };
            let _ = tx.send(event);
        });
        tokio::spawn(runs::execute(
            job,
            discovery.workspace().clone(),
            self.run_options(),
            self.children.clone(),
            cancel,
            sink,
        ));
    }

    fn cancel(&mut self, run_id: u32) {
        if let Some(current) = self.current.as_ref().filter(|c| c.run_id == run_id) {
            current.cancel.cancel();
            return;
        }
        if let Some(at) = self.queue.iter().position(|q| q.job.run_id == run_id) {
            let queued = self.queue.remove(at).expect("found");
            self.skip_queued(&queued.job, "cancelled");
        }
    }

    fn skip_queued(&mut self, job: &Job, why: &str) {
        for id in job.ids() {
            self.out.push(Out::RunState(RunStateParams {
                run_id: job.run_id,
                id: id.clone(),
                state: ItemState::Skipped,
                result: None,
                message: Some(why.into()),
            }));
        }
        self.out
            .push(Out::RunEnd(RunEndParams { run_id: job.run_id }));
    }

    fn job_event(&mut self, run_id: u32, event: JobEvent) {
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
            JobEvent::Built { errors } => {
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
            JobEvent::Listed(target, cases) => {
                self.with_discovery(|d| d.reconcile(target, cases));
                self.rediscover();
            }
            JobEvent::State {
                id,
                state,
                result,
                message,
            } => {
                if let Some(current) = self.current.as_mut().filter(|c| c.run_id == run_id) {
                    if state.is_final() {
                        current.pending.retain(|p| *p != id);
                    }
                }
                if let Some(result) = &result {
                    self.results.insert(id.clone(), BenchResult::clone(result));
                    if let Some(file) = self.tree.bench_of(&id).map(|b| b.file.clone()) {
                        self.publish(&file);
                    }
                }
                self.out.push(Out::RunState(RunStateParams {
                    run_id,
                    id,
                    state,
                    result,
                    message,
                }));
            }
            JobEvent::Output { id, text } => {
                self.out
                    .push(Out::Output(OutputParams { run_id, id, text }));
            }
            JobEvent::Summary(summary) => {
                let file = self.tree.bench_of(&summary.id).map(|b| b.file.clone());
                self.summaries.insert(summary.id.clone(), summary);
                if let Some(file) = file {
                    self.publish(&file);
                }
            }
            JobEvent::Compared { id, comparison } => {
                // The comparison completes an earlier `passed`: report the result again.
                if let Some(result) = self.results.get_mut(&id) {
                    result.comparison = Some(comparison);
                    self.out.push(Out::RunState(RunStateParams {
                        run_id,
                        id,
                        state: ItemState::Passed,
                        result: Some(Box::new(result.clone())),
                        message: None,
                    }));
                }
            }
            JobEvent::Progress { .. } => {}
            JobEvent::Finished => {
                if self.caps.work_done_progress {
                    self.out.push(Out::Progress(run_id, ProgressMsg::End));
                }
                self.out.push(Out::RunEnd(RunEndParams { run_id }));
                if self.current.as_ref().is_some_and(|c| c.run_id == run_id) {
                    self.current = None;
                }
                if self.caps.code_lens_refresh || self.caps.inlay_hint_refresh {
                    self.out.push(Out::Refresh {
                        lenses: self.caps.code_lens_refresh,
                        hints: self.caps.inlay_hint_refresh,
                    });
                }
                self.start_next();
            }
        }
    }

    /// Stored results shown until the cases are measured: results measured since the daemon
    /// started win, the rest go where live results go (lenses, hints, hovers, diagnostics) and
    /// to the editor as `knotmeter/stored`.
    fn stored(&mut self, results: Vec<BenchResult>) {
        let fresh: Vec<BenchResult> = results
            .into_iter()
            .filter(|r| !self.results.contains_key(&r.id))
            .collect();
        let mut files = HashSet::new();
        for result in &fresh {
            self.results.insert(result.id.clone(), result.clone());
            if let Some(bench) = self.tree.bench_of(&result.id) {
                files.insert(bench.file.clone());
            }
        }
        for file in files {
            self.publish(&file);
        }
        self.out.push(Out::Stored(StoredParams { results: fresh }));
        if self.caps.code_lens_refresh || self.caps.inlay_hint_refresh {
            self.out.push(Out::Refresh {
                lenses: self.caps.code_lens_refresh,
                hints: self.caps.inlay_hint_refresh,
            });
        }
    }

    /// Publishes `file`'s diagnostics (build errors and validity warnings), or clears them.
    fn publish(&mut self, file: &Path) {
        let diagnostics = features::diagnostics(
            &self.tree,
            &self.results,
            &self.summaries,
            &self.build_errors,
            file,
        );
        if diagnostics.is_empty() && !self.published.contains(file) {
            return;
        }
        if diagnostics.is_empty() {
            self.published.remove(file);
        } else {
            self.published.insert(file.to_path_buf());
        }
        self.out
            .push(Out::Diagnostics(file.to_path_buf(), diagnostics));
    }

    /// Run-on-save: collect the ids the saved file concerns and (re)arm the debounce.
    fn saved(&mut self, path: &Path) {
        if self.settings.run_on_save != Some(true) || self.shut_down {
            return;
        }
        let mut ids: Vec<String> = self
            .tree
            .benches_in(path)
            .flat_map(|b| b.leaf_ids())
            .collect();
        if ids.is_empty() && path.extension().is_some_and(|e| e == "rs") {
            // Another source file of a package: re-run the package's benchmarks.
            let package = self.discovery.as_ref().and_then(|d| {
                d.workspace()
                    .packages
                    .iter()
                    .filter(|p| path.starts_with(p.dir()))
                    .max_by_key(|p| p.dir().as_os_str().len())
                    .map(|p| p.name.clone())
            });
            if let Some(package) = package {
                ids = self
                    .tree
                    .benches
                    .iter()
                    .filter(|b| b.target.package == package)
                    .flat_map(|b| b.leaf_ids())
                    .collect();
            }
        }
        if ids.is_empty() {
            return;
        }
        for id in ids {
            if !self.save_pending.contains(&id) {
                self.save_pending.push(id);
            }
        }
        self.save_generation += 1;
        let generation = self.save_generation;
        let tx = self.internal_tx.clone();
        tokio::spawn(async move {
            tokio::time::sleep(SAVE_DEBOUNCE).await;
            let _ = tx.send(Event::SaveTimer(generation));
        });
    }

    fn save_timer(&mut self, generation: u64) {
        if generation != self.save_generation || self.shut_down {
            return; // a newer save re-armed the debounce
        }
        let mut ids = std::mem::take(&mut self.save_pending);
        // A newer save makes an earlier run-on-save run stale: cancel it, keep its work.
        if let Some(current) = self.current.as_ref().filter(|c| c.on_save) {
            current.cancel.cancel();
            for id in &current.pending {
                if !ids.contains(id) {
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
                if !ids.contains(id) {
                    ids.push(id.clone());
                }
            }
            self.skip_queued(&queued.job, "superseded by a newer save");
        }
        let params = RunParams {
            include: Some(ids),
            exclude: None,
            mode: Some(RunMode::Quick),
        };
        self.enqueue(params, true);
        self.start_next();
    }
}
