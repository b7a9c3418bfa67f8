//! The commands without an editor: `knotmeter run`, `list` and `history`.
//!
//! `run` is the daemon's pipeline (discover, build, run; the engine stores history) with a
//! terminal front end: progress bars (indicatif) on a terminal and plain lines otherwise, on
//! standard error; results on standard output. Everything about the command line is checked
//! before anything is built. Ctrl-C, SIGTERM or SIGHUP cancel gracefully: the engine stops at
//! the next sample boundary and the partial result is shown; a second signal stops at once.
//! The exit status says what happened (`cli::RUN_EXIT_STATUSES`).

use std::collections::{HashMap, HashSet};
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
use crate::discovery::{workspace, Discovery, TargetRef, Tree};
use crate::format;
use crate::runs::process::Children;
use crate::runs::{self, Job, JobEvent, Problem, RunOptions};
use crate::signals::{self, Signals, Stop};
use crate::stored::{self, Stored};

/// Exit statuses of `knotmeter run`, as `cli::RUN_EXIT_STATUSES` documents them.
mod status {
    /// A benchmark failed, or a bench binary's run ended with a failure status.
    pub const FAILED: u8 = 1;
    /// The command line or the workspace is wrong.
    pub const USAGE: u8 = 2;
    /// The build failed.
    pub const BUILD: u8 = 3;
    /// A bench binary crashed or a case hung.
    pub const CRASHED: u8 = 4;
    /// The reader of standard output went away (128 + SIGPIPE).
    pub const OUTPUT_CLOSED: u8 = 141;
}

/// `knotmeter run [PATH] [FILTER]`.
pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    if let Some(name) = match args.format {
        Format::Csv => Some("csv"),
        Format::Markdown => Some("markdown"),
        Format::Pretty | Format::Json | Format::Jsonl => None,
    } {
        eprintln!(
            "knotmeter: `--format {name}` is not available in `knotmeter run` yet (pretty, json \
             and jsonl are); the bench binary has it: `cargo bench -- --format {name}`"
        );
        return Ok(ExitCode::from(status::USAGE));
    }
    let (path, filter, guessed) = match path_and_filter(args.path.as_deref(), args.filter.clone()) {
        Ok(found) => found,
        Err(message) => {
            eprintln!("knotmeter: {message}");
            return Ok(ExitCode::from(status::USAGE));
        }
    };
    let workspace = workspace::load(&path)?;
    let tree = Discovery::new(workspace.clone()).tree();
    let selection = Selection {
        filter: filter.clone(),
        exact: args.exact,
        skip: args.skip.clone(),
    };
    let targets = selection.apply(&tree);
    let selected: usize = targets.iter().map(|(_, ids)| ids.len()).sum();
    let discovered: usize = tree.benches.iter().map(|b| b.leaf_ids().len()).sum();
    if selected == 0 {
        let filter_alone = Selection {
            skip: Vec::new(),
            ..selection
        };
        let skip_is_why = !args.skip.is_empty() && !filter_alone.apply(&tree).is_empty();
        let what = match &filter {
            _ if skip_is_why => "--skip leaves out every benchmark selected".to_owned(),
            Some(f) => {
                let none = if args.exact {
                    format!("no benchmark id or name is exactly `{f}`")
                } else {
                    format!("no benchmark matches `{f}`")
                };
                if guessed {
                    format!("`{f}` is no file or directory here, and {none}")
                } else {
                    none
                }
            }
            None => "no benchmarks (bench targets of packages that depend on knotmeter, with \
                     #[bench] functions)"
                .to_owned(),
        };
        eprintln!(
            "knotmeter: nothing to run: {what} in {} ({discovered} discovered; `knotmeter list` \
             shows them)",
            workspace.root.display()
        );
        return Ok(ExitCode::from(status::USAGE));
    }
    if let (true, Some(f)) = (guessed, &filter) {
        eprintln!(
            "knotmeter: `{f}` is no file or directory here: running the {selected} benchmark(s) \
             whose id contains it"
        );
    }
    let mode = if args.quick {
        RunMode::Quick
    } else {
        RunMode::Full
    };
    let options = RunOptions {
        silence_limit: Duration::from_secs_f64(args.case_timeout),
        quick_time: args.time.filter(|_| args.quick),
        full_time: args.time.filter(|_| !args.quick),
        bench_args: bench_args(&args),
        ..RunOptions::default()
    };
    let job = Job {
        run_id: 1,
        mode,
        targets,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let children = Children::default();
    let ended = runtime.block_on(follow(
        job,
        workspace,
        options,
        children.clone(),
        args.format,
    ));
    // Nothing may outlive `knotmeter run`, whichever way it ends.
    children.kill_all();
    runtime.shutdown_timeout(Duration::from_millis(100));
    let ended = ended?;
    let view = match ended {
        Ended::AtOnce(stop) => return Ok(ExitCode::from(signals::exit_status(stop))),
        Ended::Done(view) => view,
    };
    let code = view.exit_status();
    let mut out = Stdout::default();
    if view.refused.is_none() {
        match args.format {
            Format::Pretty => {
                let mut text = Vec::new();
                table(&mut text, &view.finals)?;
                full_messages(&mut text, &view.finals, &view.shown)?;
                out.write(&text);
            }
            Format::Json => {
                let mut text =
                    serde_json::to_vec_pretty(&serde_json::json!({ "items": view.finals }))?;
                text.push(b'\n');
                out.write(&text);
            }
            Format::Jsonl | Format::Csv | Format::Markdown => {}
        }
    }
    view.summary();
    Ok(ExitCode::from(code))
}

/// How following a job ended.
enum Ended {
    /// Every item reached a final state (or the job was cancelled and wound down).
    Done(Box<View>),
    /// A second signal: stop at once, showing nothing more.
    AtOnce(Stop),
}

/// Runs `job`, showing its events, until it finishes or a second signal arrives.
async fn follow(
    job: Job,
    workspace: crate::discovery::Workspace,
    options: RunOptions,
    children: Children,
    format: Format,
) -> anyhow::Result<Ended> {
    let mut signals = Signals::new().context("cannot listen for signals")?;
    let total = job.ids().count();
    let (tx, mut rx) = mpsc::unbounded_channel();
    let cancel = CancellationToken::new();
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
    let mut view = View::new(total, format);
    loop {
        tokio::select! {
            event = rx.recv() => match event {
                Some(JobEvent::Finished) | None => break,
                Some(event) => view.event(event),
            },
            stop = signals.next() => {
                if view.interrupted.is_some() {
                    children.kill_all();
                    view.note(&format!("knotmeter: {stop} again: stopped at once"));
                    view.abandon();
                    return Ok(Ended::AtOnce(view.interrupted.unwrap_or(stop)));
                }
                view.interrupted = Some(stop);
                view.note(&format!(
                    "knotmeter: {stop}: cancelling; the engine stops at the next sample boundary \
                     and keeps what it measured ({stop} again stops at once)"
                ));
                cancel.cancel();
            }
        }
        if view.output_closed && !cancel.is_cancelled() {
            // Nobody reads the results any more (`| head`): stop measuring.
            cancel.cancel();
        }
    }
    let _ = task.await;
    Ok(Ended::Done(Box::new(view.finish())))
}

/// The PATH and FILTER of `knotmeter run`, and whether a lone word was taken as FILTER because
/// no such file or directory exists.
fn path_and_filter(
    path: Option<&str>,
    filter: Option<String>,
) -> Result<(PathBuf, Option<String>, bool), String> {
    match (path, filter) {
        (None, filter) => Ok((PathBuf::from("."), filter, false)),
        (Some(path), filter) if Path::new(path).exists() => {
            Ok((PathBuf::from(path), filter, false))
        }
        (Some(word), None) => Ok((PathBuf::from("."), Some(word.to_owned()), true)),
        (Some(path), Some(_)) => Err(format!(
            "`{path}` does not exist: the first of two arguments is the package or workspace \
             directory (or its Cargo.toml), the second the filter"
        )),
    }
}

/// Which discovered cases run: the bench binary's rules for a filter, `--exact` and `--skip`.
struct Selection {
    filter: Option<String>,
    exact: bool,
    skip: Vec<String>,
}

impl Selection {
    fn hit(&self, pattern: &str, id: &str, bench_id: &str) -> bool {
        let strip = |id: &str| id.split_once("::").map_or(id, |(_, rest)| rest).to_owned();
        if self.exact {
            [
                id.to_owned(),
                strip(id),
                bench_id.to_owned(),
                strip(bench_id),
            ]
            .iter()
            .any(|name| name == pattern)
        } else {
            id.contains(pattern)
        }
    }

    fn matches(&self, id: &str, bench_id: &str) -> bool {
        self.filter
            .as_deref()
            .is_none_or(|f| self.hit(f, id, bench_id))
            && !self.skip.iter().any(|s| self.hit(s, id, bench_id))
    }

    /// The selected leaf ids, by target, in the tree's order.
    fn apply(&self, tree: &Tree) -> Vec<(TargetRef, Vec<String>)> {
        let bench_of: HashMap<String, &str> = tree
            .benches
            .iter()
            .flat_map(|b| {
                b.leaf_ids()
                    .into_iter()
                    .map(move |leaf| (leaf, b.id.as_str()))
            })
            .collect();
        tree.select(None, &[])
            .into_iter()
            .map(|(target, ids)| {
                let ids = ids
                    .into_iter()
                    .filter(|id| self.matches(id, bench_of.get(id).copied().unwrap_or(id)))
                    .collect::<Vec<_>>();
                (target, ids)
            })
            .filter(|(_, ids)| !ids.is_empty())
            .collect()
    }
}

/// The flags `knotmeter run` passes to every bench binary as they are.
fn bench_args(args: &RunArgs) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(name) = &args.baseline {
        out.extend(["--baseline".to_owned(), name.clone()]);
    }
    if let Some(name) = &args.save_baseline {
        out.extend(["--save-baseline".to_owned(), name.clone()]);
    }
    if let Some(percent) = args.fail_on_regression {
        out.extend(["--fail-on-regression".to_owned(), percent.to_string()]);
    }
    if args.no_history {
        out.push("--no-history".to_owned());
    }
    out
}

/// Standard output that notices when its reader has gone (`| head`) and then stays quiet.
#[derive(Default)]
struct Stdout {
    closed: bool,
}

impl Stdout {
    /// Writes `bytes` whole; false once the reader has gone.
    fn write(&mut self, bytes: &[u8]) -> bool {
        if self.closed {
            return false;
        }
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        if out.write_all(bytes).and_then(|()| out.flush()).is_err() {
            self.closed = true;
        }
        !self.closed
    }
}

/// A line on standard error; a closed standard error is not worth a panic.
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
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
    stdout: Stdout,
    /// Standard output was closed by its reader while streaming `jsonl`.
    output_closed: bool,
    /// The first stopping signal, if one arrived.
    interrupted: Option<Stop>,
    problems: Vec<Problem>,
    /// A bench binary refused the command line (what it said went out as it came).
    refused: Option<TargetRef>,
    /// Messages already shown in full (build errors), not repeated after the table.
    shown: HashSet<String>,
    /// The build's compiler errors were shown (with `Built`).
    compiler_errors_shown: bool,
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
            stdout: Stdout::default(),
            output_closed: false,
            interrupted: None,
            problems: Vec::new(),
            refused: None,
            shown: HashSet::new(),
            compiler_errors_shown: false,
        }
    }

    fn note(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => say(line),
        }
    }

    fn event(&mut self, event: JobEvent) {
        match event {
            JobEvent::Build(BuildEvent::Progress(message)) => match &self.bar {
                Some(bar) => bar.set_message(format!("building: {message}")),
                None => say(&message),
            },
            JobEvent::Build(BuildEvent::Output(_)) | JobEvent::Listed(..) => {}
            JobEvent::Built { errors } => {
                for error in &errors {
                    self.note(error.rendered.trim_end());
                }
                self.compiler_errors_shown = !errors.is_empty();
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
            // What the bench binary wrote itself: the benchmark's prints, the engine's messages.
            JobEvent::Printed { text, .. } => self.note(&text),
            JobEvent::Problem(problem) => self.problem(problem),
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
            } => self.state(id, state, result, message),
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

    fn problem(&mut self, problem: Problem) {
        match &problem {
            // The rendered compiler errors were shown with `Built`; a failure of cargo itself
            // is shown here, once.
            Problem::Build { message, .. } => {
                if self.shown.insert(message.clone()) && !self.compiler_errors_shown {
                    self.note(message);
                }
            }
            Problem::Harness { message, .. } => {
                if self.shown.insert(message.clone()) {
                    self.note(&format!("knotmeter: {message}"));
                }
            }
            Problem::Refused { target, .. } => {
                self.refused = Some(target.clone());
            }
            Problem::Crashed { .. } | Problem::Hung { .. } | Problem::FailedExit { .. } => {}
        }
        self.problems.push(problem);
    }

    fn state(
        &mut self,
        id: String,
        state: ItemState,
        result: Option<Box<BenchResult>>,
        message: Option<String>,
    ) {
        if state == ItemState::Started {
            match &self.bar {
                Some(bar) => bar.set_message(id.clone()),
                None => say(&format!("{id} ...")),
            }
        }
        if !state.is_final() {
            return;
        }
        self.done += 1;
        let params = RunStateParams {
            run_id: 1,
            id,
            state,
            result,
            message,
        };
        // After a refused command line nothing ran: the refusal is said once, at the end.
        if self.refused.is_none() {
            let line = final_line(
                &params.id,
                state,
                params.result.as_deref(),
                params.message.as_deref(),
            );
            match &self.bar {
                Some(bar) => {
                    bar.set_position(self.done as u64);
                    bar.println(&line);
                }
                None => say(&format!("[{}/{}] {line}", self.done, self.total)),
            }
            if self.format == Format::Jsonl {
                if let Ok(mut json) = serde_json::to_vec(&params) {
                    json.push(b'\n');
                    if !self.stdout.write(&json) {
                        self.output_closed = true;
                    }
                }
            }
        }
        self.finals.push(params);
    }

    /// The bars go away; nothing more is shown.
    fn abandon(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    fn finish(self) -> Self {
        self.abandon();
        self
    }

    /// The exit status, by the precedence `cli::RUN_EXIT_STATUSES` states.
    fn exit_status(&self) -> u8 {
        if let Some(stop) = self.interrupted {
            return signals::exit_status(stop);
        }
        if self.output_closed {
            return status::OUTPUT_CLOSED;
        }
        let any = |f: fn(&Problem) -> bool| self.problems.iter().any(f);
        if any(|p| matches!(p, Problem::Refused { .. } | Problem::Harness { .. })) {
            return status::USAGE;
        }
        if any(|p| matches!(p, Problem::Build { .. })) {
            return status::BUILD;
        }
        if any(|p| matches!(p, Problem::Crashed { .. } | Problem::Hung { .. })) {
            return status::CRASHED;
        }
        let bad = self
            .finals
            .iter()
            .any(|f| matches!(f.state, ItemState::Failed | ItemState::Errored));
        if bad || any(|p| matches!(p, Problem::FailedExit { .. })) {
            return status::FAILED;
        }
        0
    }

    /// What happened, on standard error: the counts, every crash and hang with its case, and
    /// why the run stopped early.
    fn summary(&self) {
        if let Some(target) = &self.refused {
            say(&format!(
                "knotmeter: nothing was measured: the bench binary of `{}` refused its command \
                 line (exit status 2; its message is above)",
                target.target
            ));
            return;
        }
        for problem in &self.problems {
            let line = match problem {
                Problem::Crashed {
                    target,
                    case: Some(case),
                    message,
                } => format!(
                    "knotmeter: `{case}` crashed: {message} (bench target `{}` of `{}`)",
                    target.target, target.package
                ),
                Problem::Crashed {
                    target,
                    case: None,
                    message,
                } => format!(
                    "knotmeter: the bench target `{}` of `{}` crashed: {message}",
                    target.target, target.package
                ),
                Problem::Hung {
                    case: Some(case),
                    message,
                    ..
                } => format!("knotmeter: `{case}` {message}"),
                Problem::Hung {
                    target,
                    case: None,
                    message,
                } => format!(
                    "knotmeter: the bench target `{}` of `{}`: {message}",
                    target.target, target.package
                ),
                Problem::FailedExit { target, code } => format!(
                    "knotmeter: the bench binary of `{}` ended its run with status {code}",
                    target.target
                ),
                Problem::Build { .. } | Problem::Harness { .. } | Problem::Refused { .. } => {
                    continue
                }
            };
            say(line.lines().next().unwrap_or_default());
        }
        let count = |state: ItemState| self.finals.iter().filter(|f| f.state == state).count();
        let partial = self
            .finals
            .iter()
            .filter(|f| f.state == ItemState::Skipped && f.result.is_some())
            .count();
        let mut counts = vec![format!("{} passed", count(ItemState::Passed))];
        for (state, word) in [
            (ItemState::Failed, "failed"),
            (ItemState::Errored, "errored"),
        ] {
            if count(state) > 0 {
                counts.push(format!("{} {word}", count(state)));
            }
        }
        let skipped = count(ItemState::Skipped);
        if skipped > 0 {
            counts.push(if partial > 0 {
                format!("{skipped} skipped ({partial} with a partial result)")
            } else {
                format!("{skipped} skipped")
            });
        }
        let why = match (self.interrupted, self.output_closed) {
            (Some(stop), _) => format!("; interrupted by {stop}"),
            (None, true) => "; stopped: standard output was closed".to_owned(),
            (None, false) => String::new(),
        };
        say(&format!("knotmeter: {}{why}", counts.join(", ")));
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
    Ok(())
}

/// The messages of failures in full, after the table: each distinct message once, headed by
/// the cases it concerns; messages already shown (build errors) are not repeated.
fn full_messages(
    out: &mut impl Write,
    finals: &[RunStateParams],
    shown: &HashSet<String>,
) -> anyhow::Result<()> {
    let mut order: Vec<&str> = Vec::new();
    let mut ids: HashMap<&str, Vec<&str>> = HashMap::new();
    for f in finals.iter().filter(|f| f.result.is_none()) {
        let Some(message) = f.message.as_deref() else {
            continue;
        };
        if message.lines().count() <= 1 || shown.contains(message) {
            continue;
        }
        let cases = ids.entry(message).or_default();
        if cases.is_empty() {
            order.push(message);
        }
        cases.push(&f.id);
    }
    for message in order {
        let cases = &ids[message];
        let head = match cases.len() {
            1 => cases[0].to_owned(),
            n => format!("{} and {} more", cases[0], n - 1),
        };
        writeln!(out, "\n---- {head} ----\n{message}")?;
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
            "no benchmarks in {} (bench targets of packages that depend on knotmeter, with #[bench] functions, or on knotmeter-criterion)",
            discovery.workspace().root.display()
        )?;
    }
    let root = discovery.workspace().root.clone();
    for item in &tree.items {
        let (indent, extra) = match item.kind {
            ItemKind::Package => (0, String::new()),
            ItemKind::Target => (
                1,
                item.detail
                    .as_ref()
                    .map_or(String::new(), |d| format!("  ({d})")),
            ),
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
