//! The sampled side of a pair: a case opened on command, whose samples the orchestrator (on
//! behalf of the other build's binary) asks for one by one.
//!
//! `open` runs the case's function as a run would, under `catch_unwind`; when the function
//! hands over what it times, the case answers `opened` and then serves `cold`, `workload` and
//! `baseline` requests from inside the function, so its set-up stays alive, until `close`.
//! `close` may carry the samples that were taken of this case (the other side decided how
//! many): they are analysed here, with this build's own overhead baseline, validity checks and
//! allocation count, so each side's result is its own build's.
//!
//! A panic in the function, before it hands over or during a sample, answers `failed` and
//! closes the case: the other side stops pairing and reports it.

use knotmeter_protocol::{BenchResult, DrivenCommand, DrivenEvent, Warning};

use super::Driven;
use crate::analysis;
use crate::measure::{Measurement, Sampler};
use crate::registry::Case;
use crate::rounds::from_wire;
use crate::{alloc, run};

impl Driven<'_> {
    /// `open`: serves the case's samples until `close`, then answers `closed` (or `failed`).
    pub(super) fn open(&self, case: &Case) {
        // What `close` asked for: `Some(None)` without a measurement.
        let mut closed: Option<Option<Measurement>> = None;
        let mut consume = |sampler: &mut dyn Sampler| {
            let mut channel = self.channel.borrow_mut();
            channel.send(&DrivenEvent::Opened {
                id: case.id.clone(),
            });
            while let Some(command) = channel.recv_in_case() {
                let ns = match command {
                    DrivenCommand::Cold => sampler.cold(),
                    DrivenCommand::Workload { ops } => sampler.workload(ops.max(1)),
                    DrivenCommand::Baseline { ops } => sampler.baseline(ops.max(1)),
                    DrivenCommand::Close { measurement } => {
                        let measurement = measurement.map(|m| {
                            let (mut m, _) = from_wire(*m);
                            m.self_timed = sampler.self_timed();
                            if alloc::installed() {
                                m.allocations = Some(sampler.allocations(m.ops_per_sample.max(1)));
                            }
                            m
                        });
                        closed = Some(measurement);
                        return;
                    }
                    other => {
                        channel.send(&DrivenEvent::Error {
                            message: format!(
                                "the case `{}` is open: it takes cold, workload, baseline, close \
                                 and cancel, not {}",
                                case.id,
                                command_name(&other)
                            ),
                        });
                        continue;
                    }
                };
                channel.send(&DrivenEvent::Sample { ns });
            }
        };
        let ran = run::with_sampler(case, self.timer, &mut consume);
        let event = match ran {
            Err(failure) => DrivenEvent::Failed { failure },
            Ok(0) => DrivenEvent::Failed {
                failure: run::not_measured(case),
            },
            // Standard input ended while the case was open: nobody is listening.
            Ok(_) if closed.is_none() => return,
            Ok(calls) => DrivenEvent::Closed {
                result: closed
                    .flatten()
                    .map(|m| Box::new(self.result(case, m, calls > 1))),
            },
        };
        self.channel.borrow_mut().send(&event);
    }

    /// The result of `case` from its measurement, as a run would report it.
    pub(super) fn result(&self, case: &Case, m: Measurement, twice: bool) -> BenchResult {
        let mut result = analysis::analyse(case, m, &self.context());
        if twice {
            result.warnings.push(Warning::new(
                "measured_twice",
                "the benchmark called a timing method more than once; only the first was measured: \
                 split it into two #[bench] functions",
            ));
        }
        result
    }
}

/// The `cmd` name of a command, for messages.
pub(super) fn command_name(command: &DrivenCommand) -> String {
    serde_json::to_value(command)
        .ok()
        .and_then(|v| v.get("cmd").and_then(|c| c.as_str()).map(str::to_owned))
        .unwrap_or_else(|| "?".to_owned())
}
