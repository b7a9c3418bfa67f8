//! The session: the one task that owns the daemon's changing state — workspace folders, open
//! documents, the tree, settings, the run queue, the last results and the published
//! diagnostics.
//!
//! Everything that happens reaches it as an [`Event`] from one `select!`: LSP messages (in
//! the order the client sent them), watcher notices, trees from the discovery thread, and what
//! running jobs report. It handles one event at a time with plain functions, collects what the
//! client must be told, then hands it to the outbox's sender task in order. So the order of
//! state changes, and of the notifications they cause, is the order of the events. A panic
//! while handling an event is caught and logged; the session keeps serving.
//!
//! Expensive work stays off this path: `cargo metadata` runs on a blocking thread
//! ([`folders`]), parsing and tree building on the discovery thread ([`discover`]), writing
//! large messages on the outbox's task ([`out`]). A request that needs a tree the discovery
//! thread has not finished (a hover in a file just edited, a run right after an edit) waits
//! for that tree, and only for that one: requests about other files are answered at once.
//!
//! Runs ([`runs`]): one at a time (parallel benchmarks disturb each other). A run request is
//! answered at once with its id; its items are reported `enqueued`, and the job starts when
//! the previous one ends. Run-on-save coalesces saves for [`SAVE_DEBOUNCE`], and a newer save
//! cancels a stale run-on-save run (its unfinished items join the new run).
//!
//! Stopping: the process around the session (`knotmeter serve`) asks it to stop through its
//! [`Lifeline`] when a signal arrives; the session then cancels the run in progress
//! gracefully, kills every child process once that run has ended, and says it is done.

mod discover;
mod edited;
pub mod features;
mod folders;
mod harness;
mod history;
mod out;
mod profiles;
mod runs;
mod samples;

use std::collections::{HashMap, HashSet, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use knotmeter_protocol::editor::{
    CancelParams, DiscoverResult, Features, HistoryParams, HistoryResult, ItemState, RunParams,
    RunResult, RunStateParams, SamplesParams, SamplesResult, Settings, TreeChangedParams,
};
use knotmeter_protocol::{BenchResult, Measure, Shown};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use tower_lsp_server::ls_types::{CodeLens, Hover, InlayHint, MessageType, Position};
use tower_lsp_server::Client;

use crate::cargo_build::CompilerError;
use crate::discovery::{TargetRef, Tree};
use crate::process::Children;
use crate::runs::JobEvent;
use crate::watch::Notice;
use discover::{Command, Update, Worker};
use features::{Results, Summaries};
use folders::Folder;
use out::Out;
use runs::{Current, Queued};

/// How long saves are collected before a run-on-save run starts: long enough for the saves
/// of one "Save All" (they arrive within milliseconds), short beside the build that follows
/// (docs/performance.md, "The save loop"; it was 300 ms). A later save still cancels a stale
/// run-on-save run.
pub const SAVE_DEBOUNCE: Duration = Duration::from_millis(100);

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
    /// The knotmeter features it announced (`capabilities.experimental.knotmeter`).
    pub features: Features,
}

/// A message from the LSP front end.
#[derive(Debug)]
pub enum LspMsg {
    /// `initialize`.
    Initialize {
        /// The workspace folders (every one the client named).
        roots: Vec<PathBuf>,
        /// `initializationOptions`.
        options: Option<serde_json::Value>,
        /// What the client supports.
        caps: ClientCaps,
    },
    /// `initialized`: load the workspace and start watching.
    Initialized,
    /// `workspace/didChangeWorkspaceFolders`.
    Folders {
        /// Folders added.
        added: Vec<PathBuf>,
        /// Folders removed.
        removed: Vec<PathBuf>,
    },
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
    /// `knotmeter/samples`.
    Samples(SamplesParams, Reply<SamplesResult>),
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
    /// From a folder's watch.
    Watch(Notice),
    /// A tree from the discovery thread.
    Tree(Update),
    /// A folder's `cargo metadata` ended.
    Loaded(
        PathBuf,
        Result<crate::discovery::Workspace, folders::LoadFailure>,
    ),
    /// A job's build reports.
    Build(u32, JobEvent),
    /// A job's run reports.
    Run(u32, JobEvent),
    /// The run-on-save debounce of this generation expired.
    SaveTimer(u64),
    /// The last stored result of each case, read from the history after a workspace loaded.
    Stored(Vec<BenchResult>),
    /// The newest stored profile of each case, read with them.
    StoredProfiles(Vec<knotmeter_history::StoredProfile>),
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
    let batch_states = Arc::new(AtomicBool::new(false));
    let session = Session {
        out: out::Outbox::new(client, Arc::clone(&batch_states)),
        batch_states,
        worker: Worker::spawn(internal_tx.clone()),
        internal_tx,
        watch_tx,
        folders: Vec::new(),
        initialized: false,
        tree: Arc::new(Tree::default()),
        owners: Arc::new(HashMap::new()),
        applied: 0,
        version: 0,
        pushed: None,
        edited: HashMap::new(),
        workspace_seq: 0,
        workspace_pushed: 0,
        deferred: Vec::new(),
        collisions: Vec::new(),
        targets_with_benches: HashSet::new(),
        settings: Settings::default(),
        caps: ClientCaps::default(),
        next_run: 1,
        queue: VecDeque::new(),
        current: None,
        results: HashMap::new(),
        summaries: HashMap::new(),
        summary_runs: HashMap::new(),
        samples: samples::Samples::default(),
        profiles: profiles::Profiles::default(),
        build_errors: Vec::new(),
        published: HashSet::new(),
        save_pending: Vec::new(),
        save_generation: 0,
        save_waiting: None,
        edited_code: edited::EditedCode::default(),
        lifeline,
        life: Life::Serving,
    };
    tokio::spawn(session.run(lsp_rx, internal_rx, watch_rx));
    lsp_tx
}

/// A request held until the tree it needs has arrived.
#[derive(Debug)]
struct Deferred {
    /// The discovery command whose tree it needs; `None` while workspaces are loading.
    need: Option<u64>,
    /// The whole tree (`true`) or its file only.
    scope: Scope,
    msg: LspMsg,
}

/// What a request depends on.
#[derive(Debug, Clone, PartialEq)]
enum Scope {
    /// Every change sent so far (a run, a discover).
    All,
    /// The changes of one file (lenses, hints, hovers).
    File(PathBuf),
}

struct Session {
    out: out::Outbox,
    /// Whether the outbox merges run states (the client announced `runStates`).
    batch_states: Arc<AtomicBool>,
    worker: Worker,
    internal_tx: mpsc::UnboundedSender<Event>,
    watch_tx: mpsc::UnboundedSender<Notice>,
    folders: Vec<Folder>,
    initialized: bool,
    tree: Arc<Tree>,
    /// The workspace folder of each bench target.
    owners: Arc<HashMap<TargetRef, PathBuf>>,
    /// The last discovery command the tree reflects.
    applied: u64,
    /// The tree's version.
    version: u64,
    /// The version of the tree the client last received; `None` before the first.
    pushed: Option<u64>,
    /// The last discovery command about each file edited or changed on disk.
    edited: HashMap<PathBuf, u64>,
    /// The last discovery command that changed a folder's workspace.
    workspace_seq: u64,
    /// The last of those whose tree the session has had (and pushed, to a client that takes
    /// trees only after a workspace loads).
    workspace_pushed: u64,
    deferred: Vec<Deferred>,
    /// Ids left out of the tree because two folders have them (said once per set).
    collisions: Vec<String>,
    targets_with_benches: HashSet<TargetRef>,
    settings: Settings,
    caps: ClientCaps,
    next_run: u32,
    queue: VecDeque<Queued>,
    current: Option<Current>,
    results: Results,
    summaries: Summaries,
    /// The run that produced each benchmark's analysis.
    summary_runs: HashMap<String, u32>,
    samples: samples::Samples,
    /// The last profile of each case.
    profiles: profiles::Profiles,
    build_errors: Vec<CompilerError>,
    /// Files with diagnostics on the client (so they can be cleared).
    published: HashSet<PathBuf>,
    /// Saved files whose benchmarks run on save.
    save_pending: Vec<PathBuf>,
    save_generation: u64,
    /// A run-on-save waiting for the tree of this discovery command.
    save_waiting: Option<u64>,
    /// The benchmarks' code when they last ran on save: what a save edited runs first.
    edited_code: edited::EditedCode,
    lifeline: Lifeline,
    life: Life,
}

/// Where the session is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Life {
    /// Runs start.
    Serving,
    /// The client shut it down (`shutdown`, or its going away): no new runs, nothing runs.
    ShutDown,
    /// A graceful stop (a signal, see [`Lifeline`]): no new runs; the run in progress is
    /// being cancelled.
    Stopping,
    /// The graceful stop is over; the lifeline is told.
    Stopped,
}

impl Session {
    async fn run(
        mut self,
        mut lsp: mpsc::UnboundedReceiver<LspMsg>,
        mut internal: mpsc::UnboundedReceiver<Event>,
        mut watch: mpsc::UnboundedReceiver<Notice>,
    ) {
        let stop = self.lifeline.stop.clone();
        loop {
            let event = tokio::select! {
                biased;
                _ = stop.cancelled(), if !matches!(self.life, Life::Stopping | Life::Stopped) => Event::Stop,
                msg = lsp.recv() => match msg {
                    Some(msg) => Event::Lsp(msg),
                    None => break,
                },
                Some(event) = internal.recv() => event,
                Some(notice) = watch.recv() => Event::Watch(notice),
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
            if self.life == Life::Stopped {
                // Told once this event's notifications are written, so they reach the client.
                self.out.flush_and_wait().await;
                self.lifeline.stopped.cancel();
            } else {
                self.out.flush();
            }
        }
        // The front end is gone (the client exited): leave nothing running.
        self.stop_everything();
        self.out.flush_and_wait().await;
        self.lifeline.stopped.cancel();
    }

    fn handle(&mut self, event: Event) {
        match event {
            Event::Lsp(msg) => self.lsp(msg),
            Event::Watch(notice) => self.watched(notice),
            Event::Tree(update) => self.tree_arrived(update),
            Event::Loaded(folder, result) => self.loaded(folder, result),
            Event::Build(run_id, event) | Event::Run(run_id, event) => {
                self.job_event(run_id, event)
            }
            Event::SaveTimer(generation) => self.save_timer(generation),
            Event::Stored(results) => self.stored(results),
            Event::StoredProfiles(stored) => {
                for s in stored {
                    self.profiled(None, Some(s.timestamp), s.profile);
                }
            }
            Event::Stop => self.begin_stop(),
        }
        self.release_deferred();
    }

    /// A graceful stop: no new runs; the run in progress is cancelled (the bench binary
    /// stops at a sample boundary, or is killed after the grace period); then every child is
    /// killed and the lifeline told.
    fn begin_stop(&mut self) {
        self.life = Life::Stopping;
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
        self.life = Life::Stopped;
    }

    /// What `msg` must wait for before it is answered, if anything.
    fn scope_of(msg: &LspMsg) -> Option<Scope> {
        match msg {
            LspMsg::Discover(_) | LspMsg::Run(..) => Some(Scope::All),
            LspMsg::CodeLens(path, _) | LspMsg::InlayHints(path, _) | LspMsg::Hover(path, ..) => {
                Some(Scope::File(path.clone()))
            }
            _ => None,
        }
    }

    /// The discovery command `scope` needs reflected: `Some(None)` while workspaces load,
    /// `None` when the tree is fresh enough.
    fn need(&self, scope: &Scope) -> Option<Option<u64>> {
        if self.folders.iter().any(|f| f.loading) {
            return Some(None);
        }
        let seq = self.need_now(scope);
        (seq > self.applied).then_some(Some(seq))
    }

    /// The discovery command whose tree `scope` needs now: every command for the whole tree;
    /// for a file, its last edit and the last workspace loaded.
    fn need_now(&self, scope: &Scope) -> u64 {
        match scope {
            Scope::All => self.worker.sent(),
            Scope::File(path) => self
                .edited
                .get(path)
                .copied()
                .unwrap_or(0)
                .max(self.workspace_seq),
        }
    }

    /// Answers the held requests whose tree has arrived.
    fn release_deferred(&mut self) {
        if self.deferred.is_empty() {
            return;
        }
        let loading = self.folders.iter().any(|f| f.loading);
        let mut ready = Vec::new();
        for mut held in std::mem::take(&mut self.deferred) {
            if held.need.is_none() && !loading {
                // The workspaces loaded: it needs what was sent for them.
                held.need = Some(self.need_now(&held.scope));
            }
            match held.need {
                Some(seq) if seq <= self.applied => ready.push(held.msg),
                _ => self.deferred.push(held),
            }
        }
        for msg in ready {
            self.answer(msg);
        }
    }

    fn lsp(&mut self, msg: LspMsg) {
        if let LspMsg::Discover(_) = &msg {
            // Files changed on disk without a notice are read again.
            if !self.folders.is_empty() && self.initialized {
                self.worker.send(Command::Restat);
            }
        }
        if let Some(scope) = Self::scope_of(&msg) {
            if self.initialized || matches!(msg, LspMsg::Discover(_)) {
                if let Some(need) = self.need(&scope) {
                    self.deferred.push(Deferred { need, scope, msg });
                    return;
                }
            }
        }
        self.answer(msg);
    }

    fn answer(&mut self, msg: LspMsg) {
        match msg {
            LspMsg::Initialize {
                roots,
                options,
                caps,
            } => {
                self.caps = caps;
                self.batch_states
                    .store(caps.features.run_states == Some(true), Ordering::Relaxed);
                self.folders = roots.into_iter().map(Folder::new).collect();
                if let Some(options) = options {
                    self.configure(options);
                }
            }
            LspMsg::Initialized => {
                self.initialized = true;
                for i in 0..self.folders.len() {
                    self.load(i);
                }
                if self.folders.is_empty() {
                    // No folder at all: the (empty) tree still goes out.
                    self.worker.send(Command::Restat);
                }
            }
            LspMsg::Folders { added, removed } => self.change_folders(added, removed),
            LspMsg::Open(path, text) => {
                self.overlay(&path, Some(text));
                self.publish(&path);
            }
            LspMsg::Change(path, text) => {
                self.overlay(&path, Some(text));
                self.forget_build_errors(std::slice::from_ref(&path));
            }
            LspMsg::Save(path, text) => {
                if let Some(text) = text {
                    self.overlay(&path, Some(text));
                }
                if path.file_name().is_some_and(|n| n == "Cargo.toml") {
                    self.reload_for(&path);
                }
                self.saved(&path);
            }
            LspMsg::Close(path) => self.overlay(&path, None),
            LspMsg::Configuration(value) => {
                let value = value.get("knotmeter").cloned().unwrap_or(value);
                self.configure(value);
            }
            LspMsg::Discover(reply) => {
                self.pushed = Some(self.version);
                let _ = reply.send(Ok(DiscoverResult {
                    items: self.tree.items().cloned().collect(),
                    version: Some(self.version),
                }));
            }
            LspMsg::Run(params, reply) => {
                if let Some(why) = self.refused(&params) {
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
                let target_dir = self.target_dir_of(&params.id);
                history::answer(params, target_dir, reply);
            }
            LspMsg::Samples(params, reply) => {
                let target_dir = self.target_dir_of(&params.id);
                let shown = self.results.get(&params.id);
                samples::answer(&self.samples, params.id, shown, target_dir, reply);
            }
            LspMsg::CodeLens(path, reply) => {
                let lenses =
                    features::code_lenses(&self.tree, &self.results, &self.summaries, &path);
                let _ = reply.send(Ok(lenses));
            }
            LspMsg::InlayHints(path, reply) => {
                let mut hints =
                    features::inlay_hints(&self.tree, &self.results, &self.summaries, &path);
                hints.extend(self.profile_marks(&path, profiles::inlay_hints));
                let _ = reply.send(Ok(hints));
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

    /// The editor's text of `path` changed (`None`: closed); the tree follows on the
    /// discovery thread.
    fn overlay(&mut self, path: &Path, text: Option<String>) {
        let seq = self.worker.send(Command::Overlay {
            path: path.to_path_buf(),
            text: text.map(Arc::from),
        });
        self.edited.insert(path.to_path_buf(), seq);
    }

    fn stop_everything(&mut self) {
        if self.life == Life::Serving {
            self.life = Life::ShutDown;
        }
        if let Some(current) = &self.current {
            current.cancel.cancel();
        }
        self.lifeline.children.kill_all();
        for folder in &mut self.folders {
            folder.watch = None;
        }
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
                let problems = s.problems;
                s.problems = new.problems.or(s.problems);
                tracing::info!(settings = ?self.settings, "settings");
                if self.settings.problems != problems {
                    for file in self.published.clone() {
                        self.publish(&file);
                    }
                }
            }
            Err(e) => self.out.push(Out::Log(
                MessageType::WARNING,
                format!("knotmeter: ignoring unreadable settings: {e}"),
            )),
        }
    }

    /// A tree from the discovery thread: it becomes the session's, and the client hears what
    /// changed.
    fn tree_arrived(&mut self, update: Update) {
        self.applied = self.applied.max(update.seq);
        self.push_tree(&update);
        self.version = update.version;
        for (file, error) in &update.tree.errors {
            tracing::debug!("{} does not parse: {error}", file.display());
        }
        if update.collisions != self.collisions {
            if !update.collisions.is_empty() {
                let shown: Vec<String> = update
                    .collisions
                    .iter()
                    .take(5)
                    .map(|id| format!("`{id}`"))
                    .collect();
                self.out.push(Out::ShowMessage(
                    MessageType::WARNING,
                    format!(
                        "knotmeter: two workspace folders have items with the same id ({}{}), \
                         for example the same package in both; only the first folder's are shown",
                        shown.join(", "),
                        if update.collisions.len() > 5 {
                            ", …"
                        } else {
                            ""
                        }
                    ),
                ));
            }
            self.collisions = update.collisions.clone();
        }
        self.tree = update.tree;
        self.edited_code.discovered(self.tree.benches());
        self.owners = update.owners;
        self.refresh_harness(false);
        if let Some(seq) = self.save_waiting {
            if seq <= self.applied {
                self.save_waiting = None;
                self.run_saved();
            }
        }
    }

    /// Tells the client about the tree `update` brings, as far as it takes trees
    /// (docs/protocol.md, "Which trees a client is sent"). The first tree goes out once the
    /// workspaces have loaded. After it, a client that announced `treeChanged` hears every
    /// change; any other client (Neovim's, Helix's) only a whole tree after a workspace folder
    /// (re)loaded, never one per edit: what it shows comes from its own requests, and it asks
    /// `knotmeter/discover` for the tree when it wants it.
    fn push_tree(&mut self, update: &Update) {
        let loading = self.folders.iter().any(|f| f.loading);
        let first = self.pushed.is_none() && !loading;
        let reloaded = !loading
            && update.seq >= self.workspace_seq
            && self.workspace_seq > self.workspace_pushed;
        if !loading && update.seq >= self.workspace_seq {
            self.workspace_pushed = self.workspace_seq;
        }
        let live = self.caps.features.tree_changed == Some(true);
        let out = match (&update.change, self.pushed) {
            _ if first => Out::Discovered(Arc::clone(&update.tree), update.version),
            (None, _) => return,
            (Some(change), Some(base)) if live && base + 1 == update.version => {
                Out::TreeChanged(TreeChangedParams {
                    base,
                    version: update.version,
                    removed: change.removed.clone(),
                    items: change.items.clone(),
                })
            }
            _ if live || reloaded => Out::Discovered(Arc::clone(&update.tree), update.version),
            _ => return,
        };
        self.out.push(out);
        self.pushed = Some(update.version);
    }

    /// Recomputes the missing-`harness = false` diagnostics when the targets with
    /// benchmarks changed (or `force`: a workspace loaded); publishes the files that changed.
    fn refresh_harness(&mut self, force: bool) {
        let targets: HashSet<TargetRef> = self.tree.benches().map(|b| b.target.clone()).collect();
        if !force && targets == self.targets_with_benches {
            return;
        }
        self.targets_with_benches = targets;
        let mut changed = Vec::new();
        for folder in &mut self.folders {
            if let Some(workspace) = &folder.workspace {
                changed.extend(folder.harness.refresh(workspace, &self.tree));
            }
        }
        for file in changed {
            self.publish(&file);
        }
    }

    /// Why a run of `params` is refused: it asks for two things at once that cannot be, or it
    /// would run nothing although it names items.
    fn refused(&self, params: &RunParams) -> Option<String> {
        if params.measure == Some(Measure::Instructions) && params.profile == Some(true) {
            return Some(
                "measure `instructions` with `profile`: a profile counts with its own profiler; \
                 ask for one or the other"
                    .to_owned(),
            );
        }
        let include = params.include.as_ref()?;
        let known: HashSet<&str> = self.tree.items().map(|i| i.id.as_str()).collect();
        if include.iter().any(|id| known.contains(id.as_str())) {
            return None;
        }
        let names: Vec<String> = include.iter().take(5).map(|id| format!("`{id}`")).collect();
        let more = include.len().saturating_sub(5);
        let why = match self.workspace_error() {
            Some(error) => format!("the workspace did not load ({error})"),
            None => format!(
                "the workspace has {} benchmark(s); the tree may have changed: ask knotmeter/discover again",
                self.tree.bench_count()
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

    fn watched(&mut self, notice: Notice) {
        match notice {
            Notice::Changed(paths) => {
                tracing::debug!(?paths, "changed on disk");
                for path in paths
                    .iter()
                    .filter(|p| p.file_name().is_some_and(|n| n == "Cargo.toml"))
                {
                    self.reload_for(path);
                }
                let seq = self.worker.send(Command::Invalidate(paths.clone()));
                self.forget_build_errors(&paths);
                for path in paths {
                    self.edited.insert(path, seq);
                }
            }
            Notice::Polling(message) => {
                self.out
                    .push(Out::ShowMessage(MessageType::WARNING, message.clone()));
                self.out.push(Out::Log(MessageType::WARNING, message));
            }
        }
    }

    /// The compiler errors of files that changed since the build are stale: they are cleared
    /// until the next build reports them again.
    fn forget_build_errors(&mut self, changed: &[PathBuf]) {
        let stale: HashSet<PathBuf> = self
            .build_errors
            .iter()
            .filter(|e| changed.contains(&e.file))
            .map(|e| e.file.clone())
            .collect();
        if stale.is_empty() {
            return;
        }
        self.build_errors.retain(|e| !stale.contains(&e.file));
        for file in stale {
            self.publish(&file);
        }
    }

    /// What to show for the result of `id` measured in run `run_id`, with its benchmark's
    /// analysis when this run produced one (an analysis of earlier measurements would lend its
    /// conclusion to new figures).
    fn shown(&self, run_id: u32, id: &str, result: &BenchResult) -> Shown {
        knotmeter_format::shown(result, self.analysis_of(run_id, id))
    }

    /// The analysis of `id`'s benchmark, when run `run_id` produced it.
    fn analysis_of(&self, run_id: u32, id: &str) -> Option<&knotmeter_protocol::BenchSummary> {
        let bench_id = knotmeter_format::text::bench_id(id);
        self.summaries
            .get(bench_id)
            .filter(|_| self.summary_runs.get(bench_id) == Some(&run_id))
    }

    /// Reports a measured item of the current run again (passed, with what is known now).
    fn report_again(&mut self, run_id: u32, id: &str) {
        let Some(result) = self.results.get(id) else {
            return;
        };
        self.out.push(Out::RunState(RunStateParams {
            run_id,
            id: id.to_owned(),
            state: ItemState::Passed,
            result: Some(Box::new(result.clone())),
            message: None,
            location: None,
            shown: Some(Box::new(self.shown(run_id, id, result))),
            bench: self.analysis_of(run_id, id).cloned().map(Box::new),
        }));
    }

    /// Stored results shown until the cases are measured: results measured since the daemon
    /// started win, the rest go where live results go (lenses, hints, hovers, diagnostics) and
    /// to the editor as `knotmeter/stored`, without their raw samples.
    fn stored(&mut self, results: Vec<BenchResult>) {
        let fresh: Vec<BenchResult> = results
            .into_iter()
            .filter(|r| !self.results.contains_key(&r.id))
            .map(|mut r| {
                r.raw = Default::default();
                r
            })
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
        self.out
            .push(Out::Stored(knotmeter_protocol::editor::StoredParams {
                // No analysis: the benchmark has not run since the daemon started.
                shown: fresh
                    .iter()
                    .map(|r| knotmeter_format::shown(r, None))
                    .collect(),
                results: fresh,
            }));
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
            self.settings.problems.unwrap_or_default(),
            file,
        );
        for folder in &self.folders {
            diagnostics.extend(folder.harness.diagnostics(file));
        }
        diagnostics.extend(self.profile_marks(file, profiles::diagnostics));
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
}
