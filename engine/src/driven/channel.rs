//! The driven mode's two streams: commands read line by line from standard input, events
//! written line by line to the report channel (the process's original standard output).
//!
//! Standard input is read on the thread that measures, and only between samples: a command
//! arrives when the orchestrator has something to say, and the orchestrator never sends one
//! while it waits for an answer, except `cancel`. Each event is serialised first and leaves in
//! one write, then is flushed, so the orchestrator reads it the moment it is complete.

use std::io::{self, BufRead, StdinLock, Write};

use knotmeter_protocol::{DrivenCommand, DrivenEvent};

use crate::cancel::{self, Cause};
use crate::output::ReportOut;

/// Both ends of the conversation with the orchestrator.
pub(super) struct Channel {
    input: StdinLock<'static>,
    out: ReportOut,
    line: String,
    /// The first error writing an event: nothing more is written.
    failed: Option<io::Error>,
}

impl Channel {
    /// The channel over standard input and `out`.
    pub(super) fn new(out: ReportOut) -> Self {
        Channel {
            input: io::stdin().lock(),
            out,
            line: String::new(),
            failed: None,
        }
    }

    /// Writes one event. The first failure cancels whatever is measured: nobody hears it.
    pub(super) fn send(&mut self, event: &DrivenEvent) {
        if self.failed.is_some() {
            return;
        }
        let written = serde_json::to_vec(event)
            .map_err(io::Error::other)
            .and_then(|mut bytes| {
                bytes.push(b'\n');
                self.out.write_all(&bytes)?;
                self.out.flush()
            });
        if let Err(err) = written {
            cancel::cancel(Cause::OutputFailed);
            self.failed = Some(err);
        }
    }

    /// Whether writing an event failed.
    pub(super) fn write_failed(&self) -> Option<&io::Error> {
        self.failed.as_ref()
    }

    /// The next command; `None` once standard input ends (or cannot be read). A line that is
    /// not a command is answered with an `error` event and skipped.
    pub(super) fn recv(&mut self) -> Option<DrivenCommand> {
        loop {
            self.line.clear();
            match self.input.read_line(&mut self.line) {
                Ok(0) | Err(_) => return None,
                Ok(_) => {}
            }
            let text = self.line.trim();
            if text.is_empty() {
                continue;
            }
            match serde_json::from_str(text) {
                Ok(command) => return Some(command),
                Err(err) => {
                    let message = format!("not a driven-mode command ({err}): {text}");
                    self.send(&DrivenEvent::Error { message });
                }
            }
        }
    }

    /// The next command that is not `cancel`: a `cancel` cancels the measurement in progress
    /// and is otherwise answered by what follows. `None` once standard input ends, which
    /// cancels too (the orchestrator is gone).
    pub(super) fn recv_in_case(&mut self) -> Option<DrivenCommand> {
        loop {
            match self.recv() {
                Some(DrivenCommand::Cancel) => cancel::cancel(Cause::InputClosed),
                Some(command) => return Some(command),
                None => {
                    cancel::cancel(Cause::InputClosed);
                    return None;
                }
            }
        }
    }
}
