//! The commands without an editor: `knotmeter run`, `list` and `history`.
//!
//! `run` is the daemon's pipeline (discover, build, run; the engine stores history) with a
//! terminal front end: progress bars (indicatif) on a terminal and plain lines otherwise, on
//! standard error; results on standard output. Ctrl-C cancels gracefully: the engine stops at
//! the next sample boundary and the partial result is shown.

use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use knotmeter_protocol::editor::{
    DiscoverResult, HistoryResult, ItemKind, ItemState, RunMode, RunStateParams,
};
use knotmeter_protocol::{BenchResult, HistoryPoint, HistoryRun};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::cargo_build::BuildEvent;
use crate::cli::{Format, HistoryAction, HistoryArgs, ListArgs, ListFormat, PruneArgs, RunArgs};
use crate::discovery::{workspace, Discovery};
use crate::format;
use crate::runs::process::Children;
use crate::runs::{self, Job, JobEvent, RunOptions};
use crate::stored::{self, Stored};

/// `knotmeter run [PATH] [FILTER]`.
pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let (path, filter) = match (args.path, args.filter) {
        (Some(filter), None) if !Path::new(&filter).exists() => (PathBuf::from("."), Some(filter)),
        (Some(path), filter) => (PathBuf::from(path), filter),
        (None, filter) => (PathBuf::from("."), filter),
    };
    let workspace = workspace::load(&path)?;
    let tree = Discovery::new(workspace.clone()).tree();
    let targets: Vec<_> = tree
        .select(None, &[])
        .into_iter()
        .map(|(target, ids)| {
            let ids: Vec<String> = ids
                .into_iter()
                .filter(|id| filter.as_ref().is_none_or(|f| id.contains(f.as_str())))
                .collect();
            (target, ids)
        })
        .filter(|(_, ids)| !ids.is_empty())
        .collect();
    if targets.is_empty() {
        eprintln!(
            "knotmeter: no benchmark{} in {} ({} discovered; `knotmeter list` shows them)",
            filter.map_or(String::new(), |f| format!(" matches `{f}`")),
            workspace.root.display(),
            tree.benches
                .iter()
                .map(|b| b.leaf_ids().len())
                .sum::<usize>()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let mode = if args.quick {
        RunMode::Quick
    } else {
        RunMode::Full
    };
    let options = RunOptions {
        case_timeout: Duration::from_secs_f64(args.case_timeout.max(0.001)),
        quick_time: args.time.filter(|_| args.quick),
        full_time: args.time.filter(|_| !args.quick),
        ..RunOptions::default()
    };
    let job = Job {
        run_id: 1,
        mode,
        targets,
    };
    let total = job.ids().count();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let finals = runtime.block_on(async move {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let cancel = CancellationToken::new();
        let children = Children::default();
        let sink: runs::Sink = Box::new(move |event| {
            let _ = tx.send(event);
        });
        let task = tokio::spawn(runs::execute(
            job,
            workspace,
            options,
            children.clone(),
            cancel.clone(),
            sink,
        ));
        let mut view = View::new(total, args.format);
        loop {
            tokio::select! {
                event = rx.recv() => match event {
                    Some(JobEvent::Finished) | None => break,
                    Some(event) => view.event(event),
                },
                _ = tokio::signal::ctrl_c() => {
                    view.note("cancelling: the engine stops at the next sample boundary");
                    cancel.cancel();
                }
            }
        }
        let _ = task.await;
        children.kill_all();
        view.finish()
    });
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match args.format {
        Format::Pretty => table(&mut out, &finals)?,
        Format::Json => {
            serde_json::to_writer_pretty(&mut out, &serde_json::json!({ "items": finals }))?;
            writeln!(out)?;
        }
        Format::Jsonl => {}
    }
    let bad = finals
        .iter()
        .any(|f| matches!(f.state, ItemState::Failed | ItemState::Errored));
    Ok(if bad {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Progress on standard error: bars on a terminal, plain lines otherwise.
struct View {
    bar: Option<ProgressBar>,
    total: usize,
    done: usize,
    format: Format,
    finals: Vec<RunStateParams>,
    building: bool,
    fraction: HashMap<String, f64>,
}

impl View {
    fn new(total: usize, format: Format) -> Self {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new_spinner();
            bar.set_style(
                ProgressStyle::with_template("{spinner} {msg}").expect("a valid template"),
            );
            bar.enable_steady_tick(Duration::from_millis(120));
            bar.set_message("building");
            bar
        });
        Self {
            bar,
            total,
            done: 0,
            format,
            finals: Vec::new(),
            building: true,
            fraction: HashMap::new(),
        }
    }

    fn note(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => eprintln!("{line}"),
        }
    }

    fn event(&mut self, event: JobEvent) {
        match event {
            JobEvent::Build(BuildEvent::Progress(message)) => match &self.bar {
                Some(bar) => bar.set_message(format!("building: {message}")),
                None => eprintln!("{message}"),
            },
            JobEvent::Build(BuildEvent::Output(_)) | JobEvent::Listed(..) => {}
            JobEvent::Built { errors } => {
                for error in &errors {
                    self.note(error.rendered.trim_end());
                }
                if self.building {
                    self.building = false;
                    if let Some(bar) = &self.bar {
                        bar.set_style(
                            ProgressStyle::with_template("{bar:30} {pos}/{len} {wide_msg}")
                                .expect("a valid template"),
                        );
                        bar.set_length(self.total as u64);
                        bar.set_message("");
                    }
                }
            }
            JobEvent::Output { id: None, text } => self.note(&text),
            JobEvent::Output { id: Some(_), .. } => {}
            JobEvent::Progress { id, fraction } => {
                self.fraction.insert(id.clone(), fraction);
                if let Some(bar) = &self.bar {
                    bar.set_message(format!("{id} {:.0}%", fraction * 100.0));
                }
            }
            JobEvent::State {
                id,
                state,
                result,
                message,
            } => {
                if state == ItemState::Started {
                    match &self.bar {
                        Some(bar) => bar.set_message(id.clone()),
                        None => eprintln!("{id} ..."),
                    }
                }
                if !state.is_final() {
                    return;
                }
                self.done += 1;
                let line = final_line(&id, state, result.as_deref(), message.as_deref());
                match &self.bar {
                    Some(bar) => {
                        bar.set_position(self.done as u64);
                        bar.println(&line);
                    }
                    None => eprintln!("[{}/{}] {line}", self.done, self.total),
                }
                let params = RunStateParams {
                    run_id: 1,
                    id,
                    state,
                    result,
                    message,
                };
                if self.format == Format::Jsonl {
                    if let Ok(json) = serde_json::to_string(&params) {
                        println!("{json}");
                    }
                }
                self.finals.push(params);
            }
            JobEvent::Summary(summary) => {
                if let Some(fit) = &summary.complexity {
                    self.note(&format!("{}: scaling {}", summary.id, fit.best));
                }
                for w in &summary.warnings {
                    self.note(&format!(
                        "{}: warning [{}]: {}",
                        summary.id, w.code, w.message
                    ));
                }
            }
            JobEvent::Compared { id, comparison } => {
                if let Some(result) = self
                    .finals
                    .iter_mut()
                    .find(|f| f.id == id)
                    .and_then(|f| f.result.as_mut())
                {
                    result.comparison = Some(comparison);
                }
            }
            JobEvent::Finished => {}
        }
    }

    fn finish(self) -> Vec<RunStateParams> {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        self.finals
    }
}

fn final_line(
    id: &str,
    state: ItemState,
    result: Option<&BenchResult>,
    message: Option<&str>,
) -> String {
    let state_word = serde_json::to_value(state)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    match (result, message) {
        (Some(result), _) => format!("{id} {state_word}: {}", format::one_line(result)),
        (None, Some(message)) => {
            let first = message.lines().next().unwrap_or_default();
            format!("{id} {state_word}: {first}")
        }
        (None, None) => format!("{id} {state_word}"),
    }
}

fn table(out: &mut impl Write, finals: &[RunStateParams]) -> anyhow::Result<()> {
    let rows: Vec<[String; 4]> = finals
        .iter()
        .map(|f| {
            let state = serde_json::to_value(f.state)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            match &f.result {
                Some(r) => [
                    f.id.clone(),
                    format::duration(r.estimate.median_ns),
                    format!(
                        "[{}, {}]",
                        format::duration(r.estimate.low_ns),
                        format::duration(r.estimate.high_ns)
                    ),
                    {
                        let mut notes = vec![format!("{} × {}", r.samples, r.ops_per_sample)];
                        notes.extend(format::verdict(r));
                        notes.extend(r.warnings.iter().map(|w| format!("⚠ {}", w.code)));
                        if f.state != ItemState::Passed {
                            notes.push(state);
                        }
                        notes.join("  ")
                    },
                ],
                None => [
                    f.id.clone(),
                    state,
                    String::new(),
                    f.message
                        .as_deref()
                        .and_then(|m| m.lines().next())
                        .unwrap_or_default()
                        .to_owned(),
                ],
            }
        })
        .collect();
    let header = [
        "case".to_owned(),
        "median".to_owned(),
        "95% interval".to_owned(),
        "samples × ops, notes".to_owned(),
    ];
    let width = |i: usize| {
        rows.iter()
            .chain(std::iter::once(&header))
            .map(|r| r[i].chars().count())
            .max()
            .unwrap_or(0)
    };
    let widths = [width(0), width(1), width(2)];
    for row in std::iter::once(&header).chain(&rows) {
        writeln!(
            out,
            "{:<w0$}  {:>w1$}  {:<w2$}  {}",
            row[0],
            row[1],
            row[2],
            row[3],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2]
        )?;
    }
    // Messages of failures in full, after the table.
    for f in finals.iter().filter(|f| f.result.is_none()) {
        if let Some(message) = &f.message {
            if message.lines().count() > 1 {
                writeln!(out, "\n---- {} ----\n{message}", f.id)?;
            }
        }
    }
    Ok(())
}

/// `knotmeter list [PATH]`.
pub fn list(args: ListArgs) -> anyhow::Result<ExitCode> {
    let path = args.path.unwrap_or_else(|| PathBuf::from("."));
    let workspace = workspace::load(&path)?;
    let mut discovery = Discovery::new(workspace);
    let tree = discovery.tree();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.format == ListFormat::Json {
        serde_json::to_writer_pretty(&mut out, &DiscoverResult { items: tree.items })?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    if tree.items.is_empty() {
        writeln!(
            out,
            "no benchmarks in {} (bench targets of packages that depend on knotmeter, with #[bench] functions)",
            discovery.workspace().root.display()
        )?;
    }
    let root = discovery.workspace().root.clone();
    for item in &tree.items {
        let (indent, extra) = match item.kind {
            ItemKind::Package => (0, String::new()),
            ItemKind::Target => (1, String::new()),
            ItemKind::Bench => {
                let at = tree
                    .benches
                    .iter()
                    .find(|b| b.id == item.id)
                    .map(|b| {
                        let file = b.file.strip_prefix(&root).unwrap_or(&b.file);
                        format!("  {}:{}", file.display(), b.line)
                    })
                    .unwrap_or_default();
                (2, at)
            }
            ItemKind::Case => (3, String::new()),
        };
        let shown = match item.kind {
            ItemKind::Bench | ItemKind::Case => &item.id,
            _ => &item.label,
        };
        let group = item
            .group
            .as_ref()
            .filter(|_| item.kind == ItemKind::Bench)
            .map_or(String::new(), |g| format!("  (group {g})"));
        writeln!(out, "{}{shown}{extra}{group}", "  ".repeat(indent))?;
    }
    for (file, error) in &tree.errors {
        eprintln!("warning: {} does not parse: {error}", file.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// `knotmeter history [ID]` and `knotmeter history prune`.
pub fn history(args: HistoryArgs) -> anyhow::Result<ExitCode> {
    if let Some(HistoryAction::Prune(prune_args)) = args.action {
        return prune(prune_args);
    }
    let target_dir = history_target_dir(args.path);
    let limit = args.limit as usize;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
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
                points_table(&mut out, &points)?;
            }
        }
        None => {
            let Some(runs) = found(stored::runs(target_dir.as_deref(), limit))? else {
                return Ok(ExitCode::FAILURE);
            };
            if args.format == ListFormat::Json {
                serde_json::to_writer_pretty(&mut out, &serde_json::json!({ "runs": runs }))?;
                writeln!(out)?;
            } else if runs.is_empty() {
                writeln!(out, "no recorded runs")?;
            } else {
                runs_table(&mut out, &runs)?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The target directory of the workspace at `path` (the current directory by default), to
/// find its history; `None` when `KNOTMETER_HISTORY` names the file, or (with a note) when
/// there is no workspace there.
fn history_target_dir(path: Option<PathBuf>) -> Option<PathBuf> {
    if std::env::var_os(knotmeter_history::HISTORY_ENV).is_some_and(|v| !v.is_empty()) {
        return None;
    }
    let path = path.unwrap_or_else(|| PathBuf::from("."));
    match workspace::load(&path) {
        Ok(workspace) => Some(workspace.target_dir),
        Err(e) => {
            eprintln!("knotmeter: {e}; looking for the history without a workspace");
            None
        }
    }
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

fn points_table(out: &mut impl Write, points: &[HistoryPoint]) -> anyhow::Result<()> {
    writeln!(
        out,
        "{:>6}  {:<16}  {:>7}  {:>10}  {:<24}  {:<8}  {:<11}  commit",
        "run", "started (UTC)", "budget", "median", "95% interval", "verdict", "run status"
    )?;
    for p in points {
        let verdict = p
            .verdict
            .and_then(|v| serde_json::to_value(v).ok())
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_else(|| "—".into());
        let mut notes = Vec::new();
        if p.partial == Some(true) {
            notes.push("partial: cut short by a cancel".to_owned());
        }
        if let Some(name) = &p.baseline {
            notes.push(format!("baseline {name}"));
        }
        writeln!(
            out,
            "{:>6}  {:<16}  {:>7}  {:>10}  {:<24}  {:<8}  {:<11}  {}{}",
            p.run.0,
            stored::time_text(p.timestamp),
            p.budget_ms.map_or_else(|| "—".to_owned(), budget),
            format::duration(p.median_ns),
            format!(
                "[{}, {}]",
                format::duration(p.low_ns),
                format::duration(p.high_ns)
            ),
            verdict,
            p.status.map_or("—", |s| s.as_str()),
            commit(p.git_commit.as_deref()),
            if notes.is_empty() {
                String::new()
            } else {
                format!("  ({})", notes.join("; "))
            }
        )?;
    }
    Ok(())
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
            budget(r.budget_ms),
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

/// A time budget per case: `100 ms` (`--quick`), `1 s`.
fn budget(ms: u64) -> String {
    match ms {
        0 => "—".to_owned(),
        ms if ms % 1000 == 0 => format!("{} s", ms / 1000),
        ms if ms >= 1000 => format!("{:.1} s", ms as f64 / 1000.0),
        ms => format!("{ms} ms"),
    }
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
    };
    let plan = history.prune_plan(retention)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    writeln!(
        out,
        "{}: {} results in {} runs ({})",
        path.display(),
        plan.results_before,
        plan.runs_before,
        bytes(history.file_size())
    )?;
    let kept: Vec<String> = plan
        .baselines
        .iter()
        .map(|b| format!("{} (run {})", b.name, b.run))
        .collect();
    writeln!(
        out,
        "keeping the newest {} results of each case on each machine, profile and budget{}{}",
        args.keep,
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
        "done: removed {} results and {} runs, closed {}, rewrote {}; the file went from {} to {}",
        done.results,
        done.runs,
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
mod tests {
    #[test]
    fn budgets_read_as_seconds_or_milliseconds() {
        assert_eq!(super::budget(100), "100 ms");
        assert_eq!(super::budget(1000), "1 s");
        assert_eq!(super::budget(2500), "2.5 s");
        assert_eq!(super::budget(0), "—");
    }
}
