//! The run-to-run noise a bench binary learns from its history (the spread between runs, and
//! the floor of its before/after verdicts) comes from earlier runs of the same code: a history
//! of two branches measured in turn does not take the difference between them for noise.

mod history_support;

use history_support::TempHistory;
use knotmeter_history::History;
use knotmeter_protocol::{BenchResult, Manifest};
use serde_json::Value;

/// The fixture's `plain` case measured once on `h`: its manifest and result.
fn measured_once(h: &TempHistory) -> (Manifest, BenchResult) {
    let report = h.json(&h.fixture(&["--exact", "plain"]));
    let manifest = serde_json::from_value(report["manifest"].clone()).unwrap();
    let result = serde_json::from_value(report["results"][0].clone()).unwrap();
    (manifest, result)
}

/// Adds 20 runs of `result`'s case, on `manifest`'s machine, alternating between two commits
/// whose medians are 10% apart (±0.3% between runs of one commit), each with `dirty`.
fn two_branches_in_turn(h: &TempHistory, manifest: &Manifest, result: &BenchResult, dirty: bool) {
    let mut history = History::open(&h.path).unwrap();
    let wobble = [
        0.001, -0.002, 0.0, 0.002, -0.001, 0.003, -0.003, 0.001, 0.0, -0.002,
    ];
    for i in 0..20 {
        let (commit, level) = if i % 2 == 0 {
            ("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", 1.1)
        } else {
            ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 1.0)
        };
        let mut m = manifest.clone();
        m.git_commit = Some(commit.to_owned());
        m.git_dirty = Some(dirty);
        m.timestamp += 1 + i as u64;
        let mut r = result.clone();
        r.estimate.median_ns = result.estimate.median_ns * level * (1.0 + wobble[i / 2]);
        history.record_run(&m, &[r], None).unwrap();
    }
}

fn reproducibility(h: &TempHistory) -> Value {
    let report = h.json(&h.fixture(&["--exact", "plain"]));
    report["results"][0]["reproducibility"].clone()
}

#[test]
fn two_branches_measured_in_turn_do_not_inflate_the_spread_between_runs() {
    let h = TempHistory::new();
    let (manifest, result) = measured_once(&h);
    assert!(
        manifest.git_dirty.is_some() == manifest.git_commit.is_some(),
        "a bench binary in a git checkout says whether it has uncommitted changes: {manifest:?}"
    );
    two_branches_in_turn(&h, &manifest, &result, false);
    let learnt = reproducibility(&h);
    assert_eq!(learnt["learnt_from"], "same_code", "{learnt}");
    let spread = learnt["spread"].as_f64().unwrap();
    // From the steps between the branches it would be about 30%.
    assert!(spread < 0.02, "{learnt}");
    assert_eq!(learnt["runs"], 20, "{learnt}");
}

#[test]
fn runs_with_uncommitted_changes_are_not_taken_for_the_same_code() {
    let h = TempHistory::new();
    let (manifest, result) = measured_once(&h);
    two_branches_in_turn(&h, &manifest, &result, true);
    let learnt = reproducibility(&h);
    assert_eq!(learnt["learnt_from"], "any_code", "{learnt}");
    assert!(learnt["spread"].as_f64().unwrap() > 0.25, "{learnt}");
}

/// The manifest says whether the working tree the bench binary ran in had uncommitted changes
/// to tracked files (what tells runs of the same code apart), and leaves it out outside git.
#[test]
fn the_manifest_says_whether_the_working_tree_had_uncommitted_changes() {
    let h = TempHistory::new();
    let repo = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(repo.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
    };
    let dirty = || {
        let out = h
            .fixture_command(&["--exact", "plain", "--no-history"])
            .current_dir(repo.path())
            // Never the repository the temporary directory may sit in.
            .env("GIT_CEILING_DIRECTORIES", repo.path().parent().unwrap())
            .output()
            .unwrap();
        let manifest: Manifest = serde_json::from_value(h.json(&out)["manifest"].clone()).unwrap();
        manifest.git_dirty
    };
    assert_eq!(dirty(), None, "not a git repository");
    git(&["init", "-q"]);
    std::fs::write(repo.path().join("lib.rs"), "fn a() {}\n").unwrap();
    git(&["add", "lib.rs"]);
    git(&["commit", "-q", "-m", "a"]);
    assert_eq!(dirty(), Some(false));
    // An untracked file is not a change to the code built.
    std::fs::write(repo.path().join("notes.txt"), "todo\n").unwrap();
    assert_eq!(dirty(), Some(false));
    std::fs::write(repo.path().join("lib.rs"), "fn b() {}\n").unwrap();
    assert_eq!(dirty(), Some(true));
}
