//! `combine` of a count (`knotmeter compare --measure instructions`, both bench binaries under
//! callgrind): each side's count of the case, measured by a `measure` slot in its own process,
//! becomes its result (`count::analysis`), and the ratio of the two counts is the estimate
//! (`compare::count_ratio`), the noise threshold its only floor when both are exact, as for a
//! count compared with its history. There are no rounds: the same build counts the same in any
//! process; a count that moves between repetitions (`not_deterministic`) is held to the noise
//! floor of a time (`compare::count_noise`), since it moves between processes too.

use knotmeter_protocol::{DrivenEvent, PairOutcome, PairRound};

use super::Driven;
use crate::analysis::corrected;
use crate::compare::{count_noise, count_ratio};
use crate::count::analysis::analyse;
use crate::registry::Case;
use crate::rounds::from_wire;

impl Driven<'_> {
    /// Both sides' results and the estimate of counted `case` from the first of its `rounds`
    /// (a count needs one; any more would count the same); answered by `paired`.
    pub(super) fn combine_counts(&self, case: &Case, against: &str, rounds: Vec<PairRound>) {
        let Some(round) = rounds.into_iter().next() else {
            let outcome = PairOutcome {
                not_compared: Some("nothing was counted".to_owned()),
                ..PairOutcome::of(case.id.clone())
            };
            self.channel
                .borrow_mut()
                .send(&DrivenEvent::Paired(Box::new(outcome)));
            return;
        };
        let (base, _) = from_wire(round.base);
        let (head, _) = from_wire(round.head);
        let base_samples = corrected(&base.workload_ns, &base.baseline_ns).samples;
        let head_samples = corrected(&head.workload_ns, &head.baseline_ns).samples;
        let ratio = count_ratio(&base_samples, &head_samples);
        let mut outcome = PairOutcome {
            base: Some(analyse(case, &base)),
            head: Some(analyse(case, &head)),
            ..PairOutcome::of(case.id.clone())
        };
        self.decide(&mut outcome, ratio, against);
        // Two processes: a count that moves is held to a noise floor (`count_noise`).
        let floor = count_noise(&base_samples, &head_samples, None);
        if let Some(estimate) = outcome.estimate.as_mut() {
            estimate.threshold = estimate.threshold.max(floor);
        }
        if outcome.estimate.is_none() && outcome.not_compared.is_none() {
            outcome.not_compared = Some("a side counted no work".to_owned());
        }
        self.channel
            .borrow_mut()
            .send(&DrivenEvent::Paired(Box::new(outcome)));
    }
}
