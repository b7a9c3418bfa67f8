//! Measuring two builds in rounds: for each bench target, every case both sides have gets one
//! pair per round, in an order shuffled every round, and each round runs in a fresh bench
//! binary of each side. Pairing across two processes cancels what changes with time; it cannot
//! cancel what differs between the two processes themselves (where their memory landed, the
//! CPU each was placed on). Fresh processes every round put that difference in the variation
//! between rounds, which is what the interval of the ratio is made of.
//!
//! A pair is: `open` the case in the base binary, `pair` it in the head binary with the round
//! it belongs to, then relay every `peer` request of the head to the base and its answer back,
//! one at a time, until the head says `paired` with what it measured. After the last round the
//! head `combine`s every round of a case into both sides' results and the estimate. The head
//! measures exactly as it measures a group member against its group's baseline, and decides
//! every statistic; this module only carries messages, watches the clock and the processes,
//! and pins both to one CPU (`pin`).
//!
//! | what happens | the case | the rest |
//! |---|---|---|
//! | a case panics on one side (at `open`, or in the middle) | `failed`, with that side's message | go on, in the same processes |
//! | a bench binary dies (a crash, an abort) | `failed`: which side, how it ended, its last lines of standard error | go on in a new process |
//! | no message for `--case-timeout` seconds (a hang) | `failed`; both processes are killed | go on in new processes |
//! | a case only one build has | `added` or `removed`, not measured | — |
//! | cancel (Ctrl-C) | the pair in progress ends at its next sample boundary, partial, not compared | `skipped` |

use std::time::Duration;

use knotmeter_protocol::{
    CompareStatus, ComparedCase, DrivenCommand, DrivenEvent, ListEntry, Manifest, PairEstimate,
    PairOutcome, PairRound, PairSlot,
};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::binary::{Binary, Silence, Spec};
use super::pin::{self, Pinning};
use crate::cli::CompareArgs;
use crate::discovery::TargetRef;
use crate::runs::process::Children;

/// How a comparison is measured.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasureOptions {
    /// A pair that sends nothing for this long is taken for hung.
    pub case_timeout: Duration,
    /// How long a bench binary may take to say `ready`.
    pub start_timeout: Duration,
    /// Pin both processes to one CPU (see `pin`).
    pub pin: bool,
    /// The rounds each case gets (fewer when its budget runs out first).
    pub rounds: u32,
    /// The wall time a pair may take over all its rounds: two cases' worth of the engine's
    /// budget. A case whose next round would take it past this gets no more rounds.
    pub budget: Duration,
}

/// One bench target and how to start its binary on each side (`None`: the side has no such
/// target, or it did not build, with the reason).
#[derive(Debug, Clone, PartialEq)]
pub struct TargetPlan {
    /// The target.
    pub target: TargetRef,
    /// The base side's binary.
    pub base: Result<Spec, String>,
    /// The head side's binary.
    pub head: Result<Spec, String>,
}

/// What measuring reports as it goes.
#[derive(Debug, Clone, PartialEq)]
pub enum MeasureEvent {
    /// A line for the user.
    Note(String),
    /// A pair began.
    Started(String),
    /// Progress of the pair in progress.
    Progress {
        /// The case.
        id: String,
        /// Share of its expected time spent.
        fraction: f64,
    },
    /// A case is done (its verdict comes at the end, from `finalize`).
    Case(Box<ComparedCase>),
}

/// What measuring found.
#[derive(Debug, Default)]
pub struct Measured {
    /// Every case, in report order.
    pub cases: Vec<ComparedCase>,
    /// The estimates of the compared cases, for `finalize`.
    pub estimates: Vec<PairEstimate>,
    /// The manifest of the first base binary that started.
    pub base_manifest: Option<Manifest>,
    /// The manifest of the first head binary that started.
    pub head_manifest: Option<Manifest>,
    /// A head binary that started: the one `finalize` asks.
    pub finalizer: Option<Spec>,
    /// Cancelled before every case was done.
    pub cancelled: bool,
    /// Why a base binary could not be used at all: its knotmeter predates driven mode.
    pub base_predates_driven_mode: Option<String>,
}

/// Measures every target's cases that `wanted` selects (by id), comparing against `against`.
pub async fn measure(
    targets: &[TargetPlan],
    wanted: &(dyn Fn(&str) -> bool + Sync),
    against: &str,
    options: &MeasureOptions,
    children: &Children,
    cancel: &CancellationToken,
    sink: &mut (dyn FnMut(MeasureEvent) + Send),
) -> Measured {
    let mut run = Run {
        options,
        children,
        cancel,
        sink,
        against,
        pinning: if options.pin { Pinning::new() } else { None },
        measured: Measured::default(),
    };
    for plan in targets {
        run.target(plan, wanted).await;
    }
    run.measured
}

/// The state of one comparison's measuring.
struct Run<'a> {
    options: &'a MeasureOptions,
    children: &'a Children,
    cancel: &'a CancellationToken,
    sink: &'a mut (dyn FnMut(MeasureEvent) + Send),
    against: &'a str,
    pinning: Option<Pinning>,
    measured: Measured,
}

/// One side's live binary, or why there is none.
struct Side<'s> {
    spec: Result<&'s Spec, String>,
    binary: Option<Binary>,
}

impl Side<'_> {
    /// The running binary, started (again) when needed.
    async fn ensure(&mut self, run: &mut Run<'_>) -> Result<&mut Binary, String> {
        if self.binary.is_none() {
            let spec = self.spec.clone()?;
            let binary = match Binary::start(spec, run.children, run.options.start_timeout).await {
                Ok(binary) => binary,
                Err(why) => {
                    if spec.side == "base" && why.contains(super::binary::PREDATES_DRIVEN_MODE) {
                        run.measured
                            .base_predates_driven_mode
                            .get_or_insert_with(|| why.clone());
                    }
                    return Err(why);
                }
            };
            let first = match spec.side {
                "base" => &mut run.measured.base_manifest,
                _ => &mut run.measured.head_manifest,
            };
            first.get_or_insert_with(|| binary.manifest.clone());
            if spec.side == "head" && run.measured.finalizer.is_none() {
                run.measured.finalizer = Some(spec.clone());
            }
            self.binary = Some(binary);
        }
        Ok(self.binary.as_mut().expect("started above"))
    }

    async fn stop(&mut self) {
        if let Some(binary) = self.binary.take() {
            binary.stop().await;
        }
    }
}

impl MeasureOptions {
    /// The rounds and the budget of a pair that `args` choose, as the engine would: `--quick`
    /// (five rounds, 0.1 s per case and side) or the default (ten, 1 s), `--time` for the
    /// budget.
    pub fn rounds_and_budget(args: &CompareArgs) -> (u32, Duration) {
        let rounds = if args.quick {
            knotmeter_protocol::QUICK_ROUNDS
        } else {
            knotmeter_protocol::DEFAULT_ROUNDS
        };
        let per_case = args.time.unwrap_or(if args.quick { 0.1 } else { 1.0 });
        (rounds, Duration::from_secs_f64(per_case.max(0.0) * 2.0))
    }
}

impl Run<'_> {
    fn emit(&mut self, event: MeasureEvent) {
        (self.sink)(event);
    }

    fn done(&mut self, case: ComparedCase) {
        self.emit(MeasureEvent::Case(Box::new(case.clone())));
        self.measured.cases.push(case);
    }

    async fn target(&mut self, plan: &TargetPlan, wanted: &(dyn Fn(&str) -> bool + Sync)) {
        let matches = |entry: &ListEntry| wanted(&entry.id);
        let mut base = Side {
            spec: plan.base.as_ref().map_err(String::clone),
            binary: None,
        };
        let mut head = Side {
            spec: plan.head.as_ref().map_err(String::clone),
            binary: None,
        };
        // Each side's cases, from its binary's `ready`.
        let base_cases = base.ensure(self).await.map(|binary| binary.cases.clone());
        let head_cases = head.ensure(self).await.map(|binary| binary.cases.clone());
        let (base_cases, head_cases) = match (base_cases, head_cases) {
            (Ok(b), Ok(h)) => (b, h),
            (b, h) => {
                // One side cannot be started: its cases cannot be compared, but are listed.
                let why = [b.as_ref().err(), h.as_ref().err()]
                    .into_iter()
                    .flatten()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("; ");
                let known = h.ok().or(b.ok()).unwrap_or_default();
                if known.is_empty() {
                    self.emit(MeasureEvent::Note(format!(
                        "{}/{}: {why}",
                        plan.target.package, plan.target.target
                    )));
                }
                for entry in known.iter().filter(|e| matches(e)) {
                    self.done(failed(&entry.id, why.clone()));
                }
                base.stop().await;
                head.stop().await;
                return;
            }
        };
        let in_base = |id: &str| base_cases.iter().any(|c| c.id == id);
        let in_head = |id: &str| head_cases.iter().any(|c| c.id == id);
        // Every case in the head's order: its report, once known, or its rounds to come.
        let mut cases: Vec<Planned> = head_cases
            .iter()
            .filter(|e| matches(e))
            .map(|entry| {
                if in_base(&entry.id) {
                    Planned::Rounds(CaseRounds::new(&entry.id))
                } else {
                    Planned::Done(Box::new(only(&entry.id, CompareStatus::Added)))
                }
            })
            .collect();
        self.rounds(&mut cases, &mut base, &mut head).await;
        self.combine_all(&mut cases, &mut head).await;
        for planned in cases {
            if let Planned::Done(case) = planned {
                self.done(*case);
            }
        }
        for entry in base_cases.iter().filter(|e| matches(e)) {
            if !in_head(&entry.id) {
                self.done(only(&entry.id, CompareStatus::Removed));
            }
        }
        base.stop().await;
        head.stop().await;
    }

    /// Measures the rounds of `cases`: each round a fresh pair of processes, the cases in a
    /// shuffled order.
    async fn rounds(&mut self, cases: &mut [Planned], base: &mut Side<'_>, head: &mut Side<'_>) {
        let mut order_seed = 0x636f_6d70_6172_6573_u64 ^ u64::from(std::process::id());
        for round in 0..self.options.rounds {
            let mut order: Vec<usize> = (0..cases.len())
                .filter(|i| matches!(&cases[*i], Planned::Rounds(c) if !c.done))
                .collect();
            if order.is_empty() {
                break;
            }
            shuffle(&mut order, &mut order_seed);
            for index in order {
                if self.cancel.is_cancelled() {
                    self.measured.cancelled = true;
                    break;
                }
                let Planned::Rounds(case) = &mut cases[index] else {
                    continue;
                };
                let started = Instant::now();
                let slot = PairSlot {
                    round,
                    rounds: self.options.rounds,
                    ops: case.ops,
                };
                match self.pair(&case.id, slot, base, head).await {
                    Ok(outcome) => {
                        let took = started.elapsed();
                        case.spent += took;
                        case.last = took;
                        if let Some(note) = outcome.1 {
                            case.threads_note = Some(note);
                        }
                        let outcome = outcome.0;
                        match outcome.round {
                            Some(round)
                                if outcome.base_failure.is_none()
                                    && outcome.head_failure.is_none() =>
                            {
                                if case.ops.is_none() && round.head.ops_per_sample > 0 {
                                    case.ops = Some(round.head.ops_per_sample);
                                }
                                case.rounds.push(round);
                            }
                            _ => {
                                let mut estimates = Vec::new();
                                cases[index] =
                                    Planned::Done(Box::new(from_outcome(outcome, &mut estimates)));
                            }
                        }
                    }
                    Err(failure) => cases[index] = Planned::Done(Box::new(failure)),
                }
            }
            // The next round starts fresh processes on both sides.
            base.stop().await;
            head.stop().await;
            if self.measured.cancelled {
                return;
            }
            for planned in cases.iter_mut() {
                if let Planned::Rounds(case) = planned {
                    let next = (case.spent + case.last).as_secs_f64();
                    if next > self.options.budget.as_secs_f64() * 1.1 && !case.rounds.is_empty() {
                        case.done = true;
                    }
                }
            }
        }
    }

    /// Asks a head binary to combine each measured case's rounds into its results and
    /// estimate.
    async fn combine_all(&mut self, cases: &mut [Planned], head: &mut Side<'_>) {
        let cut_short = self.measured.cancelled;
        for planned in cases.iter_mut() {
            let Planned::Rounds(case) = planned else {
                continue;
            };
            if case.rounds.is_empty() {
                *planned = Planned::Done(Box::new(skipped(&case.id)));
                continue;
            }
            let id = case.id.clone();
            let command = DrivenCommand::Combine {
                id: id.clone(),
                against: self.against.to_owned(),
                rounds: std::mem::take(&mut case.rounds),
                planned: self.options.rounds,
                cut_short,
            };
            let threads_note = case.threads_note.take();
            let answer = match head.ensure(self).await {
                Ok(h) => match h.send(&command).await {
                    Ok(()) => h.recv(Instant::now() + self.options.case_timeout).await,
                    Err(silence) => Err(silence),
                },
                Err(why) => {
                    *planned = Planned::Done(Box::new(failed(&id, why)));
                    continue;
                }
            };
            let mut done = match answer {
                Ok(DrivenEvent::Paired(outcome)) => {
                    from_outcome(*outcome, &mut self.measured.estimates)
                }
                Ok(other) => failed(
                    &id,
                    format!(
                        "the head build's bench binary answered `combine` with {}",
                        text(&other)
                    ),
                ),
                Err(silence) => {
                    head.binary = None;
                    failed(
                        &id,
                        silence_text(
                            "head",
                            &silence,
                            self.options.case_timeout,
                            "combining the rounds",
                        ),
                    )
                }
            };
            if let Some(note) = threads_note {
                done.note = Some(match done.note.take() {
                    Some(why) => format!("{why}; {note}"),
                    None => note,
                });
            }
            *planned = Planned::Done(Box::new(done));
        }
    }

    /// One round's pair of case `id`: its outcome (with what it measured), and a note when the
    /// head's benchmark ran several threads on the one CPU both were pinned to; or the case's
    /// failure.
    async fn pair(
        &mut self,
        id: &str,
        slot: PairSlot,
        base: &mut Side<'_>,
        head: &mut Side<'_>,
    ) -> Result<(PairOutcome, Option<String>), ComparedCase> {
        if let Err(why) = base.ensure(self).await {
            return Err(failed(id, why));
        }
        if let Err(why) = head.ensure(self).await {
            return Err(failed(id, why));
        }
        let (Some(b), Some(h)) = (base.binary.as_mut(), head.binary.as_mut()) else {
            return Err(failed(id, "a bench binary did not start".into()));
        };
        if let Some(pinning) = self.pinning.as_mut() {
            let pids: Vec<u32> = [b.pid(), h.pid()].into_iter().flatten().collect();
            if let Some(cpu) = pinning.pin(&pids) {
                tracing::debug!(id, cpu, "pinned both bench binaries");
            }
        }
        if slot.round == 0 {
            self.emit(MeasureEvent::Started(id.to_owned()));
        }
        let timeout = self.options.case_timeout;
        let mut deadline = Instant::now() + timeout;

        // Open the case on the base side.
        let opened = match b.send(&DrivenCommand::Open { id: id.to_owned() }).await {
            Ok(()) => b.recv(deadline).await,
            Err(silence) => Err(silence),
        };
        match opened {
            Ok(DrivenEvent::Opened { .. }) => {}
            Ok(DrivenEvent::Failed { failure }) => {
                return Err(failed(
                    id,
                    format!("the base build's case failed: {}", failure_text(&failure)),
                ));
            }
            Ok(other) => {
                return Err(failed(
                    id,
                    format!(
                        "the base build's bench binary answered `open` with {}",
                        text(&other)
                    ),
                ))
            }
            Err(silence) => {
                base.binary = None;
                return Err(failed(
                    id,
                    silence_text("base", &silence, timeout, "when the case was opened"),
                ));
            }
        }

        // Pair it on the head side, relaying its requests.
        let mut threads = 1;
        let round = slot.round;
        let rounds = slot.rounds;
        let outcome: Result<PairOutcome, Broken> = 'pair: {
            if let Err(silence) = h
                .send(&DrivenCommand::Pair {
                    id: id.to_owned(),
                    against: self.against.to_owned(),
                    slot: Some(slot),
                })
                .await
            {
                break 'pair Err(Broken::head(&silence, timeout, "when the pair began"));
            }
            let mut cancel_sent = false;
            loop {
                let event = tokio::select! {
                    biased;
                    _ = self.cancel.cancelled(), if !cancel_sent => {
                        cancel_sent = true;
                        self.measured.cancelled = true;
                        let _ = h.send(&DrivenCommand::Cancel).await;
                        continue;
                    }
                    event = h.recv(deadline) => event,
                };
                deadline = Instant::now() + timeout;
                match event {
                    Ok(DrivenEvent::Peer { command }) => {
                        let reply = match base.binary.as_mut() {
                            Some(b) => match b.send(&command).await {
                                Ok(()) => b.recv(deadline).await,
                                Err(silence) => Err(silence),
                            },
                            None => Err(Silence::Ended("had already ended".into())),
                        };
                        let reply = reply.unwrap_or_else(|silence| {
                            base.binary = None;
                            DrivenEvent::Lost {
                                message: silence_text(
                                    "base",
                                    &silence,
                                    timeout,
                                    "in the middle of the pair",
                                ),
                            }
                        });
                        if let Err(silence) = h
                            .send(&DrivenCommand::PeerReply {
                                reply: Box::new(reply),
                            })
                            .await
                        {
                            break 'pair Err(Broken::head(&silence, timeout, "during this case"));
                        }
                    }
                    Ok(DrivenEvent::Progress { fraction, .. }) => {
                        if let Some(pid) = h.pid() {
                            threads = threads.max(pin::threads(pid));
                        }
                        // The case's progress over its rounds.
                        let fraction =
                            ((f64::from(round) + fraction) / f64::from(rounds.max(1))).min(0.99);
                        self.emit(MeasureEvent::Progress {
                            id: id.to_owned(),
                            fraction,
                        });
                    }
                    Ok(DrivenEvent::Paired(outcome)) => break 'pair Ok(*outcome),
                    Ok(other) => {
                        break 'pair Err(Broken {
                            why: format!(
                                "the head build's bench binary answered `pair` with {}",
                                text(&other)
                            ),
                            hung: false,
                        })
                    }
                    Err(silence) => {
                        break 'pair Err(Broken::head(&silence, timeout, "during this case"))
                    }
                }
            }
        };
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(Broken { why, hung }) => {
                // The head is gone, hung or confused. After a hang both are stopped; otherwise
                // the base's case is closed if it still waits.
                head.binary = None;
                if hung {
                    base.binary = None;
                }
                if let Some(b) = base.binary.as_mut() {
                    let closed = match b.send(&DrivenCommand::Close { measurement: None }).await {
                        Ok(()) => b
                            .recv(Instant::now() + Duration::from_secs(10))
                            .await
                            .is_ok(),
                        Err(_) => false,
                    };
                    if !closed {
                        base.binary = None;
                    }
                }
                return Err(failed(id, why));
            }
        };
        let note = (self.pinning.is_some() && threads > 1).then(|| {
            format!(
                "the head build's benchmark ran {threads} threads, all on the one CPU both builds \
                 were pinned to; `--no-pin` lets them use every CPU"
            )
        });
        Ok((outcome, note))
    }
}

/// A case of a target: measured in rounds still, or done.
enum Planned {
    /// Its rounds so far.
    Rounds(CaseRounds),
    /// Its report (added, failed, or combined).
    Done(Box<ComparedCase>),
}

/// The rounds of one case so far.
struct CaseRounds {
    id: String,
    rounds: Vec<PairRound>,
    /// The operations per sample the first round tuned.
    ops: Option<u64>,
    /// Wall time spent on its pairs, and on the last one.
    spent: Duration,
    last: Duration,
    /// No more rounds: its budget is spent.
    done: bool,
    /// The head's benchmark ran several threads on the pinned CPU.
    threads_note: Option<String>,
}

impl CaseRounds {
    fn new(id: &str) -> Self {
        CaseRounds {
            id: id.to_owned(),
            rounds: Vec::new(),
            ops: None,
            spent: Duration::ZERO,
            last: Duration::ZERO,
            done: false,
            threads_note: None,
        }
    }
}

/// Fisher–Yates with SplitMix64 steps of `seed`: each round's order of the cases.
fn shuffle(order: &mut [usize], seed: &mut u64) {
    for i in (1..order.len()).rev() {
        *seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *seed;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        order.swap(i, (z % (i as u64 + 1)) as usize);
    }
}

/// A pair that ended without an outcome: why, and whether the head hung (then both bench
/// binaries are stopped).
struct Broken {
    why: String,
    hung: bool,
}

impl Broken {
    /// The head build's binary fell silent `when`: it ended, or sent nothing for `timeout`.
    fn head(silence: &Silence, timeout: Duration, when: &str) -> Broken {
        Broken {
            why: silence_text("head", silence, timeout, when),
            hung: matches!(silence, Silence::TimedOut),
        }
    }
}

/// A case of the report from how its pair ended; a compared case's estimate goes to
/// `estimates`.
fn from_outcome(outcome: PairOutcome, estimates: &mut Vec<PairEstimate>) -> ComparedCase {
    let status = if outcome.estimate.is_some() {
        CompareStatus::Compared
    } else if outcome.base.is_some() && outcome.head.is_some() {
        CompareStatus::NotCompared
    } else {
        CompareStatus::Failed
    };
    let note = match (&outcome.base_failure, &outcome.head_failure) {
        (Some(f), _) => Some(format!("the base build's case failed: {}", failure_text(f))),
        (None, Some(f)) => Some(format!("the head build's case failed: {}", failure_text(f))),
        (None, None) => outcome.not_compared.clone(),
    };
    estimates.extend(outcome.estimate);
    ComparedCase {
        id: outcome.id,
        status,
        base: outcome.base,
        head: outcome.head,
        comparison: None,
        note,
    }
}

fn failed(id: &str, why: String) -> ComparedCase {
    ComparedCase {
        id: id.to_owned(),
        status: CompareStatus::Failed,
        base: None,
        head: None,
        comparison: None,
        note: Some(why),
    }
}

fn only(id: &str, status: CompareStatus) -> ComparedCase {
    let side = if status == CompareStatus::Added {
        "head"
    } else {
        "base"
    };
    ComparedCase {
        id: id.to_owned(),
        status,
        base: None,
        head: None,
        comparison: None,
        note: Some(format!("only the {side} build has it")),
    }
}

fn skipped(id: &str) -> ComparedCase {
    ComparedCase {
        id: id.to_owned(),
        status: CompareStatus::Skipped,
        base: None,
        head: None,
        comparison: None,
        note: Some("not run: the comparison was cancelled".into()),
    }
}

fn failure_text(failure: &knotmeter_protocol::CaseFailure) -> String {
    match &failure.location {
        Some(at) => format!("{} (at {at})", failure.message),
        None => failure.message.clone(),
    }
}

fn silence_text(side: &str, silence: &Silence, timeout: Duration, when: &str) -> String {
    match silence {
        Silence::Ended(how) => {
            let (first, tail) = how.split_once('\n').unwrap_or((how, ""));
            let first = first.trim_end_matches(':');
            if tail.is_empty() {
                format!("the {side} build's bench binary {first} {when}")
            } else {
                format!("the {side} build's bench binary {first} {when}:\n{tail}")
            }
        }
        Silence::TimedOut => format!(
            "the {side} build's bench binary sent nothing for {} s {when} (a hang?); both \
             processes were stopped",
            timeout.as_secs_f64()
        ),
    }
}

fn text(event: &DrivenEvent) -> String {
    serde_json::to_string(event).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_head_that_sent_nothing_is_taken_for_hung() {
        let timeout = Duration::from_secs(5);
        let hung = Broken::head(&Silence::TimedOut, timeout, "during this case");
        assert!(hung.hung, "{}", hung.why);
        assert!(hung.why.contains("sent nothing for 5 s"), "{}", hung.why);
        let ended = Silence::Ended("exited with signal 6:\nsent nothing for a while".into());
        let crashed = Broken::head(&ended, timeout, "during this case");
        assert!(!crashed.hung, "{}", crashed.why);
    }
}
