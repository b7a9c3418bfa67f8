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
use knotmeter_protocol::BenchResult;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::cargo_build::BuildEvent;
use crate::cli::{Format, HistoryArgs, ListArgs, ListFormat, RunArgs};
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

/// `knotmeter history ID`.
pub fn history(args: HistoryArgs) -> anyhow::Result<ExitCode> {
    let path = args.path.unwrap_or_else(|| PathBuf::from("."));
    let target_dir = match workspace::load(&path) {
        Ok(workspace) => Some(workspace.target_dir),
        Err(e) => {
            eprintln!("knotmeter: {e}; looking for the history without a workspace");
            None
        }
    };
    let points = match stored::points(target_dir.as_deref(), &args.id, args.limit as usize) {
        Stored::Points(points) => points,
        Stored::NoStore(path) => {
            eprintln!(
                "knotmeter: no history yet ({} does not exist): `knotmeter run` or `cargo bench` records one",
                path.display()
            );
            Vec::new()
        }
        Stored::Unreadable(why) => {
            eprintln!("knotmeter: {why}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.format == ListFormat::Json {
        serde_json::to_writer_pretty(&mut out, &HistoryResult { points })?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    if points.is_empty() {
        writeln!(out, "no stored results for `{}`", args.id)?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        out,
        "{:>6}  {:<10}  {:>10}  {:<24}  {:<8}  commit",
        "run", "date", "median", "95% interval", "verdict"
    )?;
    for p in &points {
        let verdict = p
            .verdict
            .and_then(|v| serde_json::to_value(v).ok())
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_else(|| "—".into());
        writeln!(
            out,
            "{:>6}  {:<10}  {:>10}  {:<24}  {:<8}  {}{}",
            p.run.0,
            date(p.timestamp),
            format::duration(p.median_ns),
            format!(
                "[{}, {}]",
                format::duration(p.low_ns),
                format::duration(p.high_ns)
            ),
            verdict,
            p.git_commit
                .as_deref()
                .map_or("—", |c| &c[..c.len().min(10)]),
            p.baseline
                .as_deref()
                .map_or(String::new(), |b| format!("  (baseline {b})"))
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `YYYY-MM-DD` of a Unix time (UTC), without a date library.
fn date(seconds: u64) -> String {
    let days = (seconds / 86_400) as i64;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates_are_utc_calendar_days() {
        assert_eq!(super::date(0), "1970-01-01");
        assert_eq!(super::date(1_700_000_000), "2023-11-14");
    }
}
