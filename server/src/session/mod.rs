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
//!
//! Stopping: the process around the session (`knotmeter serve`) asks it to stop through its
//! [`Lifeline`] when a signal arrives; the session then cancels the run in progress
//! gracefully, kills every child process once that run has ended, and says it is done.

mod harness;
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

/// The longest time setting accepted, in seconds (a day), as the engine's `--time`.
pub const MAX_SECONDS: f64 = 86_400.0;

/// Whether `secs` is a usable number of seconds: above 0, at most [`MAX_SECONDS`].
pub fn valid_seconds(secs: f64) -> bool {
    secs > 0.0 && secs <= MAX_SECONDS
}

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
    /// The process was asked to stop (a signal): cancel gracefully, then kill.
    Stop,
}

/// What the process around a session holds to stop it: its child processes, a request to
/// stop gracefully, and the session's answer that it has.
#[derive(Debug, Clone, Default)]
pub struct Lifeline {
    /// Every child process group the session starts.
    pub children: Children,
    /// Cancelled by the owner: stop runs gracefully, then kill every child.
    pub stop: CancellationToken,
    /// Cancelled by the session once it has stopped (after a `stop`).
    pub stopped: CancellationToken,
}

/// Starts the session task; LSP messages go to the returned sender.
pub fn spawn(client: Client, lifeline: Lifeline) -> mpsc::UnboundedSender<LspMsg> {
    let (lsp_tx, lsp_rx) = mpsc::unbounded_channel();
    let (internal_tx, internal_rx) = mpsc::unbounded_channel();
    let (watch_tx, watch_rx) = mpsc::unbounded_channel();
    let session = Session {
        out: out::Outbox::new(client),
        internal_tx,
        watch_tx,
        watcher: None,
        watching: None,
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
        harness: harness::Harness::default(),
        save_pending: Vec::new(),
        save_generation: 0,
        children: lifeline.children.clone(),
        lifeline,
        shut_down: false,
        stopping: false,
        stop_done: false,
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
    /// The directory the watcher watches.
    watching: Option<PathBuf>,
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
    /// Bench targets without `harness = false`, as diagnostics.
    harness: harness::Harness,
    save_pending: Vec<String>,
    save_generation: u64,
    children: Children,
    lifeline: Lifeline,
    shut_down: bool,
    /// A graceful stop is under way (see [`Lifeline`]).
    stopping: bool,
    /// The graceful stop is over.
    stop_done: bool,
}

impl Session {
    async fn run(
        mut self,
        mut lsp: mpsc::UnboundedReceiver<LspMsg>,
        mut internal: mpsc::UnboundedReceiver<Event>,
        mut watch: mpsc::UnboundedReceiver<Vec<PathBuf>>,
    ) {
        let stop = self.lifeline.stop.clone();
        loop {
            let event = tokio::select! {
                biased;
                _ = stop.cancelled(), if !self.stopping => Event::Stop,
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
            if self.stop_done {
                self.lifeline.stopped.cancel();
            }
        }
        // The front end is gone (the client exited): leave nothing running.
        self.stop_everything();
        self.lifeline.stopped.cancel();
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
            Event::Stop => self.begin_stop(),
        }
    }

    /// A graceful stop: no new runs; the run in progress is cancelled (the bench binary
    /// stops at a sample boundary, or is killed after the grace period); then every child is
    /// killed and the lifeline told.
    fn begin_stop(&mut self) {
        self.stopping = true;
        self.shut_down = true;
        self.out.push(Out::Log(
            MessageType::INFO,
            "knotmeter: stopping (signal): cancelling the run in progress".into(),
        ));
        for queued in std::mem::take(&mut self.queue) {
            self.skip_queued(&queued.job, "cancelled: the daemon is stopping");
        }
        match &self.current {
            Some(current) => current.cancel.cancel(),
            None => self.finish_stop(),
        }
    }

    fn finish_stop(&mut self) {
        self.stop_everything();
        // Told after this event's notifications are flushed, so they reach the client.
        self.stop_done = true;
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
                if let Some(why) = self.nothing_matches(&params) {
                    let _ = reply.send(Err(Failure::InvalidParams(why)));
                    return;
                }
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
            Ok(mut new) => {
                for (name, value) in [
                    ("caseTimeoutSecs", &mut new.case_timeout_secs),
                    ("quickTimeSecs", &mut new.quick_time_secs),
                    ("fullTimeSecs", &mut new.full_time_secs),
                ] {
                    if let Some(bad) = value.filter(|v| !valid_seconds(*v)) {
                        *value = None;
                        self.out.push(Out::ShowMessage(
                            MessageType::WARNING,
                            format!(
                                "knotmeter: ignoring the setting {name} = {bad}: it must be a number of \
                                 seconds above 0 and at most {MAX_SECONDS}"
                            ),
                        ));
                    }
                }
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
            silence_limit: s
                .case_timeout_secs
                .filter(|t| valid_seconds(*t))
                .map_or(defaults.silence_limit, Duration::from_secs_f64),
            quick_time: s.quick_time_secs.filter(|t| valid_seconds(*t)),
            full_time: s.full_time_secs.filter(|t| valid_seconds(*t)),
            cancel_grace: s
                .cancel_grace_ms
                .map_or(defaults.cancel_grace, |ms| Duration::from_millis(ms.into())),
            bench_args: Vec::new(),
            ..defaults
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
                if self.workspace_error.take().is_some() {
                    self.out.push(Out::Log(
                        MessageType::INFO,
                        format!(
                            "knotmeter: the workspace at {} loads now",
                            workspace.root.display()
                        ),
                    ));
                }
                self.watch(&workspace.root, &workspace.target_dir);
                self.harness.workspace_changed();
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
                // Watch the folder anyway: creating or mending its Cargo.toml loads it.
                if self.discovery.is_none() {
                    self.watch(&root, &root.join("target"));
                }
            }
        }
    }

    /// Watches `dir` (unless it is watched already), ignoring `target_dir`.
    fn watch(&mut self, dir: &Path, target_dir: &Path) {
        if self.watching.as_deref() == Some(dir) && self.watcher.is_some() {
            return;
        }
        match watch::spawn(dir, target_dir, self.watch_tx.clone()) {
            Ok(watcher) => {
                self.watcher = Some(watcher);
                self.watching = Some(dir.to_path_buf());
            }
            Err(e) => tracing::warn!("cannot watch {}: {e}", dir.display()),
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
        self.refresh_harness();
    }

    /// Recomputes the missing-`harness = false` diagnostics; publishes the files that changed.
    fn refresh_harness(&mut self) {
        let Some(discovery) = &self.discovery else {
            return;
        };
        let changed = self.harness.refresh(discovery.workspace(), &self.tree);
        for file in changed {
            self.publish(&file);
        }
    }

    /// Why a run of `params` would run nothing although it names items, if it would.
    fn nothing_matches(&self, params: &RunParams) -> Option<String> {
        let include = params.include.as_ref()?;
        let known: HashSet<&str> = self.tree.items.iter().map(|i| i.id.as_str()).collect();
        if include.iter().any(|id| known.contains(id.as_str())) {
            return None;
        }
        let names: Vec<String> = include.iter().take(5).map(|id| format!("`{id}`")).collect();
        let more = include.len().saturating_sub(5);
        let why = match &self.workspace_error {
            Some(error) => format!("the workspace did not load ({error})"),
            None => format!(
                "the workspace has {} benchmark(s); the tree may have changed: ask knotmeter/discover again",
                self.tree.benches.len()
            ),
        };
        Some(format!(
            "nothing to run: no benchmark has the id {}{}: {why}",
            if names.is_empty() {
                "(the include list is empty)".to_owned()
            } else {
                names.join(", ")
            },
            if more > 0 {
                format!(" (and {more} more)")
            } else {
                String::new()
            }
        ))
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
        // Ids the client named that are not in the tree (renamed or deleted since it was
        // sent): they end at once, and the client is told. A run-on-save run names ids from
        // the tree itself; one left over from a stale run just goes (no pop-up on save).
        let known: HashSet<&str> = self.tree.items.iter().map(|i| i.id.as_str()).collect();
        let unknown: Vec<String> = params
            .include
            .iter()
            .flatten()
            .filter(|id| !on_save && !known.contains(id.as_str()))
            .cloned()
            .collect();
        for id in &unknown {
            self.out.push(Out::RunState(RunStateParams {
                run_id,
                id: id.clone(),
                state: ItemState::Errored,
                result: None,
                message: Some(
                    "no benchmark has this id in the workspace (renamed or deleted since the tree \
                     was sent?)"
                        .into(),
                ),
            }));
        }
        if !unknown.is_empty() {
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
        if job.ids().next().is_none() && self.workspace_error.is_none() {
            let why = if self.tree.benches.is_empty() {
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
            JobEvent::Output { id, text } | JobEvent::Printed { id, text } => {
                self.out
                    .push(Out::Output(OutputParams { run_id, id, text }));
            }
            JobEvent::Problem(problem) => {
                tracing::info!(?problem, "run {run_id}");
                if let runs::Problem::Harness { target, .. } = problem {
                    if let Some(discovery) = &self.discovery {
                        let changed =
                            self.harness
                                .libtest_built(target, discovery.workspace(), &self.tree);
                        for file in changed {
                            self.publish(&file);
                        }
                    }
                }
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
                if self.stopping {
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

    /// Publishes `file`'s diagnostics (build errors, validity warnings, a missing
    /// `harness = false`), or clears them.
    fn publish(&mut self, file: &Path) {
        let mut diagnostics = features::diagnostics(
            &self.tree,
            &self.results,
            &self.summaries,
            &self.build_errors,
            file,
        );
        diagnostics.extend(self.harness.diagnostics(file));
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
