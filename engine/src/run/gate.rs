//! The history flags' promises: checked before anything runs, and kept at the end.
//!
//! * Before the first case ([`preflight`]): `--baseline NAME` must name a baseline the history
//!   holds for this machine, profile and time budget (the names it does hold are suggested),
//!   so it needs a history that can be read; `--fail-on-regression` needs something to compare
//!   with: a readable history, or a comparison group among the selected cases. A wrong flag costs seconds, not a whole run
//!   that then compares nothing.
//! * At the end ([`passes`]): `--fail-on-regression PCT` fails on any comparison (before/after,
//!   or a group member against its group's baseline) that is `slower` by more than PCT, says
//!   which measured cases were not compared and why, and fails when nothing at all was
//!   compared: a gate never passes silently. `--baseline` alone says which cases the baseline
//!   could not be compared with.

use knotmeter_format::suggest::edit_distance;
use knotmeter_history::machine_key;
use knotmeter_protocol::{BenchResult, Manifest, Verdict};

use super::compare_run::Compared;
use crate::cli::Options;
use crate::registry::Case;
use crate::store::Store;

/// Why the run cannot start with these history flags, as a message for the user.
pub(super) fn preflight(
    options: &Options,
    store: &Store,
    manifest: &Manifest,
    selected: &[Case],
) -> Result<(), String> {
    // `--no-history` with `--baseline` or `--save-baseline` is refused by the command line.
    if let Some(name) = &options.baseline {
        check_baseline(name, store, manifest)?;
    }
    let grouped = selected.iter().any(|c| c.group.is_some());
    if options.fail_on_regression.is_some() && !grouped {
        if let Some(why) = store.unreadable() {
            return Err(format!(
                "--fail-on-regression would compare nothing: no selected case is in a comparison \
                 group, and {why}"
            ));
        }
    }
    Ok(())
}

fn check_baseline(name: &str, store: &Store, manifest: &Manifest) -> Result<(), String> {
    let baselines = store.baselines().map_err(|why| {
        format!("--baseline {name}: the history cannot be read, so there is nothing to compare with: {why}")
    })?;
    let key = machine_key(manifest);
    if baselines
        .iter()
        .any(|b| b.name == name && b.machine_key == key)
    {
        return Ok(());
    }
    let elsewhere: Vec<&str> = baselines
        .iter()
        .filter(|b| b.name == name)
        .map(|b| b.machine_key.as_str())
        .collect();
    if !elsewhere.is_empty() {
        return Err(format!(
            "the baseline `{name}` was saved on another machine or with another profile or time \
             budget, so this run cannot be compared with it (it was saved as {}; this run is \
             {key}): run with the flags it was saved with (`--quick`, `--time`), or save it \
             again with --save-baseline {name}",
            elsewhere.join(" and ")
        ));
    }
    let mut names: Vec<&str> = baselines.iter().map(|b| b.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    let mut message = format!(
        "no baseline named `{name}` in the history {}",
        store.path().display()
    );
    if names.is_empty() {
        message.push_str("; no baseline has been saved yet: save one with --save-baseline NAME");
    } else {
        message.push_str(&format!("; the baselines saved are: {}", names.join(", ")));
        if let Some(near) = names
            .iter()
            .filter(|n| edit_distance(n, name) <= 2)
            .min_by_key(|n| edit_distance(n, name))
        {
            message.push_str(&format!(" (did you mean `{near}`?)"));
        }
    }
    Err(message)
}

/// Whether the run passes `--fail-on-regression` (always, without it). Says on standard
/// error which cases regressed, which were not compared and why, and when nothing was.
pub(super) fn passes(options: &Options, compared: &Compared, results: &[BenchResult]) -> bool {
    let note_not_compared = |flag: &str| {
        if compared.not_compared.is_empty() {
            return;
        }
        let list: Vec<String> = compared
            .not_compared
            .iter()
            .map(|(id, why)| format!("{id} ({why})"))
            .collect();
        eprintln!(
            "knotmeter: {flag}: {} of the {} measured cases were not compared: {}",
            compared.not_compared.len(),
            results.len(),
            list.join("; ")
        );
    };
    let Some(limit) = options.fail_on_regression else {
        if let Some(name) = &options.baseline {
            note_not_compared(&format!("--baseline {name}"));
        }
        return true;
    };
    let flag = format!("--fail-on-regression {limit}");
    note_not_compared(&flag);
    let regressions: Vec<(&BenchResult, f64, &str)> = results
        .iter()
        .filter_map(|r| {
            let c = r.comparison.as_ref()?;
            let change = (c.ratio - 1.0) * 100.0;
            (c.verdict == Verdict::Slower && change > limit).then_some((
                r,
                change,
                c.against.as_str(),
            ))
        })
        .collect();
    for (r, change, against) in &regressions {
        eprintln!(
            "knotmeter: regression: {} is {change:.1}% slower than {against} (limit {limit}%)",
            r.id
        );
    }
    if results.iter().all(|r| r.comparison.is_none()) {
        eprintln!("knotmeter: {flag}: no case was compared, so the gate cannot pass");
        return false;
    }
    regressions.is_empty()
}
