//! `cargo xtask compare-builds`: how well `knotmeter compare` answers "is my change faster?",
//! measured on a fixture repository whose differences are known (`fixture`), and written to
//! `docs/compare.md` between markers.
//!
//! For each machine state (as it is, and with a CPU-bound process competing for a core the
//! whole time), `--runs` times each:
//!
//! * **A/A**: `knotmeter compare HEAD~1` in the working tree, whose commit differs from its
//!   parent by one comment: two builds of identical code, as the issue compared them. Every
//!   verdict but `same` is false. The cases are chain-like (a dependency chain of arithmetic)
//!   or realistic (a `Vec` push loop, map builds, sorts, parsing), counted apart
//!   ([`fixture::Body`]): in the issue, 12 of 42 verdicts (29%) were not `same`, none of
//!   them on a chain-like body.
//! * **A/B**: `knotmeter compare --head change HEAD~1`: one case +1% work, one +5%, one −5%,
//!   the rest unchanged. A verdict is right when it says `slower`, `slower`, `faster` and
//!   `same`.
//! * **Before/after through the history** (what knotmeter offered before): the A/B's base's
//!   bench binary with `--save-baseline base`, then its head's with `--baseline base`. Each run
//!   starts from a copy of one history that holds [`LEARNING_RUNS`] runs of the base alone, so
//!   the run-to-run noise estimate has learned the machine from unchanged code: with one file
//!   for all runs, base and head would alternate in it and the estimate would take the very
//!   change being measured for noise.
//! * **In-binary groups**: both versions of each case in one bench binary as comparison
//!   groups, the quality `knotmeter compare` aims at, and the time it is held against.
//!
//! The report is printed; with `--write` it replaces the generated section of
//! `docs/compare.md`, stamped with the commit measured (which needs a clean tree: `stamp`).
//!
//! It is a benchmark, not a test: CI does not run it.

mod fixture;
mod render;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use knotmeter_protocol::{CompareReport, Report, Verdict};

use crate::stamp::sections::COMPARE_BUILDS;
use crate::{cargo, docs, stamp};
use fixture::{Fixture, BASE_REV, CHANGED, CHANGE_BRANCH, UNCHANGED};

const USAGE: &str = "usage: cargo xtask compare-builds [--runs N] [--time SECS] [--no-load] \
                     [--no-before-after] [--write]";
const SECTION_BEGIN: &str = "<!-- xtask compare-builds: begin -->";
const SECTION_END: &str = "<!-- xtask compare-builds: end -->";
/// The filter that keeps the `builds` target's cases (the `grouped` target is for the groups).
const ONLY_BUILDS: &str = "builds::";
/// The A/A comparison: the working tree against its parent, a comment apart.
const AA: [&str; 3] = [BASE_REV, ".", ONLY_BUILDS];
/// The A/B comparison: the `change` branch against the same base.
const AB: [&str; 5] = ["--head", CHANGE_BRANCH, BASE_REV, ".", ONLY_BUILDS];
/// Runs per figure by default.
const DEFAULT_RUNS: usize = 10;
/// Runs of the base stored before the before/after runs, for its run-to-run noise estimate
/// (the engine needs five; it looks at the last twenty).
pub(crate) const LEARNING_RUNS: usize = 8;

/// What one case should read.
pub(crate) fn expected(case: &str) -> Verdict {
    match case {
        "plus_1pct" | "plus_5pct" => Verdict::Slower,
        "minus_5pct" => Verdict::Faster,
        _ => Verdict::Same,
    }
}

/// Every case, in the order the tables show them.
pub(crate) fn cases() -> Vec<&'static str> {
    CHANGED
        .iter()
        .map(|(name, _, _)| *name)
        .chain(UNCHANGED.iter().map(|(name, _)| *name))
        .collect()
}

/// One case's answer in one run: its verdict and ratio (with the interval), or nothing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Answer {
    pub(crate) verdict: Option<Verdict>,
    pub(crate) ratio: f64,
    pub(crate) low: f64,
    pub(crate) high: f64,
    /// Wall time of the case (both sides for a pair), in seconds.
    pub(crate) wall_s: f64,
}

/// The answers of one run, by case, and the run's measuring time in seconds.
#[derive(Debug, Clone, Default)]
pub(crate) struct Run {
    pub(crate) answers: BTreeMap<String, Answer>,
    pub(crate) measuring_s: f64,
}

/// Everything measured under one machine state.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scenario {
    pub(crate) name: String,
    pub(crate) ab: Vec<Run>,
    pub(crate) aa: Vec<Run>,
    pub(crate) before_after: Vec<Run>,
    pub(crate) grouped: Vec<Run>,
    pub(crate) load: (String, String),
}

/// Settings of a measurement.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    pub(crate) runs: usize,
    pub(crate) time: Option<f64>,
    pub(crate) load: bool,
    pub(crate) before_after: bool,
    /// Write the section of `docs/compare.md` (stamped), not only print it.
    pub(crate) write: bool,
}

/// Measures, prints the generated part of `docs/compare.md`, and with `--write` rewrites it.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let settings = parse(args)?;
    // Printing measures any tree; writing stamps the page, so it needs a clean one.
    let stamp = settings
        .write
        .then(|| stamp::take(&COMPARE_BUILDS))
        .transpose()?;
    let started = Instant::now();
    eprintln!("building knotmeter (release)…");
    let built = cargo::build(&[
        "build",
        "--release",
        "-p",
        "knotmeter-server",
        "--bin",
        "knotmeter",
    ])?;
    let knotmeter = cargo::find(&built, "knotmeter")?;
    let fixture = Fixture::create()?;
    eprintln!("fixture repository: {}", fixture.root().display());
    // The first comparisons build everything (not measured: their wall time is the builds').
    for args in [&AA[..], &AB[..]] {
        compare(&knotmeter, &fixture, &[args, &["--quick"]].concat())?;
    }
    let mut scenarios = Vec::new();
    for busy in [false, true] {
        if busy && !settings.load {
            continue;
        }
        let name = if busy {
            "one core busy (a CPU-bound process competing the whole time)"
        } else {
            "the machine as it is"
        };
        eprintln!("{name}…");
        let competitor = busy.then(spin).transpose()?;
        let scenario = measure(&knotmeter, &fixture, &settings, name);
        if let Some(mut competitor) = competitor {
            let _ = competitor.kill();
            let _ = competitor.wait();
        }
        scenarios.push(scenario?);
    }
    let text = render::section(&scenarios, &settings, started.elapsed().as_secs_f64());
    let text = format!("{SECTION_BEGIN}\n{text}{SECTION_END}\n");
    print!("{text}");
    match stamp {
        Some(stamp) => docs::write_section(
            &cargo::root().join("docs/compare.md"),
            (SECTION_BEGIN, SECTION_END),
            &stamp.seal(&text)?,
            "",
        ),
        None => {
            eprintln!("not written: `--write` writes it to docs/compare.md");
            Ok(())
        }
    }
}

fn parse(args: &[String]) -> Result<Settings, String> {
    let mut settings = Settings {
        runs: DEFAULT_RUNS,
        time: None,
        load: true,
        before_after: true,
        write: false,
    };
    let mut args = args.iter();
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--no-load" => settings.load = false,
            "--no-before-after" => settings.before_after = false,
            "--write" => settings.write = true,
            "--runs" | "--time" => {
                let value = args.next().ok_or(USAGE)?;
                if flag == "--runs" {
                    settings.runs = value.parse::<usize>().map_err(|_| USAGE.to_owned())?.max(1);
                } else {
                    settings.time = Some(
                        value
                            .parse::<f64>()
                            .ok()
                            .filter(|t| *t > 0.0 && t.is_finite())
                            .ok_or(USAGE)?,
                    );
                }
            }
            _ => return Err(USAGE.into()),
        }
    }
    Ok(settings)
}

fn measure(
    knotmeter: &Path,
    fixture: &Fixture,
    settings: &Settings,
    name: &str,
) -> Result<Scenario, String> {
    let mut scenario = Scenario {
        name: name.to_owned(),
        load: (docs::loadavg(), String::new()),
        ..Scenario::default()
    };
    let time: Vec<String> = settings
        .time
        .map(|t| vec!["--time".to_owned(), t.to_string()])
        .unwrap_or_default();
    let time: Vec<&str> = time.iter().map(String::as_str).collect();
    let (base_exe, head_exe, grouped_exe) = executables(fixture)?;
    let learned = fixture.root().join("learned.db");
    let history = fixture.root().join("before-after.db");
    if settings.before_after {
        let learning = Instant::now();
        remove_history(&learned)?;
        for _ in 0..LEARNING_RUNS {
            json_run(&base_exe, &time, Some(&learned))?;
        }
        eprintln!(
            "  {LEARNING_RUNS} runs of the base for the history: {:.0} s",
            learning.elapsed().as_secs_f64()
        );
    }
    for i in 0..settings.runs {
        let mut lap = Lap(Instant::now());
        let aa = compare(knotmeter, fixture, &[&AA[..], &time].concat())?;
        let aa_s = lap.next();
        let ab = compare(knotmeter, fixture, &[&AB[..], &time].concat())?;
        let ab_s = lap.next();
        let grouped = grouped(&grouped_exe, &time)?;
        let grouped_s = lap.next();
        let mut line = format!(
            "  run {}/{}: A/A {aa_s:.0} s, A/B {ab_s:.0} s, groups {grouped_s:.0} s",
            i + 1,
            settings.runs
        );
        if settings.before_after {
            copy_history(&learned, &history)?;
            scenario
                .before_after
                .push(before_after(&base_exe, &head_exe, &history, &time)?);
            line.push_str(&format!(", before/after {:.0} s", lap.next()));
        }
        eprintln!("{line}");
        scenario.aa.push(aa);
        scenario.ab.push(ab);
        scenario.grouped.push(grouped);
    }
    scenario.load.1 = docs::loadavg();
    Ok(scenario)
}

/// Seconds between laps.
struct Lap(Instant);

impl Lap {
    /// The seconds since the last lap (or the start).
    fn next(&mut self) -> f64 {
        let now = Instant::now();
        let seconds = (now - self.0).as_secs_f64();
        self.0 = now;
        seconds
    }
}

/// `knotmeter compare ARGS --format json` in the fixture: the answers and the measuring time
/// (from the line announcing the measuring to the end).
fn compare(knotmeter: &Path, fixture: &Fixture, args: &[&str]) -> Result<Run, String> {
    let mut child = Command::new(knotmeter)
        .arg("compare")
        .args(args)
        .args(["--format", "json", "--no-history"])
        .current_dir(fixture.root())
        .env_remove("CARGO_TARGET_DIR")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run knotmeter compare: {e}"))?;
    let stderr = child.stderr.take().expect("piped");
    let watcher = std::thread::spawn(move || {
        let mut measuring = None;
        let mut text = String::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.starts_with("knotmeter: measuring") {
                measuring = Some(Instant::now());
            }
            text.push_str(&line);
            text.push('\n');
        }
        (measuring, text)
    });
    let out = child
        .wait_with_output()
        .map_err(|e| format!("knotmeter compare: {e}"))?;
    let ended = Instant::now();
    let (measuring, text) = watcher.join().unwrap_or_default();
    if !out.status.success() {
        return Err(format!(
            "knotmeter compare {} failed:\n{text}",
            args.join(" ")
        ));
    }
    let report: CompareReport = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("knotmeter compare printed no report ({e}):\n{text}"))?;
    let mut run = Run {
        measuring_s: measuring.map_or(0.0, |m| (ended - m).as_secs_f64()),
        ..Run::default()
    };
    for case in report.cases {
        let name = case.id.rsplit("::").next().unwrap_or_default().to_owned();
        let wall_s = case.head.as_ref().map_or(0.0, |r| r.wall_ns / 1e9);
        let answer = match case.comparison {
            Some(c) => Answer {
                verdict: Some(c.verdict),
                ratio: c.ratio,
                low: c.low,
                high: c.high,
                wall_s,
            },
            None => Answer {
                verdict: None,
                ratio: f64::NAN,
                low: f64::NAN,
                high: f64::NAN,
                wall_s,
            },
        };
        run.answers.insert(name, answer);
    }
    Ok(run)
}

/// The fixture's bench executables: the A/B comparison's base's and head's `builds` (the ones
/// `knotmeter compare` built for `HEAD~1` and `change`, in the target directories whose
/// markers name them), and the working tree's `grouped`.
fn executables(fixture: &Fixture) -> Result<(PathBuf, PathBuf, PathBuf), String> {
    let working_tree = bench_build(fixture.root(), &fixture::target_dir())?;
    let compare_dir = fixture::target_dir().join("knotmeter/compare");
    let side = |rev: &str, target: &str| -> Result<PathBuf, String> {
        let commit = fixture.git(&["rev-parse", rev])?;
        let target = compare_dir.join(target);
        let marker =
            std::fs::read_to_string(target.join("knotmeter-compare-commit")).unwrap_or_default();
        if marker.trim() != commit {
            return Err(format!(
                "{} was last built for {marker}, not {commit} ({rev})",
                target.display()
            ));
        }
        cargo::find(&bench_build(&compare_dir.join(&commit), &target)?, "builds")
    };
    Ok((
        side(BASE_REV, "target")?,
        side(CHANGE_BRANCH, "target-head")?,
        cargo::find(&working_tree, "grouped")?,
    ))
}

fn bench_build(dir: &Path, target: &Path) -> Result<Vec<(String, PathBuf)>, String> {
    let out = Command::new(cargo::program())
        .args(["bench", "--no-run", "--message-format=json", "--target-dir"])
        .arg(target)
        .current_dir(dir)
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo bench --no-run failed in {}: {}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact")
        .filter_map(|m| {
            let exe = m["executable"].as_str()?;
            Some((m["target"]["name"].as_str()?.to_owned(), PathBuf::from(exe)))
        })
        .collect())
}

/// The in-binary groups: every head member against its baseline, in one run.
fn grouped(exe: &Path, time: &[&str]) -> Result<Run, String> {
    let started = Instant::now();
    let report = json_run(exe, &[&["--no-history", "_head"][..], time].concat(), None)?;
    let mut run = Run {
        measuring_s: started.elapsed().as_secs_f64(),
        ..Run::default()
    };
    for result in report.results {
        let name = result.name.trim_end_matches("_head").to_owned();
        if let Some(c) = result.comparison {
            run.answers.insert(
                name,
                Answer {
                    verdict: Some(c.verdict),
                    ratio: c.ratio,
                    low: c.low,
                    high: c.high,
                    wall_s: result.wall_ns / 1e9,
                },
            );
        }
    }
    Ok(run)
}

/// Before/after through the history: the base saved as a baseline, the head compared with it.
fn before_after(base: &Path, head: &Path, history: &Path, time: &[&str]) -> Result<Run, String> {
    json_run(
        base,
        &[&["--save-baseline", "base"][..], time].concat(),
        Some(history),
    )?;
    let started = Instant::now();
    let report = json_run(
        head,
        &[&["--baseline", "base"][..], time].concat(),
        Some(history),
    )?;
    let mut run = Run {
        measuring_s: started.elapsed().as_secs_f64(),
        ..Run::default()
    };
    for result in report.results {
        let answer = match result.comparison {
            Some(c) => Answer {
                verdict: Some(c.verdict),
                ratio: c.ratio,
                low: c.low,
                high: c.high,
                wall_s: result.wall_ns / 1e9,
            },
            None => Answer {
                verdict: None,
                ratio: f64::NAN,
                low: f64::NAN,
                high: f64::NAN,
                wall_s: result.wall_ns / 1e9,
            },
        };
        run.answers.insert(result.name.clone(), answer);
    }
    Ok(run)
}

fn json_run(exe: &Path, args: &[&str], history: Option<&Path>) -> Result<Report, String> {
    let mut command = Command::new(exe);
    command.args(["--bench", "--format", "json"]).args(args);
    if let Some(history) = history {
        command.env("KNOTMETER_HISTORY", history);
    }
    let out = command
        .output()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} {} failed: {}",
            exe.display(),
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("{}: no report ({e})", exe.display()))
}

/// Removes a history file and its SQLite companions, if any.
fn remove_history(path: &Path) -> Result<(), String> {
    for suffix in ["", "-wal", "-shm"] {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        match std::fs::remove_file(&name) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(format!("cannot remove {}: {e}", Path::new(&name).display()))
            }
            _ => {}
        }
    }
    Ok(())
}

/// Replaces `to` with a copy of the history `from` (its write-ahead log too, if one was left).
fn copy_history(from: &Path, to: &Path) -> Result<(), String> {
    remove_history(to)?;
    for suffix in ["", "-wal"] {
        let (mut source, mut copy) = (from.as_os_str().to_owned(), to.as_os_str().to_owned());
        source.push(suffix);
        copy.push(suffix);
        if suffix.is_empty() || Path::new(&source).exists() {
            std::fs::copy(&source, &copy)
                .map_err(|e| format!("cannot copy {}: {e}", Path::new(&source).display()))?;
        }
    }
    Ok(())
}

/// A CPU-bound process that competes for a core until it is killed.
fn spin() -> Result<Child, String> {
    Command::new("sh")
        .args(["-c", "while :; do :; done"])
        .spawn()
        .map_err(|e| format!("cannot start the competing process: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_all(args: &[&str]) -> Result<Settings, String> {
        parse(&args.iter().map(|a| (*a).to_owned()).collect::<Vec<_>>())
    }

    #[test]
    fn only_write_writes_and_the_flags_are_checked() {
        let s = parse_all(&[]).unwrap();
        assert_eq!(
            (s.runs, s.time, s.load, s.before_after, s.write),
            (DEFAULT_RUNS, None, true, true, false)
        );
        let s = parse_all(&["--runs", "2", "--time", "0.3", "--no-load", "--write"]).unwrap();
        assert_eq!(
            (s.runs, s.time, s.load, s.write),
            (2, Some(0.3), false, true)
        );
        for bad in [
            &["--time", "0"][..],
            &["--time", "nan"],
            &["--runs"],
            &["--fast"],
        ] {
            assert!(parse_all(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn both_comparisons_have_the_same_base_so_it_is_built_once() {
        assert_eq!(AA[0], BASE_REV);
        assert_eq!(AB[AB.len() - 3], BASE_REV);
        assert_eq!(&AB[..2], &["--head", CHANGE_BRANCH]);
    }
}
