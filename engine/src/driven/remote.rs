//! [`RemoteSampler`]: the other build's case, reached through the orchestrator, as a
//! [`Sampler`] the paired measurement can drive like a local one.
//!
//! Each sample is a `peer` event naming the command for the other binary; the orchestrator
//! sends it there and hands the answer back as `peer_reply`. Only the two clock reads inside
//! the other process time anything, so the round trip costs wall time, never a sample's value.
//!
//! When the other side fails (its benchmark panicked: `failed`) or is gone (`lost`), no sample
//! can be returned: the sampler records why and unwinds the pair with
//! [`std::panic::resume_unwind`], which skips the panic hook, so the case's own function is
//! left as a panic would leave it and nothing is printed. The pair's caller tells this unwind
//! from a panic of its own benchmark by [`RemoteSampler::ended`].

use std::cell::RefCell;
use std::panic;

use knotmeter_protocol::{BenchResult, CaseFailure, DrivenCommand, DrivenEvent};

use super::channel::Channel;
use super::open::command_name;
use crate::measure::{Measurement, Sampler};
use crate::rounds::to_wire;

/// Why the other side stopped answering.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum PeerEnd {
    /// Its benchmark failed (it closed its case).
    Failed(CaseFailure),
    /// Its process is gone or answered nonsense.
    Lost(String),
}

/// The unwind payload of a pair whose other side stopped answering.
struct PeerStopped;

/// The other build's open case.
pub(super) struct RemoteSampler<'c> {
    channel: &'c RefCell<Channel>,
    id: String,
    ended: Option<PeerEnd>,
}

impl<'c> RemoteSampler<'c> {
    /// The other side's case `id`, which the orchestrator has opened there.
    pub(super) fn new(channel: &'c RefCell<Channel>, id: &str) -> Self {
        RemoteSampler {
            channel,
            id: id.to_owned(),
            ended: None,
        }
    }

    /// Why the other side stopped answering, if it did.
    pub(super) fn ended(&self) -> Option<&PeerEnd> {
        self.ended.as_ref()
    }

    /// Closes the other side's case; with `measurement`, it analyses its samples and answers
    /// with its result.
    pub(super) fn close(
        &mut self,
        measurement: Option<&Measurement>,
    ) -> Result<Option<BenchResult>, PeerEnd> {
        if let Some(ended) = &self.ended {
            return Err(ended.clone());
        }
        let command = DrivenCommand::Close {
            measurement: measurement.map(|m| Box::new(to_wire(m, false))),
        };
        let ended = match self.ask(command) {
            DrivenEvent::Closed { result } => return Ok(result.map(|r| *r)),
            DrivenEvent::Failed { failure } => PeerEnd::Failed(failure),
            DrivenEvent::Lost { message } => PeerEnd::Lost(message),
            other => PeerEnd::Lost(unexpected(&other, "close")),
        };
        self.ended = Some(ended.clone());
        Err(ended)
    }

    /// Sends `command` to the other side and waits for its answer.
    fn ask(&mut self, command: DrivenCommand) -> DrivenEvent {
        let mut channel = self.channel.borrow_mut();
        channel.send(&DrivenEvent::Peer {
            command: Box::new(command),
        });
        loop {
            match channel.recv_in_case() {
                Some(DrivenCommand::PeerReply { reply }) => return *reply,
                Some(other) => channel.send(&DrivenEvent::Error {
                    message: format!(
                        "`{}` is being paired and waits for the peer's answer, not {}",
                        self.id,
                        command_name(&other)
                    ),
                }),
                None => {
                    return DrivenEvent::Lost {
                        message: "the orchestrator closed standard input".into(),
                    }
                }
            }
        }
    }

    /// A sample of the other side, or the end of the pair.
    fn sample(&mut self, command: DrivenCommand) -> f64 {
        let what = command_name(&command);
        let ended = match self.ask(command) {
            DrivenEvent::Sample { ns } if ns.is_finite() => return ns,
            DrivenEvent::Failed { failure } => PeerEnd::Failed(failure),
            DrivenEvent::Lost { message } => PeerEnd::Lost(message),
            other => PeerEnd::Lost(unexpected(&other, &what)),
        };
        self.ended = Some(ended);
        panic::resume_unwind(Box::new(PeerStopped))
    }
}

fn unexpected(event: &DrivenEvent, request: &str) -> String {
    let text = serde_json::to_string(event).unwrap_or_else(|_| "?".into());
    format!("the other side answered `{request}` with {text}")
}

impl Sampler for RemoteSampler<'_> {
    fn cold(&mut self) -> f64 {
        self.sample(DrivenCommand::Cold)
    }

    fn workload(&mut self, ops: u64) -> f64 {
        self.sample(DrivenCommand::Workload { ops })
    }

    fn baseline(&mut self, ops: u64) -> f64 {
        self.sample(DrivenCommand::Baseline { ops })
    }

    fn allocations(&mut self, _ops: u64) -> (f64, f64) {
        // The other side counts its own allocations when its case is closed with the samples
        // (only its build knows whether it installed a counting allocator); this value is
        // never reported.
        (0.0, 0.0)
    }
}
