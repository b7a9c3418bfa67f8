//! A group member's count against its group's baseline (`--measure instructions`): the two
//! are counted one after the other in this process, and their counts compared by ratio
//! ([`count_ratio`]); the comparison waits, like a paired one, for the run's end.

use knotmeter_protocol::{BenchResult, ComparisonKind};

use super::Run;
use crate::analysis::corrected;
use crate::compare::{count_ratio, Pending};
use crate::registry::Case;

impl Run<'_> {
    /// Compares `result`, the count of group member `case`, with its group's baseline, once
    /// the baseline was counted in this run (the pair's slot counts it first).
    pub(super) fn counted_against_its_baseline(&mut self, case: &Case, result: &BenchResult) {
        if case.baseline {
            return;
        }
        let Some(group) = &case.group else { return };
        let Some(base) = self
            .results
            .iter()
            .find(|r| r.baseline && r.group.as_ref() == Some(group))
        else {
            return;
        };
        let before = corrected(&base.raw.workload_ns, &base.raw.baseline_ns);
        let after = corrected(&result.raw.workload_ns, &result.raw.baseline_ns);
        if let Some(estimate) = count_ratio(&before.samples, &after.samples) {
            self.paired.push(Pending {
                id: case.id.clone(),
                against: base.id.clone(),
                estimate,
                threshold: self.options.noise_threshold,
                kind: ComparisonKind::Group,
                machine_ratio: None,
            });
        }
    }
}
