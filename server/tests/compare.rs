//! `knotmeter compare` end to end: a real git repository in a temporary directory, two
//! commits of a tiny fixture (`tests/fixtures/compare`), real cargo builds, the real binary.
//!
//! The fixture's head does three times the work in `slower`, drops `gone` and adds `new`.
//! Every run uses `--quick` and its own history file. Builds go to the shared fixture target
//! directory (`target/e2e-fixtures`, and the base's own under it), so the engine and its
//! dependencies are compiled once for the suite.

use crate::common;
use crate::compare_support;

use std::path::Path;
use std::process::Command;

use compare_support::{case, json, stderr, Repo};
use serde_json::Value;

#[test]
fn compare_measures_two_commits_case_by_case_and_stores_the_comparison() {
    let repo = Repo::new(&["base", "head"]);
    let base = repo.git(&["rev-parse", "HEAD~1"]);
    let head = repo.git(&["rev-parse", "HEAD"]);
    let out = repo.compare(&["HEAD~1", "--format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = json(&out);
    assert_eq!(report["version"], 1);
    assert_eq!(
        (&report["base"]["label"], &report["base"]["commit"]),
        (&Value::from("HEAD~1"), &Value::from(base.as_str()))
    );
    assert_eq!(report["head"]["label"], "working tree");
    assert_eq!(report["head"]["commit"], head.as_str());
    assert_eq!(report["head"]["dirty"], false);
    assert!(report["head"]["manifest"]["cpu"].is_string());

    // Three times the work, paired round by round: slower, by about 200%.
    let slower = case(&report, "two::slower");
    assert_eq!(slower["status"], "compared", "{slower:#}");
    // Single-threaded code: the bench binary's own thread reading its commands is not the
    // benchmark's (every pinned compare once said "the head build's benchmark ran 2 threads").
    assert_eq!(slower["note"], Value::Null, "{slower:#}");
    let comparison = &slower["comparison"];
    assert_eq!(comparison["verdict"], "slower", "{comparison:#}");
    assert_eq!(comparison["against"], "HEAD~1");
    let ratio = comparison["ratio"].as_f64().unwrap();
    assert!((2.0..4.0).contains(&ratio), "{comparison:#}");
    let (b, h) = (&slower["base"], &slower["head"]);
    assert_eq!(
        b["samples"], h["samples"],
        "one sample of each side per round"
    );
    assert_eq!(b["ops_per_sample"], h["ops_per_sample"]);
    // Each side's result is its own build's: the base did a third of the work.
    let medians = (
        b["estimate"]["median_ns"].as_f64().unwrap(),
        h["estimate"]["median_ns"].as_f64().unwrap(),
    );
    assert!(medians.1 > medians.0 * 2.0, "{medians:?}");

    let same = case(&report, "two::same");
    assert_eq!(same["status"], "compared", "{same:#}");
    let ratio = same["comparison"]["ratio"].as_f64().unwrap();
    assert!((0.8..1.25).contains(&ratio), "{same:#}");
    assert_eq!(case(&report, "two::new")["status"], "added");
    assert_eq!(case(&report, "two::gone")["status"], "removed");

    // Stored in the history as a comparison, both commits named; not as a run.
    let id = report["stored"].as_i64().expect("stored");
    let history = knotmeter_history::History::open_read_only(&repo.history()).unwrap();
    let stored = history.comparisons(5).unwrap();
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].stored, Some(id));
    assert_eq!(stored[0].base.commit.as_deref(), Some(base.as_str()));
    assert_eq!(stored[0].head.commit.as_deref(), Some(head.as_str()));
    assert!(history.runs(5).unwrap().is_empty());

    // Again, as a pull-request comment with a filter.
    let out = repo.compare(&["HEAD~1", "--format", "markdown", "slow"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let markdown = String::from_utf8(out.stdout).unwrap();
    assert!(
        markdown.starts_with("### knotmeter: working tree"),
        "{markdown}"
    );
    assert!(markdown.contains("| `two::slower` |"), "{markdown}");
    assert!(markdown.contains("| slower |"), "{markdown}");
    assert!(
        !markdown.contains("two::same"),
        "the filter keeps `slow` only: {markdown}"
    );
}

#[test]
fn the_gate_fails_on_a_regression_past_its_limit_and_when_it_compared_nothing() {
    let repo = Repo::new(&["base", "head"]);
    let out = repo.compare(&["HEAD~1", "--fail-on-regression", "50", "slower"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("regression: two::slower is"),
        "{}",
        stderr(&out)
    );
    let out = repo.compare(&["HEAD~1", "--fail-on-regression", "50", "new"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("two::new (added: only the head build has it)"),
        "{err}"
    );
    assert!(
        err.contains("no case was compared, so the gate cannot pass"),
        "{err}"
    );
}

#[test]
fn uncommitted_changes_are_compared_with_head_by_default() {
    let repo = Repo::new(&["base"]);
    repo.checkout_version("head");
    // `.` is a path, so `slower` is the filter and the base is the default.
    let out = repo.compare(&[".", "slower", "--format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = json(&out);
    assert_eq!(report["base"]["label"], "HEAD");
    assert_eq!(report["head"]["dirty"], true);
    let slower = case(&report, "two::slower");
    assert_eq!(slower["comparison"]["verdict"], "slower", "{slower:#}");
}

#[test]
fn a_base_that_does_not_build_is_an_error_and_the_head_is_still_measured() {
    let repo = Repo::new(&["broken", "head"]);
    let out = repo.compare(&["HEAD~1", "--format", "json"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("does not build"), "{err}");
    assert!(
        err.contains("not_defined"),
        "the compiler's error is shown: {err}"
    );
    let report = json(&out);
    let slower = case(&report, "two::slower");
    assert_eq!(slower["status"], "not_compared");
    assert!(slower["head"]["estimate"]["median_ns"].as_f64().unwrap() > 0.0);
    assert!(slower["note"].as_str().unwrap().contains("does not build"));
    assert_warned_not_compared(slower, "does not build");
    // The head's results are in the history, as a run.
    assert_eq!(stored_runs(&repo), 1);
}

#[test]
fn a_revision_that_does_not_exist_is_an_error_that_names_the_near_ones() {
    let repo = Repo::new(&["base"]);
    let out = repo.compare(&["mian"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("`mian` is not a commit, branch or tag"),
        "{err}"
    );
    assert!(err.contains("did you mean `main`"), "{err}");
    let out = repo.compare(&["--head", "nope", "main"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--head: `nope` is not a commit"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_clean_branch_without_upstream_asks_for_the_base() {
    let repo = Repo::new(&["base"]);
    let out = repo.compare(&[]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("nothing to compare with"), "{err}");
    assert!(err.contains("knotmeter compare main"), "{err}");
}

#[test]
fn outside_a_git_repository_it_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(common::knotmeter())
        .args(["compare", "HEAD"])
        .current_dir(dir.path())
        .env(
            "GIT_CEILING_DIRECTORIES",
            dir.path().parent().unwrap_or(Path::new("/")),
        )
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("is not in a git repository"), "{err}");
}

#[test]
fn switching_the_base_between_commits_never_takes_the_other_commits_binary() {
    // Commits: the base version, the head version (three times the work in `slower`), and the
    // base version again, which the working tree holds.
    let repo = Repo::new(&["base", "head", "base"]);
    // The working tree's time over the base's for `slower`: about 1/3 against the slow
    // version, `same` against its own code. Each comparison's interval comes from rounds in
    // fresh pairs of processes, so identical code reads `same` even with the other tests'
    // comparisons on the same two cores (it once read a little faster now and then, and this
    // test then checked only that the ratio lay between 0.6 and 1.6).
    let compared = |rev: &str| {
        let out = repo.compare(&[rev, "--format", "json", "slower"]);
        assert!(out.status.success(), "{}", stderr(&out));
        let report = json(&out);
        let comparison = &case(&report, "two::slower")["comparison"];
        let ratio = comparison["ratio"]
            .as_f64()
            .unwrap_or_else(|| panic!("{report:#}"));
        (
            ratio,
            comparison["verdict"].as_str().unwrap_or("none").to_owned(),
        )
    };
    let slow = 0.2..0.6;
    // HEAD~1 is the slow version: the working tree is faster than it.
    let (first, verdict) = compared("HEAD~1");
    assert!(slow.contains(&first), "against HEAD~1: {first}");
    assert_eq!(verdict, "faster", "against HEAD~1: {first}");
    // HEAD~2 is the working tree's code: its own build, in the same target directory.
    let (own, verdict) = compared("HEAD~2");
    assert_eq!(
        verdict, "same",
        "HEAD~2 (the same code) read {own}: measured with HEAD~1's binary, or an interval \
         that misses what differs between processes"
    );
    // Back to HEAD~1, whose worktree (and its old timestamps) was kept: it must be rebuilt,
    // not handed HEAD~2's executable, which is newer than its sources.
    let (again, verdict) = compared("HEAD~1");
    assert!(
        slow.contains(&again) && verdict == "faster",
        "HEAD~1 measured with HEAD~2's binary: {again} {verdict}"
    );
}

#[test]
fn the_editor_compares_with_a_base_through_knotmeter_run() {
    let repo = Repo::new(&["base", "head"]);
    let mut run = editor_compare(&repo, "HEAD~1", &["two::slower", "two::new"]);
    let finals = &run.finals;
    assert!(
        finals.contains(&("two::slower".into(), "passed".into())),
        "{finals:?}"
    );
    // Only the working tree has `new`: nothing to compare it with.
    assert!(
        finals.contains(&("two::new".into(), "skipped".into())),
        "{finals:?}"
    );
    // The working tree's result, then the same result with its comparison against HEAD~1.
    let compared = run.passed("two::slower");
    let comparison = &compared["result"]["comparison"];
    assert_eq!(comparison["kind"], "builds", "{compared:#}");
    assert_eq!(comparison["against"], "HEAD~1");
    assert_eq!(comparison["verdict"], "slower");
    assert!(run
        .states
        .iter()
        .any(|s| s["id"] == "two::slower" && s["state"] == "started"));
    // The results panel's table: both figures, the change with its interval, the verdict
    // against the base, and the case only the working tree has.
    let slower = run.row("two::slower");
    assert_eq!(slower["outcome"], "slower than HEAD~1", "{slower:#}");
    assert_eq!(slower["verdict"], "slower", "{slower:#}");
    let change = slower["change"].as_str().unwrap();
    let phrase = knotmeter_format::text::builds_change_text(
        &serde_json::from_value(comparison.clone()).unwrap(),
    );
    assert!(
        phrase.starts_with(change) && change.contains("% ["),
        "the table and the lens read alike: {change} / {phrase}"
    );
    for side in ["base", "head"] {
        assert!(slower[side].as_str().unwrap().ends_with('s'), "{slower:#}");
    }
    let new = run.row("two::new");
    assert_eq!(
        (&new["outcome"], &new["why"]),
        (
            &serde_json::json!("added"),
            &serde_json::json!("only the head build has it")
        ),
        "{new:#}"
    );
    let panel = &run.compared;
    assert!(
        panel["heading"]
            .as_str()
            .unwrap()
            .contains("against HEAD~1"),
        "{panel:#}"
    );
    // The lens reads as `knotmeter compare` prints it.
    let lenses = run.client.request(
        "textDocument/codeLens",
        serde_json::json!({"textDocument": {"uri": format!("file://{}", repo.root().join("benches/two.rs").display())}}),
    );
    let titles: Vec<&str> = lenses["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["command"]["title"].as_str().unwrap())
        .collect();
    // (A warning the working tree's result carries, such as `high_noise` under the other
    // tests' load, follows the verdict.)
    assert!(
        titles
            .iter()
            .any(|t| t.contains("% [") && t.contains("] slower than HEAD~1")),
        "{titles:?}"
    );
}

/// A comparison of identical code (the base is the working tree's own clean commit) says so
/// in the run's output, where the editor's user reads: the daemon printed it to its standard
/// error, which the user never sees, and the editor's comparison ran on without a word.
#[test]
fn the_editor_says_a_comparison_of_identical_code_in_the_run_output() {
    let repo = Repo::new(&["base", "head"]);
    let run = editor_compare(&repo, "HEAD", &["two::slower"]);
    assert!(
        run.output
            .contains("this compares identical code (an A/A comparison)"),
        "{}",
        run.output
    );
    assert!(
        run.finals
            .contains(&("two::slower".into(), "passed".into())),
        "{:?}",
        run.finals
    );
}

/// A daemon on `repo` with the settings `settings`, its history the repository's own and its
/// builds in the repository's target directory whatever the environment says.
fn editor(repo: &Repo, settings: serde_json::Value) -> common::Client {
    let history = repo.history();
    let mut client = common::Client::spawn_with(&repo.root(), |c| {
        c.env("KNOTMETER_HISTORY", &history)
            .env_remove("CARGO_TARGET_DIR");
    });
    client.initialize(&repo.root(), settings);
    client
}

/// A comparison run from the editor, through the real stdio LSP client: the run's states,
/// every `window/showMessage` text and every output line once the run has ended, and the
/// daemon that carried it out.
fn editor_compare(repo: &Repo, base: &str, include: &[&str]) -> EditorRun {
    let mut client = editor(
        repo,
        serde_json::json!({"quickTimeSecs": 0.1, "caseTimeoutSecs": 60}),
    );
    let response = client.request(
        "knotmeter/run",
        serde_json::json!({"include": include, "mode": "quick", "compare": base}),
    );
    let run_id = response["result"]["runId"].as_i64().expect("a run id");
    let states = client.run_to_end(run_id, std::time::Duration::from_secs(600));
    let texts = |method: &str, field: &str| -> Vec<String> {
        client
            .log
            .iter()
            .filter(|r| r.message["method"] == method)
            .filter_map(|r| r.message["params"][field].as_str().map(str::to_owned))
            .collect()
    };
    let compared: Vec<serde_json::Value> = client
        .log
        .iter()
        .filter(|r| {
            r.message["method"] == "knotmeter/compared" && r.message["params"]["runId"] == run_id
        })
        .map(|r| r.message["params"]["comparison"].clone())
        .collect();
    assert_eq!(
        compared.len(),
        1,
        "one knotmeter/compared per comparison run"
    );
    EditorRun {
        compared: compared[0].clone(),
        messages: texts("window/showMessage", "message"),
        output: texts("knotmeter/output", "text").join("\n"),
        finals: client.finals(run_id),
        states,
        client,
    }
}

struct EditorRun {
    /// The daemon, still running, for requests after the run.
    client: common::Client,
    states: Vec<serde_json::Value>,
    /// The run's `knotmeter/compared`: the comparison as the results panel shows it.
    compared: serde_json::Value,
    finals: Vec<(String, String)>,
    messages: Vec<String>,
    output: String,
}

impl EditorRun {
    /// The row of `id` in the run's comparison.
    fn row(&self, id: &str) -> &serde_json::Value {
        self.compared["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("no row {id}: {:#}", self.compared))
    }

    /// The last `passed` state of `id`.
    fn passed(&self, id: &str) -> &serde_json::Value {
        self.states
            .iter()
            .rev()
            .find(|s| s["id"] == id && s["state"] == "passed")
            .unwrap_or_else(|| panic!("{id} never passed: {:?}", self.finals))
    }
}

#[test]
fn editor_base_that_does_not_build_lost_the_heads_results() {
    let repo = Repo::new(&["broken", "head"]);
    let run = editor_compare(&repo, "HEAD~1", &["two::slower", "two::new"]);
    // Every item ends with its own result, warned: never a pass, never an error.
    for id in ["two::slower", "two::new"] {
        assert!(
            run.finals.contains(&(id.into(), "passed".into())),
            "{:?}\n{}",
            run.finals,
            run.output
        );
        let state = run.passed(id);
        assert!(
            state["result"]["estimate"]["median_ns"].as_f64().unwrap() > 0.0,
            "{state:#}"
        );
        let shown = &state["shown"];
        assert_eq!(shown["outcome"], "warned", "{shown:#}");
        let line = shown["line"].as_str().unwrap();
        assert!(line.contains("⚠ not_compared"), "{line}");
        let note = shown["notes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["code"] == "not_compared")
            .unwrap_or_else(|| panic!("{shown:#}"));
        let text = note["text"].as_str().unwrap();
        assert!(
            text.starts_with("⚠ not_compared: the base (HEAD~1) does not build: error"),
            "{text}"
        );
        assert!(
            text.contains("not_defined"),
            "the first compiler error: {text}"
        );
    }
    // The base's error is said once, as a message naming the base and its first error.
    let said: Vec<&String> = run
        .messages
        .iter()
        .filter(|m| m.contains("not compared"))
        .collect();
    assert_eq!(said.len(), 1, "{:?}", run.messages);
    assert!(
        said[0].contains("the base (HEAD~1) does not build") && said[0].contains("not_defined"),
        "{}",
        said[0]
    );
    // The whole error is in the run's output.
    assert!(run.output.contains("does not build"), "{}", run.output);
    // The results panel's table says the same, with the head's figure and no change.
    let row = run.row("two::slower");
    assert_eq!(row["status"], "not_compared", "{row:#}");
    assert_eq!(row["outcome"], "not compared", "{row:#}");
    assert_eq!(row["change"], "", "{row:#}");
    assert_eq!(row["base"], "—", "{row:#}");
    assert!(row["head"].as_str().unwrap().ends_with('s'), "{row:#}");
    assert!(
        row["why"]
            .as_str()
            .unwrap()
            .starts_with("the base (HEAD~1) does not build"),
        "{row:#}"
    );
    // The head's results are in the history, as a run.
    assert_eq!(stored_runs(&repo), 1);
}

#[test]
fn editor_base_that_predates_driven_mode_failed_the_heads_cases() {
    let repo = Repo::new(&["predriven", "head"]);
    let run = editor_compare(&repo, "HEAD~1", &["two::slower"]);
    assert!(
        run.finals
            .contains(&("two::slower".into(), "passed".into())),
        "{:?}\n{}",
        run.finals,
        run.output
    );
    let shown = &run.passed("two::slower")["shown"];
    assert_eq!(shown["outcome"], "warned", "{shown:#}");
    assert!(
        shown["line"].as_str().unwrap().contains("⚠ not_compared"),
        "{shown:#}"
    );
    let said: Vec<&String> = run
        .messages
        .iter()
        .filter(|m| m.contains("not compared"))
        .collect();
    assert_eq!(said.len(), 1, "{:?}", run.messages);
    assert!(
        said[0].contains("the base (HEAD~1) cannot be compared with")
            && said[0].contains("predates `knotmeter compare`"),
        "{}",
        said[0]
    );
    assert_eq!(stored_runs(&repo), 1);
}

/// Ctrl-C while `knotmeter compare` built exited 2 with "the pair in progress stops at its
/// next sample", although no pair was running (docs/compare.md promises 130); SIGTERM ended it
/// outright. A stand-in cargo whose build never ends (it leaves a file when it starts) holds
/// the build until the signal, so the test does not race a real build.
#[test]
fn a_signal_during_the_build_said_a_pair_stops_and_exited_2() {
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;
    use std::os::unix::fs::PermissionsExt;
    use std::time::{Duration, Instant};

    let repo = Repo::new(&["base", "head"]);
    let dir = tempfile::tempdir().unwrap();
    let building = dir.path().join("building");
    let cargo = dir.path().join("cargo");
    let real = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    std::fs::write(
        &cargo,
        format!(
            "#!/bin/sh\ncase \"$1\" in\n  bench|build) touch '{}'; exec sleep 600;;\nesac\nexec '{real}' \"$@\"\n",
            building.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).unwrap();
    for (signal, status) in [(Signal::SIGINT, 130), (Signal::SIGTERM, 143)] {
        let _ = std::fs::remove_file(&building);
        let mut child = repo
            .compare_command(&repo.root(), &["HEAD~1"])
            .env("CARGO", &cargo)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(120);
        while !building.exists() {
            assert!(Instant::now() < deadline, "the build never started");
            std::thread::sleep(Duration::from_millis(20));
        }
        kill(Pid::from_raw(child.id() as i32), signal).unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        while child.try_wait().unwrap().is_none() {
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("{signal}: still running 60 s after the signal");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = child.wait_with_output().unwrap();
        let said = stderr(&out);
        assert_eq!(out.status.code(), Some(status), "{signal}: {said}");
        assert!(
            said.contains(&format!("knotmeter: {signal}: cancelling the build"))
                && said.contains(&format!(
                    "the build was cancelled ({signal}): nothing was measured or stored"
                )),
            "{signal}: {said}"
        );
        assert!(!said.contains("pair in progress"), "{signal}: {said}");
        assert!(out.stdout.is_empty(), "{signal}: no report");
    }
}

#[test]
fn editor_compare_cancelled_while_building_errored_every_case() {
    let repo = Repo::new(&["base", "head"]);
    let mut client = editor(
        &repo,
        serde_json::json!({"quickTimeSecs": 0.1, "caseTimeoutSecs": 60}),
    );
    let response = client.request(
        "knotmeter/run",
        serde_json::json!({"include": ["two::slower", "two::same"], "mode": "quick", "compare": "HEAD~1"}),
    );
    let run_id = response["result"]["runId"].as_i64().expect("a run id");
    client.notification(
        "knotmeter/runState",
        std::time::Duration::from_secs(60),
        |p| p["runId"] == run_id && p["state"] == "building",
    );
    client.request("knotmeter/cancel", serde_json::json!({"runId": run_id}));
    client.run_to_end(run_id, std::time::Duration::from_secs(300));
    // Cancelled is not broken: nothing failed, nothing was measured.
    let mut finals = client.finals(run_id);
    finals.sort();
    assert_eq!(
        finals,
        vec![
            ("two::same".to_owned(), "skipped".to_owned()),
            ("two::slower".to_owned(), "skipped".to_owned())
        ]
    );
}

#[test]
fn editor_pair_without_a_verdict_passed_silently() {
    // The base's `same` is optimised away: measured on both sides, compared with nothing.
    let repo = Repo::new(&["emptied", "head"]);
    let run = editor_compare(&repo, "HEAD~1", &["two::same", "two::slower"]);
    assert!(
        run.finals.contains(&("two::same".into(), "passed".into())),
        "{:?}\n{}",
        run.finals,
        run.output
    );
    let state = run.passed("two::same");
    assert!(
        state["result"]["estimate"]["median_ns"].as_f64().unwrap() > 0.0,
        "the head's figure is kept: {state:#}"
    );
    assert!(state["result"]["comparison"].is_null(), "{state:#}");
    let shown = &state["shown"];
    assert_eq!(shown["outcome"], "warned", "never a pass: {shown:#}");
    let note = shown["notes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["code"] == "not_compared")
        .unwrap_or_else(|| panic!("{shown:#}"));
    let text = note["text"].as_str().unwrap();
    assert!(
        text.contains("indistinguishable") && text.ends_with("(base: HEAD~1)"),
        "{text}"
    );
    assert_eq!(run.row("two::same")["status"], "not_compared");
    // The case compared alongside it keeps its verdict and no such warning. A loaded machine
    // may give it a warning of its own measurement (`high_noise`, seen in a local `.ci/run`
    // while a build ran beside it), which makes it `warned`, rightly; never `not_compared`.
    let slower = &run.passed("two::slower")["shown"];
    let codes: Vec<&str> = slower["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["severity"] == "warning")
        .filter_map(|n| n["code"].as_str())
        .collect();
    assert!(!codes.contains(&"not_compared"), "{slower:#}");
    let expected = if codes.is_empty() { "passed" } else { "warned" };
    assert_eq!(slower["outcome"], expected, "{slower:#}");
    assert!(
        slower["verdict"]
            .as_str()
            .unwrap()
            .ends_with("slower than HEAD~1"),
        "{slower:#}"
    );
}

#[test]
fn editor_head_that_does_not_build_showed_no_diagnostics() {
    let repo = Repo::new(&["base", "head"]);
    // Uncommitted edits that do not build: the working tree is the head.
    repo.checkout_version("broken");
    let mut client = editor(
        &repo,
        serde_json::json!({"quickTimeSecs": 0.1, "caseTimeoutSecs": 60}),
    );
    let response = client.request(
        "knotmeter/run",
        serde_json::json!({"include": ["two::slower"], "mode": "quick", "compare": "HEAD"}),
    );
    let run_id = response["result"]["runId"].as_i64().expect("a run id");
    let states = client.run_to_end(run_id, std::time::Duration::from_secs(600));
    assert_eq!(
        client.finals(run_id),
        vec![("two::slower".to_owned(), "errored".to_owned())]
    );
    // The item's message points at the error, as after any run (it pointed nowhere once the
    // extension stopped searching the message's text for ` --> `).
    let errored = states
        .iter()
        .rev()
        .find(|s| s["id"] == "two::slower" && s["state"] == "errored")
        .expect("an errored state");
    let at = &errored["location"];
    assert!(
        at["file"]
            .as_str()
            .is_some_and(|f| f.ends_with("benches/two.rs")),
        "{errored:#}"
    );
    // The compiler's error is where it is, in the user's file, as after any run.
    let file = repo.root().join("benches/two.rs");
    let diagnostics = client.notification(
        "textDocument/publishDiagnostics",
        std::time::Duration::from_secs(5),
        |p| {
            p["uri"]
                .as_str()
                .is_some_and(|u| u.ends_with("benches/two.rs"))
                && !p["diagnostics"].as_array().unwrap().is_empty()
        },
    );
    let message = diagnostics["diagnostics"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("not_defined"),
        "{message} in {}",
        file.display()
    );
}

#[test]
fn editor_compare_cancelled_mid_pair_keeps_what_was_measured_and_concludes_nothing_of_it() {
    let repo = Repo::new(&["base", "head"]);
    // A long budget, so that the cancel lands in the middle of the first pair.
    let mut client = editor(
        &repo,
        serde_json::json!({"fullTimeSecs": 20, "caseTimeoutSecs": 60}),
    );
    let response = client.request(
        "knotmeter/run",
        serde_json::json!({"include": ["two::slower", "two::same"], "mode": "full", "compare": "HEAD~1"}),
    );
    let run_id = response["result"]["runId"].as_i64().expect("a run id");
    let first = client.notification(
        "knotmeter/runState",
        std::time::Duration::from_secs(300),
        |p| p["runId"] == run_id && p["state"] == "started",
    )["id"]
        .as_str()
        .unwrap()
        .to_owned();
    std::thread::sleep(std::time::Duration::from_millis(500));
    client.request("knotmeter/cancel", serde_json::json!({"runId": run_id}));
    let states = client.run_to_end(run_id, std::time::Duration::from_secs(120));
    let finals = client.finals(run_id);
    // The pair cut short keeps its figure, shown partial and not compared: no verdict.
    assert!(
        finals.contains(&(first.clone(), "passed".into())),
        "{finals:?}"
    );
    let cut = states
        .iter()
        .rev()
        .find(|s| s["id"] == first.as_str() && s["state"] == "passed")
        .unwrap();
    assert_eq!(cut["result"]["partial"], true, "{cut:#}");
    assert!(cut["result"]["comparison"].is_null(), "{cut:#}");
    assert_eq!(cut["shown"]["outcome"], "partial", "{cut:#}");
    // The other was never reached.
    let other = if first == "two::slower" {
        "two::same"
    } else {
        "two::slower"
    };
    assert!(
        finals.contains(&(other.into(), "skipped".into())),
        "{finals:?}"
    );
    let compared = client.notification(
        "knotmeter/compared",
        std::time::Duration::from_secs(5),
        |p| p["runId"] == run_id,
    )["comparison"]
        .clone();
    assert_eq!(compared["cancelled"], true, "{compared:#}");
    let row = compared["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == first.as_str())
        .unwrap();
    assert_eq!(
        row["change"], "",
        "no verdict from a pair cut short: {row:#}"
    );
}

#[test]
fn editor_base_that_names_nothing_errored_every_case_instead_of_naming_the_setting() {
    let repo = Repo::new(&["base", "head"]);
    let run = editor_compare(&repo, "mian", &["two::slower"]);
    assert!(
        run.finals
            .contains(&("two::slower".into(), "passed".into())),
        "{:?}\n{}",
        run.finals,
        run.output
    );
    let shown = &run.passed("two::slower")["shown"];
    assert_eq!(shown["outcome"], "warned", "{shown:#}");
    let said: Vec<&String> = run
        .messages
        .iter()
        .filter(|m| m.contains("not compared"))
        .collect();
    assert_eq!(said.len(), 1, "{:?}", run.messages);
    assert!(
        said[0].contains("the setting `knotmeter.compare.base` is `mian`")
            && said[0].contains("`mian` is not a commit, branch or tag")
            && said[0].contains("did you mean `main`"),
        "{}",
        said[0]
    );
    assert_eq!(stored_runs(&repo), 1);
}

#[test]
fn a_package_inside_a_workspace_is_compared_by_its_path_from_anywhere_in_the_repository() {
    let repo = Repo::in_workspace(&["base", "head"], "crates/bench");
    let verdict = |out: std::process::Output| {
        assert!(out.status.success(), "{}", stderr(&out));
        let report = json(&out);
        case(&report, "two::slower")["comparison"]["verdict"].clone()
    };
    // From the repository's root, with the package's path.
    let from_root = repo.compare(&["HEAD~1", "crates/bench", "slower", "--format", "json"]);
    assert_eq!(verdict(from_root), "slower");
    // From inside the package, where the path is `.`: the base's copy of the same package.
    let inside = repo.root().join("crates/bench");
    let from_inside = repo.compare_in(&inside, &["HEAD~1", ".", "slower", "--format", "json"]);
    assert_eq!(verdict(from_inside), "slower");

    // A package that the base commit does not have at that path: an error that says so.
    repo.git(&["mv", "crates/bench", "crates/renamed"]);
    std::fs::write(
        repo.root().join("Cargo.toml"),
        "[workspace]\nmembers = [\"crates/renamed\"]\nresolver = \"2\"\n",
    )
    .unwrap();
    repo.git(&["commit", "-q", "-am", "renamed"]);
    let out = repo.compare(&["HEAD~1", "crates/renamed"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("`HEAD~1` has no crates/renamed"),
        "the error names the commit and the path: {err}"
    );
}

#[test]
fn a_base_with_a_submodule_is_checked_out_with_it_and_builds() {
    // A repository of its own, the submodule: the library includes a file of it, so a base
    // checked out without its submodules does not build.
    let sub = tempfile::tempdir().unwrap();
    let git_in = |dir: &Path, args: &[&str]| {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
            .args(["-c", "protocol.file.allow=always"])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
    };
    git_in(sub.path(), &["init", "-q", "-b", "main"]);
    std::fs::write(
        sub.path().join("extra.rs"),
        "/// From the submodule.\npub fn extra() -> u64 {\n    7\n}\n",
    )
    .unwrap();
    git_in(sub.path(), &["add", "-A"]);
    git_in(sub.path(), &["commit", "-q", "-m", "extra"]);

    let repo = Repo::new(&["base"]);
    let sub_url = sub.path().to_str().unwrap();
    git_in(
        &repo.root(),
        &["submodule", "add", "-q", sub_url, "vendor/sub"],
    );
    let lib = repo.root().join("src/lib.rs");
    let text = std::fs::read_to_string(&lib).unwrap();
    std::fs::write(
        &lib,
        format!("{text}include!(\"../vendor/sub/extra.rs\");\n"),
    )
    .unwrap();
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "with a submodule"]);
    repo.checkout_version("head");
    repo.git(&["commit", "-q", "-am", "head"]);

    // Local submodules are cloned over the file protocol, which git allows only when told.
    let allow_file = [
        ("GIT_CONFIG_COUNT", "1"),
        ("GIT_CONFIG_KEY_0", "protocol.file.allow"),
        ("GIT_CONFIG_VALUE_0", "always"),
    ];
    let out = repo.compare_with(
        &repo.root(),
        &["HEAD~1", "slower", "--format", "json"],
        &allow_file,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let slower = case(&json(&out), "two::slower")["comparison"]["verdict"].clone();
    assert_eq!(slower, "slower");
}

#[test]
fn a_base_whose_knotmeter_predates_driven_mode_is_named_and_the_head_is_still_measured() {
    let repo = Repo::new(&["predriven", "head"]);
    let out = repo.compare(&["HEAD~1", "slower", "--format", "json"]);
    let err = stderr(&out);
    assert_eq!(
        out.status.code(),
        Some(2),
        "nothing could be compared: {err}"
    );
    assert!(
        err.contains(
            "the base build's bench binary does not know --driven: its knotmeter dependency \
             predates `knotmeter compare`"
        ),
        "{err}"
    );
    assert!(
        err.contains("unexpected argument '--driven'"),
        "what the binary said is shown: {err}"
    );
    // The head's figures are kept: measured on their own, shown, and stored as a run.
    let slower = case(&json(&out), "two::slower").clone();
    assert_eq!(slower["status"], "not_compared", "{slower:#}");
    assert!(
        slower["head"]["estimate"]["median_ns"].as_f64().unwrap() > 0.0,
        "{slower:#}"
    );
    assert!(
        slower["note"]
            .as_str()
            .unwrap()
            .contains("predates `knotmeter compare`"),
        "{slower:#}"
    );
    assert_warned_not_compared(&slower, "predates `knotmeter compare`");
    assert_eq!(stored_runs(&repo), 1);
}

/// The head's result of a case measured on its own carries the `not_compared` warning, saying
/// `why`, as the editor's does: no surface shows the figure as a plain pass.
fn assert_warned_not_compared(case: &serde_json::Value, why: &str) {
    let warnings = case["head"]["warnings"]
        .as_array()
        .expect("the head's warnings");
    assert!(
        warnings.iter().any(|w| w["code"] == "not_compared"
            && w["message"].as_str().is_some_and(|m| m.contains(why))),
        "{case:#}"
    );
}

#[test]
fn a_comparison_waits_for_another_that_holds_the_base_target_directory_and_says_so() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    use std::time::Duration;

    let repo = Repo::new(&["base", "head"]);
    // Another comparison holds the base's target directory (as `compare/build.rs` locks it).
    let dir = common::fixture_target_dir().join("knotmeter/compare/target");
    std::fs::create_dir_all(&dir).unwrap();
    let held = std::fs::File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join("knotmeter-compare.lock"))
        .unwrap();
    held.lock().unwrap();

    let mut child = repo
        .compare_command(&repo.root(), &["HEAD~1", "slower", "--format", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr_pipe = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stderr_pipe).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut seen = Vec::new();
    let started = std::time::Instant::now();
    let waiting = loop {
        match rx.recv_timeout(Duration::from_secs(1)) {
            Ok(line) => {
                let found = line.contains("waiting for another knotmeter compare that builds in");
                seen.push(line);
                if found {
                    break true;
                }
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout)
                if started.elapsed() < Duration::from_secs(300) =>
            {
                if let Some(status) = child.try_wait().unwrap() {
                    seen.push(format!("(ended without waiting: {status})"));
                    break false;
                }
            }
            Err(_) => break false,
        }
    };
    assert!(waiting, "no word of the wait:\n{}", seen.join("\n"));
    // It waits: nothing is measured while the other holds the directory.
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        child.try_wait().unwrap().is_none(),
        "it went on while the directory was held"
    );
    drop(held);

    let out = child.wait_with_output().unwrap();
    reader.join().unwrap();
    let rest: Vec<String> = rx.try_iter().collect();
    assert!(
        out.status.success(),
        "{}\n{}",
        seen.join("\n"),
        rest.join("\n")
    );
    let slower = case(&json(&out), "two::slower")["comparison"]["verdict"].clone();
    assert_eq!(slower, "slower");
}

/// How many runs `repo`'s history holds (up to five).
fn stored_runs(repo: &Repo) -> usize {
    let history = knotmeter_history::History::open_read_only(&repo.history()).unwrap();
    history.runs(5).unwrap().len()
}
