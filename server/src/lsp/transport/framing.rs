//! Reading LSP frames (`Content-Length: N`, other headers ignored, a blank line, N bytes),
//! and finding the next frame again when a client's `Content-Length` is wrong.
//!
//! A client that counts characters instead of bytes states a length that is too short for any
//! body with a non-ASCII character; one that adds line breaks states one too long. Read
//! blindly, either mistake shifts every later frame, and the connection never recovers. So
//! each body is checked against where its JSON value really ends (a streaming parse, which
//! skips nothing but leading white space):
//!
//! * the value ends at the stated length (white space may pad it): a normal frame;
//! * the value ends elsewhere: the frame is the value, reported as a [`Frame::Mismatch`], and
//!   reading goes on after it (white space and any stray bytes up to the next header are
//!   skipped);
//! * the bytes are not JSON: the stated length is taken, and the body is left to the caller to
//!   reject (`-32700`); any junk before the next header is skipped with the next header block.
//!
//! When a complete value arrives but the stated length asks for more bytes, the framer waits
//! [`PADDING_WAIT`] for them (a client may send trailing white space separately), then calls it
//! a mismatch instead of waiting for ever for bytes that will not come.

use std::time::Duration;

use serde::de::IgnoredAny;
use tokio::io::{AsyncRead, AsyncReadExt};

/// How long a complete value waits for the rest of a longer stated length.
pub const PADDING_WAIT: Duration = Duration::from_millis(500);

/// One frame read from a stream.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// A complete body whose length matched its header.
    Body(Vec<u8>),
    /// A complete JSON value whose header stated another length.
    Mismatch {
        /// The value, as long as it really is.
        body: Vec<u8>,
        /// The length the header stated.
        stated: usize,
    },
    /// Header lines without a usable `Content-Length`.
    BadHeader,
}

/// Reads frames from a byte stream.
pub struct Framer<R> {
    reader: R,
    buffer: Vec<u8>,
    ended: bool,
    /// Take every stated length as true (for tower-lsp-server's own output): no check, no
    /// cost per message.
    trusting: bool,
}

/// What the bytes after a header hold so far.
#[derive(Debug, PartialEq, Eq)]
enum Body {
    /// The frame: consume `take` bytes; `body_len` of them are the body.
    Ready {
        take: usize,
        body_len: usize,
        exact: bool,
    },
    /// More bytes are needed. `complete` is the end of a complete value when one was found
    /// before the stated length.
    NeedMore { complete: Option<usize> },
}

/// Where the body after a header ends, for a stated length of `stated`.
fn locate(bytes: &[u8], stated: usize, at_end: bool) -> Body {
    let mut values = serde_json::Deserializer::from_slice(bytes).into_iter::<IgnoredAny>();
    match values.next() {
        Some(Ok(_)) => {
            let end = values.byte_offset();
            let window_end = stated.min(bytes.len());
            if end <= stated {
                let padding_is_blank = bytes[end..window_end].iter().all(u8::is_ascii_whitespace);
                if !padding_is_blank {
                    // Something else starts before the stated end: the next message.
                    return Body::Ready {
                        take: end,
                        body_len: end,
                        exact: false,
                    };
                }
                if bytes.len() >= stated {
                    return Body::Ready {
                        take: stated,
                        body_len: stated,
                        exact: true,
                    };
                }
                if at_end {
                    return Body::Ready {
                        take: bytes.len(),
                        body_len: end,
                        exact: false,
                    };
                }
                Body::NeedMore {
                    complete: Some(end),
                }
            } else {
                Body::Ready {
                    take: end,
                    body_len: end,
                    exact: false,
                }
            }
        }
        // The value continues past the bytes read so far.
        Some(Err(e)) if e.is_eof() && !at_end => Body::NeedMore { complete: None },
        // Not JSON (or cut off for good): go by the stated length.
        Some(Err(_)) | None => {
            if bytes.len() >= stated || at_end {
                let take = stated.min(bytes.len());
                Body::Ready {
                    take,
                    body_len: take,
                    exact: true,
                }
            } else {
                Body::NeedMore { complete: None }
            }
        }
    }
}

impl<R: AsyncRead + Unpin> Framer<R> {
    /// A framer over `reader` that checks each body against its stated length.
    pub fn new(reader: R) -> Self {
        Self {
            reader,
            buffer: Vec::new(),
            ended: false,
            trusting: false,
        }
    }

    /// A framer over a writer known to state lengths right (tower-lsp-server's output).
    pub fn trusting(reader: R) -> Self {
        Self {
            trusting: true,
            ..Self::new(reader)
        }
    }

    /// Reads more bytes; false at the end of the stream.
    async fn fill(&mut self) -> bool {
        if self.ended {
            return false;
        }
        let mut chunk = [0u8; 8192];
        match self.reader.read(&mut chunk).await {
            Ok(0) | Err(_) => {
                self.ended = true;
                false
            }
            Ok(n) => {
                self.buffer.extend_from_slice(&chunk[..n]);
                true
            }
        }
    }

    /// The next frame, or `None` at the end of the stream.
    pub async fn next(&mut self) -> Option<Frame> {
        // White space between frames (a client's stray line break, a resynchronisation) is
        // not part of any header.
        loop {
            let blank = self
                .buffer
                .iter()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
            self.buffer.drain(..blank);
            if !self.buffer.is_empty() {
                break;
            }
            if !self.fill().await {
                return None;
            }
        }
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
        let Some(stated) = content_length(&header) else {
            return Some(Frame::BadHeader);
        };
        if self.trusting {
            while self.buffer.len() < stated {
                if !self.fill().await {
                    return None;
                }
            }
            return Some(Frame::Body(self.buffer.drain(..stated).collect()));
        }
        loop {
            match locate(&self.buffer, stated, self.ended) {
                Body::Ready {
                    take,
                    body_len,
                    exact,
                } => {
                    let body: Vec<u8> = self.buffer[..body_len].to_vec();
                    self.buffer.drain(..take);
                    return Some(if exact {
                        Frame::Body(body)
                    } else {
                        Frame::Mismatch { body, stated }
                    });
                }
                Body::NeedMore { complete: None } => {
                    self.fill().await;
                }
                Body::NeedMore {
                    complete: Some(end),
                } => {
                    if tokio::time::timeout(PADDING_WAIT, self.fill())
                        .await
                        .is_err()
                    {
                        let body: Vec<u8> = self.buffer[..end].to_vec();
                        self.buffer.drain(..end);
                        return Some(Frame::Mismatch { body, stated });
                    }
                }
            }
        }
    }
}

/// The value of the last `Content-Length` in a header block (bytes before it on its line,
/// left over from a broken frame, are ignored).
fn content_length(header: &str) -> Option<usize> {
    let lower = header.to_ascii_lowercase();
    let at = lower.rfind("content-length:")?;
    let value = &header[at + "content-length:".len()..];
    value.lines().next()?.trim().parse().ok()
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(body: &str, stated: usize) -> Vec<u8> {
        let mut out = format!("Content-Length: {stated}\r\n\r\n").into_bytes();
        out.extend_from_slice(body.as_bytes());
        out
    }

    async fn frames(input: &[u8]) -> Vec<Frame> {
        let mut framer = Framer::new(input);
        let mut out = Vec::new();
        while let Some(frame) = framer.next().await {
            out.push(frame);
        }
        out
    }

    #[tokio::test]
    async fn frames_are_read_whole_and_bad_headers_reported() {
        let input: &[u8] = b"Content-Length: 2\r\n\r\n{}X-Other: 1\r\n\r\nContent-Length: 3\r\nContent-Type: x\r\n\r\n[1]";
        assert_eq!(
            frames(input).await,
            [
                Frame::Body(b"{}".to_vec()),
                Frame::BadHeader,
                Frame::Body(b"[1]".to_vec())
            ]
        );
    }

    /// A client that counts characters: "é" is one character and two bytes.
    #[tokio::test]
    async fn a_length_counted_in_characters_is_found_out_and_the_next_frame_is_read() {
        let accented = r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"text":"café"}}"#;
        let next = r#"{"jsonrpc":"2.0","id":2,"method":"y"}"#;
        let mut input = framed(accented, accented.chars().count());
        input.extend(framed(next, next.len()));
        assert_eq!(
            frames(&input).await,
            [
                Frame::Mismatch {
                    body: accented.as_bytes().to_vec(),
                    stated: accented.chars().count()
                },
                Frame::Body(next.as_bytes().to_vec())
            ]
        );
    }

    /// Too long: the stated length would swallow the next frame's header.
    #[tokio::test]
    async fn a_length_too_long_does_not_swallow_the_next_frame() {
        let first = r#"{"jsonrpc":"2.0","method":"a"}"#;
        let next = r#"{"jsonrpc":"2.0","id":2,"method":"y"}"#;
        let mut input = framed(first, first.len() + 7);
        input.extend(framed(next, next.len()));
        assert_eq!(
            frames(&input).await,
            [
                Frame::Mismatch {
                    body: first.as_bytes().to_vec(),
                    stated: first.len() + 7
                },
                Frame::Body(next.as_bytes().to_vec())
            ]
        );
    }

    /// Too long, and nothing follows (the client waits for an answer): after a short wait the
    /// frame is taken as it is, instead of waiting for ever.
    #[tokio::test]
    async fn a_length_too_long_with_nothing_after_does_not_wait_for_ever() {
        let (mut client, server) = tokio::io::duplex(1024);
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"x"}"#;
        tokio::io::AsyncWriteExt::write_all(&mut client, &framed(body, body.len() + 10))
            .await
            .unwrap();
        let mut framer = Framer::new(server);
        let frame = tokio::time::timeout(PADDING_WAIT * 4, framer.next())
            .await
            .expect("an answer within the padding wait");
        assert_eq!(
            frame,
            Some(Frame::Mismatch {
                body: body.as_bytes().to_vec(),
                stated: body.len() + 10
            })
        );
        drop(client);
    }

    #[tokio::test]
    async fn garbage_goes_by_the_stated_length_and_reading_goes_on() {
        let next = r#"{"jsonrpc":"2.0","id":2,"method":"y"}"#;
        let mut input = framed("{garbage}", 9);
        input.extend(framed(next, next.len()));
        // Garbage with a wrong length: its tail is skipped with the next header block.
        input.extend(framed("{garbage}", 5));
        input.extend(framed(next, next.len()));
        assert_eq!(
            frames(&input).await,
            [
                Frame::Body(b"{garbage}".to_vec()),
                Frame::Body(next.as_bytes().to_vec()),
                Frame::Body(b"{garb".to_vec()),
                Frame::Body(next.as_bytes().to_vec())
            ]
        );
    }

    /// A body that arrives in pieces is waited for, not cut.
    #[tokio::test]
    async fn a_body_split_across_reads_is_one_frame() {
        let (mut client, server) = tokio::io::duplex(1 << 16);
        let body = format!(
            r#"{{"jsonrpc":"2.0","method":"x","params":{{"t":"{}"}}}}"#,
            "é".repeat(5000)
        );
        let bytes = framed(&body, body.len());
        let writer = tokio::spawn(async move {
            for piece in bytes.chunks(333) {
                tokio::io::AsyncWriteExt::write_all(&mut client, piece)
                    .await
                    .unwrap();
                tokio::task::yield_now().await;
            }
        });
        let mut framer = Framer::new(server);
        assert_eq!(framer.next().await, Some(Frame::Body(body.into_bytes())));
        writer.await.unwrap();
    }
}
