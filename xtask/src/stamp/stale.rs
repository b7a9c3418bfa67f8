//! `cargo xtask stale [--run]`: the generated sections of `docs/` whose figures may not be of
//! HEAD's code (the check `cargo test` runs, `check.rs`), each with the command that measures
//! it again; with `--run`, those commands one after another, each section's time said as it
//! ends. An engine change stales every section (nearly two hours on a 2-core machine): this is
//! the way to measure them all in one sitting, on a clean tree, with nothing else running.

use std::process::Command;
use std::time::Instant;

use super::check::check;
use super::sections::{Section, SECTIONS};
use crate::cargo;

const USAGE: &str = "usage: cargo xtask stale [--run]";

/// Lists the stale sections, each with why (a section that cannot be checked, in a shallow
/// clone for one, is listed with that reason too), and with `--run` measures each again; an
/// error when a command fails (the others still run).
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let measure = match args {
        [] => false,
        [flag] if flag == "--run" => true,
        _ => return Err(USAGE.to_owned()),
    };
    let root = cargo::root();
    let stale: Vec<(&Section, String)> = SECTIONS
        .iter()
        .filter_map(|section| check(&root, section).err().map(|why| (*section, why)))
        .collect();
    if stale.is_empty() {
        eprintln!("every generated section of docs/ is of the code at HEAD");
        return Ok(());
    }
    for (section, why) in &stale {
        println!("{}", section.command);
        eprintln!("  {why}\n");
    }
    if !measure {
        return Ok(());
    }
    let started = Instant::now();
    let mut failed = Vec::new();
    for (k, (section, _)) in stale.iter().enumerate() {
        eprintln!(
            "== [{}/{}] {} ({} min so far)",
            k + 1,
            stale.len(),
            section.command,
            started.elapsed().as_secs() / 60
        );
        let took = Instant::now();
        let words: Vec<&str> = section.command.split_whitespace().collect();
        let status = match words.split_first() {
            Some((&"cargo", rest)) => Command::new(cargo::program())
                .args(rest)
                .current_dir(&root)
                .status(),
            _ => return Err(format!("`{}` is not a cargo command", section.command)),
        };
        let took = took.elapsed().as_secs_f64() / 60.0;
        match status {
            Ok(status) if status.success() => {
                eprintln!("== {} done in {took:.1} min", section.name);
            }
            Ok(status) => failed.push(format!("`{}` ({status})", section.command)),
            Err(e) => failed.push(format!("`{}` (cannot start: {e})", section.command)),
        }
    }
    eprintln!(
        "== {} sections in {:.0} min; commit the pages on their own",
        stale.len(),
        started.elapsed().as_secs_f64() / 60.0
    );
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("these failed: {}", failed.join(", ")))
    }
}
