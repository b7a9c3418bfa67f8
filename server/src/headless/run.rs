//! `knotmeter run [PATH] [FILTER]`: the job followed on a terminal, its results on standard
//! output, its exit status.

use std::collections::{HashMap, HashSet};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use knotmeter_protocol::editor::{ItemState, RunMode, RunStateParams, SourceLocation};
use knotmeter_protocol::{BenchResult, Partition};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::select::{path_and_filter, shard, Selection};
use crate::cargo_build::BuildEvent;
use crate::cli::{Format, MeasureArg, RunArgs};
use crate::discovery::{workspace, Discovery, TargetRef, Tree, Workspace};
use crate::process::Children;
use crate::runs::{self, Job, JobEvent, Problem, RunOptions};
use crate::signals::{self, Heard, Signals, Stop, Stopping};
use crate::terminal::{self, RunRecord};
use knotmeter_format::layout;

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
    let (path, filter, guessed) = match path_and_filter(args.path.as_deref(), args.filter.clone()) {
        Ok(found) => found,
        Err(message) => {
            eprintln!("knotmeter: {message}");
            return Ok(ExitCode::from(status::USAGE));
        }
    };
    if let Some(why) = super::cannot_count(args.measure) {
        eprintln!("knotmeter: {why}");
        return Ok(ExitCode::from(status::USAGE));
    }
    let workspace = workspace::load(&path)?;
    let targets = match targets_to_run(&args, &workspace, filter, guessed) {
        Ok(targets) => targets,
        Err(code) => return Ok(code),
    };
    let mode = if args.quick {
        RunMode::Quick
    } else {
        RunMode::Full
    };
    let job = Job {
        run_id: 1,
        mode,
        targets,
    };
    let (ended, started) = execute(job, workspace, run_options(&args), args.format)?;
    let mut view = match ended {
        Ended::AtOnce(stop) => return Ok(ExitCode::from(signals::exit_status(stop))),
        Ended::Done(view) => view,
    };
    view.record.wall_ns = started.elapsed().as_nanos() as f64;
    view.record.present();
    let code = view.exit_status();
    if view.refused.is_none() {
        write_results(&view, args.format)?;
    }
    view.summary();
    if super::github::on_github_actions() {
        super::github::report(&view.record);
    }
    Ok(ExitCode::from(code))
}

/// The cases `args` select in `workspace` (`filter`, and whether it was `guessed` from a
/// lone word), by target: this shard's under `--partition`, with a note of what the shard
/// runs. Instead, the exit status when there is nothing to run, said on standard error.
fn targets_to_run(
    args: &RunArgs,
    workspace: &Workspace,
    filter: Option<String>,
    guessed: bool,
) -> Result<Vec<(TargetRef, Vec<String>)>, ExitCode> {
    let tree = Discovery::new(workspace.clone()).tree();
    let selection = Selection {
        filter: filter.clone(),
        exact: args.exact,
        skip: args.skip.clone(),
    };
    let targets = selection.apply(&tree);
    let selected: usize = targets.iter().map(|(_, ids)| ids.len()).sum();
    if selected == 0 {
        nothing_selected(args, workspace, &tree, selection, guessed);
        return Err(ExitCode::from(status::USAGE));
    }
    let targets = match args.partition {
        None => targets,
        Some(partition) => match this_shard(&tree, targets, partition, args.format) {
            Some(targets) => targets,
            None => return Err(ExitCode::SUCCESS),
        },
    };
    if let (true, Some(f)) = (guessed, &filter) {
        eprintln!(
            "knotmeter: `{f}` is no file or directory here: running the {selected} benchmark(s) \
             whose id contains it"
        );
    }
    Ok(targets)
}

/// Says on standard error why `selection` (of a filter `guessed` from a lone word, or not)
/// selects nothing in `tree`: `--skip`, the filter, or no benchmarks at all.
fn nothing_selected(
    args: &RunArgs,
    workspace: &Workspace,
    tree: &Tree,
    selection: Selection,
    guessed: bool,
) {
    let discovered: usize = tree.benches().map(|b| b.leaf_ids().len()).sum();
    let filter = selection.filter.clone();
    let filter_alone = Selection {
        skip: Vec::new(),
        ..selection
    };
    let skip_is_why = !args.skip.is_empty() && !filter_alone.apply(tree).is_empty();
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
}

/// The shard `partition` keeps of `targets`, with a note of what it runs; `None` when it
/// holds nothing (said, with an empty document for `--format json`): the other shards run
/// everything.
fn this_shard(
    tree: &Tree,
    targets: Vec<(TargetRef, Vec<String>)>,
    partition: Partition,
    format: Format,
) -> Option<Vec<(TargetRef, Vec<String>)>> {
    let shard = shard(tree, targets, partition);
    let cases: usize = shard.targets.iter().map(|(_, ids)| ids.len()).sum();
    if shard.targets.is_empty() {
        eprintln!(
            "knotmeter: --partition {partition}: this shard holds none of the {} \
             benchmark(s) and comparison group(s) selected; the other shards run them",
            shard.units
        );
        if format == Format::Json {
            println!("{{\n  \"items\": []\n}}");
        }
        return None;
    }
    eprintln!(
        "knotmeter: --partition {partition}: this shard runs {} of the {} benchmark(s) \
         and comparison group(s) selected ({cases} case(s))",
        shard.kept, shard.units
    );
    Some(shard.targets)
}

/// How `knotmeter run` carries out runs, from its flags.
fn run_options(args: &RunArgs) -> RunOptions {
    RunOptions {
        silence_limit: Duration::from_secs_f64(args.case_timeout),
        quick_time: args.time.filter(|_| args.quick),
        full_time: args.time.filter(|_| !args.quick),
        bench_args: bench_args(args),
        partition: args.partition,
        ..RunOptions::default()
    }
}

/// Carries out `job` on a runtime of its own, showing it in `format`; nothing it started
/// outlives it, whichever way it ends. Returns how it ended and when it started.
fn execute(
    job: Job,
    workspace: Workspace,
    options: RunOptions,
    format: Format,
) -> anyhow::Result<(Ended, std::time::Instant)> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let children = Children::default();
    let started = std::time::Instant::now();
    let ended = runtime.block_on(follow(job, workspace, options, children.clone(), format));
    // Nothing may outlive `knotmeter run`, whichever way it ends.
    children.kill_all();
    runtime.shutdown_timeout(Duration::from_millis(100));
    Ok((ended?, started))
}

/// The results on standard output in `format` (`jsonl` streamed them already), after the
/// run; a reader gone away is not an error.
fn write_results(view: &View, format: Format) -> anyhow::Result<()> {
    let mut out = Stdout::default();
    match format {
        Format::Pretty => {
            let mut text = view.record.table().into_bytes();
            full_messages(&mut text, &view.record.finals, &view.shown)?;
            out.write(&text);
        }
        Format::Json => {
            let items = &view.record.finals;
            let mut text = serde_json::to_vec_pretty(&serde_json::json!({ "items": items }))?;
            text.push(b'\n');
            out.write(&text);
        }
        Format::Jsonl => {}
        Format::Csv => {
            out.write(view.record.csv().as_bytes());
        }
        Format::Markdown => match view.record.markdown() {
            Some(text) => {
                out.write(text.as_bytes());
            }
            None => say("knotmeter: no bench binary ran, so there is no Markdown report"),
        },
    }
    Ok(())
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
    workspace: Workspace,
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
            stop = signals.next() => match view.stopping.hear(stop) {
                Heard::AtOnce { first, again } => {
                    children.kill_all();
                    view.note(&Heard::at_once_note(again));
                    view.abandon();
                    return Ok(Ended::AtOnce(first));
                }
                Heard::Cancel(stop) => {
                    view.note(&format!(
                        "knotmeter: {stop}: cancelling; the engine stops at the next sample \
                         boundary and keeps what it measured ({stop} again stops at once)"
                    ));
                    cancel.cancel();
                }
            },
        }
        if view.output_closed && !cancel.is_cancelled() {
            // Nobody reads the results any more (`| head`): stop measuring.
            cancel.cancel();
        }
    }
    let _ = task.await;
    Ok(Ended::Done(Box::new(view.finish())))
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
    if args.measure == MeasureArg::Instructions {
        out.extend(["--measure".to_owned(), "instructions".to_owned()]);
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
    /// What the run reported: final states, analyses, listed cases, the manifest.
    record: RunRecord,
    building: bool,
    fraction: HashMap<String, f64>,
    stdout: Stdout,
    /// Standard output was closed by its reader while streaming `jsonl`.
    output_closed: bool,
    /// The stopping signals heard.
    stopping: Stopping,
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
            record: RunRecord::default(),
            building: true,
            fraction: HashMap::new(),
            stdout: Stdout::default(),
            output_closed: false,
            stopping: Stopping::default(),
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
            JobEvent::Build(BuildEvent::Output(_)) => {}
            JobEvent::Listed(_, cases) => self.record.cases.extend(cases),
            JobEvent::Manifest(manifest) => {
                self.record.manifest.get_or_insert(*manifest);
            }
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
            // Written before the event, and with it its share of the output in flight, goes.
            JobEvent::Printed { text, .. } => self.note(&text),
            JobEvent::Problem(problem) => self.problem(problem),
            // Only the editor's comparison runs send it; `knotmeter compare` prints its own.
            // `knotmeter run` neither compares builds nor profiles.
            JobEvent::BuildsShown(_) | JobEvent::Profiled { .. } | JobEvent::ProfileCompared(_) => {
            }
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
                location,
            } => self.state(id, state, result, message, location),
            JobEvent::Summary(summary) => {
                self.note(&layout::bench_text(&summary));
                self.record.summaries.insert(summary.id.clone(), summary);
            }
            JobEvent::Comparison { id, comparison } => {
                if let Some(result) = self
                    .record
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
            Problem::Crashed { .. }
            | Problem::Hung { .. }
            | Problem::FailedExit { .. }
            | Problem::BaseUnusable { .. } => {}
        }
        self.problems.push(problem);
    }

    fn state(
        &mut self,
        id: String,
        state: ItemState,
        result: Option<Box<BenchResult>>,
        message: Option<String>,
        location: Option<SourceLocation>,
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
        let mut params = RunStateParams {
            run_id: 1,
            id,
            state,
            result,
            message,
            location,
            shown: None,
            bench: None,
        };
        params.shown = self.record.shown(&params).map(Box::new);
        // After a refused command line nothing ran: the refusal is said once, at the end.
        if self.refused.is_none() {
            let line = terminal::final_line(&params, params.shown.as_deref());
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
        self.record.finals.push(params);
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
        if let Some(stop) = self.stopping.first() {
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
            .record
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
                Problem::BaseUnusable { message } => format!("knotmeter: not compared: {message}"),
                Problem::Build { .. } | Problem::Harness { .. } | Problem::Refused { .. } => {
                    continue
                }
            };
            say(line.lines().next().unwrap_or_default());
        }
        let why = match (self.stopping.first(), self.output_closed) {
            (Some(stop), _) => format!("; interrupted by {stop}"),
            (None, true) => "; stopped: standard output was closed".to_owned(),
            (None, false) => String::new(),
        };
        say(&format!("knotmeter: {}{why}", self.record.closing_line()));
    }
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
