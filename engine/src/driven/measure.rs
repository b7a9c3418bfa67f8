//! `measure`: one slot of a round, measured in this process on behalf of the coordinator of
//! the rounds (this bench binary's own `--bench` run, see `rounds`), answered by `measured`.

use knotmeter_protocol::{DrivenEvent, SlotPlan};

use super::Driven;
use crate::measure::Progress;
use crate::registry::Case;
use crate::rounds::measure_slot;

impl Driven<'_> {
    /// `measure`: the slot's cases measured for its budget; `progress` events as it goes.
    pub(super) fn measure(&self, plan: &SlotPlan) {
        let cases: Option<Vec<&Case>> = plan.ids.iter().map(|id| self.case(id)).collect();
        // An unknown id was answered with an `error` event.
        let Some(cases) = cases else { return };
        let channel = &self.channel;
        let mut progress = |id: &str, p: &Progress| {
            channel.borrow_mut().send(&DrivenEvent::Progress {
                id: id.to_owned(),
                samples: p.samples,
                fraction: p.fraction,
                longest_step_ns: p.longest_step_ns,
            });
        };
        let outcome = measure_slot(&cases, plan, self.timer, plan.mark_output, &mut progress);
        channel
            .borrow_mut()
            .send(&DrivenEvent::Measured(Box::new(outcome)));
    }
}
