//! One scenario of the calibration: the machine as it is (`quiet`), or with one core kept
//! busy for the whole scenario (`busy`), and everything measured under it.

use std::path::Path;

use super::busy::Busy;
use super::experiment::{self, Experiment};
use super::options::Scenario;
use super::report::Run;
use super::run::{Binary, FreshHistory, Invocation};
use super::trials::{self, Trials};
use super::Options;
use crate::docs;

/// Everything measured under one scenario.
pub(super) struct Measured {
    /// The scenario.
    pub(super) scenario: Scenario,
    /// The load averages just before the scenario started (before its load, if any) and at its
    /// end (before its load stopped).
    pub(super) load: (String, String),
    /// The busy thread's CPU time over the scenario's wall time (about 1: a core kept busy);
    /// None in the quiet scenario, or when the kernel does not say.
    pub(super) busy: Option<f64>,
    /// Runs with `--no-history`, the flags otherwise as users run them.
    pub(super) fresh: Vec<Run>,
    /// Runs against one fresh history, in order.
    pub(super) history: Vec<Run>,
    /// Runs with `--quick --no-history`, for their cost; empty when every run is `--quick`.
    pub(super) quick: Vec<Run>,
    /// The +10% change trials.
    pub(super) trials: Vec<Trials>,
    /// What moves the numbers; None when left out.
    pub(super) experiment: Option<Experiment>,
}

/// The commands a scenario runs, as the report shows them (the experiment's are its own).
pub(super) fn commands(bin: &Binary, options: &Options) -> Vec<(String, String)> {
    let history = Path::new("history.db");
    let mut commands = vec![
        (
            "fresh runs".to_owned(),
            Invocation::fresh(bin.settings()).shown(),
        ),
        (
            "runs with a history".to_owned(),
            Invocation::with_history(bin.settings(), history).shown(),
        ),
    ];
    if !bin.quick {
        commands.push(("quick runs, for their cost".to_owned(), quick().shown()));
    }
    if options.trials > 0 && !options.plus10.is_empty() {
        let cases = options.plus10.join(", ");
        let [base, changed] = trials::invocations(bin, "CASE", history);
        commands.push((
            format!("+10% trials, CASE {cases}, unchanged"),
            base.shown(),
        ));
        commands.push(("then changed".to_owned(), changed.shown()));
    }
    commands
}

/// The quick runs' command.
fn quick() -> Invocation {
    Invocation::fresh(vec!["--quick".to_owned()])
}

/// Measures `scenario`: the fresh runs, the runs with a history and the quick runs taking turns
/// run by run, then the +10% trials, then the experiment. The busy scenario's load runs from
/// before the first run to after the last, and is stopped on every way out.
pub(super) fn measure(
    bin: &Binary,
    options: &Options,
    scenario: Scenario,
    nproc: usize,
) -> Result<Measured, String> {
    let before = docs::loadavg();
    let busy = match scenario {
        Scenario::Busy => Some(Busy::start()?),
        Scenario::Quiet => None,
    };
    let name = scenario.name();
    let history = FreshHistory::new(bin, name)?;
    let (fresh_run, history_run) = (
        Invocation::fresh(bin.settings()),
        Invocation::with_history(bin.settings(), &history.file()),
    );
    let (mut fresh, mut with_history, mut quick_runs) = (Vec::new(), Vec::new(), Vec::new());
    for run in 1..=options.runs {
        eprintln!("calibration ({name}): run {run}/{}", options.runs);
        fresh.push(bin.measure(&fresh_run)?);
        with_history.push(bin.measure(&history_run)?);
        if !bin.quick {
            quick_runs.push(bin.measure(&quick())?);
        }
    }
    drop(history);
    let trials = trials::run(bin, &options.plus10, options.trials)?;
    let experiment = options
        .experiment
        .then(|| experiment::run(bin, options.runs, nproc))
        .transpose()?;
    let after = docs::loadavg();
    Ok(Measured {
        scenario,
        load: (before, after),
        busy: busy.and_then(Busy::finish),
        fresh,
        history: with_history,
        quick: quick_runs,
        trials,
        experiment,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenarios_are_named_both_ways() {
        for s in Scenario::ALL {
            assert_eq!(Scenario::named(s.name()), Some(s));
        }
        assert_eq!(Scenario::named("loud"), None);
    }
}
