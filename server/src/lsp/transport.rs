//! The stdio transport of `knotmeter serve`, with a guard in front of tower-lsp-server.
//!
//! tower-lsp-server answers a malformed message with a JSON-RPC error, but its framed reader
//! (tokio-util's `FramedRead`) ends the stream after any decoding error, so the server stops
//! reading after the first bad message. This guard frames standard input itself and checks
//! each message: well-formed ones go on to tower-lsp-server unchanged; for malformed ones the
//! guard answers the JSON-RPC error itself (`-32700` for bytes that are not JSON, `-32600`
//! for JSON that is not a JSON-RPC message), and the server keeps serving. Responses from
//! the server and the guard's own errors are written whole, one frame at a time.

use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, DuplexStream};
use tokio::sync::mpsc;

/// Size of the in-memory pipes between the guard and the server.
const PIPE: usize = 1 << 16;

/// Serves the LSP service on `input` and `output` until `exit` or the end of `input`.
pub async fn serve<I, O>(input: I, output: O)
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin + Send + 'static,
{
    let (server_in, guard_in) = tokio::io::duplex(PIPE);
    let (server_out, guard_out) = tokio::io::duplex(PIPE);
    let (errors_tx, errors_rx) = mpsc::unbounded_channel();
    tokio::spawn(read_input(input, guard_in, errors_tx));
    let writer = tokio::spawn(write_output(guard_out, errors_rx, output));
    let (service, socket) = super::service();
    tower_lsp_server::Server::new(server_in, server_out, socket)
        .serve(service)
        .await;
    // The server is gone: its pipe closes, and the writer ends after the last frame.
    let _ = tokio::time::timeout(std::time::Duration::from_secs(2), writer).await;
}

/// One frame read from a stream.
enum Frame {
    /// A complete body.
    Body(Vec<u8>),
    /// Header lines without a usable `Content-Length`.
    BadHeader,
}

/// Reads frames: `Content-Length: N\r\n` (other headers ignored), a blank line, N bytes.
struct Framer<R> {
    reader: R,
    buffer: Vec<u8>,
}

impl<R: AsyncRead + Unpin> Framer<R> {
    fn new(reader: R) -> Self {
        Self {
            reader,
            buffer: Vec::new(),
        }
    }

    async fn fill(&mut self) -> bool {
        let mut chunk = [0u8; 8192];
        match self.reader.read(&mut chunk).await {
            Ok(0) | Err(_) => false,
            Ok(n) => {
                self.buffer.extend_from_slice(&chunk[..n]);
                true
            }
        }
    }

    /// The next frame, or `None` at the end of the stream.
    async fn next(&mut self) -> Option<Frame> {
        let header_end = loop {
            if let Some(at) = find(&self.buffer, b"\r\n\r\n") {
                break at;
            }
            if !self.fill().await {
                return None;
            }
        };
        let header = String::from_utf8_lossy(&self.buffer[..header_end]).into_owned();
        self.buffer.drain(..header_end + 4);
        let length = header.lines().find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.trim()
                .eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())
                .flatten()
        });
        let Some(length) = length else {
            return Some(Frame::BadHeader);
        };
        while self.buffer.len() < length {
            if !self.fill().await {
                return None;
            }
        }
        Some(Frame::Body(self.buffer.drain(..length).collect()))
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// Why a body is not a JSON-RPC message, as the error response to send.
fn check(body: &[u8]) -> Result<(), Value> {
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
    match object.get("method") {
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
    }
}

async fn read_input<I: AsyncRead + Unpin>(
    input: I,
    mut server: DuplexStream,
    errors: mpsc::UnboundedSender<Value>,
) {
    let mut framer = Framer::new(input);
    while let Some(next) = framer.next().await {
        match next {
            Frame::Body(body) => match check(&body) {
                Ok(()) => {
                    if server.write_all(&frame(&body)).await.is_err() {
                        return;
                    }
                }
                Err(response) => {
                    tracing::warn!("malformed message from the client: {response}");
                    let _ = errors.send(response);
                }
            },
            Frame::BadHeader => {
                let _ = errors.send(error(
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
    mut errors: mpsc::UnboundedReceiver<Value>,
    mut output: O,
) {
    let mut framer = Framer::new(server);
    loop {
        let bytes = tokio::select! {
            next = framer.next() => match next {
                Some(Frame::Body(body)) => frame(&body),
                Some(Frame::BadHeader) => continue,
                None => return,
            },
            Some(response) = errors.recv() => frame(response.to_string().as_bytes()),
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

    #[tokio::test]
    async fn frames_are_read_whole_and_bad_headers_reported() {
        let input: &[u8] = b"Content-Length: 2\r\n\r\n{}X-Other: 1\r\n\r\nContent-Length: 3\r\nContent-Type: x\r\n\r\n[1]";
        let mut framer = Framer::new(input);
        assert!(matches!(framer.next().await, Some(Frame::Body(b)) if b == b"{}"));
        assert!(matches!(framer.next().await, Some(Frame::BadHeader)));
        assert!(matches!(framer.next().await, Some(Frame::Body(b)) if b == b"[1]"));
        assert!(framer.next().await.is_none());
    }
}
