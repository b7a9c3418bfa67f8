//! What the session tells the client, collected while an event is handled and sent in order
//! afterwards by a task of its own.
//!
//! The session never waits on the client: [`Outbox::flush`] hands the event's messages to the
//! sender task and returns. That task serialises them (whole trees and results are large) and
//! writes them in order. What piled up while it was writing goes out merged: consecutive run
//! states become one `knotmeter/runStates` (for clients that announce it), a whole tree that a
//! newer whole tree follows is not sent, and only the last diagnostics of a file count.

use std::collections::{HashMap, HashSet};
use std::marker::PhantomData;
use std::path::PathBuf;
use std::sync::Arc;

use knotmeter_protocol::editor::{
    self, ComparedNotification, ComparedParams, DiscoveredNotification, DiscoveredParams,
    OutputNotification, OutputParams, ProfileComparedNotification, ProfileComparedParams,
    ProfiledNotification, ProfiledParams, RunEndNotification, RunEndParams, RunStateNotification,
    RunStateParams, RunStatesNotification, RunStatesParams, StoredNotification, StoredParams,
    TreeChangedNotification, TreeChangedParams,
};
use serde::de::DeserializeOwned;
use serde::Serialize;
use tokio::sync::{mpsc, oneshot};
use tower_lsp_server::ls_types::notification::Notification;
use tower_lsp_server::ls_types::{
    Diagnostic, MessageType, NumberOrString, ProgressParams, ProgressParamsValue, Uri,
    WorkDoneProgress, WorkDoneProgressBegin, WorkDoneProgressEnd, WorkDoneProgressReport,
};
use tower_lsp_server::Client;

use crate::discovery::Tree;

/// A `knotmeter/*` notification of the protocol crate, as tower-lsp-server sends it.
struct Wire<N>(PhantomData<N>);

impl<N> Notification for Wire<N>
where
    N: editor::Notification,
    N::Params: Serialize + DeserializeOwned + Send + Sync + 'static,
{
    type Params = N::Params;
    const METHOD: &'static str = N::METHOD;
}

/// Work-done progress of a run: its build's steps, then how much of it is done.
#[derive(Debug, Clone, PartialEq)]
pub enum ProgressMsg {
    /// Create the token and begin, with this title.
    Begin(String),
    /// A new message.
    Report(String),
    /// How much of the run is done, 0 to 100 (the message stays).
    Percent(u32),
    /// Done.
    End,
}

/// One thing to tell the client.
#[derive(Debug)]
pub enum Out {
    /// `knotmeter/discovered`: the whole tree, with its version.
    Discovered(Arc<Tree>, u64),
    /// `knotmeter/treeChanged`.
    TreeChanged(TreeChangedParams),
    /// `knotmeter/runState` (merged into `knotmeter/runStates` for clients that take it).
    RunState(RunStateParams),
    /// `knotmeter/output`.
    Output(OutputParams),
    /// `knotmeter/output` of what a bench binary printed, with its share of the printed text
    /// in flight ([`crate::runs::Held`]), given back once the notification is written.
    Printed(OutputParams, crate::runs::Held),
    /// `knotmeter/runEnd`.
    RunEnd(RunEndParams),
    /// `knotmeter/stored`.
    Stored(StoredParams),
    /// `knotmeter/compared`.
    Compared(ComparedParams),
    /// `knotmeter/profiled`.
    Profiled(Box<ProfiledParams>),
    /// `knotmeter/profileCompared`.
    ProfileCompared(Box<ProfileComparedParams>),
    /// `textDocument/publishDiagnostics`.
    Diagnostics(PathBuf, Vec<Diagnostic>),
    /// `window/logMessage`.
    Log(MessageType, String),
    /// `window/showMessage`.
    ShowMessage(MessageType, String),
    /// `$/progress` of a run.
    Progress(u32, ProgressMsg),
    /// `workspace/codeLens/refresh` and `workspace/inlayHint/refresh`.
    Refresh {
        /// Refresh code lenses.
        lenses: bool,
        /// Refresh inlay hints.
        hints: bool,
    },
    /// Answered once every message before it has been written.
    Barrier(oneshot::Sender<()>),
}

/// The messages of the event being handled, and the way to the sender task.
pub struct Outbox {
    queue: Vec<Out>,
    tx: mpsc::UnboundedSender<Vec<Out>>,
}

impl Outbox {
    /// An outbox whose sender task writes through `client`; `batch_states` merges run states
    /// into `knotmeter/runStates`.
    pub fn new(client: Client, batch_states: Arc<std::sync::atomic::AtomicBool>) -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        let sender = Sender {
            client,
            progress: HashMap::new(),
            batch_states,
        };
        tokio::spawn(sender.run(rx));
        Self {
            queue: Vec::new(),
            tx,
        }
    }

    /// Queues a message.
    pub fn push(&mut self, out: Out) {
        self.queue.push(out);
    }

    /// Hands every queued message to the sender task, in order; does not wait.
    pub fn flush(&mut self) {
        if !self.queue.is_empty() {
            let _ = self.tx.send(std::mem::take(&mut self.queue));
        }
    }

    /// Flushes, and waits until the sender task has written everything so far.
    pub async fn flush_and_wait(&mut self) {
        let (tx, rx) = oneshot::channel();
        self.push(Out::Barrier(tx));
        self.flush();
        let _ = rx.await;
    }
}

/// The task that writes to the client.
struct Sender {
    client: Client,
    progress: HashMap<u32, mpsc::UnboundedSender<ProgressMsg>>,
    batch_states: Arc<std::sync::atomic::AtomicBool>,
}

impl Sender {
    async fn run(mut self, mut rx: mpsc::UnboundedReceiver<Vec<Out>>) {
        while let Some(mut pending) = rx.recv().await {
            // Whatever else is waiting goes out merged with it.
            while let Ok(more) = rx.try_recv() {
                pending.extend(more);
            }
            let batch = self.batch_states.load(std::sync::atomic::Ordering::Relaxed);
            for message in merge(pending, batch) {
                self.send(message).await;
            }
        }
    }

    async fn send(&mut self, out: Sending) {
        let client = &self.client;
        let out = match out {
            Sending::States(states) => {
                client
                    .send_notification::<Wire<RunStatesNotification>>(RunStatesParams { states })
                    .await;
                return;
            }
            Sending::One(out) => out,
        };
        match out {
            Out::Discovered(tree, version) => {
                let params = DiscoveredParams {
                    items: tree.items().cloned().collect(),
                    version: Some(version),
                };
                client
                    .send_notification::<Wire<DiscoveredNotification>>(params)
                    .await
            }
            Out::TreeChanged(params) => {
                client
                    .send_notification::<Wire<TreeChangedNotification>>(params)
                    .await
            }
            Out::RunState(params) => {
                client
                    .send_notification::<Wire<RunStateNotification>>(params)
                    .await
            }
            Out::Output(params) => output(client, params).await,
            Out::Printed(params, held) => {
                output(client, params).await;
                drop(held);
            }
            Out::RunEnd(params) => {
                self.progress.remove(&params.run_id);
                client
                    .send_notification::<Wire<RunEndNotification>>(params)
                    .await
            }
            Out::Stored(params) => {
                client
                    .send_notification::<Wire<StoredNotification>>(params)
                    .await
            }
            Out::Compared(params) => {
                client
                    .send_notification::<Wire<ComparedNotification>>(params)
                    .await
            }
            Out::Profiled(params) => {
                client
                    .send_notification::<Wire<ProfiledNotification>>(*params)
                    .await
            }
            Out::ProfileCompared(params) => {
                client
                    .send_notification::<Wire<ProfileComparedNotification>>(*params)
                    .await
            }
            Out::Diagnostics(path, diagnostics) => {
                if let Some(uri) = Uri::from_file_path(&path) {
                    client.publish_diagnostics(uri, diagnostics, None).await;
                }
            }
            Out::Log(kind, message) => client.log_message(kind, message).await,
            Out::ShowMessage(kind, message) => client.show_message(kind, message).await,
            Out::Progress(run_id, msg) => self.progress(run_id, msg),
            Out::Refresh { lenses, hints } => {
                // Requests to the client: answered later, so never awaited here.
                let client = client.clone();
                tokio::spawn(async move {
                    if lenses {
                        let _ = client.code_lens_refresh().await;
                    }
                    if hints {
                        let _ = client.inlay_hint_refresh().await;
                    }
                });
            }
            Out::Barrier(done) => {
                let _ = done.send(());
            }
        }
    }

    /// Progress goes through a task per run: the token must be created (a request the
    /// client answers) before `$/progress` may use it.
    fn progress(&mut self, run_id: u32, msg: ProgressMsg) {
        if let ProgressMsg::Begin(title) = &msg {
            let (tx, mut rx) = mpsc::unbounded_channel();
            self.progress.insert(run_id, tx);
            let client = self.client.clone();
            let title = title.clone();
            tokio::spawn(async move {
                let token = NumberOrString::String(format!("knotmeter/run/{run_id}"));
                if client
                    .create_work_done_progress(token.clone())
                    .await
                    .is_err()
                {
                    return;
                }
                let send = |value| {
                    let client = client.clone();
                    let token = token.clone();
                    async move {
                        client
                            .send_notification::<tower_lsp_server::ls_types::notification::Progress>(
                                ProgressParams {
                                    token,
                                    value: ProgressParamsValue::WorkDone(value),
                                },
                            )
                            .await;
                    }
                };
                send(WorkDoneProgress::Begin(WorkDoneProgressBegin {
                    title,
                    cancellable: Some(false),
                    message: Some("building".into()),
                    // A bar from the start: the cases' progress moves it.
                    percentage: Some(0),
                }))
                .await;
                // Every report carries the message and the percentage both: a client that was
                // given a percentage at the start (VS Code's) drops a report without one, and
                // one without a message shows the title alone.
                let (mut message, mut percent) = ("building".to_owned(), 0);
                while let Some(msg) = rx.recv().await {
                    match msg {
                        ProgressMsg::Report(said) => message = said,
                        ProgressMsg::Percent(now) => percent = now,
                        ProgressMsg::End | ProgressMsg::Begin(_) => break,
                    }
                    send(WorkDoneProgress::Report(WorkDoneProgressReport {
                        cancellable: Some(false),
                        message: Some(message.clone()),
                        percentage: Some(percent),
                    }))
                    .await;
                }
                send(WorkDoneProgress::End(WorkDoneProgressEnd { message: None })).await;
            });
            return;
        }
        if let Some(tx) = self.progress.get(&run_id) {
            let _ = tx.send(msg);
        }
    }
}

/// Sends `knotmeter/output`: terminal-like output views want CRLF line breaks and a final
/// break.
async fn output(client: &Client, mut params: OutputParams) {
    params.text = format!(
        "{}\r\n",
        params.text.replace("\r\n", "\n").replace('\n', "\r\n")
    );
    client
        .send_notification::<Wire<OutputNotification>>(params)
        .await
}

/// A message as the sender writes it: one, or consecutive run states merged.
#[derive(Debug)]
enum Sending {
    One(Out),
    States(Vec<RunStateParams>),
}

/// Merges what piled up: consecutive run states into one batch (when `batch`), a whole tree
/// that a later whole tree replaces dropped, a file's diagnostics that later ones replace
/// dropped. Everything else keeps its order.
fn merge(pending: Vec<Out>, batch: bool) -> Vec<Sending> {
    let last_tree = pending
        .iter()
        .rposition(|o| matches!(o, Out::Discovered(..)));
    let mut last_diagnostics: HashMap<&PathBuf, usize> = HashMap::new();
    for (i, out) in pending.iter().enumerate() {
        if let Out::Diagnostics(path, _) = out {
            last_diagnostics.insert(path, i);
        }
    }
    let keep: HashSet<usize> = last_diagnostics.into_values().collect();
    let mut out: Vec<Sending> = Vec::new();
    for (i, message) in pending.into_iter().enumerate() {
        match message {
            Out::Discovered(..) if Some(i) != last_tree => {}
            Out::Diagnostics(..) if !keep.contains(&i) => {}
            Out::RunState(state) if batch => match out.last_mut() {
                Some(Sending::States(states)) => states.push(state),
                _ => out.push(Sending::States(vec![state])),
            },
            other => out.push(Sending::One(other)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use knotmeter_protocol::editor::ItemState;

    fn state(id: &str, state: ItemState) -> Out {
        Out::RunState(RunStateParams {
            run_id: 1,
            id: id.into(),
            state,
            result: None,
            message: None,
            location: None,
            shown: None,
            bench: None,
        })
    }

    fn describe(sending: &[Sending]) -> Vec<String> {
        sending
            .iter()
            .map(|s| match s {
                Sending::States(states) => format!(
                    "states {}",
                    states
                        .iter()
                        .map(|s| format!("{}:{:?}", s.id, s.state))
                        .collect::<Vec<_>>()
                        .join(",")
                ),
                Sending::One(Out::Discovered(_, v)) => format!("tree {v}"),
                Sending::One(Out::Diagnostics(p, d)) => {
                    format!("diagnostics {} {}", p.display(), d.len())
                }
                Sending::One(Out::RunEnd(_)) => "runEnd".into(),
                Sending::One(Out::RunState(s)) => format!("state {}:{:?}", s.id, s.state),
                Sending::One(other) => format!("{other:?}"),
            })
            .collect()
    }

    /// What piled up goes out merged, in order: consecutive states in one batch (none lost,
    /// none moved past a runEnd), only the newest whole tree, a file's last diagnostics.
    #[test]
    fn piled_up_messages_merge_without_losing_or_reordering_states() {
        let tree = Arc::new(Tree::default());
        let pending = vec![
            state("a", ItemState::Enqueued),
            state("b", ItemState::Enqueued),
            Out::Discovered(Arc::clone(&tree), 1),
            state("a", ItemState::Started),
            Out::Diagnostics(PathBuf::from("/x.rs"), Vec::new()),
            state("a", ItemState::Passed),
            Out::Diagnostics(PathBuf::from("/x.rs"), vec![Diagnostic::default()]),
            state("b", ItemState::Skipped),
            Out::RunEnd(RunEndParams { run_id: 1 }),
            Out::Discovered(Arc::clone(&tree), 2),
            state("c", ItemState::Enqueued),
        ];
        assert_eq!(
            describe(&merge(pending, true)),
            [
                "states a:Enqueued,b:Enqueued,a:Started,a:Passed",
                "diagnostics /x.rs 1",
                "states b:Skipped",
                "runEnd",
                "tree 2",
                "states c:Enqueued",
            ]
        );
        // Without batching, each state is its own message, in order.
        let pending = vec![
            state("a", ItemState::Enqueued),
            state("a", ItemState::Passed),
            Out::RunEnd(RunEndParams { run_id: 1 }),
        ];
        assert_eq!(
            describe(&merge(pending, false)),
            ["state a:Enqueued", "state a:Passed", "runEnd"]
        );
    }
}
