//! `knotmeter compare` on a terminal: the builds room's pipeline
//! (`knotmeter_server_builds::pipeline`) followed with its steps as lines on standard
//! error and the comparison on standard output (a table, a pull-request comment or JSON), with
//! the signals and the exit status of a command line.
//!
//! A first SIGINT, SIGTERM or SIGHUP cancels gracefully (a build is stopped, a pair ends at its
//! next sample), saying which of the two it stops; a second stops at once. The exit status is
//! then 128 + the signal's number, as `knotmeter run`'s (`follow`).

use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU8, Ordering};

use anyhow::Context;
use knotmeter_protocol::CompareReport;
use tokio_util::sync::CancellationToken;

use super::gate;
use crate::builds::head_alone;
use crate::builds::pipeline::{self, Outcome, Phase, Step};
use crate::builds::{render, BuildCancelled, BuildsArgs, BuildsFormat, MeasureEvent};
use crate::process::Children;
use crate::runs::Sink;
use crate::signals::{self, Followed, Heard, Signals, Stop};

/// `knotmeter compare`: returns the exit status.
pub fn compare(args: BuildsArgs) -> anyhow::Result<ExitCode> {
    if let Some(case) = &args.profile {
        return super::compare_profile::compare_profile(&args, case);
    }
    if let Some(why) = super::cannot_count(args.measure) {
        eprintln!("knotmeter: {why}");
        return Ok(ExitCode::from(2));
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let children = Children::default();
    let code = runtime.block_on(follow(&args, &children));
    // Nothing may outlive `knotmeter compare`, whichever way it ends.
    children.kill_all();
    code
}

/// The phase, shared between the comparison and the signal handling.
#[derive(Debug, Default)]
struct PhaseCell(AtomicU8);

impl PhaseCell {
    fn set(&self, phase: Phase) {
        self.0.store(phase as u8, Ordering::Relaxed);
    }

    fn get(&self) -> Phase {
        match self.0.load(Ordering::Relaxed) {
            0 => Phase::Building,
            1 => Phase::Pairs,
            _ => Phase::HeadAlone,
        }
    }
}

/// Runs the comparison until it ends or a second signal arrives. The first SIGINT, SIGTERM
/// or SIGHUP cancels it gracefully; a second one stops at once. Once a signal arrived, the
/// exit status is 128 + its number (130 for Ctrl-C, 143 for SIGTERM), as for `knotmeter run`.
async fn follow(args: &BuildsArgs, children: &Children) -> anyhow::Result<ExitCode> {
    let mut signals = Signals::new().context("cannot listen for signals")?;
    let cancel = CancellationToken::new();
    let phase = PhaseCell::default();
    let work = measure(args, children, &cancel, &phase);
    let followed = signals
        .follow(work, |stop| {
            eprintln!("{}", cancelling(stop, phase.get()));
            cancel.cancel();
        })
        .await;
    let (result, stop) = match followed {
        Followed::AtOnce { first, again } => {
            eprintln!("{}", Heard::at_once_note(again));
            return Ok(ExitCode::from(signals::exit_status(first)));
        }
        Followed::Ended { result, stopped } => match stopped {
            None => return result,
            Some(stop) => (result, stop),
        },
    };
    match result {
        Err(error) if error.is::<BuildCancelled>() => {
            eprintln!("knotmeter: the build was cancelled ({stop}): nothing was measured or stored")
        }
        Err(error) => eprintln!("knotmeter: {error:#}"),
        Ok(_) => {}
    }
    Ok(ExitCode::from(signals::exit_status(stop)))
}

/// What the first signal does, said when it arrives.
fn cancelling(stop: Stop, phase: Phase) -> String {
    let what = match phase {
        Phase::Building => "cancelling the build; nothing has been measured",
        Phase::Pairs => "cancelling: the pair in progress stops at its next sample",
        Phase::HeadAlone => "cancelling: the case in progress stops at its next sample",
    };
    format!("knotmeter: {stop}: {what} ({stop} again stops at once)")
}

/// Follows the pipeline, printing its steps, and prints its outcome.
async fn measure(
    args: &BuildsArgs,
    children: &Children,
    cancel: &CancellationToken,
    phase: &PhaseCell,
) -> anyhow::Result<ExitCode> {
    let request = args.request()?;
    let mut on = |step: Step| match step {
        Step::Note(line) => eprintln!("knotmeter: {line}"),
        Step::Line(line) => eprintln!("{line}"),
        Step::Phase(now) => phase.set(now),
        Step::Resolved { .. }
        | Step::HeadBuilt(_)
        | Step::Measure(MeasureEvent::Started(_) | MeasureEvent::Progress { .. }) => {}
        Step::Measure(MeasureEvent::Note(line)) => eprintln!("knotmeter: {line}"),
        Step::Measure(MeasureEvent::Case(case)) => eprintln!("{}", progress_line(&case)),
    };
    match pipeline::compare(&request, None, children, cancel, &mut on).await? {
        Outcome::Compared { report, .. } => {
            emit(args.format, &report)?;
            Ok(gate::exit_code(&report, args.fail_on_regression))
        }
        Outcome::Unresolved(why) => Err(why),
        Outcome::BaseUnusable {
            why,
            unusable,
            sides,
            built,
        } => {
            phase.set(Phase::HeadAlone);
            eprintln!("knotmeter: {why}");
            eprintln!("knotmeter: {}", head_alone::ON_THEIR_OWN);
            let (job, options) = head_alone::head_job(&sides, &built, &request);
            // What the run says per case is in the report; its progress is not shown.
            let mut quiet: Sink = Box::new(|_| {});
            let report = head_alone::execute(
                job,
                sides.head_ws.clone(),
                options,
                children.clone(),
                cancel.clone(),
                &unusable,
                &mut quiet,
            )
            .await;
            drop(built);
            emit(args.format, &report)?;
            Ok(ExitCode::from(2))
        }
    }
}

/// One line on standard error when a case is done.
fn progress_line(case: &knotmeter_protocol::ComparedCase) -> String {
    let median = |r: &Option<knotmeter_protocol::BenchResult>| {
        r.as_ref()
            .map(|r| knotmeter_format::units::format_duration_ns(r.estimate.median_ns))
    };
    match (median(&case.base), median(&case.head)) {
        (Some(b), Some(h)) => format!("{}: base {b}, head {h}", case.id),
        _ => format!(
            "{}: {}{}",
            case.id,
            case.status.as_str().replace('_', " "),
            case.note
                .as_deref()
                .and_then(|n| n.lines().next())
                .map_or(String::new(), |n| format!(" ({n})"))
        ),
    }
}

/// Prints the report on standard output in `format`.
fn emit(format: BuildsFormat, report: &CompareReport) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match format {
        BuildsFormat::Pretty => write!(out, "{}", render::pretty(report))?,
        BuildsFormat::Markdown => write!(out, "{}", render::markdown(report))?,
        BuildsFormat::Json => {
            serde_json::to_writer_pretty(&mut out, report)?;
            writeln!(out)?;
        }
    }
    if let Some(id) = report.stored {
        eprintln!("knotmeter: stored as comparison {id} in the history");
    }
    out.flush()?;
    Ok(())
}
