//! The driven mode's two streams: commands read line by line from standard input, events
//! written line by line to the report channel (the process's original standard output).
//!
//! Standard input is read by a thread of its own, so that a `cancel`, or the end of the input
//! (the orchestrator is gone), stops what is being measured at its next sample boundary even
//! in the middle of a long step (a `measure` slot reads no command until it ends); every other
//! command waits for the measuring thread, which takes them one at a time between samples. The
//! orchestrator never sends one while it waits for an answer, except `cancel`. Each event is
//! serialised first and leaves in one write, then is flushed, so the orchestrator reads it the
//! moment it is complete.

use std::io::{self, BufRead, Write};
use std::sync::mpsc::{self, Receiver};

use knotmeter_protocol::{DrivenCommand, DrivenEvent, HARNESS_THREAD_PREFIX};

use crate::cancel::{self, Cause};
use crate::output::ReportOut;

/// One line of standard input, as the reader thread hands it over.
enum Input {
    /// A command.
    Command(DrivenCommand),
    /// A line that is not a command, with why.
    Unreadable(String),
}

/// Both ends of the conversation with the orchestrator.
pub(super) struct Channel {
    input: Receiver<Input>,
    out: ReportOut,
    /// The first error writing an event: nothing more is written.
    failed: Option<io::Error>,
}

impl Channel {
    /// The channel over standard input and `out`.
    pub(super) fn new(out: ReportOut) -> Self {
        let (sender, input) = mpsc::channel();
        let reader = std::thread::Builder::new()
            .name(format!("{HARNESS_THREAD_PREFIX}commands"))
            .spawn(move || {
                for line in io::stdin().lock().lines() {
                    let Ok(line) = line else { break };
                    let text = line.trim();
                    if text.is_empty() {
                        continue;
                    }
                    let input = match serde_json::from_str(text) {
                        Ok(command) => {
                            if matches!(command, DrivenCommand::Cancel) {
                                cancel::cancel(Cause::InputClosed);
                            }
                            Input::Command(command)
                        }
                        Err(err) => {
                            Input::Unreadable(format!("not a driven-mode command ({err}): {text}"))
                        }
                    };
                    if sender.send(input).is_err() {
                        return;
                    }
                }
                // The orchestrator is gone: what is measured stops at its next boundary. The
                // measuring thread then finds the input ended.
                cancel::cancel(Cause::InputClosed);
            });
        if let Err(err) = reader {
            eprintln!("knotmeter: cannot start a thread to read commands: {err}");
            cancel::cancel(Cause::InputClosed);
        }
        Channel {
            input,
            out,
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
            match self.input.recv() {
                Ok(Input::Command(command)) => return Some(command),
                Ok(Input::Unreadable(message)) => self.send(&DrivenEvent::Error { message }),
                Err(_) => return None,
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
