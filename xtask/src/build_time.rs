//! `cargo xtask build-time --before REV`: how long a new user waits for a first result.
//!
//! Each measurement is a fresh `git clone` of this repository at one commit, with no target
//! directory, running the README's first command *as that commit's README gives it* (the first
//! command line of its first `sh` block). Three kinds are measured:
//!
//! * **before**: the README's first command at `REV`;
//! * **after**: the README's first command at `HEAD`;
//! * **floor**: `cargo bench -p quickstart` at `HEAD`, which builds and runs the same benchmarks
//!   without the knotmeter command (what any first command must at least pay).
//!
//! Builds are slow and a shared machine's load drifts, so the kinds are interleaved
//! symmetrically, `before, after, floor, after, before` per round: a drift that is linear over a
//! round affects every kind alike. The downloaded crates (`~/.cargo/registry`) stay warm: the
//! figure is compile time, not network time. Wall time is the command's; CPU time is the user and
//! system time of every process it waited for; the daemon's and the benchmarks' build times are
//! the ones cargo printed ("Finished … in …"). The section between the markers of
//! `docs/performance.md` is rewritten.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::stamp::git;
use crate::stamp::sections::BUILD_TIME;
use crate::stats::median;
use crate::{cargo, docs, stamp};

/// The command every floor measurement runs.
const FLOOR: &str = "cargo bench -p quickstart";
const MARKERS: (&str, &str) = (
    "<!-- xtask build-time: begin -->",
    "<!-- xtask build-time: end -->",
);

/// What one measurement ran.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Before,
    After,
    Floor,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Before => "before",
            Kind::After => "after",
            Kind::Floor => "floor",
        }
    }
}

/// One cold run of one command in one fresh clone.
struct Measurement {
    kind: Kind,
    command: String,
    wall: f64,
    cpu: f64,
    /// The durations cargo printed, in order ("Finished … in 45.89s"), with the profile.
    builds: Vec<(String, f64)>,
    load: String,
}

struct Settings {
    before: String,
    rounds: usize,
}

fn parse(args: &[String]) -> Result<Settings, String> {
    let mut before = None;
    let mut rounds = 1;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--before" => before = it.next().cloned(),
            "--rounds" => {
                rounds = it
                    .next()
                    .and_then(|n| n.parse().ok())
                    .filter(|&n| n > 0)
                    .ok_or("--rounds needs a positive number")?
            }
            other => return Err(format!("build-time: unknown argument `{other}`")),
        }
    }
    let before = before.ok_or("build-time needs --before REV (the commit to compare with)")?;
    Ok(Settings { before, rounds })
}

/// Runs the measurements and rewrites the build-time section of `docs/performance.md`.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let settings = parse(args)?;
    let stamp = stamp::take(&BUILD_TIME)?;
    let root = cargo::root();
    let before = resolve(&root, &settings.before)?;
    let after = stamp.commit().to_owned();
    let commands = [
        (Kind::Before, before.clone(), first_command(&root, &before)?),
        (Kind::After, after.clone(), first_command(&root, &after)?),
        (Kind::Floor, after.clone(), FLOOR.to_owned()),
    ];
    let order = [
        Kind::Before,
        Kind::After,
        Kind::Floor,
        Kind::After,
        Kind::Before,
    ];
    let started = docs::shell("date -u '+%Y-%m-%d %H:%M'")?;
    let load_start = docs::loadavg();
    let mut measurements = Vec::new();
    for round in 0..settings.rounds {
        for kind in order {
            let (_, commit, command) = commands.iter().find(|(k, ..)| *k == kind).unwrap();
            eprintln!(
                "round {}: {} ({}): {command}",
                round + 1,
                kind.name(),
                &commit[..10]
            );
            let m = measure(&root, kind, commit, command)?;
            eprintln!("  {:.0} s wall, {:.0} s CPU", m.wall, m.cpu);
            measurements.push(m);
        }
    }
    let ended = docs::shell("date -u '+%H:%M'")?;
    let section = render(
        &measurements,
        (&before, &after),
        &format!("{started}–{ended} UTC"),
        (&load_start, &docs::loadavg()),
    );
    docs::write_section(
        &root.join("docs/performance.md"),
        MARKERS,
        &stamp.seal(&section)?,
        "# Performance\n",
    )?;
    eprintln!("{section}");
    Ok(())
}

/// The full hash of `rev` in the repository.
fn resolve(root: &Path, rev: &str) -> Result<String, String> {
    let out = Command::new("git")
        .args(["rev-parse", "--verify", &format!("{rev}^{{commit}}")])
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        return Err(format!("`{rev}` names no commit"));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// The README's first command at `commit`: the first line of its first `sh` block that is
/// neither empty nor a comment.
fn first_command(root: &Path, commit: &str) -> Result<String, String> {
    let out = Command::new("git")
        .args(["show", &format!("{commit}:README.md")])
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    let readme = String::from_utf8_lossy(&out.stdout);
    readme_first_command(&readme).ok_or_else(|| format!("the README of {commit} has no sh block"))
}

fn readme_first_command(readme: &str) -> Option<String> {
    let block = readme.split("```sh\n").nth(1)?.split("```").next()?;
    block
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
}

/// Clones the repository at `commit` into a fresh directory, runs `command` there with no
/// target directory or history of the caller's, and times it. The clone is removed afterwards.
fn measure(root: &Path, kind: Kind, commit: &str, command: &str) -> Result<Measurement, String> {
    let dir = std::env::temp_dir().join(format!("knotmeter-build-time-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let clone = dir.join("repo");
    git::run(
        root,
        &[
            "clone",
            "-q",
            "--no-checkout",
            &root.to_string_lossy(),
            &clone.to_string_lossy(),
        ],
    )?;
    git::run(&clone, &["checkout", "-q", commit])?;
    let log_path = dir.join("command.log");
    let log = std::fs::File::create(&log_path).map_err(|e| e.to_string())?;
    let load = docs::loadavg();
    let cpu_before = children_cpu()?;
    let t0 = Instant::now();
    let status = Command::new("sh")
        .args(["-c", command])
        .current_dir(&clone)
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_BUILD_TARGET_DIR")
        .env_remove("KNOTMETER_HISTORY")
        .env("CARGO_TERM_COLOR", "never")
        .stdin(Stdio::null())
        .stdout(log.try_clone().map_err(|e| e.to_string())?)
        .stderr(log)
        .status()
        .map_err(|e| format!("cannot run `{command}`: {e}"))?;
    let wall = t0.elapsed().as_secs_f64();
    let cpu = children_cpu()? - cpu_before;
    let output = std::fs::read_to_string(&log_path).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    if !status.success() || !output.contains("passed") {
        return Err(format!(
            "`{command}` at {commit} did not run the benchmarks ({status}):\n{}",
            tail(&output, 30)
        ));
    }
    Ok(Measurement {
        kind,
        command: command.to_owned(),
        wall,
        cpu,
        builds: cargo_builds(&output),
        load,
    })
}

/// User plus system seconds of every child this process has waited for (`/proc/self/stat`,
/// fields `cutime` and `cstime`, in clock ticks).
fn children_cpu() -> Result<f64, String> {
    let stat = std::fs::read_to_string("/proc/self/stat").map_err(|e| e.to_string())?;
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    let rest = &stat[stat.rfind(')').ok_or("unreadable /proc/self/stat")? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3; cutime and cstime are fields 16 and 17.
    let ticks: f64 = [13, 14]
        .iter()
        .map(|&i| {
            fields
                .get(i)
                .and_then(|f| f.parse::<f64>().ok())
                .unwrap_or(0.0)
        })
        .sum();
    let per_second: f64 = docs::shell("getconf CLK_TCK")?
        .parse()
        .map_err(|_| "getconf CLK_TCK gave no number")?;
    Ok(ticks / per_second)
}

/// The `Finished `<profile>` profile … in <duration>` lines cargo printed, in order.
fn cargo_builds(output: &str) -> Vec<(String, f64)> {
    output
        .lines()
        .filter_map(|line| {
            let line = line.trim();
            let rest = line.strip_prefix("Finished `")?;
            let profile = rest.split('`').next()?.to_owned();
            let duration = rest.rsplit(" in ").next()?;
            Some((profile, parse_duration(duration)?))
        })
        .collect()
}

/// Cargo's durations: `45.89s`, `1m 07s`, `2h 01m 03s`.
fn parse_duration(text: &str) -> Option<f64> {
    text.split_whitespace().try_fold(0.0, |total, part| {
        let (number, unit) = part.split_at(part.find(|c: char| c.is_ascii_alphabetic())?);
        let number: f64 = number.parse().ok()?;
        let scale = match unit {
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return None,
        };
        Some(total + number * scale)
    })
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

fn minutes(seconds: f64) -> String {
    let s = seconds.round() as u64;
    if s >= 60 {
        format!("{} min {:02} s", s / 60, s % 60)
    } else {
        format!("{s} s")
    }
}

fn render(
    measurements: &[Measurement],
    (before, after): (&str, &str),
    when: &str,
    (load_start, load_end): (&str, &str),
) -> String {
    let mut out = format!(
        "{}\nMeasured with `cargo xtask build-time --before {}` on {when}, load average {load_start} \
         at the start and {load_end} at the end (2 cores). Each row is a fresh clone with no \
         target directory; the crates.io download cache was warm.\n\n\
         | # | kind | commit | command | wall | CPU | cargo's builds | load average at start |\n\
         |---|---|---|---|---|---|---|---|\n",
        MARKERS.0,
        &before[..10]
    );
    for (i, m) in measurements.iter().enumerate() {
        let commit = if m.kind == Kind::Before {
            before
        } else {
            after
        };
        let builds: Vec<String> = m
            .builds
            .iter()
            .map(|(profile, s)| format!("{profile} {}", minutes(*s)))
            .collect();
        out += &format!(
            "| {} | {} | {} | `{}` | {} | {:.0} s | {} | {} |\n",
            i + 1,
            m.kind.name(),
            &commit[..10],
            m.command,
            minutes(m.wall),
            m.cpu,
            builds.join(", "),
            m.load
        );
    }
    let of = |kind: Kind, pick: fn(&Measurement) -> f64| {
        let values: Vec<f64> = measurements
            .iter()
            .filter(|m| m.kind == kind)
            .map(pick)
            .collect();
        median(&values)
    };
    let wall = |m: &Measurement| m.wall;
    let cpu = |m: &Measurement| m.cpu;
    let (bw, aw, fw) = (
        of(Kind::Before, wall),
        of(Kind::After, wall),
        of(Kind::Floor, wall),
    );
    let (bc, ac) = (of(Kind::Before, cpu), of(Kind::After, cpu));
    out += &format!(
        "\nMedians: before {}, after {}, the floor {}. The first command now takes **{:.2}×** \
         the wall time of before ({:.2}× the CPU time); the target is at most 0.5×. Of the \
         after command's wall time, {:.0}% is the floor that `cargo bench -p quickstart` pays \
         too.\n{}\n",
        minutes(bw),
        minutes(aw),
        minutes(fw),
        aw / bw,
        ac / bc,
        100.0 * fw / aw,
        MARKERS.1
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_command_is_the_first_line_of_the_first_sh_block_that_is_not_a_comment() {
        let readme = "# x\n\ntext\n\n```sh\n# 1. The main job\ncargo run -p a -- run b\n\n# 2.\n.ci/run\n```\n\n```sh\nother\n```\n";
        assert_eq!(
            readme_first_command(readme).as_deref(),
            Some("cargo run -p a -- run b")
        );
        assert_eq!(readme_first_command("no block"), None);
    }

    #[test]
    fn cargo_durations_and_profiles_are_read_from_its_finished_lines() {
        let log =
            "   Compiling a v1\n    Finished `dev` profile [unoptimized] target(s) in 45.89s\n\
                   Finished `bench` profile [optimized] target(s) in 1m 07s\nquickstart passed\n";
        assert_eq!(
            cargo_builds(log),
            vec![("dev".to_owned(), 45.89), ("bench".to_owned(), 67.0)]
        );
        assert_eq!(parse_duration("2h 01m 03s"), Some(7263.0));
        assert_eq!(parse_duration("soon"), None);
    }
}
