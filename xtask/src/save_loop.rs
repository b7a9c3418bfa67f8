//! `cargo xtask save-loop --before REV [--saves N] [--write]`: how long an editor waits from
//! saving a benchmark to its result, with run-on-save on.
//!
//! It builds the daemon (`knotmeter`, release) of `REV` in a fresh clone with a target
//! directory of its own, builds the save loop's benchmark of the working tree
//! (`server/benches/save_loop.rs`, with its own daemon), and runs it with `--before`: each save
//! edits one benchmark of a 22-benchmark file and goes to the two daemons in turn, so that the
//! machine's load falls on both alike. With `--write` the section between the markers of
//! `docs/performance.md` is rewritten, stamped with HEAD.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::stamp::git;
use crate::stamp::sections::SAVE_LOOP;
use crate::stats::median;
use crate::{cargo, docs, stamp};

const MARKERS: (&str, &str) = (
    "<!-- xtask save-loop: begin -->",
    "<!-- xtask save-loop: end -->",
);

/// The times of a save, as the benchmark names them, with what each row of the table says.
const MOMENTS: [(&str, &str); 5] = [
    ("queued", "the run is queued (the debounce)"),
    ("built", "cargo has compiled and linked the file"),
    ("started", "the bench binary measures its first case"),
    ("edited", "**the edited benchmark's result**"),
    ("all", "every benchmark of the file measured"),
];

struct Settings {
    before: String,
    saves: usize,
    write: bool,
}

fn parse(args: &[String]) -> Result<Settings, String> {
    let mut settings = Settings {
        before: String::new(),
        saves: 7,
        write: false,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--before" => settings.before = it.next().cloned().unwrap_or_default(),
            "--saves" => {
                settings.saves = it
                    .next()
                    .and_then(|n| n.parse().ok())
                    .filter(|&n| n > 0)
                    .ok_or("--saves needs a positive number")?
            }
            "--write" => settings.write = true,
            other => return Err(format!("save-loop: unknown argument `{other}`")),
        }
    }
    if settings.before.is_empty() {
        return Err(
            "save-loop needs --before REV (the commit whose daemon to compare with)".into(),
        );
    }
    Ok(settings)
}

/// Measures, prints the section, and with `--write` writes it into `docs/performance.md`.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let settings = parse(args)?;
    let stamp = settings
        .write
        .then(|| stamp::take(&SAVE_LOOP))
        .transpose()?;
    let root = cargo::root();
    let before = git::run(
        &root,
        &[
            "rev-parse",
            "--verify",
            &format!("{}^{{commit}}", settings.before),
        ],
    )
    .map_err(|_| format!("`{}` names no commit", settings.before))?;
    let after = git::run(&root, &["rev-parse", "HEAD"])?;
    let scratch = std::env::temp_dir().join(format!("knotmeter-save-loop-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let result = (|| -> Result<String, String> {
        let daemon = build_daemon(&root, &before, &scratch)?;
        eprintln!("building the save loop's benchmark");
        let executables = cargo::build(&[
            "bench",
            "-p",
            "knotmeter-server",
            "--bench",
            "save_loop",
            "--no-run",
        ])?;
        let bench = cargo::find(&executables, "save_loop")?;
        let started = docs::shell("date -u '+%Y-%m-%d %H:%M'")?;
        let load_start = docs::loadavg();
        let rows = measure(&root, &bench, &daemon, settings.saves)?;
        let ended = docs::shell("date -u '+%H:%M'")?;
        Ok(render(
            &rows,
            (&before, &after),
            settings.saves,
            &format!("{started}–{ended} UTC"),
            (&load_start, &docs::loadavg()),
        ))
    })();
    let _ = std::fs::remove_dir_all(&scratch);
    let section = result?;
    eprintln!("{section}");
    if let Some(stamp) = stamp {
        docs::write_section(
            &root.join("docs/performance.md"),
            MARKERS,
            &stamp.seal(&section)?,
            "# Performance\n",
        )?;
    }
    Ok(())
}

/// Builds `knotmeter` of `commit` (release) in a fresh clone under `scratch`; its path.
fn build_daemon(root: &Path, commit: &str, scratch: &Path) -> Result<PathBuf, String> {
    let clone = scratch.join("repo");
    let clone_text = clone.to_string_lossy().into_owned();
    let root_text = root.to_string_lossy().into_owned();
    git::run(
        root,
        &["clone", "-q", "--no-checkout", &root_text, &clone_text],
    )?;
    git::run(&clone, &["checkout", "-q", commit])?;
    eprintln!("building the daemon of {} (release)", &commit[..10]);
    let status = Command::new(cargo::program())
        .args(["build", "--release", "--locked", "-p", "knotmeter-server"])
        .current_dir(&clone)
        .env("CARGO_TARGET_DIR", scratch.join("target"))
        .stdout(Stdio::null())
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!("the daemon of {commit} did not build ({status})"));
    }
    Ok(scratch.join("target/release/knotmeter"))
}

/// Runs the benchmark; each save's times by daemon (`before`, `after`).
fn measure(root: &Path, bench: &Path, before: &Path, saves: usize) -> Result<Vec<Value>, String> {
    let out = Command::new(bench)
        .args(["--bench", "--saves", &saves.to_string(), "--before"])
        .arg(before)
        .current_dir(root.join("server"))
        .env_remove("KNOTMETER_HISTORY")
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", bench.display()))?;
    if !out.status.success() {
        return Err(format!("the save loop's benchmark failed ({})", out.status));
    }
    let rows: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    if rows.len() != 2 * saves {
        return Err(format!(
            "{} saves measured, {} expected",
            rows.len(),
            2 * saves
        ));
    }
    Ok(rows)
}

/// The median and the range of `moment` over the saves of `daemon`.
fn summary(rows: &[Value], daemon: &str, moment: &str) -> (f64, f64, f64) {
    let values: Vec<f64> = rows
        .iter()
        .filter(|r| r["daemon"] == daemon)
        .filter_map(|r| r[moment].as_f64())
        .collect();
    let low = values.iter().copied().fold(f64::INFINITY, f64::min);
    let high = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (median(&values), low, high)
}

/// The median over `daemon`'s saves of `later - earlier` (`earlier` empty: the save itself).
fn step(rows: &[Value], daemon: &str, (earlier, later): (&str, &str)) -> f64 {
    let values: Vec<f64> = rows
        .iter()
        .filter(|r| r["daemon"] == daemon)
        .filter_map(|r| Some(r[later].as_f64()? - r[earlier].as_f64().unwrap_or(0.0)))
        .collect();
    median(&values)
}

fn render(
    rows: &[Value],
    (before, after): (&str, &str),
    saves: usize,
    when: &str,
    (load_start, load_end): (&str, &str),
) -> String {
    let mut out = format!(
        "{}\nMeasured with `cargo xtask save-loop --before {} --write` on {when}, load average \
         {load_start} at the start and {load_end} at the end (2 cores). {saves} saves: each edits \
         one benchmark's work in a file of 22 (`server/tests/fixtures/save_loop`), so cargo \
         compiles and links it again, and saves it, with run-on-save on (the `--quick` budget), to \
         the daemon of {} and to this one in turn. Seconds from the save, as the messages reached \
         the client; medians with the range:\n\n\
         | from the save to | before ({}) | after ({}) |\n|---|---|---|\n",
        MARKERS.0,
        &before[..7],
        &before[..7],
        &before[..7],
        &after[..7],
    );
    for (moment, words) in MOMENTS {
        let cell = |daemon: &str| {
            let (mid, low, high) = summary(rows, daemon, moment);
            format!("{mid:.3} s ({low:.3}–{high:.3})")
        };
        out += &format!("| {words} | {} | {} |\n", cell("before"), cell("after"));
    }
    let parts = [
        ("the debounce", ("", "queued")),
        ("the build", ("queued", "built")),
        (
            "listing and starting the bench binary",
            ("built", "started"),
        ),
        (
            "measuring the case and its result's way to the client",
            ("started", "edited"),
        ),
    ];
    let words: Vec<String> = parts
        .iter()
        .map(|(name, moments)| format!("{name} {:.3} s", step(rows, "after", *moments)))
        .collect();
    out += &format!(
        "\nWhere the edited benchmark's time goes now (medians of each step): {}.\n{}\n",
        words.join(", "),
        MARKERS.1
    );
    out
}
