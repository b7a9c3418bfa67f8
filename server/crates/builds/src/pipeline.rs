//! The one pipeline of a two-build comparison, which `knotmeter compare` (the server's
//! `headless::compare`) and the editor's comparison run ([`super::execute_job`]) both follow: resolve the sides, build
//! them, measure every case on both sides in turn, decide the verdicts. What it finds on the
//! way it reports as [`Step`]s, and each front end shows them its own way (lines on standard
//! error, or the events of a run). How it ends is an [`Outcome`]: when the base cannot be
//! compared with, the outcome says why and hands over what the head's cases need to be
//! measured on their own ([`super::head_alone`]).

use std::collections::HashSet;
use std::time::Duration;

use knotmeter_protocol::{CompareReport, CompareStatus, Measure};
use tokio_util::sync::CancellationToken;

use super::build::{self, Built};
use super::head_alone::Unusable;
use super::measure::{self, MeasureEvent, MeasureOptions};
use super::sides::{self, Sides};
use super::{finalize, render, BuildsRequest};
use crate::cargo_build::CompilerError;
use crate::process::Children;

/// How long a bench binary may take to start and say what it holds.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// What a cancel stops: the phase the comparison is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Phase {
    /// Resolving the sides and building them: nothing measured yet.
    Building = 0,
    /// Measuring pairs.
    Pairs = 1,
    /// Measuring the head's cases on their own (the base cannot be compared with).
    HeadAlone = 2,
}

/// What the comparison reports as it goes.
#[derive(Debug)]
pub enum Step {
    /// A sentence of the comparison's own (the sides' notes, the heading, measuring's and the
    /// verdicts' notes), without the command line's `knotmeter: `.
    Note(String),
    /// A line of the builds' progress, to be shown as it is.
    Line(String),
    /// The sides are resolved: the base's name in notes (`main (9f8e7d6c5b)`).
    Resolved {
        /// The base's label.
        base_label: String,
    },
    /// The head is built: the compiler errors of its targets that did not build.
    HeadBuilt(Vec<CompilerError>),
    /// The comparison entered a phase.
    Phase(Phase),
    /// What measuring found.
    Measure(MeasureEvent),
}

/// How a comparison ended (a head that does not build, or a cancel while building, is an
/// error instead).
#[derive(Debug)]
pub enum Outcome {
    /// Every wanted case was measured on both sides and the verdicts decided (and stored when
    /// the request says so).
    Compared {
        /// The finished report.
        report: CompareReport,
        /// The cases measured on both sides whose verdict could not be decided: now
        /// `not_compared`, saying why.
        undecided: HashSet<String>,
    },
    /// The base cannot be compared with (it does not build, or its knotmeter predates driven
    /// mode): the head's cases are to be measured on their own.
    BaseUnusable {
        /// The whole account: every compiler error, or what the base's binary said.
        why: String,
        /// The same, in one line per case, and both sides.
        unusable: Unusable,
        /// The sides.
        sides: Box<Sides>,
        /// Both sides' builds (their target directories stay locked while it is held).
        built: Box<Built>,
    },
    /// The sides could not be resolved: the revision names no commit, there is no default
    /// base, or the folder is not in a git repository.
    Unresolved(anyhow::Error),
}

/// Compares the two builds `request` names, every case that matches its filter and, with
/// `only`, is one of those ids. `on` hears every [`Step`].
pub async fn compare(
    request: &BuildsRequest,
    only: Option<&HashSet<String>>,
    children: &Children,
    cancel: &CancellationToken,
    on: &mut (dyn FnMut(Step) + Send),
) -> anyhow::Result<Outcome> {
    on(Step::Phase(Phase::Building));
    // git and cargo metadata block: off the runtime's threads.
    let resolving = request.clone();
    let resolved = tokio::task::spawn_blocking(move || sides::resolve(&resolving))
        .await
        .map_err(|e| anyhow::anyhow!("resolving the sides failed: {e}"))?;
    let sides = match resolved {
        Ok(sides) => sides,
        Err(why) => return Ok(Outcome::Unresolved(why)),
    };
    on(Step::Resolved {
        base_label: sides.base_label.clone(),
    });
    for note in &sides.notes {
        on(Step::Note(note.clone()));
    }
    on(Step::Note(format!(
        "comparing {} with {}",
        render::side(&sides.head_side()),
        render::side(&sides.base_side())
    )));
    let built = build::build(&sides, children, cancel, &mut |line: &str| {
        on(Step::Line(line.to_owned()))
    })
    .await?;
    on(Step::HeadBuilt(built.head_errors.clone()));
    if let Some(why) = built.base_failure.clone() {
        let unusable = Unusable::unbuilt(&sides, &why);
        return Ok(Outcome::BaseUnusable {
            why,
            unusable,
            sides: Box::new(sides),
            built: Box::new(built),
        });
    }
    let plans = built.plans(&sides, request);
    let (rounds, budget) = MeasureOptions::rounds_and_budget(request);
    let count = request.measure == Measure::Instructions;
    let options = MeasureOptions {
        case_timeout: request.case_timeout,
        start_timeout: START_TIMEOUT,
        pin: request.pin,
        // A count is the same in any process: one of each side.
        rounds: if count { 1 } else { rounds },
        budget,
        count,
    };
    on(Step::Note(if count {
        format!(
            "counting: each case of {} bench target(s) on both sides in turn, under callgrind",
            plans.len()
        )
    } else {
        format!(
            "measuring: each case of {} bench target(s) on both sides in turn, round by round",
            plans.len()
        )
    }));
    on(Step::Phase(Phase::Pairs));
    let filter = sides.filter.clone();
    let wanted = move |id: &str| {
        filter.as_deref().is_none_or(|f| id.contains(f)) && only.is_none_or(|ids| ids.contains(id))
    };
    let measured = measure::measure(
        &plans,
        &wanted,
        &sides.base_label,
        &options,
        children,
        cancel,
        &mut |event| on(Step::Measure(event)),
    )
    .await;
    if let Some(why) = measured.base_predates_driven_mode.clone() {
        let unusable = Unusable::undriven(&sides, &why);
        return Ok(Outcome::BaseUnusable {
            why,
            unusable,
            sides: Box::new(sides),
            built: Box::new(built),
        });
    }
    let mut report = sides.report(&measured);
    let paired = ids_with(&report, CompareStatus::Compared);
    for note in finalize::finalize(&mut report, &measured, request.store, children).await {
        on(Step::Note(note));
    }
    let undecided = ids_with(&report, CompareStatus::NotCompared)
        .intersection(&paired)
        .cloned()
        .collect();
    Ok(Outcome::Compared { report, undecided })
}

/// The ids of the report's cases in `status`.
fn ids_with(report: &CompareReport, status: CompareStatus) -> HashSet<String> {
    report
        .cases
        .iter()
        .filter(|c| c.status == status)
        .map(|c| c.id.clone())
        .collect()
}
