//! The measuring side of a pair: this binary's case against the other build's, exactly as a
//! group member is measured against its group's baseline.
//!
//! The other build's case is a [`RemoteSampler`], this one's is the local sampler its function
//! hands over, and [`measure_pair`] does the rest: both are tuned and share one operation count
//! (the larger), warm up, then alternate in ABBA rounds (base, head, head's empty body, base's
//! empty body; then the mirror image) until the ratio's interval is narrow enough or the pair's
//! budget (two cases' worth, as for a group) is spent. The two processes never measure at the
//! same moment: the orchestrator passes one request at a time.
//!
//! Then each side's samples become its result in its own process (the other side's through
//! `close`), and the paired ratio (per-round log-ratios, each side less its own overhead) is
//! the estimate, held back for the correction across every case (`finalize`).
//!
//! Measured in rounds (`knotmeter compare`'s way: a `slot` with the pair, each round in a fresh
//! pair of processes), a pair samples for its share of the budget and answers with what it
//! measured (`PairOutcome::round`); `combine` then makes both sides' results and the estimate
//! from every round, the estimate from the rounds' paired ratios (`compare::rounds`): what
//! differs between two processes, and not only what changes over time, is in its interval.

use knotmeter_protocol::{
    BenchResult, CaseFailure, DrivenEvent, PairEstimate, PairOutcome, PairRound, PairSlot,
};

use super::remote::{PeerEnd, RemoteSampler};
use super::Driven;
use crate::analysis::optimized_away;
use crate::analysis::rounds::{analyse_rounds, Plan, Round};
use crate::compare::{pair_is_precise, paired_ratio, round_log_ratio};
use crate::measure::{measure_pair, MeasureConfig, Measurement, Progress, Sampler};
use crate::registry::Case;
use crate::rounds::{from_wire, to_wire};
use crate::run;

impl Driven<'_> {
    /// `pair`: measures `case` against the other side's open case, then answers `paired`;
    /// with a `slot`, one round's share of the pair, answered with what it measured.
    pub(super) fn pair(&self, case: &Case, against: &str, slot: Option<&PairSlot>) {
        let cfg = match slot {
            Some(slot) => self.slot_config(case, slot),
            None => self.config(case, 2),
        };
        let mut remote = RemoteSampler::new(&self.channel, &case.id);
        let mut measured: Option<(Measurement, Measurement)> = None;
        let ran = {
            let channel = &self.channel;
            let id = case.id.clone();
            let mut progress = move |p: &Progress| {
                channel.borrow_mut().send(&DrivenEvent::Progress {
                    id: id.clone(),
                    samples: p.samples,
                    fraction: p.fraction,
                    longest_step_ns: p.longest_step_ns,
                });
            };
            let mut consume = |local: &mut dyn Sampler| {
                let precise =
                    |b: &Measurement, m: &Measurement| pair_is_precise(b, m, cfg.target_precision);
                measured = Some(measure_pair(
                    &cfg,
                    &mut progress,
                    &mut remote,
                    local,
                    &precise,
                ));
            };
            run::with_sampler(case, self.timer, &mut consume)
        };
        let mut outcome = PairOutcome::of(case.id.clone());
        if let Some(ended) = remote.ended().cloned() {
            // The other side failed or vanished in the middle: this side's samples are
            // unpaired and its function was unwound, so neither side has a result.
            record_peer_end(&mut outcome, ended);
        } else {
            match (ran, measured) {
                (Ok(calls), Some((base, head))) if calls > 0 => {
                    match remote.close(Some(&base)) {
                        Ok(result) => outcome.base = result,
                        Err(ended) => record_peer_end(&mut outcome, ended),
                    }
                    if slot.is_some() {
                        // One round: kept for `combine`, with the base's own allocation count.
                        let mut base_wire = to_wire(&base, false);
                        base_wire.allocations = outcome.base.as_ref().and_then(|r| r.allocations);
                        outcome.round = Some(PairRound {
                            base: base_wire,
                            head: to_wire(&head, calls > 1),
                        });
                        outcome.head = Some(self.result(case, head, calls > 1));
                    } else {
                        let estimate = paired_ratio(&base, &head);
                        outcome.head = Some(self.result(case, head, calls > 1));
                        self.decide(&mut outcome, estimate, against);
                    }
                }
                (ran, _) => {
                    outcome.head_failure = Some(match ran {
                        Err(failure) => failure,
                        Ok(_) => run::not_measured(case),
                    });
                    if let Err(ended) = remote.close(None) {
                        record_peer_end(&mut outcome, ended);
                    }
                }
            }
        }
        if outcome.estimate.is_none() && outcome.not_compared.is_none() && outcome.round.is_none() {
            outcome.not_compared = Some(why_not_compared(&outcome));
        }
        self.channel
            .borrow_mut()
            .send(&DrivenEvent::Paired(Box::new(outcome)));
    }

    /// `combine`: both sides' results and the estimate of `case` from its `rounds`, each
    /// measured by a `pair` slot in a fresh pair of processes; answered by `paired`.
    pub(super) fn combine(
        &self,
        case: &Case,
        against: &str,
        rounds: Vec<PairRound>,
        planned: u32,
        cut_short: bool,
    ) {
        if crate::count::active() {
            return self.combine_counts(case, against, rounds);
        }
        let log_ratios: Vec<f64> = rounds
            .iter()
            .filter_map(|r| {
                let (base, _) = from_wire(r.base.clone());
                let (head, _) = from_wire(r.head.clone());
                round_log_ratio(&base, &head)
            })
            .collect();
        let plan = Plan {
            processes: rounds.len() as u32,
            planned,
            cut_short,
        };
        let side = |wires: Vec<knotmeter_protocol::DrivenMeasurement>| -> Vec<Round> {
            wires
                .into_iter()
                .map(|w| {
                    let (m, twice) = from_wire(w);
                    Round { m, twice }
                })
                .collect()
        };
        let (base, head): (Vec<_>, Vec<_>) = rounds.into_iter().map(|r| (r.base, r.head)).unzip();
        let mut outcome = PairOutcome::of(case.id.clone());
        if !base.is_empty() {
            outcome.base = Some(analyse_rounds(case, side(base), &plan, &self.context()));
            outcome.head = Some(analyse_rounds(case, side(head), &plan, &self.context()));
        }
        if log_ratios.len() < 2 && !cut_short {
            outcome.not_compared = Some(format!(
                "{} round{} of {planned} fitted in the budget: a comparison needs two",
                log_ratios.len(),
                if log_ratios.len() == 1 { "" } else { "s" }
            ));
        } else {
            let estimate = crate::compare::rounds::paired(&log_ratios);
            self.decide(&mut outcome, estimate, against);
        }
        if outcome.estimate.is_none() && outcome.not_compared.is_none() {
            outcome.not_compared = Some(why_not_compared(&outcome));
        }
        self.channel
            .borrow_mut()
            .send(&DrivenEvent::Paired(Box::new(outcome)));
    }

    /// The configuration of one round's share of a pair: two cases' worth of budget over the
    /// rounds, sampled to its end, with the operations an earlier round tuned.
    fn slot_config(&self, case: &Case, slot: &PairSlot) -> MeasureConfig {
        let base = self.config(case, 2);
        MeasureConfig {
            budget: base.budget / slot.rounds.max(1),
            tuned_ops: slot.ops,
            max_samples: crate::measure::schedule::MAX_SAMPLES,
            stop_when_precise: false,
            count_allocations: slot.round == 0,
            seed: base.seed ^ u64::from(slot.round),
            ..base
        }
    }

    /// Keeps `estimate` when both results can be compared, as a run decides for a group: a
    /// side cut short by a cancel or indistinguishable from the empty body gets no verdict.
    pub(super) fn decide(
        &self,
        outcome: &mut PairOutcome,
        estimate: Option<crate::compare::RatioEstimate>,
        against: &str,
    ) {
        let (Some(base), Some(head)) = (&outcome.base, &outcome.head) else {
            return;
        };
        let why = if base.partial || head.partial {
            Some("cut short by the cancel".to_owned())
        } else if let Some(side) = side_optimized_away(base, head) {
            Some(format!(
                "indistinguishable from the empty body in the {side} build"
            ))
        } else if estimate.is_none() {
            Some("too few rounds or positive samples to compare".to_owned())
        } else {
            None
        };
        if let Some(why) = why {
            outcome.not_compared = Some(why);
            return;
        }
        outcome.estimate = estimate.map(|e| PairEstimate {
            id: outcome.id.clone(),
            against: against.to_owned(),
            ratio: e.ratio,
            low: e.low,
            high: e.high,
            p_value: e.p_value,
            threshold: self.options.noise_threshold,
        });
    }
}

/// Which build's result was optimised away: `base`, `head` or `base and head`.
fn side_optimized_away(base: &BenchResult, head: &BenchResult) -> Option<&'static str> {
    match (optimized_away(base), optimized_away(head)) {
        (true, true) => Some("base and head"),
        (true, false) => Some("base"),
        (false, true) => Some("head"),
        (false, false) => None,
    }
}

/// Records why the other side stopped: its case failed, or its process is gone.
fn record_peer_end(outcome: &mut PairOutcome, ended: PeerEnd) {
    match ended {
        PeerEnd::Failed(failure) => outcome.base_failure = Some(failure),
        PeerEnd::Lost(message) => outcome.base_lost = Some(message),
    }
}

/// Why a pair without an estimate was not compared.
fn why_not_compared(outcome: &PairOutcome) -> String {
    let side = |failure: &Option<CaseFailure>, name: &str| {
        failure
            .as_ref()
            .map(|f| format!("the {name} build's case failed: {}", f.message))
    };
    side(&outcome.base_failure, "base")
        .or_else(|| side(&outcome.head_failure, "head"))
        .or_else(|| {
            outcome
                .base_lost
                .as_ref()
                .map(|why| format!("the base build's bench binary stopped answering: {why}"))
        })
        .unwrap_or_else(|| "not measured on both sides".to_owned())
}
