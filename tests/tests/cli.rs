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
    assert!(text.contains("2 passed"), "{text}");
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
