//! Driven mode (`--driven`): the bench binary measures as an orchestrator asks, one command
//! per line on standard input, one event per line on the report channel (its original
//! standard output). `knotmeter compare` runs one binary of each build in this mode.
//!
//! The binary first says `ready` (its manifest and cases), then obeys commands until standard
//! input ends:
//!
//! * `open` (`open.rs`): the *base* side. Runs a case's function until it hands over what it
//!   times, then serves single samples on request until `close`, and analyses the samples it
//!   is given at `close` into its own result.
//! * `pair` (`pair.rs`): the *head* side. Measures its case against the other side's open case
//!   with [`crate::measure::measure_pair`], exactly as a group member is measured against its
//!   group's baseline, the other side reached through `peer` requests (`remote.rs`).
//! * `finalize` (`finalize.rs`): Benjamini–Hochberg over every estimate and the engine's one
//!   verdict function; the comparison is stored in the history.
//!
//! So a comparison of two builds is decided by the same code as a comparison inside one
//! build. The protocol is `knotmeter_protocol::DrivenCommand` and `DrivenEvent`
//! (docs/json-format.md).

mod channel;
mod counted;
mod finalize;
mod measure;
mod open;
mod pair;
mod remote;

use std::cell::RefCell;
use std::process::ExitCode;

use knotmeter_protocol::{DrivenCommand, DrivenEvent, Manifest, DRIVEN_VERSION, VERSION};

use crate::analysis::Context;
use crate::cancel::{self, Cause};
use crate::cli::Options;
use crate::manifest::manifest;
use crate::measure::{MeasureConfig, Timer};
use crate::output::ReportOut;
use crate::probe;
use crate::registry::Case;
use crate::run::{self, fnv1a, seed};
use channel::Channel;

/// One driven session: the binary's cases and settings, and the channel.
struct Driven<'o> {
    options: &'o Options,
    cases: &'o [Case],
    timer: Timer,
    seed: u64,
    channel: RefCell<Channel>,
}

/// Runs the driven session until standard input ends; returns the process's exit status.
pub(crate) fn serve(
    options: &Options,
    cases: &[Case],
    timer: Timer,
    debug_assertions: bool,
    out: ReportOut,
) -> ExitCode {
    let seed = seed(options);
    let manifest: Manifest = manifest(&timer, debug_assertions, seed, options);
    let session = Driven {
        options,
        cases,
        timer,
        seed,
        channel: RefCell::new(Channel::new(out)),
    };
    session.channel.borrow_mut().send(&DrivenEvent::Ready {
        version: VERSION,
        driven_version: DRIVEN_VERSION,
        manifest: Box::new(manifest),
        cases: cases
            .iter()
            .filter(|c| !crate::probe::is_probe(c))
            .map(Case::list_entry)
            .collect(),
    });
    loop {
        let command = session.channel.borrow_mut().recv();
        let Some(command) = command else { break };
        session.obey(command);
        if session.channel.borrow().write_failed().is_some() {
            break;
        }
    }
    if options.round_worker.is_some() {
        session.last_words();
    }
    let channel = session.channel.borrow();
    if let Some(err) = channel.write_failed() {
        if !crate::output::is_broken_pipe(err) {
            eprintln!("knotmeter: cannot write to the orchestrator: {err}");
            return ExitCode::FAILURE;
        }
    }
    match cancel::cause().and_then(Cause::exit_status) {
        Some(status) if cancel::cause() != Some(Cause::InputClosed) => ExitCode::from(status),
        _ => ExitCode::SUCCESS,
    }
}

impl Driven<'_> {
    fn obey(&self, command: DrivenCommand) {
        match command {
            DrivenCommand::Open { id } => {
                if let Some(case) = self.case(&id) {
                    self.open(case);
                }
            }
            DrivenCommand::Pair { id, against, slot } => {
                if let Some(case) = self.case(&id) {
                    self.pair(case, &against, slot.as_ref());
                }
            }
            DrivenCommand::Combine {
                id,
                against,
                rounds,
                planned,
                cut_short,
            } => {
                if let Some(case) = self.case(&id) {
                    self.combine(case, &against, rounds, planned, cut_short);
                }
            }
            DrivenCommand::Measure { slot } => self.measure(&slot),
            DrivenCommand::Finalize { estimates, record } => {
                self.finalize(&estimates, record.map(|r| *r));
            }
            DrivenCommand::Cancel => cancel::cancel(Cause::InputClosed),
            other => self.error(format!(
                "no case is open, so `{}` cannot be answered: `open` or `pair` one first",
                open::command_name(&other)
            )),
        }
    }

    /// A round's worker, its input closed: the panics of threads since its last slot, which
    /// would be lost with the process, go to the coordinator (`stray_panics`).
    fn last_words(&self) {
        let panics = crate::rounds::stray_panics();
        if !panics.is_empty() {
            self.channel
                .borrow_mut()
                .send(&DrivenEvent::StrayPanics { panics });
        }
    }

    /// The case `id`, or an `error` event saying it is not in this binary.
    fn case(&self, id: &str) -> Option<&Case> {
        let case = self.cases.iter().find(|c| c.id == id);
        if case.is_none() {
            let listed = self.cases.iter().filter(|c| !probe::is_probe(c)).count();
            self.error(format!(
                "this bench binary has no case `{id}` (`ready` listed its {listed} cases)"
            ));
        }
        case
    }

    fn error(&self, message: String) {
        self.channel
            .borrow_mut()
            .send(&DrivenEvent::Error { message });
    }

    /// The measuring configuration of a pair: two cases' worth of its budget, as for a group.
    fn config(&self, case: &Case, shares: u32) -> MeasureConfig {
        MeasureConfig::new(
            self.timer,
            run::budget_of(self.options, case) * shares,
            self.options.precision,
            self.seed ^ fnv1a(&case.id),
            &cancel::CANCEL,
        )
    }

    /// What analysing a result needs to know.
    fn context(&self) -> Context {
        Context {
            timer: self.timer,
            target_precision: self.options.precision,
        }
    }
}
