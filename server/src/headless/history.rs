//! `knotmeter history [ID]`, `knotmeter history --comparisons` and `knotmeter history prune`;
//! `merge` and `export` have files of their own, and so has the text of the comparisons.

use std::io::Write;
use std::process::ExitCode;

use knotmeter_protocol::editor::HistoryResult;
use knotmeter_protocol::HistoryRun;

use crate::cli::{HistoryAction, HistoryArgs, ListFormat, PruneArgs};
use crate::stored::{self, Stored};
use crate::terminal;

use super::located::history_target_dir;
use super::stored_builds;

/// `knotmeter history [ID]`, `knotmeter history --comparisons`, and the actions (`prune`,
/// `merge`, `export`).
pub fn history(args: HistoryArgs) -> anyhow::Result<ExitCode> {
    match args.action {
        Some(HistoryAction::Prune(prune_args)) => return prune(prune_args),
        Some(HistoryAction::Merge(merge_args)) => return super::merge::merge(merge_args),
        Some(HistoryAction::Export(export_args)) => return super::export::export(export_args),
        None => {}
    }
    let target_dir = history_target_dir(args.path);
    let limit = args.limit as usize;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.comparisons {
        let Some(reports) = found(stored::read(target_dir.as_deref(), |h| {
            h.comparisons(limit)
        }))?
        else {
            return Ok(ExitCode::FAILURE);
        };
        if args.format == ListFormat::Json {
            serde_json::to_writer_pretty(&mut out, &serde_json::json!({ "comparisons": reports }))?;
            writeln!(out)?;
        } else if reports.is_empty() {
            writeln!(
                out,
                "no stored comparisons (`knotmeter compare` stores one)"
            )?;
        } else {
            out.write_all(stored_builds::detailed(&reports).as_bytes())?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    match &args.id {
        Some(id) => {
            let Some(points) = found(stored::points(target_dir.as_deref(), id, limit))? else {
                return Ok(ExitCode::FAILURE);
            };
            if args.format == ListFormat::Json {
                serde_json::to_writer_pretty(&mut out, &HistoryResult { points })?;
                writeln!(out)?;
            } else if points.is_empty() {
                writeln!(out, "no stored results for `{id}`")?;
            } else {
                out.write_all(terminal::history_table(&points).as_bytes())?;
            }
        }
        None => {
            let Some(runs) = found(stored::runs(target_dir.as_deref(), limit))? else {
                return Ok(ExitCode::FAILURE);
            };
            if args.format == ListFormat::Json {
                serde_json::to_writer_pretty(&mut out, &serde_json::json!({ "runs": runs }))?;
                writeln!(out)?;
            } else {
                if runs.is_empty() {
                    writeln!(out, "no recorded runs")?;
                } else {
                    runs_table(&mut out, &runs)?;
                }
                // The comparisons below the runs; a history that cannot list them still
                // listed its runs, and says why not.
                match stored::read(target_dir.as_deref(), |h| h.comparisons(limit)) {
                    Stored::Found(reports) if !reports.is_empty() => {
                        writeln!(out)?;
                        out.write_all(stored_builds::listing(&reports).as_bytes())?;
                    }
                    Stored::Unreadable(why) => {
                        eprintln!("knotmeter: the stored comparisons cannot be listed: {why}");
                    }
                    _ => {}
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// What the store holds (an empty history when there is none yet, with a note), or `None`
/// after saying why it cannot be read.
fn found<T: Default>(stored: Stored<T>) -> anyhow::Result<Option<T>> {
    Ok(match stored {
        Stored::Found(found) => Some(found),
        Stored::NoStore(path) => {
            eprintln!(
                "knotmeter: no history yet ({} does not exist): `knotmeter run` or `cargo bench` records one",
                path.display()
            );
            Some(T::default())
        }
        Stored::Unreadable(why) => {
            eprintln!("knotmeter: {why}");
            None
        }
    })
}

fn runs_table(out: &mut impl Write, runs: &[HistoryRun]) -> anyhow::Result<()> {
    writeln!(
        out,
        "{:>6}  {:<16}  {:>7}  {:<11}  {:>7}  commit",
        "run", "started (UTC)", "budget", "status", "results"
    )?;
    for r in runs {
        let mut notes = Vec::new();
        if r.partial > 0 {
            notes.push(format!("{} partial", r.partial));
        }
        if let Some(name) = &r.baseline {
            notes.push(format!("baseline {name}"));
        }
        writeln!(
            out,
            "{:>6}  {:<16}  {:>7}  {:<11}  {:>7}  {}{}",
            r.run.0,
            stored::time_text(r.timestamp),
            terminal::budget(r.budget_ms),
            r.status.as_str(),
            r.results,
            commit(r.git_commit.as_deref()),
            if notes.is_empty() {
                String::new()
            } else {
                format!("  ({})", notes.join("; "))
            }
        )?;
    }
    Ok(())
}

fn commit(hash: Option<&str>) -> &str {
    hash.map_or("—", |c| &c[..c.len().min(10)])
}

/// `knotmeter history prune`.
fn prune(args: PruneArgs) -> anyhow::Result<ExitCode> {
    let path = knotmeter_history::resolve_path(history_target_dir(args.path).as_deref());
    if !path.exists() {
        eprintln!(
            "knotmeter: no history at {} yet: nothing to prune",
            path.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let mut history = match knotmeter_history::History::open(&path) {
        Ok(history) => history,
        Err(e) => {
            eprintln!("knotmeter: the history cannot be pruned: {e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let retention = knotmeter_history::Retention {
        keep_per_case: args.keep as usize,
        keep_comparisons: args.keep_comparisons as usize,
    };
    let plan = history.prune_plan(retention)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    writeln!(
        out,
        "{}: {} results in {} runs, {} comparisons ({})",
        path.display(),
        plan.results_before,
        plan.runs_before,
        plan.comparisons_before,
        bytes(history.file_size())
    )?;
    let kept: Vec<String> = plan
        .baselines
        .iter()
        .map(|b| format!("{} (run {})", b.name, b.run))
        .collect();
    writeln!(
        out,
        "keeping the newest {} results of each case on each machine, profile and budget, the \
         newest {} comparisons of each pair of sides on each machine{}{}",
        args.keep,
        args.keep_comparisons,
        if kept.is_empty() {
            String::new()
        } else {
            format!(", every result of the baselines {}", kept.join(", "))
        },
        if plan.running.is_empty() {
            String::new()
        } else {
            format!(", and the {} runs still measuring", plan.running.len())
        }
    )?;
    if plan.is_empty() {
        writeln!(out, "nothing to remove")?;
        return Ok(ExitCode::SUCCESS);
    }
    let changes = [
        count(plan.results.len() as u64, "remove", "result"),
        count(plan.runs.len() as u64, "remove", "run"),
        count(
            plan.to_close.len() as u64,
            "close",
            "run whose process is gone (as interrupted)",
        ),
        count(plan.to_compact, "compact the raw samples of", "result"),
        count(plan.comparisons.len() as u64, "remove", "comparison").map(|text| {
            format!(
                "{text} ({} compared case{})",
                plan.compared_cases,
                if plan.compared_cases == 1 { "" } else { "s" }
            )
        }),
    ];
    let changes: Vec<String> = changes.into_iter().flatten().collect();
    writeln!(
        out,
        "{}{}",
        if args.dry_run { "would: " } else { "pruning: " },
        changes.join(", ")
    )?;
    if args.dry_run {
        writeln!(out, "dry run: nothing was changed")?;
        return Ok(ExitCode::SUCCESS);
    }
    let done = history.prune(&plan)?;
    writeln!(
        out,
        "done: removed {} results, {} runs and {} comparisons, closed {}, rewrote {}; the file went from {} to {}",
        done.results,
        done.runs,
        done.comparisons,
        done.closed,
        done.compacted,
        bytes(done.bytes_before),
        bytes(done.bytes_after)
    )?;
    Ok(ExitCode::SUCCESS)
}

/// "remove 3 results", or `None` for none.
fn count(n: u64, verb: &str, noun: &str) -> Option<String> {
    let plural = if n == 1 { "" } else { "s" };
    let (head, tail) = noun.split_once(' ').unwrap_or((noun, ""));
    let tail = if tail.is_empty() {
        String::new()
    } else {
        format!(" {tail}")
    };
    (n > 0).then(|| format!("{verb} {n} {head}{plural}{tail}"))
}

/// A file size in kB or MB.
fn bytes(n: u64) -> String {
    if n >= 1_000_000 {
        format!("{:.1} MB", n as f64 / 1e6)
    } else {
        format!("{:.0} kB", n as f64 / 1e3)
    }
}

#[cfg(test)]
mod tests {}
