//! The run's comparisons, decided together at its end: the paired ones found while measuring,
//! plus a before/after comparison for every other case that has a stored predecessor (or a
//! result in the baseline named by `--baseline`), all corrected at once.

use knotmeter_history::machine_key;
use knotmeter_protocol::Comparison;

use super::Session;
use crate::analysis::{corrected, optimized_away};
use crate::cancel;
use crate::compare::{self, run_to_run_noise, unpaired_ratio, Pending};
use crate::store::Store;

/// Stored runs looked at to estimate a case's run-to-run noise.
const NOISE_HISTORY: usize = 20;

/// Every comparison of the run with its corrected p-value and verdict, in run order.
pub(super) fn finish(session: &Session<'_>, store: &mut Store) -> Vec<(String, Comparison)> {
    // A cut-short or optimised-away result gets no verdict, paired or not.
    let comparable = |id: &str| {
        session
            .results
            .iter()
            .any(|r| r.id == id && !r.partial && !optimized_away(r))
    };
    let mut pending: Vec<Pending> = session
        .paired
        .iter()
        .filter(|p| comparable(&p.id))
        .cloned()
        .collect();
    if !cancel::requested() {
        let key = machine_key(&session.manifest);
        for result in &session.results {
            if result.partial || optimized_away(result) || pending.iter().any(|p| p.id == result.id)
            {
                continue;
            }
            let (stored, against) = match &session.options.baseline {
                Some(name) => (
                    store.named(name, &result.id, &key),
                    format!("baseline {name}"),
                ),
                None => (store.previous(&result.id, &key), String::new()),
            };
            let Some(stored) = stored else { continue };
            let before = corrected(
                &stored.result.raw.workload_ns,
                &stored.result.raw.baseline_ns,
            )
            .samples;
            let after = corrected(&result.raw.workload_ns, &result.raw.baseline_ns).samples;
            let Some(estimate) = unpaired_ratio(&before, &after) else {
                continue;
            };
            let noise = run_to_run_noise(&store.medians(&result.id, &key, NOISE_HISTORY));
            pending.push(Pending {
                id: result.id.clone(),
                against: if against.is_empty() {
                    format!("run {}", stored.run.0)
                } else {
                    against
                },
                estimate,
                threshold: session.options.noise_threshold.max(noise),
            });
        }
    }
    // Report in run order, whichever kind each comparison is.
    let order = |id: &str| {
        session
            .results
            .iter()
            .position(|r| r.id == id)
            .unwrap_or(usize::MAX)
    };
    pending.sort_by_key(|p| order(&p.id));
    compare::finalize(&pending)
}
