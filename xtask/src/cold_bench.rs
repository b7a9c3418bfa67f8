//! `cargo xtask cold-bench [--rounds N] [--write]`: what a benchmark harness costs a crate's
//! cold build (issue 22). For each harness, a fresh one-file crate with one benchmark and the
//! harness as its only dev-dependency runs `cargo bench --no-run` from an empty target
//! directory, the download cache warm: divan, criterion and zenbench from crates.io (the
//! versions the `comparisons/` workspace locks), knotmeter by path from this tree.
//!
//! Each crate's lock file is made and its crates fetched before the clock starts, so the figure
//! is compile time, not network time. The harnesses take turns, in the reverse order every other
//! round, so that a load drifting over the run weighs on each alike. Wall and CPU time (user and
//! system of every process) are `/usr/bin/time`'s; the crates built are cargo's `Compiling`
//! lines. The section between the markers of `docs/performance.md` is rewritten with `--write`.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use crate::stamp::sections::COLD_BENCH;
use crate::stats::median;
use crate::{cargo, docs, stamp};

const MARKERS: (&str, &str) = (
    "<!-- xtask cold-bench: begin -->",
    "<!-- xtask cold-bench: end -->",
);
const USAGE: &str = "usage: cargo xtask cold-bench [--rounds N] [--write]";

/// A harness: its name, its dev-dependency line, and the one benchmark in its idiom.
struct Harness {
    name: &'static str,
    dependency: String,
    bench: &'static str,
}

/// The four harnesses, divan first (the figure the target is relative to).
fn harnesses() -> Vec<Harness> {
    let engine = cargo::root().join("engine");
    vec![
        Harness {
            name: "divan",
            dependency: r#"divan = "=0.1.21""#.to_owned(),
            bench: "fn main() {\n    divan::main();\n}\n\n#[divan::bench]\n\
                    fn sum() -> u64 {\n    (0..divan::black_box(1000u64)).sum()\n}\n",
        },
        Harness {
            name: "criterion",
            dependency: r#"criterion = "=0.8.2""#.to_owned(),
            bench: "use criterion::{criterion_group, criterion_main, Criterion};\n\n\
                    fn sum(c: &mut Criterion) {\n    c.bench_function(\"sum\", |b| {\n        \
                    b.iter(|| (0..std::hint::black_box(1000u64)).sum::<u64>())\n    });\n}\n\n\
                    criterion_group!(benches, sum);\ncriterion_main!(benches);\n",
        },
        Harness {
            name: "zenbench",
            dependency: r#"zenbench = "=0.1.11""#.to_owned(),
            bench: "use zenbench::prelude::*;\n\nfn sum(suite: &mut Suite) {\n    \
                    suite.bench(\"sum\", |b| b.iter(|| (0..black_box(1000u64)).sum::<u64>()));\n}\n\n\
                    zenbench::main!(sum);\n",
        },
        Harness {
            name: "knotmeter",
            dependency: format!("knotmeter = {{ path = {:?} }}", engine.display().to_string()),
            bench: "#[knotmeter::bench]\nfn sum() -> u64 {\n    \
                    (0..knotmeter::black_box(1000u64)).sum()\n}\n\nknotmeter::main!();\n",
        },
    ]
}

/// When and where the builds ran, as the section states it.
struct Sitting {
    date: String,
    commit: String,
    cores: String,
    load_at_start: String,
    load_at_end: String,
}

/// One cold build.
struct Build {
    harness: &'static str,
    wall: f64,
    cpu: f64,
    crates: usize,
    load: String,
}

/// Measures every harness `--rounds` times and prints (and with `--write` stores) the section.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let (mut rounds, mut write) = (2, false);
    let mut args = args.iter();
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--write" => write = true,
            "--rounds" => {
                let value = args.next().ok_or(USAGE)?;
                rounds = value
                    .parse::<usize>()
                    .map_err(|_| format!("--rounds takes a number, not {value}"))?
                    .max(1);
            }
            _ => return Err(USAGE.into()),
        }
    }
    let stamp = write.then(|| stamp::take(&COLD_BENCH)).transpose()?;
    let date = docs::shell("date -u '+%Y-%m-%d %H:%M UTC'")?;
    let commit = docs::shell("git rev-parse --short HEAD")?;
    let load_at_start = docs::loadavg();
    let harnesses = harnesses();
    let mut builds = Vec::new();
    for round in 0..rounds {
        let order: Vec<&Harness> = if round % 2 == 0 {
            harnesses.iter().collect()
        } else {
            harnesses.iter().rev().collect()
        };
        for harness in order {
            eprintln!("round {}/{rounds}: {}…", round + 1, harness.name);
            let build = cold_build(harness)?;
            eprintln!(
                "  {:.1} s wall, {:.1} s CPU, {} crates",
                build.wall, build.cpu, build.crates
            );
            builds.push(build);
        }
    }
    let sitting = Sitting {
        date,
        commit,
        cores: docs::shell("nproc")?,
        load_at_start,
        load_at_end: docs::loadavg(),
    };
    let text = render(&sitting, rounds, &harnesses, &builds);
    print!("{text}");
    if let Some(stamp) = stamp {
        docs::write_section(
            &cargo::root().join(COLD_BENCH.page),
            MARKERS,
            &stamp.seal(&text)?,
            "# Performance\n\n",
        )?;
    }
    Ok(())
}

/// Writes `harness`'s crate into a fresh directory, fetches its crates, and times a cold
/// `cargo bench --no-run` in it.
fn cold_build(harness: &Harness) -> Result<Build, String> {
    let dir = std::env::temp_dir().join(format!(
        "knotmeter-cold-bench-{}-{}",
        std::process::id(),
        harness.name
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let measured = measure_in(&dir, harness);
    let _ = std::fs::remove_dir_all(&dir);
    measured
}

/// [`cold_build`] in the fresh directory `root`.
fn measure_in(root: &Path, harness: &Harness) -> Result<Build, String> {
    write(
        &root.join("Cargo.toml"),
        &format!(
            "[package]\nname = \"cold-{}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\
             publish = false\n\n[workspace]\n\n[dev-dependencies]\n{}\n\n\
             [[bench]]\nname = \"one\"\nharness = false\n",
            harness.name, harness.dependency
        ),
    )?;
    write(&root.join("src/lib.rs"), "")?;
    write(&root.join("benches/one.rs"), harness.bench)?;
    // The lock file and the downloads, before the clock starts.
    for step in [&["generate-lockfile"][..], &["fetch", "--locked"]] {
        let out = isolated(Command::new(cargo::program()), root)
            .args(step)
            .output()
            .map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(format!(
                "`cargo {}` for {}: {}",
                step.join(" "),
                harness.name,
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    let load = docs::loadavg();
    let times = root.join("time.txt");
    let out = isolated(Command::new("/usr/bin/time"), root)
        .arg("-o")
        .arg(&times)
        .args(["-f", "%e %U %S"])
        .arg(cargo::program())
        .args(["bench", "--no-run", "--locked", "--offline"])
        .output()
        .map_err(|e| format!("cannot run /usr/bin/time cargo bench: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!(
            "the cold build of {} failed:\n{stderr}",
            harness.name
        ));
    }
    let measured = std::fs::read_to_string(&times).map_err(|e| e.to_string())?;
    let (wall, cpu) = parse_times(&measured)
        .ok_or_else(|| format!("/usr/bin/time wrote {measured:?} for {}", harness.name))?;
    Ok(Build {
        harness: harness.name,
        wall,
        cpu,
        crates: stderr
            .lines()
            .filter(|l| l.trim_start().starts_with("Compiling "))
            .count(),
        load,
    })
}

/// `command` run in `dir`, where cargo builds into the crate's own target directory and
/// compiles with rustc itself, whatever the environment says (a shared target directory or a
/// compiler cache would make the build warm).
fn isolated(mut command: Command, dir: &Path) -> Command {
    command
        .current_dir(dir)
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_BUILD_TARGET_DIR")
        .env_remove("RUSTC_WRAPPER")
        .env("CARGO_TERM_COLOR", "never");
    command
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Wall and CPU seconds from `/usr/bin/time -f "%e %U %S"` (its last line: a command that
/// failed adds a line before it).
fn parse_times(text: &str) -> Option<(f64, f64)> {
    let fields: Vec<f64> = text
        .lines()
        .last()?
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    match fields[..] {
        [wall, user, system] => Some((wall, user + system)),
        _ => None,
    }
}

/// The section, from its begin marker to its end marker.
fn render(sitting: &Sitting, rounds: usize, harnesses: &[Harness], builds: &[Build]) -> String {
    let Sitting {
        date,
        commit,
        cores,
        load_at_start,
        load_at_end,
    } = sitting;
    let mut s = format!("{}\n", MARKERS.0);
    let _ = writeln!(
        s,
        "Measured with `cargo xtask cold-bench --rounds {rounds}` at commit `{commit}`, {date}, \
         load average {load_at_start} at the start and {load_at_end} at the end ({cores} cores). \
         Each build is a fresh \
         one-file crate with one benchmark and the harness as its only dev-dependency, `cargo \
         bench --no-run` from an empty target directory, its crates downloaded beforehand; the \
         harnesses took turns, in the reverse order every other round. Medians of {rounds}:\n",
    );
    let of = |name: &str, pick: fn(&Build) -> f64| {
        median(
            &builds
                .iter()
                .filter(|b| b.harness == name)
                .map(pick)
                .collect::<Vec<_>>(),
        )
    };
    let divan_wall = of("divan", |b| b.wall);
    s.push_str(
        "| harness | wall | CPU | crates built | wall × divan's | every build (wall s, load at its start) |\n\
         |---|---|---|---|---|---|\n",
    );
    for h in harnesses {
        let each = builds
            .iter()
            .filter(|b| b.harness == h.name)
            .map(|b| format!("{:.1} ({})", b.wall, b.load))
            .collect::<Vec<_>>()
            .join("; ");
        let wall = of(h.name, |b| b.wall);
        let _ = writeln!(
            s,
            "| {} | {:.1} s | {:.1} s | {:.0} | {:.2}× | {each} |",
            h.name,
            wall,
            of(h.name, |b| b.cpu),
            of(h.name, |b| b.crates as f64),
            wall / divan_wall,
        );
    }
    let knotmeter = of("knotmeter", |b| b.wall);
    let _ = writeln!(
        s,
        "\nThe target (issue 22) is knotmeter within 2× divan's wall time: {:.1} s here; \
         measured {:.1} s, **{}**.",
        2.0 * divan_wall,
        knotmeter,
        if knotmeter <= 2.0 * divan_wall {
            "met"
        } else {
            "not met"
        }
    );
    s.push_str(MARKERS.1);
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_read_from_the_last_line_of_usr_bin_time() {
        assert_eq!(parse_times("16.70 28.10 3.70\n"), Some((16.7, 31.8)));
        assert_eq!(
            parse_times("Command exited with non-zero status 101\n1.00 0.50 0.25\n"),
            Some((1.0, 0.75))
        );
        assert_eq!(parse_times("garbage\n"), None);
        assert_eq!(parse_times(""), None);
    }

    #[test]
    fn the_section_holds_each_harness_its_ratio_to_divan_and_the_target() {
        let harnesses = harnesses();
        let build = |harness, wall| Build {
            harness,
            wall,
            cpu: wall * 1.8,
            crates: 20,
            load: "1.00 1.00 1.00".into(),
        };
        let builds = [
            build("divan", 16.0),
            build("divan", 18.0),
            build("criterion", 57.0),
            build("criterion", 59.0),
            build("zenbench", 75.0),
            build("zenbench", 75.0),
            build("knotmeter", 96.0),
            build("knotmeter", 96.0),
        ];
        let sitting = Sitting {
            date: "2026-12-03".into(),
            commit: "abc1234".into(),
            cores: "2".into(),
            load_at_start: "1 1 1".into(),
            load_at_end: "2 2 2".into(),
        };
        let text = render(&sitting, 2, &harnesses, &builds);
        assert!(text.starts_with(MARKERS.0) && text.trim_end().ends_with(MARKERS.1));
        assert!(
            text.contains("| divan | 17.0 s | 30.6 s | 20 | 1.00× |"),
            "{text}"
        );
        assert!(text.contains("| knotmeter | 96.0 s |"), "{text}");
        assert!(text.contains("5.65×"), "{text}");
        assert!(
            text.contains("34.0 s here; measured 96.0 s, **not met**"),
            "{text}"
        );
    }
}
