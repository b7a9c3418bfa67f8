//! What the session tells the client, collected while an event is handled and sent in order
//! afterwards.

use std::collections::HashMap;
use std::marker::PhantomData;
use std::path::PathBuf;

use knotmeter_protocol::editor::{
    self, DiscoveredNotification, DiscoveredParams, OutputNotification, OutputParams,
    RunEndNotification, RunEndParams, RunStateNotification, RunStateParams, StoredNotification,
    StoredParams,
};
use serde::de::DeserializeOwned;
use serde::Serialize;
use tokio::sync::mpsc;
use tower_lsp_server::ls_types::notification::Notification;
use tower_lsp_server::ls_types::{
    Diagnostic, MessageType, NumberOrString, ProgressParams, ProgressParamsValue, Uri,
    WorkDoneProgress, WorkDoneProgressBegin, WorkDoneProgressEnd, WorkDoneProgressReport,
};
use tower_lsp_server::Client;

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

/// Work-done progress of a run's build.
#[derive(Debug, Clone, PartialEq)]
pub enum ProgressMsg {
    /// Create the token and begin, with this title.
    Begin(String),
    /// A new message.
    Report(String),
    /// Done.
    End,
}

/// One thing to tell the client.
#[derive(Debug, Clone, PartialEq)]
pub enum Out {
    /// `knotmeter/discovered`.
    Discovered(DiscoveredParams),
    /// `knotmeter/runState`.
    RunState(RunStateParams),
    /// `knotmeter/output`.
    Output(OutputParams),
    /// `knotmeter/runEnd`.
    RunEnd(RunEndParams),
    /// `knotmeter/stored`.
    Stored(StoredParams),
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
}

/// The queue of messages for the client.
pub struct Outbox {
    client: Client,
    queue: Vec<Out>,
    progress: HashMap<u32, mpsc::UnboundedSender<ProgressMsg>>,
}

impl Outbox {
    /// An empty outbox sending through `client`.
    pub fn new(client: Client) -> Self {
        Self {
            client,
            queue: Vec::new(),
            progress: HashMap::new(),
        }
    }

    /// Queues a message.
    pub fn push(&mut self, out: Out) {
        self.queue.push(out);
    }

    /// Sends every queued message, in order.
    pub async fn flush(&mut self) {
        for out in std::mem::take(&mut self.queue) {
            self.send(out).await;
        }
    }

    async fn send(&mut self, out: Out) {
        let client = &self.client;
        match out {
            Out::Discovered(params) => {
                client
                    .send_notification::<Wire<DiscoveredNotification>>(params)
                    .await
            }
            Out::RunState(params) => {
                client
                    .send_notification::<Wire<RunStateNotification>>(params)
                    .await
            }
            Out::Output(mut params) => {
                // Terminal-like output views want CRLF line breaks and a final break.
                params.text = format!(
                    "{}\r\n",
                    params.text.replace("\r\n", "\n").replace('\n', "\r\n")
                );
                client
                    .send_notification::<Wire<OutputNotification>>(params)
                    .await
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
                    percentage: None,
                }))
                .await;
                while let Some(msg) = rx.recv().await {
                    match msg {
                        ProgressMsg::Report(message) => {
                            send(WorkDoneProgress::Report(WorkDoneProgressReport {
                                cancellable: Some(false),
                                message: Some(message),
                                percentage: None,
                            }))
                            .await
                        }
                        ProgressMsg::End | ProgressMsg::Begin(_) => break,
                    }
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
