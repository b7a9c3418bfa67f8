//! Comparison groups without exactly one baseline are refused before anything runs.

use std::process::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_groups"))
        .args(args)
        .output()
        .expect("the fixture bench binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_group_without_a_baseline_or_with_two_is_an_error_at_run_start() {
    let (status, stdout, stderr) = run(&["--bench", "--no-history", "--format", "json"]);
    assert_eq!(status, 2, "{stderr}");
    assert_eq!(stdout, "", "nothing was measured or reported");
    assert!(
        stderr.contains("comparison group `leaderless` has no baseline: its members (first_member"),
        "{stderr}"
    );
    assert!(
        stderr.contains("second_member (tests/src/bin/groups.rs:"),
        "{stderr}"
    );
    assert!(
        stderr.contains("comparison group `crowded` has 2 baselines (one_baseline"),
        "{stderr}"
    );
    assert!(stderr.contains("another_baseline"), "{stderr}");
    // Under `cargo test` (each case once) the same check fails the target.
    let (status, _, stderr) = run(&[]);
    assert_eq!(status, 2, "{stderr}");
}

#[test]
fn only_the_groups_that_run_are_checked() {
    let (status, stdout, stderr) = run(&[
        "--bench",
        "--no-history",
        "--format",
        "json",
        "--quick",
        "--exact",
        "alone",
    ]);
    assert_eq!(status, 0, "{stderr}");
    assert!(stdout.contains("\"groups::alone\""), "{stdout}");
    let (status, stdout, _) = run(&["--list"]);
    assert_eq!(status, 0);
    assert!(stdout.contains("first_member: benchmark"), "{stdout}");
}
