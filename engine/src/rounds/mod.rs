//! A run as a schedule of rounds: every case gets a short slot in each round, the order of the
//! slots is shuffled every round, and each round runs in a fresh worker process of this bench
//! binary (see `worker`), or in this process with `--in-process`.
//!
//! Why: the state a process is born with (where its memory landed, the CPU it runs on, what
//! the machine does meanwhile) holds for its whole life and moves a figure by far more than
//! that process's samples show (docs/measurement.md, "What moves the numbers"). Measured in one
//! stretch, a case's interval said where its own samples were, not where a rerun would land;
//! cases measured one after another saw different machine states, and a fit across them
//! mistook the state for the size. Spread over rounds and processes, every case sees the same
//! mix of states, and the variation between rounds is the evidence every interval, verdict and
//! stopping rule reads (`analysis::rounds`, `compare::rounds`).
//!
//! A case's budget is spread over its rounds: each slot samples for the budget divided by the
//! rounds (a group pair gets two cases' worth, as before). A case stops early once its interval
//! is within the precision target after [`MIN_ROUNDS_TO_STOP`] rounds, and as soon as its next
//! round would take it past its budget (a slow benchmark or an expensive set-up gets fewer
//! rounds; one whose slot outlasts the budget gets one, and says so). The first round tunes the
//! operations per sample; the later ones reuse that count, so every round samples alike.
//!
//! A case that fails in a slot (a panic, a misuse, a crash or a hang of its process) fails and
//! gets no more rounds; the others go on, in a new worker when the old one is gone.

mod slot;
mod worker;

use std::time::{Duration, Instant};

use knotmeter_protocol::{CaseFailure, FailureKind, SlotOutcome, SlotPlan};

pub(crate) use slot::{from_wire, measure_slot, stray_panics, to_wire};

use crate::analysis::rounds::{estimate, round_median, Round};
use crate::analysis::LEVEL;
use crate::cancel;
use crate::compare::{round_log_ratio, PAIRED_PRECISION_DIVISOR};
use crate::measure::schedule::{SplitMix64, MAX_SAMPLES};
use crate::measure::{Progress, Timer};
use crate::registry::Case;
use crate::stats::rounds::Mean;

pub(crate) use knotmeter_protocol::{DEFAULT_ROUNDS, MIN_ROUNDS, QUICK_ROUNDS};
/// A case may stop on precision from this many rounds on: fewer give intervals whose own
/// width is too uncertain to stop on. A stretch of rounds that happen to agree looks precise
/// more often than it is: with five, cases stopped early on intervals that a rerun missed
/// more often than the full ten rounds' (docs/calibration.md).
pub(crate) const MIN_ROUNDS_TO_STOP: u32 = 8;
/// The next round still fits when it would end within this share past the budget.
const BUDGET_SLACK: f64 = 1.1;

/// How a worker's slot ended when it did not answer: its process crashed, hung, or was
/// stopped by the cancel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LostKind {
    /// The process ended in the middle of the slot (a signal, an exit, the OOM killer).
    Crashed,
    /// The process said nothing for longer than its steps allow.
    Hung,
    /// The run was cancelled and the process did not stop in time.
    Cancelled,
}

/// A slot that got no answer.
#[derive(Debug, Clone)]
pub(crate) struct Lost {
    /// What happened.
    pub(crate) kind: LostKind,
    /// In words: `the process measuring it was killed by signal SIGABRT during this case`.
    pub(crate) message: String,
}

/// How one slot ended.
#[derive(Debug, Clone)]
pub(crate) enum SlotResult {
    /// The worker answered.
    Measured(SlotOutcome),
    /// It did not.
    Lost(Lost),
}

/// How the rounds are run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Settings {
    /// The most rounds a case gets.
    pub(crate) rounds: u32,
    /// Every round in this process instead of worker processes.
    pub(crate) in_process: bool,
    /// Mark each slot's start and end on standard error (`--format jsonl`).
    pub(crate) mark_output: bool,
    /// The precision target a case may stop on.
    pub(crate) target_precision: f64,
    /// The run's seed: the order of each round and each slot's jitter come from it.
    pub(crate) seed: u64,
    /// The calibrated clock.
    pub(crate) timer: Timer,
}

/// One unit of work: a case alone, or a group member with its group's baseline.
pub(crate) struct Unit<'c> {
    /// The cases measured together: one, or the baseline then the member.
    pub(crate) cases: Vec<&'c Case>,
    /// Whether each case's result is reported from this unit (a baseline shared by several
    /// members is reported once).
    pub(crate) reports: Vec<bool>,
    /// The unit's whole budget.
    pub(crate) budget: Duration,
    /// Measured in every round while another unit still is, whatever its budget or its
    /// precision (the machine's probe, `crate::probe`): its rounds span the whole run.
    pub(crate) every_round: bool,
}

/// What the schedule tells the run as it goes.
pub(crate) trait Sink {
    /// A case's first slot begins.
    fn started(&mut self, case: &Case);
    /// A case in progress: its samples so far, the share of its budget spent.
    fn progress(&mut self, id: &str, progress: &Progress);
    /// A case failed; it gets no more rounds.
    fn failed(&mut self, case: &Case, failure: CaseFailure);
    /// A pair's rounds ended with both sides measured: the member's per-round log-ratio to the
    /// baseline (before the sides' results).
    fn paired(&mut self, base: &Case, member: &Case, log_ratios: &[f64]);
    /// A case's rounds ended: its result is to be made from them.
    fn finished(&mut self, case: &Case, rounds: Vec<Round>, plan: &crate::analysis::rounds::Plan);
    /// Panics of threads that happened while no case ran (in a worker, or in this process),
    /// each naming the case that probably left its thread running: they fail the run.
    fn stray_panics(&mut self, panics: &[String]);
}

/// What a unit has to tell the run, held until every unit before it in the plan has told
/// its own: results come out in the order of the plan, whichever unit finished first.
enum Report<'c> {
    Failed(&'c Case, CaseFailure),
    Paired(&'c Case, &'c Case, Vec<f64>),
    Finished(&'c Case, Vec<Round>, crate::analysis::rounds::Plan),
}

/// The state of one unit over the rounds.
struct State<'c> {
    unit: Unit<'c>,
    /// Each case's rounds, in the order of `unit.cases`.
    rounds: Vec<Vec<Round>>,
    /// Each case failed (then it is measured no more).
    failed: Vec<bool>,
    /// Per-round log-ratios of a pair.
    log_ratios: Vec<f64>,
    /// The operations per sample the first round tuned.
    ops: Option<u64>,
    /// Wall time spent on the unit's slots, and the last slot's.
    spent: Duration,
    last: Duration,
    /// Slots taken.
    slots: u32,
    started: bool,
    done: bool,
    /// What is to be told, in order, once the units before this one have told theirs.
    reports: Vec<Report<'c>>,
}

impl<'c> State<'c> {
    fn new(unit: Unit<'c>) -> Self {
        let n = unit.cases.len();
        State {
            unit,
            rounds: vec![Vec::new(); n],
            failed: vec![false; n],
            log_ratios: Vec::new(),
            ops: None,
            spent: Duration::ZERO,
            last: Duration::ZERO,
            slots: 0,
            started: false,
            done: false,
            reports: Vec::new(),
        }
    }

    /// The cases still measured, in order.
    fn live(&self) -> Vec<&'c Case> {
        self.unit
            .cases
            .iter()
            .zip(&self.failed)
            .filter(|(_, failed)| !**failed)
            .map(|(case, _)| *case)
            .collect()
    }

    /// Whether the live cases are a pair (both sides alive).
    fn paired(&self) -> bool {
        self.unit.cases.len() == 2 && !self.failed.iter().any(|f| *f)
    }

    /// Whether the unit is to be measured no more: all its reported cases failed, or a pair's
    /// member failed and its baseline is not reported here.
    fn nothing_left(&self) -> bool {
        self.unit
            .reports
            .iter()
            .zip(&self.failed)
            .all(|(reports, failed)| !*reports || *failed)
    }

    /// Whether the unit's next round would take it past its budget (by more than a tenth). A
    /// case gets [`MIN_ROUNDS`] rounds whatever the length of its slots, so that it has an
    /// interval between processes, unless its *first* slot alone took its whole budget (a call
    /// or a set-up longer than the budget: one round, which says so). A loaded machine that
    /// stretches a later slot, process start included, must not leave a case with two rounds,
    /// whose Student's t has one degree of freedom; so a case takes at most [`MIN_ROUNDS`]
    /// slots' worth past its budget.
    fn over_budget(&self) -> bool {
        let budget = self.unit.budget.as_secs_f64();
        let first_took_it_all = self.slots == 1 && self.last > self.unit.budget;
        if self.slots < MIN_ROUNDS && !first_took_it_all {
            return false;
        }
        (self.spent + self.last).as_secs_f64() > budget * BUDGET_SLACK
    }

    /// Whether the unit's estimate is precise enough to stop, after its rounds so far.
    fn precise(&self, target: f64) -> bool {
        if self.slots < MIN_ROUNDS_TO_STOP {
            return false;
        }
        if self.paired() {
            return Mean::of(&self.log_ratios).is_some_and(|mean| {
                let (low, high) = mean.interval(LEVEL);
                mean.has_interval() && (high - low) / 2.0 <= target / PAIRED_PRECISION_DIVISOR
            });
        }
        self.unit
            .cases
            .iter()
            .enumerate()
            .filter(|(i, _)| !self.failed[*i] && self.unit.reports[*i])
            .all(|(i, _)| {
                let medians: Vec<f64> = self.rounds[i].iter().map(|r| round_median(&r.m)).collect();
                estimate(&medians).is_some_and(|e| e.rounds_precision <= target)
            })
    }
}

/// Where the slots of a run are measured.
trait Slots {
    /// Measures one slot of `cases`; returns how it ended and how long it took.
    fn measure(
        &mut self,
        cases: &[&Case],
        plan: &SlotPlan,
        progress: &mut dyn FnMut(&str, &Progress),
    ) -> (SlotResult, Duration);
    /// The round ended: its process, if any, is stopped and waited for; returns the panics of
    /// threads it had after its last slot.
    fn end_round(&mut self) -> Vec<String>;
    /// Separate processes the rounds have run in so far.
    fn processes(&self) -> u32;
}

/// Runs `units` round by round, in worker processes (or this one), and tells `sink` what
/// happens.
pub(crate) fn run(units: Vec<Unit<'_>>, settings: &Settings, sink: &mut dyn Sink) {
    schedule(units, settings, &mut Runner::new(settings), sink);
}

/// Runs `units` round by round with `runner` measuring the slots.
fn schedule(
    units: Vec<Unit<'_>>,
    settings: &Settings,
    runner: &mut dyn Slots,
    sink: &mut dyn Sink,
) {
    let mut states: Vec<State<'_>> = units.into_iter().map(State::new).collect();
    let mut order_rng = SplitMix64::new(settings.seed ^ 0x726f_756e_6473);
    let mut cancelled = false;
    let mut told = 0;
    for round in 0..settings.rounds {
        let mut order: Vec<usize> = (0..states.len()).filter(|i| !states[*i].done).collect();
        if order.is_empty() {
            break;
        }
        shuffle(&mut order, &mut order_rng);
        for index in order {
            if cancel::requested() {
                cancelled = true;
                break;
            }
            measure(&mut states[index], round, settings, runner, sink);
        }
        let stray = runner.end_round();
        if !stray.is_empty() {
            sink.stray_panics(&stray);
        }
        if cancelled || cancel::requested() {
            cancelled = true;
            break;
        }
        let last_round = round + 1 >= settings.rounds;
        for state in states.iter_mut().filter(|s| !s.done && !s.unit.every_round) {
            if state.nothing_left()
                || last_round
                || state.over_budget()
                || state.precise(settings.target_precision)
            {
                finish(state, settings, runner.processes(), false);
            }
        }
        let others_left = states.iter().any(|s| !s.done && !s.unit.every_round);
        for state in states.iter_mut().filter(|s| !s.done && s.unit.every_round) {
            if state.nothing_left() || last_round || !others_left {
                finish(state, settings, runner.processes(), false);
            }
        }
        tell(&mut states, &mut told, sink);
    }
    for state in states.iter_mut().filter(|s| !s.done) {
        finish(state, settings, runner.processes(), cancelled);
    }
    tell(&mut states, &mut told, sink);
}

/// Tells `sink` what the finished units from `told` on have to say, in the order of the plan,
/// up to the first unit still measuring.
fn tell(states: &mut [State<'_>], told: &mut usize, sink: &mut dyn Sink) {
    while let Some(state) = states.get_mut(*told) {
        if !state.done {
            return;
        }
        for report in std::mem::take(&mut state.reports) {
            match report {
                Report::Failed(case, failure) => sink.failed(case, failure),
                Report::Paired(base, member, ratios) => sink.paired(base, member, &ratios),
                Report::Finished(case, rounds, plan) => sink.finished(case, rounds, &plan),
            }
        }
        *told += 1;
    }
}

/// Measures one slot of `state` in round `round`.
fn measure(
    state: &mut State<'_>,
    round: u32,
    settings: &Settings,
    runner: &mut dyn Slots,
    sink: &mut dyn Sink,
) {
    let cases = state.live();
    if cases.is_empty() {
        state.done = true;
        return;
    }
    if !state.started {
        state.started = true;
        for (case, reports) in state.unit.cases.iter().zip(&state.unit.reports) {
            if *reports {
                sink.started(case);
            }
        }
    }
    let shares = cases.len() as u32;
    let per_case = state.unit.budget / state.unit.cases.len() as u32;
    let budget = per_case * shares / settings.rounds.max(1);
    let plan = SlotPlan {
        ids: cases.iter().map(|c| c.id.clone()).collect(),
        round,
        rounds: settings.rounds,
        budget_ns: u64::try_from(budget.as_nanos()).unwrap_or(u64::MAX),
        ops: state.ops,
        // A slot samples for its whole budget: the rounds spread the case over the run's time,
        // and the machine states it meets are what the interval is made of.
        max_samples: MAX_SAMPLES as u64,
        seed: settings.seed ^ crate::run::fnv1a(&plan_key(&cases)) ^ u64::from(round),
        count_allocations: round == 0,
        mark_output: settings.mark_output,
    };
    let spent_before = state.spent;
    let budget_total = state.unit.budget;
    let mut relay = |id: &str, p: &Progress| {
        // The case's progress: its rounds so far, and how far this slot has got.
        let fraction = ((spent_before.as_secs_f64() + p.fraction * budget.as_secs_f64())
            / budget_total.as_secs_f64().max(1e-9))
        .clamp(0.0, 0.99);
        sink.progress(
            id,
            &Progress {
                samples: p.samples,
                fraction,
                longest_step_ns: p.longest_step_ns,
            },
        );
    };
    let (result, wall) = runner.measure(&cases, &plan, &mut relay);
    state.spent += wall;
    state.last = wall;
    state.slots += 1;
    match result {
        SlotResult::Measured(outcome) => {
            if !outcome.stray_panics.is_empty() {
                sink.stray_panics(&outcome.stray_panics);
            }
            record(state, &cases, outcome);
        }
        SlotResult::Lost(lost) => {
            let kind = match lost.kind {
                LostKind::Crashed => FailureKind::Crashed,
                LostKind::Hung => FailureKind::Hung,
                LostKind::Cancelled => FailureKind::Cancelled,
            };
            if settings.mark_output {
                // The slot's start was marked by the process that was lost: end it here, so
                // that what is printed next is not taken for its output.
                slot::mark(&cases, knotmeter_protocol::OutputMark::CaseEnded);
            }
            if lost.kind == LostKind::Cancelled {
                // What the earlier rounds measured stays; the case ends as the cancel finds it.
                return;
            }
            for case in &cases {
                fail(
                    state,
                    case,
                    CaseFailure {
                        id: case.id.clone(),
                        kind,
                        message: lost.message.clone(),
                        location: None,
                    },
                );
            }
        }
    }
    if state.nothing_left() {
        state.done = true;
    }
}

/// A stable text naming the cases of a slot, for its seed.
fn plan_key(cases: &[&Case]) -> String {
    cases
        .iter()
        .map(|c| c.id.as_str())
        .collect::<Vec<_>>()
        .join("|")
}

/// Records what a slot measured: each side's round, or its failure; a pair's log-ratio.
fn record<'c>(state: &mut State<'c>, cases: &[&'c Case], outcome: SlotOutcome) {
    let mut measured: Vec<Option<Round>> = Vec::new();
    for case in cases {
        let side = outcome.sides.iter().find(|s| s.id == case.id);
        match side.and_then(|s| s.measured.clone()) {
            Some(wire) => {
                let (m, twice) = from_wire(wire);
                measured.push(Some(Round { m, twice }));
            }
            None => {
                let failure = side
                    .and_then(|s| s.failure.clone())
                    .unwrap_or_else(|| CaseFailure {
                        id: case.id.clone(),
                        kind: FailureKind::Crashed,
                        message: "the process measuring it answered without it".to_owned(),
                        location: None,
                    });
                measured.push(None);
                if failure.kind == FailureKind::Cancelled {
                    continue;
                }
                fail(state, case, failure);
            }
        }
    }
    if let ([_, _], [Some(base), Some(member)]) = (cases, measured.as_slice()) {
        if let Some(log_ratio) = round_log_ratio(&base.m, &member.m) {
            state.log_ratios.push(log_ratio);
        }
    }
    for (case, round) in cases.iter().zip(measured) {
        let Some(round) = round else { continue };
        if state.ops.is_none() && round.m.ops_per_sample > 0 {
            state.ops = Some(round.m.ops_per_sample);
        }
        if let Some(i) = state.unit.cases.iter().position(|c| c.id == case.id) {
            state.rounds[i].push(round);
        }
    }
}

/// Fails `case` of `state` (it gets no more rounds), once.
fn fail<'c>(state: &mut State<'c>, case: &'c Case, failure: CaseFailure) {
    let Some(i) = state.unit.cases.iter().position(|c| c.id == case.id) else {
        return;
    };
    if state.failed[i] {
        return;
    }
    state.failed[i] = true;
    if state.unit.reports[i] {
        state.reports.push(Report::Failed(case, failure));
    }
}

/// Ends a unit: its pair's ratios, then each reported case's rounds; `cut_short` by a cancel.
fn finish(state: &mut State<'_>, settings: &Settings, processes: u32, cut_short: bool) {
    state.done = true;
    if state.paired() && !cut_short {
        let ratios = std::mem::take(&mut state.log_ratios);
        state.reports.push(Report::Paired(
            state.unit.cases[0],
            state.unit.cases[1],
            ratios,
        ));
    }
    let cases = state.unit.cases.clone();
    for (i, case) in cases.into_iter().enumerate() {
        if !state.unit.reports[i] || state.failed[i] {
            continue;
        }
        let rounds = std::mem::take(&mut state.rounds[i]);
        if rounds.is_empty() {
            // A case the cancel found started but unmeasured; one never reached says nothing.
            if cut_short && state.started {
                state
                    .reports
                    .push(Report::Failed(case, crate::run::execute::cancelled(case)));
            }
            continue;
        }
        let plan = crate::analysis::rounds::Plan {
            processes: if settings.in_process {
                1
            } else {
                processes.min(rounds.len() as u32).max(1)
            },
            planned: settings.rounds,
            cut_short,
        };
        state.reports.push(Report::Finished(case, rounds, plan));
    }
}

/// Fisher–Yates with the run's generator.
fn shuffle(order: &mut [usize], rng: &mut SplitMix64) {
    for i in (1..order.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        order.swap(i, j);
    }
}

/// Where slots are measured: worker processes, or this process.
struct Runner {
    settings: Settings,
    workers: Option<worker::Workers>,
    /// Rounds measured here (no worker could be started, or `--in-process`).
    in_process_rounds: u32,
    round_in_process: bool,
}

impl Runner {
    fn new(settings: &Settings) -> Self {
        Runner {
            settings: *settings,
            workers: (!settings.in_process)
                .then(|| worker::Workers::new(settings.timer, settings.seed)),
            in_process_rounds: 0,
            round_in_process: false,
        }
    }
}

impl Slots for Runner {
    fn processes(&self) -> u32 {
        self.workers
            .as_ref()
            .map_or(1, |w| w.started + u32::from(self.in_process_rounds > 0))
    }

    fn measure(
        &mut self,
        cases: &[&Case],
        plan: &SlotPlan,
        progress: &mut dyn FnMut(&str, &Progress),
    ) -> (SlotResult, Duration) {
        if let Some(workers) = &mut self.workers {
            match workers.measure(plan, self.settings.mark_output, progress) {
                Ok(result) => return result,
                Err(why) => {
                    eprintln!(
                        "knotmeter: {why}; the rest of the run is measured in this process, whose \
                         intervals cannot show what differs between processes"
                    );
                    self.workers = None;
                }
            }
        }
        self.round_in_process = true;
        let started = Instant::now();
        let outcome = measure_slot(
            cases,
            plan,
            self.settings.timer,
            self.settings.mark_output,
            progress,
        );
        (SlotResult::Measured(outcome), started.elapsed())
    }

    fn end_round(&mut self) -> Vec<String> {
        let stray = self
            .workers
            .as_mut()
            .map_or_else(Vec::new, worker::Workers::end_round);
        if self.round_in_process {
            self.in_process_rounds += 1;
            self.round_in_process = false;
        }
        stray
    }
}

#[cfg(test)]
mod tests {
    //! The schedule with fake slots: which cases each round measures and in what order, when a
    //! case stops, what a failure costs, and the order the run is told.

    use std::sync::atomic::AtomicBool;

    use knotmeter_protocol::{DrivenMeasurement, SlotSide};

    use super::*;
    use crate::analysis::rounds::Plan;
    use crate::measure::TimerKind;
    use crate::registry::{cases, BenchDef};

    /// A case's figure in the fake: `ns` per operation, with ±`noise` from round to round.
    #[derive(Clone, Copy)]
    struct Figure {
        ns: f64,
        noise: f64,
    }

    /// Slots that answer at once from `figure`, failing `crash` cases in round `crash_round`,
    /// each slot taking `took` of wall time (reported, not slept).
    struct Fake {
        figure: fn(&str) -> Figure,
        crash: Option<(&'static str, u32)>,
        took: Duration,
        /// From this round on, each slot takes this long instead (a machine loaded mid-case).
        stretched: Option<(u32, Duration)>,
        /// Every slot measured: its round and ids.
        log: Vec<(u32, Vec<String>)>,
    }

    impl Fake {
        fn new(figure: fn(&str) -> Figure) -> Self {
            Fake {
                figure,
                crash: None,
                took: Duration::from_millis(1),
                stretched: None,
                log: Vec::new(),
            }
        }
    }

    impl Slots for Fake {
        fn measure(
            &mut self,
            cases: &[&Case],
            plan: &SlotPlan,
            _: &mut dyn FnMut(&str, &Progress),
        ) -> (SlotResult, Duration) {
            self.log.push((plan.round, plan.ids.clone()));
            if let Some((id, round)) = self.crash {
                if plan.round == round && plan.ids.iter().any(|i| i.ends_with(id)) {
                    let lost = Lost {
                        kind: LostKind::Crashed,
                        message: "the process measuring it was killed by signal SIGABRT".into(),
                    };
                    return (SlotResult::Lost(lost), self.took);
                }
            }
            let sides = cases
                .iter()
                .map(|case| {
                    let f = (self.figure)(&case.id);
                    let wobble = if plan.round.is_multiple_of(2) {
                        1.0
                    } else {
                        -1.0
                    } * f.noise;
                    let ns = f.ns * (1.0 + wobble) + 1.0;
                    SlotSide {
                        id: case.id.clone(),
                        measured: Some(DrivenMeasurement {
                            cold_ns: ns * 3.0,
                            ops_per_sample: 10,
                            workload_ns: vec![ns; 20],
                            baseline_ns: vec![1.0; 20],
                            wall_ns: 1e6,
                            ..DrivenMeasurement::default()
                        }),
                        failure: None,
                    }
                })
                .collect();
            let outcome = SlotOutcome {
                sides,
                stray_panics: Vec::new(),
            };
            let took = match self.stretched {
                Some((from, took)) if plan.round >= from => took,
                _ => self.took,
            };
            (SlotResult::Measured(outcome), took)
        }

        fn end_round(&mut self) -> Vec<String> {
            Vec::new()
        }

        fn processes(&self) -> u32 {
            self.log
                .iter()
                .map(|(round, _)| round + 1)
                .max()
                .unwrap_or(0)
        }
    }

    /// What the run was told, in order.
    #[derive(Default)]
    struct Told {
        events: Vec<String>,
        rounds: Vec<(String, usize, bool)>,
    }

    impl Sink for Told {
        fn started(&mut self, case: &Case) {
            self.events.push(format!("started {}", case.name));
        }
        fn progress(&mut self, _: &str, _: &Progress) {}
        fn failed(&mut self, case: &Case, failure: CaseFailure) {
            self.events
                .push(format!("failed {} {:?}", case.name, failure.kind));
        }
        fn paired(&mut self, _: &Case, member: &Case, log_ratios: &[f64]) {
            self.events
                .push(format!("paired {} {}", member.name, log_ratios.len()));
        }
        fn finished(&mut self, case: &Case, rounds: Vec<Round>, plan: &Plan) {
            self.events.push(format!("finished {}", case.name));
            self.rounds
                .push((case.name.clone(), rounds.len(), plan.cut_short));
        }
        fn stray_panics(&mut self, _: &[String]) {}
    }

    fn def(name: &'static str, line: u32, group: Option<&'static str>, baseline: bool) -> BenchDef {
        BenchDef {
            name,
            module_path: "q",
            file: "q.rs",
            line,
            group,
            baseline,
            args: &[],
            run: |_, _| {},
        }
    }

    static NEVER: AtomicBool = AtomicBool::new(false);

    fn settings(rounds: u32, target_precision: f64) -> Settings {
        let _ = &NEVER;
        Settings {
            rounds,
            in_process: true,
            mark_output: false,
            target_precision,
            seed: 7,
            timer: Timer::calibrate(TimerKind::Instant).unwrap(),
        }
    }

    fn single(case: &Case, budget: Duration) -> Unit<'_> {
        Unit {
            cases: vec![case],
            reports: vec![true],
            budget,
            every_round: false,
        }
    }

    fn noisy(_: &str) -> Figure {
        Figure {
            ns: 100.0,
            noise: 0.1,
        }
    }

    #[test]
    fn every_round_measures_every_case_once_in_an_order_of_its_own() {
        let defs: &'static [BenchDef] = Box::leak(Box::new([
            def("a", 1, None, false),
            def("b", 2, None, false),
            def("c", 3, None, false),
            def("d", 4, None, false),
        ]));
        let all = cases(defs);
        let units = all
            .iter()
            .map(|c| single(c, Duration::from_secs(10)))
            .collect();
        let mut fake = Fake::new(noisy);
        let mut told = Told::default();
        schedule(units, &settings(10, 0.001), &mut fake, &mut told);
        let mut orders = Vec::new();
        for round in 0..10 {
            let order: Vec<String> = fake
                .log
                .iter()
                .filter(|(r, _)| *r == round)
                .map(|(_, ids)| ids[0].clone())
                .collect();
            let mut sorted = order.clone();
            sorted.sort();
            assert_eq!(sorted, ["q::a", "q::b", "q::c", "q::d"], "round {round}");
            orders.push(order);
        }
        orders.dedup();
        assert!(orders.len() > 1, "the order is shuffled: {orders:?}");
        assert!(told.rounds.iter().all(|(_, n, cut)| *n == 10 && !cut));
    }

    /// A case that is precise stops after eight rounds; the run is still told in the order of
    /// the plan, the precise case after the one before it that needed every round.
    #[test]
    fn a_precise_case_stops_early_and_results_come_in_the_order_of_the_plan() {
        let defs: &'static [BenchDef] = Box::leak(Box::new([
            def("noisy", 1, None, false),
            def("steady", 2, None, false),
        ]));
        let all = cases(defs);
        let units = all
            .iter()
            .map(|c| single(c, Duration::from_secs(10)))
            .collect();
        let mut fake = Fake::new(|id| Figure {
            ns: 100.0,
            noise: if id.ends_with("steady") { 0.0 } else { 0.1 },
        });
        let mut told = Told::default();
        schedule(units, &settings(10, 0.01), &mut fake, &mut told);
        assert_eq!(
            told.rounds,
            [
                ("noisy".to_owned(), 10, false),
                ("steady".to_owned(), MIN_ROUNDS_TO_STOP as usize, false)
            ]
        );
        let finished: Vec<&String> = told
            .events
            .iter()
            .filter(|e| e.starts_with("finished"))
            .collect();
        assert_eq!(finished, ["finished noisy", "finished steady"]);
    }

    /// The machine's probe is measured in every round while a case still is, though it is
    /// precise after eight and its budget is small: its rounds span the whole run, and end
    /// with the last case's (here the noisy one's ten, then the precise one's eight).
    #[test]
    fn a_unit_of_every_round_is_measured_as_long_as_another_unit_is() {
        let defs: &'static [BenchDef] = Box::leak(Box::new([
            def("noisy", 1, None, false),
            def("probe", 2, None, false),
        ]));
        let all = cases(defs);
        fn steady_probe(id: &str) -> Figure {
            Figure {
                ns: 100.0,
                noise: if id.ends_with("probe") { 0.0 } else { 0.1 },
            }
        }
        fn all_steady(_: &str) -> Figure {
            Figure {
                ns: 100.0,
                noise: 0.0,
            }
        }
        type FigureOf = fn(&str) -> Figure;
        let figures: [(FigureOf, usize); 2] = [
            (steady_probe, 10),
            (all_steady, MIN_ROUNDS_TO_STOP as usize),
        ];
        for (figure, rounds) in figures {
            let units = vec![
                single(&all[0], Duration::from_secs(10)),
                Unit {
                    every_round: true,
                    ..single(&all[1], Duration::from_millis(1))
                },
            ];
            let mut fake = Fake::new(figure);
            fake.took = Duration::from_millis(5);
            let mut told = Told::default();
            schedule(units, &settings(10, 0.01), &mut fake, &mut told);
            assert_eq!(
                told.rounds,
                [
                    ("noisy".to_owned(), rounds, false),
                    ("probe".to_owned(), rounds, false)
                ]
            );
        }
    }

    /// A slot that takes more than the case's share of its budget: the case gets the rounds
    /// that fit, not the rounds planned.
    #[test]
    fn a_case_whose_slots_outlast_their_share_gets_the_rounds_that_fit() {
        let defs: &'static [BenchDef] = Box::leak(Box::new([def("slow", 1, None, false)]));
        let all = cases(defs);
        let units = vec![single(&all[0], Duration::from_millis(100))];
        let mut fake = Fake::new(noisy);
        fake.took = Duration::from_millis(30);
        let mut told = Told::default();
        schedule(units, &settings(10, 0.001), &mut fake, &mut told);
        // 30 ms a slot against 100 ms (and a tenth of slack): three rounds, not a fourth.
        assert_eq!(told.rounds, [("slow".to_owned(), 3, false)]);
        // 45 ms a slot: two fit, but a case gets three for an interval between processes.
        let mut fake = Fake::new(noisy);
        fake.took = Duration::from_millis(45);
        let mut told = Told::default();
        let units = vec![single(&all[0], Duration::from_millis(100))];
        schedule(units, &settings(10, 0.001), &mut fake, &mut told);
        assert_eq!(told.rounds, [("slow".to_owned(), 3, false)]);
        // 70 ms a slot (a loaded machine): two take the whole budget between them, but each
        // fits in it, so the case still gets three.
        let mut fake = Fake::new(noisy);
        fake.took = Duration::from_millis(70);
        let mut told = Told::default();
        let units = vec![single(&all[0], Duration::from_millis(100))];
        schedule(units, &settings(10, 0.001), &mut fake, &mut told);
        assert_eq!(told.rounds, [("slow".to_owned(), 3, false)]);
        // The first slot fits, the second is stretched past the whole budget by load: the
        // case is still owed its third round (two would give Student's t one degree of
        // freedom); only a first slot longer than the budget ends a case early.
        let mut fake = Fake::new(noisy);
        fake.took = Duration::from_millis(40);
        fake.stretched = Some((1, Duration::from_millis(150)));
        let mut told = Told::default();
        let units = vec![single(&all[0], Duration::from_millis(100))];
        schedule(units, &settings(10, 0.001), &mut fake, &mut told);
        assert_eq!(
            told.rounds,
            [("slow".to_owned(), 3, false)],
            "a case whose second slot a loaded machine stretched is owed a third round"
        );
        // A slot longer than the whole budget: one round, and it will say so.
        let mut fake = Fake::new(noisy);
        fake.took = Duration::from_millis(150);
        let mut told = Told::default();
        let units = vec![single(&all[0], Duration::from_millis(100))];
        schedule(units, &settings(10, 0.001), &mut fake, &mut told);
        assert_eq!(told.rounds, [("slow".to_owned(), 1, false)]);
    }

    /// A crash costs the cases of the slot it was measuring (both sides of a pair: either could
    /// have crashed), once, and the other cases go on for all their rounds.
    #[test]
    fn a_crash_costs_the_cases_of_its_slot_and_the_others_go_on() {
        let defs: &'static [BenchDef] = Box::leak(Box::new([
            def("alone", 1, None, false),
            def("base", 2, Some("g"), true),
            def("member", 3, Some("g"), false),
        ]));
        let all = cases(defs);
        let units = vec![
            single(&all[0], Duration::from_secs(10)),
            Unit {
                cases: vec![&all[1], &all[2]],
                reports: vec![true, true],
                budget: Duration::from_secs(20),
                every_round: false,
            },
        ];
        let mut fake = Fake::new(noisy);
        fake.crash = Some(("base", 3));
        let mut told = Told::default();
        schedule(units, &settings(10, 0.001), &mut fake, &mut told);
        assert_eq!(
            told.events
                .iter()
                .filter(|e| !e.starts_with("started"))
                .collect::<Vec<_>>(),
            [
                "finished alone",
                "failed base Crashed",
                "failed member Crashed",
            ],
            "a crash in a pair's slot fails both sides: either could have crashed"
        );
        // The crash was in round 3: the slots of the pair stop there, `alone` goes on.
        assert!(fake
            .log
            .iter()
            .all(|(round, ids)| *round <= 3 || ids == &["q::alone".to_owned()]));
        assert_eq!(told.rounds, [("alone".to_owned(), 10, false)]);
    }
}
