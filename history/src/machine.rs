//! The machine key: which runs may be compared with each other.
//!
//! Two results are comparable only when they were measured on the same kind of machine with
//! the same kind of build and the same measuring settings (a `--quick` run samples for a tenth
//! of the time and is compared with `--quick` runs only). The key is built from the manifest's
//! CPU model, logical core count, target triple, cargo profile, optimisation level, debug
//! assertions and time budget, joined with `|` into a readable string such as
//! `x86_64-unknown-linux-gnu|AMD EPYC 7763|8 cores|release|opt-level=3|debug-assertions=off|budget=1000ms`.
//!
//! The key is stored with every run and indexed; changing how it is built would make every
//! stored run incomparable with new ones, so the format is fixed. A run that counted
//! instructions (`--measure instructions`) has `|instructions` after it, so that counts are
//! compared with counts and times with times, and a time's key is as it always was.

use knotmeter_protocol::{Manifest, Measure};

/// The comparability key of a run: equal keys mean the same CPU model, core count, target,
/// cargo profile, optimisation level, debug-assertion setting, time budget and measure.
pub fn machine_key(manifest: &Manifest) -> String {
    let cpu = manifest.cpu.trim();
    let cpu = if cpu.is_empty() { "unknown cpu" } else { cpu };
    let key = format!(
        "{}|{}|{} cores|{}|opt-level={}|debug-assertions={}|budget={}ms",
        manifest.target.trim(),
        cpu,
        manifest.cores,
        manifest.profile.trim(),
        manifest.opt_level.trim(),
        if manifest.debug_assertions {
            "on"
        } else {
            "off"
        },
        manifest.budget_ms,
    );
    // Counts and times never meet: a count's earlier results are counts.
    match manifest.measure {
        Measure::Time => key,
        Measure::Instructions => format!("{key}|instructions"),
    }
}
