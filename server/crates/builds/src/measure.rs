//! Measuring two builds in rounds: for each bench target, every case both sides have gets one
//! pair per round, in an order shuffled every round, and each round runs in a fresh bench
//! binary of each side. Pairing across two processes cancels what changes with time; it cannot
//! cancel what differs between the two processes themselves (where their memory landed, the
//! CPU each was placed on). Fresh processes every round put that difference in the variation
//! between rounds, which is what the interval of the ratio is made of.
//!
//! A pair is: `open` the case in one binary (the peer), `pair` it in the other (the driver)
//! with the round it belongs to, then relay every `peer` request of the driver to the peer and
//! its answer back, one at a time, until the driver says `paired` with what it measured. The
//! head drives even rounds and the base odd ones (a base from before rounds never drives): the
//! driver's own samples read slower on bodies that allocate, and alternated that bias cancels
//! in the mean and shows in the interval. After the last round the head `combine`s every
//! round of a case into both sides' results and the estimate. The driver measures exactly as a
//! group member is measured against its group's baseline, and the head decides every
//! statistic; this module only carries messages, watches the clock and the processes, and pins
//! both to one CPU (`pin`).
//!
//! | what happens | the case | the rest |
//! |---|---|---|
//! | a case panics on one side (at `open`, or in the middle) | `failed`, with that side's message | go on, in the same processes |
//! | a bench binary dies (a crash, an abort) | `failed`: which side, how it ended, its last lines of standard error | go on in a new process |
//! | no message for `--case-timeout` seconds (a hang) | `failed`; both processes are killed | go on in new processes |
//! | a case only one build has | `added` or `removed`, not measured | — |
//! | cancel (Ctrl-C) | the pair in progress ends at its next sample boundary, partial, not compared | `skipped` |

mod counted;

use std::time::Duration;

use knotmeter_format::text::failure_text;
use knotmeter_protocol::editor::SourceLocation;
use knotmeter_protocol::{
    CaseFailure, CompareStatus, ComparedCase, DrivenCommand, DrivenEvent, FailureKind, ListEntry,
    Manifest, PairEstimate, PairOutcome, PairRound, PairSlot, DRIVEN_VERSION, MIN_ROUNDS,
};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::binary::{Binary, Silence, Spec};
use super::pin::{self, Pinning};
use super::BuildsRequest;
use crate::discovery::TargetRef;
use crate::process::Children;

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
    /// Instructions are counted (both sides under callgrind): each side counts the case alone
    /// (`measure`), once, instead of a `pair`.
    pub count: bool,
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
    /// The rounds and the budget of a pair that `request` chooses, as the engine would: `--quick`
    /// (five rounds, 0.1 s per case and side) or the default (ten, 1 s), `--time` for the
    /// budget.
    pub fn rounds_and_budget(request: &BuildsRequest) -> (u32, Duration) {
        let rounds = if request.quick {
            knotmeter_protocol::QUICK_ROUNDS
        } else {
            knotmeter_protocol::DEFAULT_ROUNDS
        };
        let per_case = request
            .time
            .unwrap_or(if request.quick { 0.1 } else { 1.0 });
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
    async fn rounds<'s>(
        &mut self,
        cases: &mut [Planned],
        base: &mut Side<'s>,
        head: &mut Side<'s>,
    ) {
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
                let outcome = if self.options.count {
                    self.count_pair(&case.id, base, head).await
                } else {
                    self.pair(&case.id, slot, base, head).await
                };
                match outcome {
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
                    if over_budget(case, self.options.budget) {
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
    async fn pair<'s>(
        &mut self,
        id: &str,
        slot: PairSlot,
        base: &mut Side<'s>,
        head: &mut Side<'s>,
    ) -> Result<(PairOutcome, Option<String>), ComparedCase> {
        let (base_version, head_pid) = self.start_pinned(id, base, head).await?;
        if slot.round == 0 {
            self.emit(MeasureEvent::Started(id.to_owned()));
        }
        let timeout = self.options.case_timeout;
        let deadline = Instant::now() + timeout;
        let swapped = base_drives(slot.round, base_version);
        let mut roles = Roles::of(swapped, base, head);
        open(id, &mut roles, deadline, timeout).await?;
        let mut threads = 1;
        let outcome = self
            .drive(id, slot, &mut roles, head_pid, deadline, &mut threads)
            .await;
        let outcome = match outcome {
            Ok(outcome) if swapped => unswapped(outcome),
            Ok(outcome) => outcome,
            Err(Broken { why, hung }) => {
                roles.abandon(hung).await;
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

    /// Makes sure both sides' bench binaries run for case `id` and pins them to one CPU (when
    /// pinning); gives the base's driven version and the head's process id, or the case's
    /// failure when a side cannot be started.
    async fn start_pinned(
        &mut self,
        id: &str,
        base: &mut Side<'_>,
        head: &mut Side<'_>,
    ) -> Result<(u32, Option<u32>), ComparedCase> {
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
        Ok((b.driven_version, h.pid()))
    }

    /// Pairs case `id` on the driver's side, relaying the driver's requests to the peer until
    /// it says what it measured; `threads` ends as the most threads the head's benchmark ran.
    /// The first message is awaited until `deadline`, each next one for the case timeout.
    async fn drive(
        &mut self,
        id: &str,
        slot: PairSlot,
        roles: &mut Roles<'_, '_>,
        head_pid: Option<u32>,
        mut deadline: Instant,
        threads: &mut usize,
    ) -> Result<PairOutcome, Broken> {
        let timeout = self.options.case_timeout;
        let (round, rounds) = (slot.round, slot.rounds);
        let driver_side = roles.driver_side;
        let Some(d) = roles.driver.binary.as_mut() else {
            return Err(Broken {
                why: format!("the {driver_side} build's bench binary did not start"),
                hung: false,
            });
        };
        let pair = DrivenCommand::Pair {
            id: id.to_owned(),
            against: self.against.to_owned(),
            slot: Some(slot),
        };
        if let Err(silence) = d.send(&pair).await {
            return Err(Broken::of(
                driver_side,
                &silence,
                timeout,
                "when the pair began",
            ));
        }
        let silent =
            |silence: Silence| Broken::of(driver_side, &silence, timeout, "during this case");
        let mut cancel_sent = false;
        loop {
            let event = tokio::select! {
                biased;
                _ = self.cancel.cancelled(), if !cancel_sent => {
                    cancel_sent = true;
                    self.measured.cancelled = true;
                    let _ = d.send(&DrivenCommand::Cancel).await;
                    continue;
                }
                event = d.recv(deadline) => event,
            };
            deadline = Instant::now() + timeout;
            match event {
                Ok(DrivenEvent::Peer { command }) => {
                    let reply =
                        relay(roles.peer, roles.peer_side, &command, deadline, timeout).await;
                    let reply = DrivenCommand::PeerReply {
                        reply: Box::new(reply),
                    };
                    if let Err(silence) = d.send(&reply).await {
                        return Err(silent(silence));
                    }
                }
                Ok(DrivenEvent::Progress { fraction, .. }) => {
                    self.progress(id, (round, rounds), fraction, head_pid, threads);
                }
                Ok(DrivenEvent::Paired(outcome)) => return Ok(*outcome),
                Ok(other) => {
                    return Err(Broken {
                        why: format!(
                            "the {driver_side} build's bench binary answered `pair` with {}",
                            text(&other)
                        ),
                        hung: false,
                    })
                }
                Err(silence) => return Err(silent(silence)),
            }
        }
    }

    /// Reports the progress of case `id` over all its rounds, `fraction` being the share done
    /// of round `round` of `rounds`, and notes how many threads the head's benchmark runs.
    fn progress(
        &mut self,
        id: &str,
        (round, rounds): (u32, u32),
        fraction: f64,
        head_pid: Option<u32>,
        threads: &mut usize,
    ) {
        if let Some(pid) = head_pid {
            *threads = (*threads).max(pin::threads(pid));
        }
        // The case's progress over its rounds.
        let fraction = ((f64::from(round) + fraction) / f64::from(rounds.max(1))).min(0.99);
        self.emit(MeasureEvent::Progress {
            id: id.to_owned(),
            fraction,
        });
    }
}

/// The two sides of one round's pair by role: the driver measures its own case and asks the
/// peer for each of the peer's samples.
struct Roles<'r, 's> {
    /// The side that measures its own case.
    driver: &'r mut Side<'s>,
    /// `base` or `head`: which build drives.
    driver_side: &'static str,
    /// The side that answers the driver's requests.
    peer: &'r mut Side<'s>,
    /// `base` or `head`: which build answers.
    peer_side: &'static str,
}

impl<'r, 's> Roles<'r, 's> {
    /// The roles of a round: the base drives when `swapped`, the head otherwise.
    fn of(swapped: bool, base: &'r mut Side<'s>, head: &'r mut Side<'s>) -> Self {
        if swapped {
            Roles {
                driver: base,
                driver_side: "base",
                peer: head,
                peer_side: "head",
            }
        } else {
            Roles {
                driver: head,
                driver_side: "head",
                peer: base,
                peer_side: "base",
            }
        }
    }

    /// Puts the sides of a pair that broke back in order for the next one: the driver is
    /// gone, hung or confused and is stopped; the peer too after a hang (`hung`), and
    /// otherwise its case is closed if it still waits (stopped when it cannot be).
    async fn abandon(self, hung: bool) {
        let Roles { driver, peer, .. } = self;
        driver.binary = None;
        if hung {
            peer.binary = None;
        }
        if let Some(p) = peer.binary.as_mut() {
            let closed = match p.send(&DrivenCommand::Close { measurement: None }).await {
                Ok(()) => p
                    .recv(Instant::now() + Duration::from_secs(10))
                    .await
                    .is_ok(),
                Err(_) => false,
            };
            if !closed {
                peer.binary = None;
            }
        }
    }
}

/// Opens case `id` on the peer's side, its answer awaited until `deadline`; or the case's
/// failure (a peer that fell silent is stopped).
async fn open(
    id: &str,
    roles: &mut Roles<'_, '_>,
    deadline: Instant,
    timeout: Duration,
) -> Result<(), ComparedCase> {
    let peer_side = roles.peer_side;
    let Some(p) = roles.peer.binary.as_mut() else {
        return Err(failed(id, "a bench binary did not start".into()));
    };
    let opened = match p.send(&DrivenCommand::Open { id: id.to_owned() }).await {
        Ok(()) => p.recv(deadline).await,
        Err(silence) => Err(silence),
    };
    match opened {
        Ok(DrivenEvent::Opened { .. }) => Ok(()),
        Ok(DrivenEvent::Failed { failure }) => Err(failed(
            id,
            format!(
                "the {peer_side} build's case failed: {}",
                failure_text(&failure)
            ),
        )),
        Ok(other) => Err(failed(
            id,
            format!(
                "the {peer_side} build's bench binary answered `open` with {}",
                text(&other)
            ),
        )),
        Err(silence) => {
            roles.peer.binary = None;
            Err(failed(
                id,
                silence_text(peer_side, &silence, timeout, "when the case was opened"),
            ))
        }
    }
}

/// The peer's answer to one of the driver's `peer` requests, awaited until `deadline`; when
/// the peer is gone, a `lost` event saying how it ended (and the peer is stopped).
async fn relay(
    peer: &mut Side<'_>,
    peer_side: &str,
    command: &DrivenCommand,
    deadline: Instant,
    timeout: Duration,
) -> DrivenEvent {
    let reply = match peer.binary.as_mut() {
        Some(p) => match p.send(command).await {
            Ok(()) => p.recv(deadline).await,
            Err(silence) => Err(silence),
        },
        None => Err(Silence::Ended("had already ended".into())),
    };
    reply.unwrap_or_else(|silence| {
        peer.binary = None;
        DrivenEvent::Lost {
            message: silence_text(peer_side, &silence, timeout, "in the middle of the pair"),
        }
    })
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
    /// The `side` build's binary fell silent `when`: it ended, or sent nothing for `timeout`.
    fn of(side: &str, silence: &Silence, timeout: Duration, when: &str) -> Broken {
        Broken {
            why: silence_text(side, silence, timeout, when),
            hung: matches!(silence, Silence::TimedOut),
        }
    }
}

/// Whether `case`'s next round would take it past `budget` (by more than a tenth). A case gets
/// [`MIN_ROUNDS`] rounds whatever their length, for an interval between processes at all,
/// unless its first pair alone took the whole budget (a call or a set-up longer than it), so
/// that it never takes more than about [`MIN_ROUNDS`] budgets. A loaded machine stretches every
/// pair, process starts included, past its share: with the owed rounds ending once the pairs
/// together took the budget, a CI run left a case two rounds and an interval so wide that a
/// ratio of 3 read `same`; and with them ending when a later pair alone took the budget (a
/// stretched process start), a case kept two rounds (a stored `±40998%`).
fn over_budget(case: &CaseRounds, budget: Duration) -> bool {
    let first_took_it_all = case.rounds.len() == 1 && case.last > budget;
    let owed = case.rounds.len() < MIN_ROUNDS as usize && !first_took_it_all;
    let next = (case.spent + case.last).as_secs_f64();
    next > budget.as_secs_f64() * 1.1 && !case.rounds.is_empty() && !owed
}

/// Whether the base drives round `round` of a pair (measures its own case and asks the head for
/// each of the head's samples), rather than the head. The two alternate, when the base can
/// drive (`base_version`: a base from before rounds cannot): two byte-identical builds read the
/// driver 2-4% slower on bodies that allocate (a CSV parse, a `Vec` push loop), a bias of the
/// role that rounds in fresh processes would otherwise repeat in every round, where it reads as
/// a difference between the builds. Alternated, it cancels in the mean and shows in the
/// interval.
fn base_drives(round: u32, base_version: u32) -> bool {
    round % 2 == 1 && base_version == DRIVEN_VERSION
}

/// The outcome of a round the base build drove, its sides put back: what it measured as its
/// own case is the base's, what it asked the head for the head's, and a head that stopped
/// answering in the middle is the head's failure.
fn unswapped(mut outcome: PairOutcome) -> PairOutcome {
    std::mem::swap(&mut outcome.base, &mut outcome.head);
    std::mem::swap(&mut outcome.base_failure, &mut outcome.head_failure);
    if let Some(round) = outcome.round.as_mut() {
        std::mem::swap(&mut round.base, &mut round.head);
    }
    if let Some(why) = outcome.base_lost.take() {
        outcome.head_failure.get_or_insert(CaseFailure {
            id: outcome.id.clone(),
            kind: FailureKind::Crashed,
            message: why,
            location: None,
        });
    }
    if outcome.base_failure.is_some() || outcome.head_failure.is_some() {
        // The driver's words name the sides its way round; the failures say it right.
        outcome.not_compared = None;
    }
    outcome
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
    // The head's code is the user's: where it panicked (the base's place is in another tree).
    let location = match (&outcome.base_failure, &outcome.head_failure) {
        (None, Some(f)) => f.location.as_deref().and_then(SourceLocation::parse),
        _ => None,
    };
    estimates.extend(outcome.estimate);
    ComparedCase {
        location,
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
        location: None,
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
        location: None,
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
        location: None,
        id: id.to_owned(),
        status: CompareStatus::Skipped,
        base: None,
        head: None,
        comparison: None,
        note: Some("not run: the comparison was cancelled".into()),
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
        let hung = Broken::of("head", &Silence::TimedOut, timeout, "during this case");
        assert!(hung.hung, "{}", hung.why);
        assert!(hung.why.contains("sent nothing for 5 s"), "{}", hung.why);
        let ended = Silence::Ended("exited with signal 6:\nsent nothing for a while".into());
        let crashed = Broken::of("base", &ended, timeout, "during this case");
        assert!(!crashed.hung, "{}", crashed.why);
        assert!(
            crashed.why.starts_with("the base build's"),
            "{}",
            crashed.why
        );
    }

    /// Two byte-identical builds read the driver of a pair 2-4% slower on a CSV parse (A/A
    /// with `knotmeter compare HEAD`, before the roles alternated): the head drives even
    /// rounds and the base odd ones, so the bias cancels over the rounds; a base from before
    /// rounds cannot drive.
    #[test]
    fn the_driver_of_a_pair_alternates_between_rounds_when_the_base_can_drive() {
        let drivers: Vec<bool> = (0..6).map(|r| base_drives(r, DRIVEN_VERSION)).collect();
        assert_eq!(drivers, [false, true, false, true, false, true]);
        assert!((0..6).all(|r| !base_drives(r, 1)));
    }

    /// A case whose pairs each took 0.9 s of a 2 s budget (a loaded machine): two fit, but it
    /// gets three, an interval between processes at all (with two, Student's t is 12.7 and a
    /// ratio of 3 read `same`); so does one whose pairs took 1.5 s each, past the budget
    /// together but each within it; one whose first pair took the whole budget gets no more,
    /// one whose second did gets its third.
    #[test]
    fn a_case_gets_three_rounds_unless_a_pair_took_the_whole_budget() {
        let budget = Duration::from_secs(2);
        let case = |rounds: usize, each: Duration| CaseRounds {
            rounds: vec![
                PairRound {
                    base: measured(1.0),
                    head: measured(1.0),
                };
                rounds
            ],
            spent: each * rounds as u32,
            last: each,
            ..CaseRounds::new("a::b")
        };
        let slow = Duration::from_millis(900);
        assert!(!over_budget(&case(1, slow), budget));
        assert!(!over_budget(&case(2, slow), budget), "owed a third round");
        assert!(over_budget(&case(3, slow), budget));
        let stretched = Duration::from_millis(1500);
        assert!(
            !over_budget(&case(2, stretched), budget),
            "owed a third round"
        );
        assert!(over_budget(&case(3, stretched), budget));
        let whole = Duration::from_millis(2100);
        assert!(over_budget(&case(1, whole), budget));
        // A second pair that took the whole budget (its process start stretched by the load,
        // the first pair quick) still leaves the case owed its third.
        let second_stretched = CaseRounds {
            spent: Duration::from_millis(300) + whole,
            ..case(2, whole)
        };
        assert!(
            !over_budget(&second_stretched, budget),
            "owed a third round"
        );
        assert!(over_budget(&case(3, whole), budget));
        // Within the budget, rounds go on.
        assert!(!over_budget(&case(5, Duration::from_millis(150)), budget));
        assert!(over_budget(&case(14, Duration::from_millis(150)), budget));
    }

    fn measured(ns: f64) -> knotmeter_protocol::DrivenMeasurement {
        knotmeter_protocol::DrivenMeasurement {
            ops_per_sample: 7,
            workload_ns: vec![ns],
            ..Default::default()
        }
    }

    /// What the base measured as its own case in a round it drove is the base's; what it
    /// asked the head for, the head's; a head that stopped answering is the head's failure.
    #[test]
    fn a_round_the_base_drove_is_put_back_the_right_way_round() {
        let drove = PairOutcome {
            id: "a::parse".into(),
            base: None,
            head: None,
            base_failure: None,
            head_failure: None,
            base_lost: None,
            estimate: None,
            not_compared: None,
            round: Some(PairRound {
                // The driver's words: its own case is the "head".
                base: measured(200.0),
                head: measured(100.0),
            }),
        };
        let round = unswapped(drove.clone()).round.unwrap();
        assert_eq!(
            (round.base.workload_ns[0], round.head.workload_ns[0]),
            (100.0, 200.0)
        );

        let lost = PairOutcome {
            base_lost: Some("the head build's bench binary exited with signal 9".into()),
            not_compared: Some("the base build's bench binary stopped answering".into()),
            round: None,
            ..drove
        };
        let put_back = unswapped(lost);
        let failure = put_back.head_failure.as_ref().unwrap();
        assert!(failure.message.contains("head build's"), "{failure:?}");
        assert!(put_back.base_failure.is_none() && put_back.base_lost.is_none());
        assert_eq!(put_back.not_compared, None);
        let case = from_outcome(put_back, &mut Vec::new());
        assert_eq!(case.status, CompareStatus::Failed);
        assert!(case
            .note
            .unwrap()
            .starts_with("the head build's case failed"));
    }

    /// A case that panicked in the head build carries the panic's place, for the editor to
    /// show the message at; one that failed in the base does not (its file is another tree's).
    #[test]
    fn a_head_panic_carries_its_place_and_a_base_panic_does_not() {
        let panic = |side: &str| CaseFailure {
            id: "a::parse".into(),
            kind: FailureKind::Panic,
            message: format!("{side} boom"),
            location: Some("benches/a.rs:12:5".into()),
        };
        let outcome = PairOutcome {
            id: "a::parse".into(),
            base: None,
            head: None,
            base_failure: None,
            head_failure: Some(panic("head")),
            base_lost: None,
            estimate: None,
            not_compared: None,
            round: None,
        };
        let head = from_outcome(outcome.clone(), &mut Vec::new());
        assert_eq!(
            head.location,
            Some(SourceLocation {
                file: "benches/a.rs".into(),
                line: 11,
                character: 4
            })
        );
        let base = from_outcome(
            PairOutcome {
                base_failure: Some(panic("base")),
                ..outcome
            },
            &mut Vec::new(),
        );
        assert_eq!(base.location, None);
    }
}
