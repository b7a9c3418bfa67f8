//! Raw samples, kept apart from results and sent only on request (`knotmeter/samples`).
//!
//! A result's raw samples are up to 10 000 numbers per vector: kept with every result of a
//! 10 000-case run and sent with every state change, they made the daemon's memory and the
//! wire grow with the workspace. Results now travel and stay without them. The samples of
//! recent results wait in a cache bounded in bytes ([`BUDGET`]), oldest out first; a case whose
//! samples left the cache is answered from the history store, which keeps a compact form of
//! every result the engine measured, as long as the stored result is the one the daemon shows
//! (same median, same sample count). Otherwise the answer says there are none.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;

use knotmeter_protocol::editor::{SamplesResult, SamplesSource};
use knotmeter_protocol::{BenchResult, RawSamples};

use super::Reply;
use crate::stored::{self, Stored};

/// Bytes of samples kept in memory (at most 10 000 × 2 × 8 bytes per result: at least 52
/// results of the largest size, hundreds of usual ones).
pub const BUDGET: usize = 16 << 20;

/// The raw samples of recent results, by case id.
#[derive(Debug, Default)]
pub struct Samples {
    by_id: HashMap<String, (u64, RawSamples)>,
    /// Insertion order: `(generation, id)`; stale entries are skipped when evicting.
    order: VecDeque<(u64, String)>,
    generation: u64,
    bytes: usize,
}

fn size(raw: &RawSamples) -> usize {
    (raw.workload_ns.len() + raw.baseline_ns.len()) * std::mem::size_of::<f64>()
}

impl Samples {
    /// Takes the raw samples out of `result` and keeps them (the result keeps empty vectors).
    pub fn take_from(&mut self, result: &mut BenchResult) {
        let raw = std::mem::take(&mut result.raw);
        if raw.workload_ns.is_empty() && raw.baseline_ns.is_empty() {
            return;
        }
        self.generation += 1;
        self.bytes += size(&raw);
        if let Some((_, old)) = self.by_id.insert(result.id.clone(), (self.generation, raw)) {
            self.bytes -= size(&old);
        }
        self.order.push_back((self.generation, result.id.clone()));
        while self.bytes > BUDGET {
            let Some((generation, id)) = self.order.pop_front() else {
                break;
            };
            if self.by_id.get(&id).is_some_and(|(g, _)| *g == generation) {
                let (_, raw) = self.by_id.remove(&id).expect("present");
                self.bytes -= size(&raw);
            }
        }
        // Stale entries of re-measured cases would pile up in a long session.
        if self.order.len() > 2 * self.by_id.len() + 64 {
            let by_id = &self.by_id;
            self.order
                .retain(|(g, id)| by_id.get(id).is_some_and(|(current, _)| current == g));
        }
    }

    /// The samples kept for `id`.
    pub fn get(&self, id: &str) -> Option<&RawSamples> {
        self.by_id.get(id).map(|(_, raw)| raw)
    }

    /// Bytes held.
    #[cfg(test)]
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

/// Answers `knotmeter/samples` for `id`, whose latest result the daemon holds as `shown`:
/// from the cache at once, or from the history on another thread.
pub fn answer(
    samples: &Samples,
    id: String,
    shown: Option<&BenchResult>,
    target_dir: Option<PathBuf>,
    reply: Reply<SamplesResult>,
) {
    if let Some(raw) = samples.get(&id) {
        let _ = reply.send(Ok(SamplesResult {
            raw: Some(raw.clone()),
            source: Some(SamplesSource::Measured),
        }));
        return;
    }
    let none = SamplesResult {
        raw: None,
        source: None,
    };
    let Some(shown) = shown.cloned() else {
        let _ = reply.send(Ok(none));
        return;
    };
    tokio::task::spawn_blocking(move || {
        let found = stored::read(target_dir.as_deref(), |history| {
            // The newest stored result of the case, on the machine that measured it last.
            let Some(point) = history.points(&id, 1)?.into_iter().next() else {
                return Ok(None);
            };
            Ok(history
                .previous(&id, &point.machine_key, None)?
                .map(|stored| stored.result))
        });
        let result = match found {
            Stored::Found(Some(stored)) if same_measurement(&stored, &shown) => SamplesResult {
                raw: Some(stored.raw),
                source: Some(SamplesSource::Stored),
            },
            Stored::Unreadable(why) => {
                tracing::warn!("{why}");
                none
            }
            _ => none,
        };
        let _ = reply.send(Ok(result));
    });
}

/// Whether a stored result is the measurement the daemon shows.
fn same_measurement(stored: &BenchResult, shown: &BenchResult) -> bool {
    stored.samples == shown.samples
        && stored.estimate.median_ns == shown.estimate.median_ns
        && stored.wall_ns == shown.wall_ns
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(id: &str, samples: usize) -> BenchResult {
        let mut result: BenchResult = serde_json::from_value(serde_json::json!({
            "id": id, "name": "f", "args": null, "group": null, "baseline": false,
            "file": "benches/x.rs", "line": 1,
            "estimate": {"median_ns": 1.0, "low_ns": 1.0, "high_ns": 1.0, "mean_ns": 1.0},
            "quantiles": {"min_ns": 1.0, "p5_ns": 1.0, "q1_ns": 1.0, "q3_ns": 1.0, "p95_ns": 1.0,
                          "max_ns": 1.0, "std_dev_ns": 0.0, "outliers": 0},
            "precision": 0.01, "overhead": {"per_op_ns": 0.0, "drift": 0.0, "capped": 0},
            "cold_ns": 1.0, "ops_per_sample": 1, "samples": samples, "wall_ns": 1.0,
            "partial": false, "warnings": [], "comparison": null, "allocations": null,
            "raw": {"workload_ns": [], "baseline_ns": []}
        }))
        .unwrap();
        result.raw.workload_ns = (0..samples).map(|i| i as f64).collect();
        result.raw.baseline_ns = vec![0.5; samples];
        result
    }

    #[test]
    fn samples_leave_the_result_and_the_cache_stays_within_its_budget() {
        let mut samples = Samples::default();
        let mut first = result("x::first", 1000);
        samples.take_from(&mut first);
        assert!(first.raw.workload_ns.is_empty() && first.raw.baseline_ns.is_empty());
        assert_eq!(samples.get("x::first").unwrap().workload_ns.len(), 1000);
        // 10 000 results of 1 000 samples each: 160 MB, far above the budget.
        for i in 0..10_000 {
            samples.take_from(&mut result(&format!("x::c{i}"), 1000));
            assert!(samples.bytes() <= BUDGET);
        }
        assert!(samples.get("x::first").is_none(), "the oldest went first");
        assert_eq!(samples.get("x::c9999").unwrap().workload_ns.len(), 1000);
        // A case measured again replaces its samples and counts once.
        let before = samples.bytes();
        samples.take_from(&mut result("x::c9999", 1000));
        assert_eq!(samples.bytes(), before);
        assert!(samples.order.len() <= 2 * samples.by_id.len() + 64);
    }
}
