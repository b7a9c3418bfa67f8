//! The bench binary's command line, as `cargo bench`, CI scripts and the daemon use it.

use std::process::{Command, Output};

fn fixture(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fixture"))
        .env("KNOTMETER_HISTORY", history_file())
        .args(args)
        .output()
        .expect("the fixture bench binary runs")
}

/// A history file of this test process's own, so runs never compare with other tests' runs.
fn history_file() -> std::path::PathBuf {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().unwrap())
        .path()
        .join("history.db")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

#[test]
fn list_in_libtest_format() {
    let out = fixture(&["--list"]);
    assert!(out.status.success());
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().take_while(|l| !l.is_empty()).collect();
    assert_eq!(
        lines,
        [
            "plain: benchmark",
            "sized/10: benchmark",
            "sized/1000: benchmark",
            "explicit: benchmark",
            "pair_a: benchmark",
            "pair_b: benchmark",
            "awaited: benchmark",
            "failing::panics: benchmark",
            "failing::never_measures: benchmark",
        ]
    );
}

#[test]
fn list_as_json_has_ids_files_and_lines() {
    let out = fixture(&["--list", "--format", "json", "sized"]);
    assert!(out.status.success());
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["version"], 1);
    let cases = doc["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 2);
    assert_eq!(cases[0]["id"], "fixture::sized/10");
    assert_eq!(cases[0]["bench_id"], "fixture::sized");
    assert_eq!(cases[0]["args"], "10");
    assert_eq!(cases[0]["name"], "sized");
    assert!(cases[0]["file"].as_str().unwrap().ends_with("fixture.rs"));
    // `fn sized` is on line 16 of src/bin/fixture.rs.
    assert_eq!(cases[0]["line"], 16);
}

#[test]
fn pretty_table_has_units_and_grouping() {
    let out = fixture(&["--bench", "--quick", "--exact", "plain", "sized/1000"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("debug_build"),
        "a debug build is flagged loudly:\n{text}"
    );
    assert!(
        text.contains("plain") && text.contains("sized/1000"),
        "{text}"
    );
    assert!(text.contains(" ns"), "human units:\n{text}");
    // Both measured: passed, or warned (a noisy machine can make a quick run noisy).
    let totals = text.lines().last().unwrap_or_default();
    let measured: u32 = totals
        .split(" in ")
        .next()
        .unwrap_or_default()
        .split(", ")
        .filter_map(|part| match part.split_once(' ') {
            Some((n, "passed" | "warned")) => n.parse::<u32>().ok(),
            _ => None,
        })
        .sum();
    assert_eq!(measured, 2, "{text}");
}

#[test]
fn unknown_flag_and_bad_value_exit_with_2() {
    for args in [
        &["--bench", "--no-such-flag"][..],
        &["--format", "yaml"],
        &["--time", "zero"],
    ] {
        let out = fixture(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!stderr(&out).is_empty(), "{args:?} explains itself");
    }
}

#[test]
fn filter_matching_nothing_says_so() {
    let out = fixture(&["--bench", "no_such_benchmark"]);
    assert!(
        out.status.success(),
        "like libtest, an empty selection is not an error"
    );
    let err = stderr(&out);
    assert!(
        err.contains("no benchmark matches") && err.contains("no_such_benchmark"),
        "{err}"
    );
}

#[test]
fn panicking_bench_fails_and_the_others_still_run() {
    let out = fixture(&[
        "--bench",
        "--quick",
        "--format",
        "json",
        "--exact",
        "plain",
        "failing::panics",
        "failing::never_measures",
        "awaited",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let results: Vec<&str> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(results, ["fixture::plain", "fixture::awaited"]);
    let failures = report["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 2);
    assert_eq!(failures[0]["kind"], "panic");
    assert_eq!(failures[0]["message"], "the fixture panics on purpose");
    assert_eq!(failures[1]["kind"], "misuse");
    assert!(failures[1]["message"]
        .as_str()
        .unwrap()
        .contains("without calling"));
}

#[test]
fn without_bench_flag_each_case_runs_once_like_a_test() {
    let out = fixture(&["--skip", "failing"]);
    assert!(out.status.success(), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(text.contains("test plain ... ok"), "{text}");
    assert!(
        text.contains("test result: ok. 7 passed; 0 failed"),
        "{text}"
    );
    let failing = fixture(&["failing"]);
    assert_eq!(failing.status.code(), Some(1));
    assert!(stdout(&failing).contains("test failing::panics ... FAILED"));
}

/// `--no-history --save-baseline X` ran, stored nothing and said nothing.
#[test]
fn no_history_with_save_baseline_or_baseline_is_an_error() {
    for flag in ["--save-baseline", "--baseline"] {
        let out = fixture(&["--bench", "--quick", "--no-history", flag, "main", "plain"]);
        assert_eq!(out.status.code(), Some(2), "{flag}");
        let err = stderr(&out);
        assert!(err.contains(flag) && err.contains("--no-history"), "{err}");
        assert!(stdout(&out).is_empty(), "nothing ran: {}", stdout(&out));
    }
}

/// `--list --format csv` printed the pretty list as if the format had not been given.
#[test]
fn list_with_a_format_it_cannot_print_or_an_outcome_flag_is_an_error() {
    for args in [
        &["--list", "--format", "csv"][..],
        &["--list", "--format", "jsonl"],
        &["--list", "--save-baseline", "main"],
        &["--list", "--fail-on-regression", "5"],
    ] {
        let out = fixture(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stdout(&out));
        assert!(
            stderr(&out).contains("--list"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    // Measurement settings change nothing about a list, and a tool may pass them along.
    let out = fixture(&["--list", "--format", "json", "--quick", "--time", "3"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

/// Without `--bench`, `--format json` printed libtest's text and `--save-baseline` stored
/// nothing.
#[test]
fn measuring_flags_without_bench_are_errors() {
    for args in [
        &["--format", "json"][..],
        &["--save-baseline", "main"],
        &["--fail-on-regression", "5"],
    ] {
        let out = fixture(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stdout(&out));
        let err = stderr(&out);
        assert!(err.contains("needs --bench"), "{args:?}: {err}");
    }
}

/// A filter matching nothing printed nothing at all in json and jsonl.
#[test]
fn filter_matching_nothing_prints_an_empty_document_in_json_and_jsonl() {
    let out = fixture(&["--bench", "--format", "json", "no_such_benchmark"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("no benchmark matches"));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["version"], 1);
    assert_eq!(report["results"], serde_json::json!([]));
    assert_eq!(report["failures"], serde_json::json!([]));

    let out = fixture(&["--bench", "--format", "jsonl", "no_such_benchmark"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let events: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[0]["event"], "run_started");
    assert_eq!(events[0]["cases"], serde_json::json!([]));
    assert_eq!(events[1]["event"], "run_finished");
    assert_eq!(events[1]["passed"], 0);
}

/// `cargo bench | head` printed `Broken pipe` and exited 1.
#[test]
fn a_closed_pipe_ends_the_run_quietly() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_fixture"))
        .env("KNOTMETER_HISTORY", history_file())
        // About a second per case: the reader is gone long before the run could end.
        .args([
            "--bench",
            "--time",
            "1",
            "--exact",
            "plain",
            "sized/10",
            "sized/1000",
            "explicit",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    // Like `head -1`: the manifest line, then the reader goes away.
    assert!(lines.next().unwrap().unwrap().starts_with("knotmeter "));
    drop(lines);
    let out = child.wait_with_output().unwrap();
    let err = stderr(&out);
    assert!(
        !err.contains("Broken pipe") && !err.contains("cannot write"),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(0), "{err}");
}
