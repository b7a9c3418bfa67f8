//! `knotmeter history merge FILE...`: the shards' histories of a CI run (their runs and their
//! comparisons of two builds) added to one history (`knotmeter_history::History::merge` does
//! the work and keeps the guarantees).

use std::io::Write;
use std::process::ExitCode;

use knotmeter_history::{resolve_path, History};

use super::located::history_target_dir;
use crate::cli::MergeArgs;

/// `knotmeter history merge`: every source is opened (read-only) and checked before anything
/// is written; the merge is one transaction. Exit status 1 when a source cannot be read (and
/// nothing was written) or a run or comparison could not be merged, a run still measuring
/// included (the others were).
pub fn merge(args: MergeArgs) -> anyhow::Result<ExitCode> {
    let mut sources = Vec::with_capacity(args.sources.len());
    for path in &args.sources {
        match History::open_read_only(path) {
            Ok(source) => sources.push(source),
            Err(e) => {
                eprintln!("knotmeter: nothing was merged: {e}");
                return Ok(ExitCode::FAILURE);
            }
        }
    }
    let into = resolve_path(history_target_dir(args.path).as_deref());
    let mut history = match History::open(&into) {
        Ok(history) => history,
        Err(e) => {
            eprintln!("knotmeter: nothing was merged: {e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let merged = match history.merge(&sources) {
        Ok(merged) => merged,
        Err(e) => {
            eprintln!("knotmeter: nothing was merged: {e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    writeln!(
        out,
        "merged {} file(s) into {}: added {} run(s) with {} result(s); {} run(s) with {} result(s) were there already",
        sources.len(),
        into.display(),
        merged.runs_added,
        merged.results_added,
        merged.runs_present,
        merged.results_present,
    )?;
    if merged.comparisons_added + merged.comparisons_present > 0 {
        writeln!(
            out,
            "comparisons of two builds: added {} with {} case(s); {} were there already",
            merged.comparisons_added, merged.compared_cases_added, merged.comparisons_present,
        )?;
    }
    if merged.runs_completed > 0 {
        writeln!(
            out,
            "{} run(s) held as interrupted took the status and results of their finished copy",
            merged.runs_completed
        )?;
    }
    for (source, run) in &merged.still_running {
        eprintln!(
            "knotmeter: run {run} of {} is still measuring on this machine: not merged; merge again once it ends",
            source.display()
        );
    }
    for (source, run, why) in &merged.conflicts {
        eprintln!(
            "knotmeter: run {run} of {} was not merged: it shares its uid with a run of {} but {why}",
            source.display(),
            into.display()
        );
    }
    for (source, comparison, why) in &merged.comparison_conflicts {
        eprintln!(
            "knotmeter: comparison {comparison} of {} was not merged: it shares its uid with a comparison of {} but {why}",
            source.display(),
            into.display()
        );
    }
    Ok(
        if merged.conflicts.is_empty()
            && merged.comparison_conflicts.is_empty()
            && merged.still_running.is_empty()
        {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        },
    )
}
