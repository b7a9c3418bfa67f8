//! The daemon's LSP service driven in memory (no process): a connection whose messages to the
//! client are drained into a channel, and a runtime that fails a test that hangs.

use std::future::Future;
use std::time::Duration;

use futures::StreamExt;
use serde_json::Value;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver};
use tower_lsp_server::{ClientSocket, LspService};

use knotmeter_server::lsp::{service, Backend};

/// Runs a test body on a two-thread runtime under `limit`, so a hang fails instead of
/// blocking the suite.
pub fn with_timeout<F: Future<Output = ()>>(limit: Duration, body: F) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        tokio::time::timeout(limit, body)
            .await
            .unwrap_or_else(|_| panic!("the test finished within {limit:?}"));
    });
}

/// A service of the daemon in this process (isolated first, see
/// [`super::isolate_this_process`]) and everything it sends to the client, drained
/// continuously (the server waits when the client does not read). Call within a runtime.
pub fn connect() -> (LspService<Backend>, UnboundedReceiver<Value>) {
    super::isolate_this_process();
    let (service, socket) = service();
    let (tx, from_server) = unbounded_channel();
    tokio::spawn(drain(socket, tx));
    (service, from_server)
}

async fn drain(mut socket: ClientSocket, tx: tokio::sync::mpsc::UnboundedSender<Value>) {
    while let Some(message) = socket.next().await {
        if tx.send(serde_json::to_value(&message).unwrap()).is_err() {
            return;
        }
    }
}
