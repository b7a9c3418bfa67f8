//! `--fail-on-regression` as a CI gate: it fails on a real regression, names the cases it
//! could not compare and why, fails when it compared nothing, and a baseline that does not
//! exist is an error before anything runs.

use crate::history_support;

use history_support::TempHistory;

/// Steps of the chain per call: the baseline's, and ten times more (a sure regression).
const FAST: &str = "200";
const SLOW: &str = "2000";

fn save_main(h: &TempHistory) {
    let out = h.midway(
        &["--exact", "first", "second", "--save-baseline", "main"],
        &[("KNOTMETER_FIXTURE_WORK", FAST)],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_real_regression_fails_the_gate() {
    let h = TempHistory::new();
    save_main(&h);
    let out = h.midway(
        &[
            "--exact",
            "first",
            "second",
            "--baseline",
            "main",
            "--fail-on-regression",
            "5",
        ],
        &[("KNOTMETER_FIXTURE_WORK", SLOW)],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("regression: midway::first is") && err.contains("slower than baseline main"),
        "{err}"
    );
    // The same code passes.
    let out = h.midway(
        &[
            "--exact",
            "first",
            "second",
            "--baseline",
            "main",
            "--fail-on-regression",
            "500",
        ],
        &[("KNOTMETER_FIXTURE_WORK", FAST)],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// Issue 10 §4: `--baseline mian` (a typo) exited 0 with nothing on stderr while a real
/// +114.7% regression existed.
#[test]
fn a_baseline_that_does_not_exist_is_an_error_before_anything_runs() {
    let h = TempHistory::new();
    save_main(&h);
    let out = h.midway(
        &[
            "--exact",
            "first",
            "--baseline",
            "mian",
            "--fail-on-regression",
            "5",
            "--format",
            "json",
        ],
        &[("KNOTMETER_FIXTURE_WORK", SLOW)],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("no baseline named `mian`"), "{err}");
    assert!(err.contains("did you mean `main`?"), "{err}");
    assert!(out.stdout.is_empty(), "nothing ran");
    assert_eq!(
        h.reader().runs(10).unwrap().len(),
        1,
        "nothing was recorded"
    );

    // A baseline saved with another time budget cannot be compared with either.
    let out = h.midway(
        &["--exact", "first", "--baseline", "main", "--time", "0.05"],
        &[],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("budget=100ms") && err.contains("budget=50ms"),
        "{err}"
    );
}

#[test]
fn a_gate_that_compared_nothing_fails() {
    let h = TempHistory::new();
    let out = h.midway(&["--exact", "first", "--fail-on-regression", "5"], &[]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("no case was compared"), "{err}");
    assert!(
        err.contains("midway::first (no earlier complete result"),
        "says why: {err}"
    );
}

#[test]
fn a_gate_that_compared_fewer_cases_than_it_ran_says_which_and_why() {
    let h = TempHistory::new();
    save_main(&h);
    let out = h.midway(
        &["--baseline", "main", "--fail-on-regression", "500"],
        &[("KNOTMETER_FIXTURE_WORK", FAST)],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("1 of the 3 measured cases were not compared")
            && err.contains("midway::third (the baseline `main` has no complete result"),
        "{err}"
    );
}

/// Issue 10 §4: the gate also passed silently when the history was locked.
#[test]
fn a_locked_history_still_gates() {
    let h = TempHistory::new();
    save_main(&h);
    let lock = h.hold_write_lock();
    let out = h.midway(
        &[
            "--exact",
            "first",
            "--baseline",
            "main",
            "--fail-on-regression",
            "5",
        ],
        &[("KNOTMETER_FIXTURE_WORK", SLOW)],
    );
    drop(lock);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("regression: midway::first"), "{err}");
    assert!(err.contains("were not stored"), "{err}");
}

/// Issue 10 §4: ... or unreadable, or newer.
#[test]
fn a_gate_on_a_history_it_cannot_read_is_an_error_before_anything_runs() {
    let h = TempHistory::new();
    save_main(&h);
    rusqlite::Connection::open(&h.path)
        .unwrap()
        .execute_batch("PRAGMA user_version = 99")
        .unwrap();
    for args in [
        &["--exact", "first", "--fail-on-regression", "5"][..],
        &["--exact", "first", "--baseline", "main"],
    ] {
        let out = h.midway(args, &[]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("upgrade knotmeter"), "{err}");
    }
    std::fs::write(&h.path, b"not a database").unwrap();
    let out = h.midway(&["--exact", "first", "--fail-on-regression", "5"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

#[test]
fn history_flags_need_the_history() {
    let h = TempHistory::new();
    for flag in [
        &["--baseline", "main"][..],
        &["--save-baseline", "main"],
        // Nothing to compare with: no history, and no comparison group among the cases.
        &["--fail-on-regression", "5"],
    ] {
        let mut args = vec!["--exact", "first", "--no-history"];
        args.extend_from_slice(flag);
        let out = h.midway(&args, &[]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{flag:?}: {err}");
        assert!(err.contains("--no-history"), "{err}");
        assert!(out.stdout.is_empty(), "nothing ran");
    }
}
