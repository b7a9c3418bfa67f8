//! The LSP front end: the `tower_lsp_server::LanguageServer` implementation and the
//! `knotmeter/*` methods. Handlers only forward to the session ([`crate::session`]) and map
//! its answers; [`Backend::ask`] is the one place where failures become JSON-RPC errors.
//!
//! Order: tower-lsp-server runs handlers concurrently, so each handler hands its message to
//! the session *before its first `.await`* (an unbounded channel send, which never waits).
//! Handlers are first polled in the order the messages arrived, so the session sees
//! `didOpen`, `didChange`, `didSave` and requests in the client's order.
//!
//! Unknown methods and invalid params are answered with JSON-RPC errors by tower-lsp-server;
//! malformed messages, wrongly framed ones and `$/…` requests by the guard in [`transport`],
//! which keeps the server serving.

pub mod transport;

use std::path::PathBuf;

use knotmeter_protocol::editor::{
    CancelParams, CancelRequest, DiscoverParams, DiscoverRequest, DiscoverResult, Features,
    HistoryParams, HistoryRequest, HistoryResult, Request, RunParams, RunRequest, RunResult,
    SamplesParams, SamplesRequest, SamplesResult, RUN_COMMAND,
};
use tokio::sync::{mpsc, oneshot};
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer, LspService};

use crate::session::{self, ClientCaps, Failure, Lifeline, LspMsg, Reply};

/// The service for [`tower_lsp_server::Server`], with every `knotmeter/*` method registered.
pub fn service() -> (LspService<Backend>, tower_lsp_server::ClientSocket) {
    service_with(Lifeline::default())
}

/// [`service`] whose session is stopped and whose children are killed through `lifeline`.
pub fn service_with(lifeline: Lifeline) -> (LspService<Backend>, tower_lsp_server::ClientSocket) {
    LspService::build(move |client| Backend::new(client, lifeline))
        .custom_method(DiscoverRequest::METHOD, Backend::discover)
        .custom_method(RunRequest::METHOD, Backend::run)
        .custom_method(CancelRequest::METHOD, Backend::cancel)
        .custom_method(HistoryRequest::METHOD, Backend::history)
        .custom_method(SamplesRequest::METHOD, Backend::samples)
        .finish()
}

/// Forwards every LSP message to the session.
#[derive(Debug)]
pub struct Backend {
    session: mpsc::UnboundedSender<LspMsg>,
}

impl Backend {
    fn new(client: Client, lifeline: Lifeline) -> Self {
        Self {
            session: session::spawn(client, lifeline),
        }
    }

    fn tell(&self, msg: LspMsg) {
        if self.session.send(msg).is_err() {
            tracing::error!("the session has stopped; a message was dropped");
        }
    }

    /// Sends a request to the session and maps its answer (or its absence) to JSON-RPC.
    async fn ask<T>(&self, make: impl FnOnce(Reply<T>) -> LspMsg) -> Result<T> {
        let (tx, rx) = oneshot::channel();
        self.session.send(make(tx)).map_err(|_| stopped())?;
        match rx.await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(Failure::InvalidParams(message))) => Err(Error::invalid_params(message)),
            Ok(Err(Failure::Internal(message))) => Err(Error {
                code: ErrorCode::InternalError,
                message: message.into(),
                data: None,
            }),
            Err(_) => Err(stopped()),
        }
    }

    async fn discover(&self, _: DiscoverParams) -> Result<DiscoverResult> {
        self.ask(LspMsg::Discover).await
    }

    async fn run(&self, params: RunParams) -> Result<RunResult> {
        self.ask(|reply| LspMsg::Run(params, reply)).await
    }

    async fn cancel(&self, params: CancelParams) -> Result<()> {
        self.ask(|reply| LspMsg::Cancel(params, reply)).await
    }

    async fn history(&self, params: HistoryParams) -> Result<HistoryResult> {
        self.ask(|reply| LspMsg::History(params, reply)).await
    }

    async fn samples(&self, params: SamplesParams) -> Result<SamplesResult> {
        self.ask(|reply| LspMsg::Samples(params, reply)).await
    }
}

fn stopped() -> Error {
    Error {
        code: ErrorCode::InternalError,
        message: "internal error: the knotmeter session has stopped".into(),
        data: None,
    }
}

fn path_of(uri: &Uri) -> Option<PathBuf> {
    uri.to_file_path().map(|p| p.into_owned())
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        // Every folder is served; without folders, the root.
        let mut roots: Vec<PathBuf> = params
            .workspace_folders
            .iter()
            .flatten()
            .filter_map(|f| path_of(&f.uri))
            .collect();
        #[allow(deprecated)]
        if roots.is_empty() {
            roots.extend(params.root_uri.as_ref().and_then(path_of));
        }
        let caps = &params.capabilities;
        let features: Features = caps
            .experimental
            .as_ref()
            .and_then(|e| e.get("knotmeter"))
            .and_then(|k| serde_json::from_value(k.clone()).ok())
            .unwrap_or_default();
        let workspace = caps.workspace.as_ref();
        let client = ClientCaps {
            code_lens_refresh: workspace
                .and_then(|w| w.code_lens.as_ref())
                .and_then(|c| c.refresh_support)
                .unwrap_or(false),
            inlay_hint_refresh: workspace
                .and_then(|w| w.inlay_hint.as_ref())
                .and_then(|c| c.refresh_support)
                .unwrap_or(false),
            work_done_progress: caps
                .window
                .as_ref()
                .and_then(|w| w.work_done_progress)
                .unwrap_or(false),
            features,
        };
        self.tell(LspMsg::Initialize {
            roots,
            options: params.initialization_options,
            caps: client,
        });
        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                text_document_sync: Some(TextDocumentSyncCapability::Options(
                    TextDocumentSyncOptions {
                        open_close: Some(true),
                        change: Some(TextDocumentSyncKind::FULL),
                        save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                            include_text: Some(true),
                        })),
                        ..TextDocumentSyncOptions::default()
                    },
                )),
                code_lens_provider: Some(CodeLensOptions {
                    resolve_provider: Some(false),
                }),
                inlay_hint_provider: Some(OneOf::Left(true)),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                execute_command_provider: Some(ExecuteCommandOptions {
                    commands: vec![RUN_COMMAND.to_owned()],
                    work_done_progress_options: WorkDoneProgressOptions::default(),
                }),
                workspace: Some(WorkspaceServerCapabilities {
                    workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                        supported: Some(true),
                        change_notifications: Some(OneOf::Left(true)),
                    }),
                    file_operations: None,
                }),
                experimental: Some(serde_json::json!({
                    "knotmeter": Features {
                        tree_changed: Some(true),
                        run_states: Some(true),
                        samples: Some(true),
                        profiles: Some(true),
                    }
                })),
                ..ServerCapabilities::default()
            },
            server_info: Some(ServerInfo {
                name: "knotmeter".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            offset_encoding: None,
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        self.tell(LspMsg::Initialized);
    }

    async fn shutdown(&self) -> Result<()> {
        self.ask(LspMsg::Shutdown).await
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        if let Some(path) = path_of(&params.text_document.uri) {
            self.tell(LspMsg::Open(path, params.text_document.text));
        }
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let Some(path) = path_of(&params.text_document.uri) else {
            return;
        };
        // Full synchronisation: the last change holds the whole text.
        if let Some(change) = params.content_changes.into_iter().last() {
            self.tell(LspMsg::Change(path, change.text));
        }
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        if let Some(path) = path_of(&params.text_document.uri) {
            self.tell(LspMsg::Save(path, params.text));
        }
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        if let Some(path) = path_of(&params.text_document.uri) {
            self.tell(LspMsg::Close(path));
        }
    }

    async fn did_change_workspace_folders(&self, params: DidChangeWorkspaceFoldersParams) {
        let paths = |folders: Vec<WorkspaceFolder>| -> Vec<PathBuf> {
            folders.iter().filter_map(|f| path_of(&f.uri)).collect()
        };
        self.tell(LspMsg::Folders {
            added: paths(params.event.added),
            removed: paths(params.event.removed),
        });
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        self.tell(LspMsg::Configuration(params.settings));
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        let Some(path) = path_of(&params.text_document.uri) else {
            return Ok(None);
        };
        self.ask(|reply| LspMsg::CodeLens(path, reply))
            .await
            .map(Some)
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        let Some(path) = path_of(&params.text_document.uri) else {
            return Ok(None);
        };
        self.ask(|reply| LspMsg::InlayHints(path, reply))
            .await
            .map(Some)
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let at = params.text_document_position_params;
        let Some(path) = path_of(&at.text_document.uri) else {
            return Ok(None);
        };
        self.ask(|reply| LspMsg::Hover(path, at.position, reply))
            .await
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        if params.command != RUN_COMMAND {
            return Err(Error::invalid_params(format!(
                "unknown command `{}`; knotmeter has `{RUN_COMMAND}`",
                params.command
            )));
        }
        let run: RunParams = match params.arguments.into_iter().next() {
            Some(value) => serde_json::from_value(value).map_err(|e| {
                Error::invalid_params(format!("{RUN_COMMAND} takes RunParams: {e}"))
            })?,
            None => RunParams::default(),
        };
        let result = self.ask(|reply| LspMsg::Run(run, reply)).await?;
        Ok(Some(serde_json::to_value(result).expect("serialisable")))
    }
}
