//! `knotmeter compare [REV] [PATH] [FILTER]`: is my change faster? Two builds of the same
//! benchmarks, measured case by case in turn, round by round, and compared with the engine's
//! paired statistics.
//!
//! 1. **Sides** (`sides`): the head is the working tree (or `--head REV`); the base is REV, or
//!    `HEAD` when the tree has uncommitted changes, or the merge base with the upstream
//!    branch. A commit other than the working tree is checked out in a git worktree under
//!    `<target dir>/knotmeter/compare/<commit>`, kept for the next comparison.
//! 2. **Builds** (`build`): `cargo bench --no-run` on each side, with the same profile and
//!    flags. The head builds in its own target directory; the base in one of its own under it
//!    (`<target dir>/knotmeter/compare/target`), shared by every base commit so its
//!    dependencies are built once: in one directory, cargo would take one side's executable for
//!    the other's (it names a workspace crate's artifacts by its path relative to the workspace
//!    root). A base that does not build, or whose knotmeter predates driven mode, is no loss
//!    for the head: its cases are measured on their own, stored in the history as a run, and
//!    shown with why the base could not be compared.
//! 3. **Measuring** (`measure`): per bench target, one binary of each side in driven mode;
//!    the head measures each case against the base's, the orchestrator carrying one request at
//!    a time, so the processes never measure at the same moment. Both are pinned to one CPU.
//! 4. **Verdicts** (`finalize`): one head binary corrects every estimate together
//!    (Benjamini–Hochberg) and decides the verdicts in the engine's one verdict function, then
//!    stores the comparison in the history with both commits named.
//! 5. **Output** (`render`, `gate`): a table, a pull-request comment or JSON on standard
//!    output; progress on standard error; `--fail-on-regression` never passes silently.
//!
//! The server never links the engine: everything measured or decided comes from the bench
//! binaries through the protocol (`knotmeter_protocol::DrivenCommand`, `DrivenEvent`).

mod binary;
mod build;
mod finalize;
mod gate;
mod git;
mod head_alone;
mod job;
mod measure;
mod pin;
pub mod render;
mod sides;

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use knotmeter_protocol::CompareReport;
use tokio_util::sync::CancellationToken;

use crate::cli::{CompareArgs, CompareFormat};
use crate::runs::process::Children;
pub use job::execute_job;
use measure::{MeasureEvent, MeasureOptions};

/// `knotmeter compare`: returns the exit status.
pub fn cli(args: CompareArgs) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let children = Children::default();
    let code = runtime.block_on(async {
        let cancel = CancellationToken::new();
        let on_signal = cancel.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                eprintln!("knotmeter: cancelling: the pair in progress stops at its next sample");
                on_signal.cancel();
            }
        });
        compare(&args, &children, &cancel).await
    });
    children.kill_all();
    code
}

async fn compare(
    args: &CompareArgs,
    children: &Children,
    cancel: &CancellationToken,
) -> anyhow::Result<ExitCode> {
    let sides = sides::resolve(args)?;
    eprintln!(
        "knotmeter: comparing {} with {}",
        render::side(&sides.head_side()),
        render::side(&sides.base_side())
    );
    let mut note = |line: &str| eprintln!("{line}");
    let built = build::build(&sides, children, cancel, &mut note).await?;
    if let Some(why) = &built.base_failure {
        eprintln!("knotmeter: {why}");
        eprintln!("knotmeter: measuring the head's cases on their own, so their results are kept");
        let report = build::head_alone(&sides, &built, why, args, children, cancel).await;
        emit(args.format, &report)?;
        return Ok(ExitCode::from(2));
    }
    let (rounds, budget) = MeasureOptions::rounds_and_budget(args);
    let options = MeasureOptions {
        case_timeout: Duration::from_secs_f64(args.case_timeout.max(0.001)),
        start_timeout: Duration::from_secs(30),
        pin: !args.no_pin,
        rounds,
        budget,
    };
    let mut sink = |event: MeasureEvent| match event {
        MeasureEvent::Note(line) => eprintln!("knotmeter: {line}"),
        MeasureEvent::Started(_) | MeasureEvent::Progress { .. } => {}
        MeasureEvent::Case(case) => eprintln!("{}", progress_line(&case)),
    };
    let plans = built.plans(&sides, args);
    eprintln!(
        "knotmeter: measuring: each case of {} bench target(s) on both sides in turn, round by round",
        plans.len()
    );
    let filter = sides.filter.clone();
    let wanted = move |id: &str| filter.as_deref().is_none_or(|f| id.contains(f));
    let measured = measure::measure(
        &plans,
        &wanted,
        &sides.base_label,
        &options,
        children,
        cancel,
        &mut sink,
    )
    .await;
    if let Some(why) = &measured.base_predates_driven_mode {
        // Nothing can be compared with this base: keep the head's figures, as for a base that
        // does not build.
        eprintln!("knotmeter: {why}");
        eprintln!("knotmeter: measuring the head's cases on their own, so their results are kept");
        let report = build::head_alone(&sides, &built, why, args, children, cancel).await;
        emit(args.format, &report)?;
        return Ok(ExitCode::from(2));
    }
    let mut report = sides.report(&measured);
    for note in finalize::finalize(&mut report, &measured, !args.no_history, children).await {
        eprintln!("knotmeter: {note}");
    }
    emit(args.format, &report)?;
    Ok(gate::exit_code(&report, args.fail_on_regression))
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
fn emit(format: CompareFormat, report: &CompareReport) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match format {
        CompareFormat::Pretty => write!(out, "{}", render::pretty(report))?,
        CompareFormat::Markdown => write!(out, "{}", render::markdown(report))?,
        CompareFormat::Json => {
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
