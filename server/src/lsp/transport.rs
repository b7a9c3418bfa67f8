//! The stdio transport of `knotmeter serve`, with a guard in front of tower-lsp-server.
//!
//! tower-lsp-server answers a malformed message with a JSON-RPC error, but its framed reader
//! (tokio-util's `FramedRead`) ends the stream after any decoding error, so the server stops
//! reading after the first bad message. This guard frames standard input itself
//! ([`framing`]) and checks each message: well-formed ones go on to tower-lsp-server
//! unchanged; for the others the guard answers itself, and the server keeps serving:
//!
//! | input | answer |
//! |---|---|
//! | bytes that are not JSON | `-32700`, id `null` |
//! | JSON that is not a JSON-RPC message | `-32600` (the id when it is readable) |
//! | a `Content-Length` that does not match the body (a client counting characters, not bytes) | the guard finds where the message really ends and reads on from the next header; a request gets `-32600` with its id, a notification is dropped and said with `window/logMessage` |
//! | a `$/…` request (tower-lsp-server drops them unanswered) | `-32601` |
//!
//! Responses from the server and the guard's own messages are written whole, one frame at a
//! time. The guard also notes `shutdown` and `exit`, so that the process can exit as LSP says:
//! 0 after `shutdown`, 1 when `exit` (or the end of input) comes without it.

mod framing;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, DuplexStream};
use tokio::sync::mpsc;

use crate::session::Lifeline;
use framing::{Frame, Framer};

/// Size of the in-memory pipes between the guard and the server.
const PIPE: usize = 1 << 16;

/// What the client said about ending, as LSP's exit status rule needs it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ended {
    /// A `shutdown` request arrived.
    pub shutdown: bool,
    /// An `exit` notification arrived (rather than the end of input).
    pub exit: bool,
}

impl Ended {
    /// LSP's exit status: 0 when `shutdown` came first, 1 otherwise.
    pub fn exit_code(self) -> u8 {
        if self.shutdown {
            0
        } else {
            1
        }
    }
}

#[derive(Debug, Default)]
struct Seen {
    shutdown: AtomicBool,
    exit: AtomicBool,
}

/// Serves the LSP service on `input` and `output` until `exit` or the end of `input`.
pub async fn serve<I, O>(input: I, output: O, lifeline: Lifeline) -> Ended
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin + Send + 'static,
{
    let (server_in, guard_in) = tokio::io::duplex(PIPE);
    let (server_out, guard_out) = tokio::io::duplex(PIPE);
    let (replies_tx, replies_rx) = mpsc::unbounded_channel();
    let seen = Arc::new(Seen::default());
    tokio::spawn(read_input(input, guard_in, replies_tx, Arc::clone(&seen)));
    let writer = tokio::spawn(write_output(guard_out, replies_rx, output));
    let (service, socket) = super::service_with(lifeline);
    tower_lsp_server::Server::new(server_in, server_out, socket)
        .serve(service)
        .await;
    // The server is gone: its pipe closes, and the writer ends after the last frame.
    let _ = tokio::time::timeout(std::time::Duration::from_secs(2), writer).await;
    Ended {
        shutdown: seen.shutdown.load(Ordering::SeqCst),
        exit: seen.exit.load(Ordering::SeqCst),
    }
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

fn log_message(message: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": "window/logMessage", "params": {"type": 1, "message": message}})
}

/// The body as a JSON-RPC message, or the error response to send for it.
fn check(body: &[u8]) -> Result<Value, Value> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| error(Value::Null, -32700, &format!("Parse error: {e}")))?;
    let invalid = |id: Value, why: &str| error(id, -32600, &format!("Invalid request: {why}"));
    let Some(object) = value.as_object() else {
        return Err(invalid(Value::Null, "a message is a JSON object"));
    };
    let id = object.get("id").cloned();
    let id_ok = id
        .as_ref()
        .is_none_or(|id| id.is_string() || id.is_i64() || id.is_u64() || id.is_null());
    let reply_id = id.clone().filter(|_| id_ok).unwrap_or(Value::Null);
    if object.get("jsonrpc") != Some(&json!("2.0")) {
        return Err(invalid(reply_id, "`jsonrpc` must be \"2.0\""));
    }
    if !id_ok {
        return Err(invalid(
            Value::Null,
            "`id` must be a number, a string or null",
        ));
    }
    let checked = match object.get("method") {
        Some(Value::String(_)) => match object.get("params") {
            None | Some(Value::Object(_) | Value::Array(_) | Value::Null) => Ok(()),
            Some(_) => Err(invalid(reply_id, "`params` must be an object or an array")),
        },
        Some(_) => Err(invalid(reply_id, "`method` must be a string")),
        None if id.is_some() && (object.contains_key("result") || object.contains_key("error")) => {
            Ok(())
        }
        None => Err(invalid(
            reply_id,
            "neither a request, a notification nor a response",
        )),
    };
    checked.map(|()| value)
}

/// What the guard does with a well-formed message.
enum Route {
    /// Pass it to the server.
    Forward,
    /// Answer it here.
    Answer(Value),
}

fn route(message: &Value, seen: &Seen) -> Route {
    let method = message.get("method").and_then(Value::as_str);
    let id = message.get("id");
    match (method, id) {
        (Some("shutdown"), Some(_)) => seen.shutdown.store(true, Ordering::SeqCst),
        (Some("exit"), None) => seen.exit.store(true, Ordering::SeqCst),
        // LSP: "$/" requests a server does not know get MethodNotFound; tower-lsp-server
        // leaves them unanswered.
        (Some(method), Some(id)) if method.starts_with("$/") => {
            return Route::Answer(error(
                id.clone(),
                -32601,
                &format!("Method not found: {method}"),
            ));
        }
        _ => {}
    }
    Route::Forward
}

/// What to answer for a message whose `Content-Length` said `stated` bytes when it had
/// `body.len()`: an error to a request, a log line for anything else.
fn mismatch_reply(body: &[u8], stated: usize) -> Value {
    let why = format!(
        "the Content-Length header said {stated} bytes but the message has {} (the length counts \
         the bytes of the UTF-8 body, not characters); the message was not processed",
        body.len()
    );
    let message: Option<Value> = serde_json::from_slice(body).ok();
    let id = message.as_ref().and_then(|m| m.get("id")).cloned();
    let method = message
        .as_ref()
        .and_then(|m| m.get("method"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    match (id, method) {
        (Some(id), Some(_)) => error(id, -32600, &format!("Invalid request: {why}")),
        (_, Some(method)) => log_message(&format!(
            "knotmeter: the `{method}` notification was dropped: {why}"
        )),
        _ => log_message(&format!("knotmeter: a message was dropped: {why}")),
    }
}

async fn read_input<I: AsyncRead + Unpin>(
    input: I,
    mut server: DuplexStream,
    replies: mpsc::UnboundedSender<Value>,
    seen: Arc<Seen>,
) {
    let mut framer = Framer::new(input);
    while let Some(next) = framer.next().await {
        match next {
            Frame::Body(body) => match check(&body) {
                Ok(message) => match route(&message, &seen) {
                    Route::Forward => {
                        if server.write_all(&frame(&body)).await.is_err() {
                            return;
                        }
                    }
                    Route::Answer(reply) => {
                        let _ = replies.send(reply);
                    }
                },
                Err(response) => {
                    tracing::warn!("malformed message from the client: {response}");
                    let _ = replies.send(response);
                }
            },
            Frame::Mismatch { body, stated } => {
                let reply = mismatch_reply(&body, stated);
                tracing::warn!("wrong Content-Length from the client: {reply}");
                let _ = replies.send(reply);
            }
            Frame::BadHeader => {
                let _ = replies.send(error(
                    Value::Null,
                    -32700,
                    "Parse error: a message needs a `Content-Length` header",
                ));
            }
        }
    }
    // End of input: the server sees it and stops.
    let _ = server.shutdown().await;
}

async fn write_output<O: AsyncWrite + Unpin>(
    server: DuplexStream,
    mut replies: mpsc::UnboundedReceiver<Value>,
    mut output: O,
) {
    let mut framer = Framer::trusting(server);
    loop {
        let bytes = tokio::select! {
            next = framer.next() => match next {
                Some(Frame::Body(body)) => frame(&body),
                Some(Frame::BadHeader | Frame::Mismatch { .. }) => continue,
                None => return,
            },
            Some(reply) = replies.recv() => frame(reply.to_string().as_bytes()),
        };
        if output.write_all(&bytes).await.is_err() || output.flush().await.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(body: &str) -> Option<i64> {
        check(body.as_bytes())
            .err()
            .map(|e| e["error"]["code"].as_i64().unwrap())
    }

    #[test]
    fn well_formed_messages_pass_and_others_get_errors() {
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{}}"#),
            None
        );
        assert_eq!(code(r#"{"jsonrpc":"2.0","method":"x"}"#), None);
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":"a","result":null}"#), None);
        assert_eq!(code("{garbage}"), Some(-32700));
        assert_eq!(code("[1, 2]"), Some(-32600));
        assert_eq!(
            code(r#"{"jsonrpc":"1.0","id":1,"method":"x"}"#),
            Some(-32600)
        );
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":1,"method":5}"#), Some(-32600));
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":{},"method":"x"}"#),
            Some(-32600)
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1,"method":"x","params":3}"#),
            Some(-32600)
        );
    }

    #[test]
    fn dollar_requests_are_answered_and_dollar_notifications_pass() {
        let seen = Seen::default();
        let request = json!({"jsonrpc": "2.0", "id": 7, "method": "$/knotmeter/unknown"});
        match route(&request, &seen) {
            Route::Answer(reply) => {
                assert_eq!(reply["id"], 7);
                assert_eq!(reply["error"]["code"], -32601);
            }
            Route::Forward => panic!("a $/ request must be answered"),
        }
        let notification =
            json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 1}});
        assert!(matches!(route(&notification, &seen), Route::Forward));
    }

    #[test]
    fn shutdown_then_exit_is_status_0_and_exit_alone_is_1() {
        let seen = Seen::default();
        route(&json!({"jsonrpc": "2.0", "method": "exit"}), &seen);
        let ended = Ended {
            shutdown: seen.shutdown.load(Ordering::SeqCst),
            exit: seen.exit.load(Ordering::SeqCst),
        };
        assert_eq!((ended.exit, ended.exit_code()), (true, 1));
        route(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "shutdown"}),
            &seen,
        );
        assert!(seen.shutdown.load(Ordering::SeqCst));
        assert_eq!(
            Ended {
                shutdown: true,
                exit: true
            }
            .exit_code(),
            0
        );
    }

    #[test]
    fn a_mismatched_request_gets_an_error_with_its_id() {
        let body = br#"{"jsonrpc":"2.0","id":4,"method":"knotmeter/discover","params":{}}"#;
        let reply = mismatch_reply(body, 50);
        assert_eq!(reply["id"], 4);
        assert_eq!(reply["error"]["code"], -32600);
        let text = reply["error"]["message"].as_str().unwrap();
        assert!(
            text.contains("said 50 bytes") && text.contains("not characters"),
            "{text}"
        );
        let note = mismatch_reply(br#"{"jsonrpc":"2.0","method":"textDocument/didSave"}"#, 3);
        assert_eq!(note["method"], "window/logMessage");
    }
}
