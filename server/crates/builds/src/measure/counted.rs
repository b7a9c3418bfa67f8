//! A case of two builds counted (`knotmeter compare --measure instructions`): both bench
//! binaries run under callgrind, and each counts the case alone in its own process (`measure`,
//! a slot of one case), the base and then the head. No pair and no rounds: the same build counts
//! the same in any process, so there is nothing for pairing or fresh processes to cancel. The
//! head then `combine`s the two counts into both results and the ratio (`combine_all`).

use knotmeter_protocol::{
    CaseFailure, ComparedCase, DrivenCommand, DrivenEvent, DrivenMeasurement, PairOutcome,
    PairRound, SlotPlan,
};
use tokio::time::Instant;

use super::{failed, silence_text, text, Run, Side};

/// What one side's count of a case came to.
enum Counted {
    /// The count.
    Measured(DrivenMeasurement),
    /// The case failed on that side (a panic, a misuse).
    Failed(CaseFailure),
}

impl Run<'_> {
    /// Case `id` counted on both sides: the round `combine` takes, or the outcome naming the
    /// side whose case failed; the case's failure when a side cannot be reached.
    pub(super) async fn count_pair<'s>(
        &mut self,
        id: &str,
        base: &mut Side<'s>,
        head: &mut Side<'s>,
    ) -> Result<(PairOutcome, Option<String>), ComparedCase> {
        self.start_pinned(id, base, head).await?;
        self.emit(super::MeasureEvent::Started(id.to_owned()));
        let mut outcome = PairOutcome::of(id.to_owned());
        let base_count = match self.count_side(id, base, "base", 0).await? {
            Counted::Measured(m) => m,
            Counted::Failed(failure) => {
                outcome.base_failure = Some(failure);
                return Ok((outcome, None));
            }
        };
        match self.count_side(id, head, "head", 1).await? {
            Counted::Measured(head_count) => {
                outcome.round = Some(PairRound {
                    base: base_count,
                    head: head_count,
                });
            }
            Counted::Failed(failure) => outcome.head_failure = Some(failure),
        }
        Ok((outcome, None))
    }

    /// Case `id` counted by `side` (`name`), the `nth` of the case's two counts (for its
    /// progress); a side that falls silent or ends is stopped, and the case fails.
    async fn count_side(
        &mut self,
        id: &str,
        side: &mut Side<'_>,
        name: &'static str,
        nth: u32,
    ) -> Result<Counted, ComparedCase> {
        let timeout = self.options.case_timeout;
        let Some(binary) = side.binary.as_mut() else {
            return Err(failed(
                id,
                format!("the {name} build's bench binary did not start"),
            ));
        };
        let slot = SlotPlan {
            ids: vec![id.to_owned()],
            round: 0,
            rounds: 1,
            budget_ns: self.options.budget.as_nanos() as u64 / 2,
            ops: None,
            max_samples: 1,
            seed: 0,
            count_allocations: true,
            mark_output: false,
        };
        let command = DrivenCommand::Measure {
            slot: Box::new(slot),
        };
        if let Err(silence) = binary.send(&command).await {
            side.binary = None;
            return Err(failed(
                id,
                silence_text(name, &silence, timeout, "when the count began"),
            ));
        }
        let mut deadline = Instant::now() + timeout;
        let mut cancel_sent = false;
        let mut threads = 1;
        loop {
            let event = tokio::select! {
                biased;
                _ = self.cancel.cancelled(), if !cancel_sent => {
                    cancel_sent = true;
                    self.measured.cancelled = true;
                    // A failed send shows as the silence the next read meets.
                    let _ = binary.send(&DrivenCommand::Cancel).await;
                    continue;
                }
                event = binary.recv(deadline) => event,
            };
            deadline = Instant::now() + timeout;
            match event {
                Ok(DrivenEvent::Progress { fraction, .. }) => {
                    self.progress(id, (nth, 2), fraction, None, &mut threads);
                }
                Ok(DrivenEvent::Measured(outcome)) => {
                    let side_outcome = outcome.sides.into_iter().find(|s| s.id == id);
                    return match side_outcome {
                        Some(s) => match (s.measured, s.failure) {
                            (Some(m), _) => Ok(Counted::Measured(m)),
                            (None, Some(failure)) => Ok(Counted::Failed(failure)),
                            (None, None) => Err(failed(
                                id,
                                format!("the {name} build's bench binary counted nothing"),
                            )),
                        },
                        None => Err(failed(
                            id,
                            format!("the {name} build's bench binary did not count the case"),
                        )),
                    };
                }
                Ok(other) => {
                    side.binary = None;
                    return Err(failed(
                        id,
                        format!(
                            "the {name} build's bench binary answered `measure` with {}",
                            text(&other)
                        ),
                    ));
                }
                Err(silence) => {
                    side.binary = None;
                    return Err(failed(
                        id,
                        silence_text(name, &silence, timeout, "while counting"),
                    ));
                }
            }
        }
    }
}
