//! `knotmeter run` against bench binaries that misbehave on purpose (a script speaking the
//! bench binary's protocol, see `common::scripted`), and against bad command lines: what the
//! user sees, what the exit status says, and that nothing is built before the input is known
//! to be good. No compiler runs here, so each test takes a second or two.

use crate::common;

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::scripted::Scripted;
use serde_json::{json, Value};

fn run(mut command: impl std::borrow::BorrowMut<Command>) -> (Output, String, String) {
    let out = command.borrow_mut().output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, stdout, stderr)
}

fn passing(names: &[&str]) -> Value {
    let cases: serde_json::Map<String, Value> = names
        .iter()
        .map(|n| (n.to_string(), json!({"kind": "pass"})))
        .collect();
    json!({ "cases": cases })
}

/// With a 1 s case timeout, a case whose first step takes 0.5 s and the next ones 2.5 s each:
/// it reports progress after each step, so it is slow, not hung (the old fixed per-case
/// timeout killed it after 1 s).
#[test]
fn a_slow_case_that_reports_progress_is_not_taken_for_hung() {
    let sc = Scripted::new(json!({"cases": {
        "slow": {"kind": "slow", "steps": [0.5, 2.5, 2.5]},
    }}));
    let (out, stdout, stderr) =
        run(sc.knotmeter_run(&["--case-timeout", "1", "--format", "jsonl"]));
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let line: Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    assert_eq!(line["state"], "passed", "{stdout}");
}

/// Silent before its first step: the configured limit applies, and the message says what was
/// waited for; the exit status says a case hung, and the case is named on standard error.
#[test]
fn a_case_silent_before_its_first_step_is_hung_after_the_case_timeout() {
    let sc = Scripted::new(json!({"cases": {
        "stuck": {"kind": "hang"},
        "after": {"kind": "pass"},
    }}));
    let started = Instant::now();
    let (out, stdout, stderr) = run(sc.knotmeter_run(&["--case-timeout", "1"]));
    // Well under the default timeout (120 s), with room for a loaded machine: the message
    // below says which timeout fired.
    assert!(started.elapsed() < Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(4), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("`sc::stuck` hung: its first step (the cold call) had not ended after 1"),
        "{stderr}"
    );
    assert!(stderr.contains("--case-timeout"), "{stderr}");
    // The rest ran in a fresh process.
    assert!(stderr.contains("sc::after passed"), "{stderr}");
}

/// After a short step, silence longer than the floor (capped by a short case timeout) is a hang,
/// and the message names the longest step.
#[test]
fn a_case_silent_long_after_a_short_step_is_hung() {
    let sc = Scripted::new(json!({"cases": {"stuck": {"kind": "hang_after_step"}}}));
    let (out, stdout, stderr) = run(sc.knotmeter_run(&["--case-timeout", "1", "--format", "json"]));
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    let message = doc["items"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("longest step so far took 1 ms") && message.contains("10×"),
        "{message}"
    );
}

/// A crash names the case on standard error and has its own exit status.
#[test]
fn a_crash_names_the_case_and_exits_4() {
    let sc = Scripted::new(json!({"cases": {
        "first": {"kind": "pass"},
        "boom": {"kind": "abort"},
    }}));
    let (out, stdout, stderr) = run(&mut sc.knotmeter_run(&[]));
    assert_eq!(out.status.code(), Some(4), "{stdout}\n{stderr}");
    assert!(
        stderr.contains(
            "knotmeter: `sc::boom` crashed: the bench binary was killed by signal SIGABRT"
        ),
        "{stderr}"
    );
    assert!(stdout.contains("sc::first"), "{stdout}");
}

/// A bench binary that refuses its command line (an unknown baseline, say) before running:
/// its message is shown once, nothing else runs, nothing is printed on standard output, and
/// the status is 2.
#[test]
fn a_refused_command_line_is_said_once_and_exits_2() {
    let refusal = "knotmeter: no baseline named `mian` in the history (saved: main)";
    let sc = Scripted::new(json!({
        "cases": {"a": {"kind": "pass"}, "b": {"kind": "pass"}, "c": {"kind": "pass"}},
        "refuse": refusal,
    }));
    for format in ["pretty", "json", "jsonl"] {
        let (out, stdout, stderr) =
            run(sc.knotmeter_run(&["--baseline", "mian", "--format", format]));
        assert_eq!(out.status.code(), Some(2), "{format}: {stderr}");
        assert_eq!(
            stderr.matches("no baseline named `mian`").count(),
            1,
            "{format}: {stderr}"
        );
        assert!(
            stderr.contains("knotmeter: nothing was measured: the bench binary of `sc` refused its command line"),
            "{format}: {stderr}"
        );
        assert!(!stderr.contains("sc::b"), "no line per case: {stderr}");
        assert!(stdout.is_empty(), "{format}: {stdout}");
    }
}

/// The bench binary's flags reach it unchanged; a failure status at the end of its run (the
/// regression gate) is exit status 1 and said on standard error.
#[test]
fn bench_binary_flags_are_passed_through_and_its_failure_status_kept() {
    let sc = Scripted::new(json!({"cases": {"a": {"kind": "pass"}}, "exit": 1}));
    let (out, _, stderr) = run(sc.knotmeter_run(&[
        "--baseline",
        "main",
        "--save-baseline",
        "next",
        "--fail-on-regression",
        "5",
    ]));
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("ended its run with status 1"), "{stderr}");
    let runs: Vec<Vec<String>> = sc
        .invocations()
        .into_iter()
        .filter(|a| a.contains(&"--bench".to_owned()))
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    let args = runs[0].join(" ");
    assert!(
        args.contains("--baseline main --save-baseline next --fail-on-regression 5 --exact sc::a"),
        "{args}"
    );
    let (out, _, _) = run(sc.knotmeter_run(&["--no-history"]));
    assert_eq!(out.status.code(), Some(1));
    assert!(sc
        .invocations()
        .last()
        .unwrap()
        .contains(&"--no-history".to_owned()));
}

/// `--exact` and `--skip` select as the bench binary does (whole ids or names).
#[test]
fn exact_and_skip_select_as_the_bench_binary_does() {
    let sc = Scripted::new(passing(&["alpha", "alpha_long", "beta"]));
    let (out, _, stderr) = run(sc.knotmeter_run(&["alpha", "--exact", "--format", "jsonl"]));
    assert!(out.status.success(), "{stderr}");
    assert!(sc
        .invocations()
        .last()
        .unwrap()
        .ends_with(&["--exact".into(), "sc::alpha".into()]));
    let (out, _, stderr) = run(sc.knotmeter_run(&["alpha", "--skip", "long"]));
    assert!(out.status.success(), "{stderr}");
    assert!(sc
        .invocations()
        .last()
        .unwrap()
        .ends_with(&["--exact".into(), "sc::alpha".into()]));
}

/// What the benchmark prints itself reaches the terminal (it was dropped before).
#[test]
fn the_benchmarks_own_output_reaches_standard_error() {
    let sc = Scripted::new(json!({"cases": {
        "chatty": {"kind": "pass", "stderr": ["hello from the benchmark"]},
    }}));
    let (out, _, stderr) = run(&mut sc.knotmeter_run(&[]));
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("hello from the benchmark"), "{stderr}");
}

/// Bad values are refused by the command line itself, before any cargo command: the
/// stand-in cargo does not even exist here.
#[test]
fn bad_values_are_refused_before_anything_is_built() {
    let sc = Scripted::new(passing(&["a"]));
    for bad in [
        "--case-timeout=inf",
        "--case-timeout=-5",
        "--case-timeout=nan",
        "--time=-1",
        "--time=0",
        "--fail-on-regression=-1",
    ] {
        let (out, _, stderr) = run(sc
            .knotmeter_run(&[bad])
            .env("CARGO", "/nonexistent/cargo")
            .env("PATH", "/nonexistent"));
        assert_eq!(out.status.code(), Some(2), "{bad}: {stderr}");
        assert!(stderr.contains("invalid value"), "{bad}: {stderr}");
        assert!(
            !stderr.contains("panicked") && !stderr.contains("cargo"),
            "{bad}: {stderr}"
        );
    }
    let (out, _, stderr) = run(sc
        .knotmeter_run(&["--no-history", "--save-baseline", "x"])
        .env("CARGO", "/nonexistent/cargo"));
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("cannot be used with"), "{stderr}");
    // CSV and Markdown are formats of `knotmeter run` too (they were refused).
    for format in ["csv", "markdown"] {
        let (_, _, stderr) = run(sc
            .knotmeter_run(&["--format", format])
            .env("CARGO", "/nonexistent/cargo"));
        assert!(!stderr.contains("not available"), "{stderr}");
    }
}

/// `knotmeter run --time -1` and `knotmeter history --limit -1` printed clap's tip "to pass
/// '-1' as a value, use '-- -1'", which makes `-1` a filter: every numeric option of the
/// command line says that its value must be positive, before anything is built or read.
#[test]
fn a_negative_number_was_taken_for_a_flag() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["run", "--time", "-1"][..],
        &["run", "--case-timeout", "-5"],
        &["run", "--fail-on-regression", "-3"],
        &["compare", "--time", "-1"],
        &["compare", "--case-timeout", "-1"],
        &["compare", "--noise-threshold", "-1"],
        &["compare", "--fail-on-regression", "-1"],
        &["history", "--limit", "-1"],
        &["history", "prune", "--keep", "-1"],
        &["history", "prune", "--keep-comparisons", "-1"],
    ] {
        let (out, stdout, stderr) = run(common::command_in(common::knotmeter(), dir.path())
            .args(args)
            .env("CARGO", "/nonexistent/cargo")
            .env("PATH", "/nonexistent"));
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?}: {stdout}");
        assert!(
            stderr.contains("invalid value '-") && stderr.contains("not -"),
            "{args:?}: {stderr}"
        );
        assert!(
            stderr.contains("above 0") || stderr.contains("from 0 to 1000"),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("tip:"), "{args:?}: {stderr}");
    }
    // Nothing was read or created.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// A filter that matches nothing is an error in every format, said before any build.
#[test]
fn a_filter_matching_nothing_is_an_error_in_every_format() {
    let sc = Scripted::new(passing(&["a"]));
    for format in ["pretty", "json", "jsonl"] {
        let (out, stdout, stderr) = run(&mut sc.knotmeter_run(&[".", "nope", "--format", format]));
        assert_eq!(out.status.code(), Some(2), "{format}: {stderr}");
        assert!(
            stderr.contains("nothing to run: no benchmark matches `nope`"),
            "{stderr}"
        );
        assert!(stdout.is_empty(), "{stdout}");
    }
    let (out, _, stderr) = run(sc.knotmeter_run(&["sc::", "--exact"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr.contains("no benchmark id or name is exactly `sc::`"),
        "{stderr}"
    );
    let (out, _, stderr) = run(sc.knotmeter_run(&["--skip", "sc::a"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr.contains("--skip leaves out every benchmark selected"),
        "{stderr}"
    );
    assert!(sc.invocations().is_empty(), "nothing was run");
}

/// A lone word that is no path is a filter, and `knotmeter run` says so; one that matches
/// nothing says both; a missing directory before a filter is an error.
#[test]
fn a_word_that_is_no_path_is_taken_as_a_filter_and_said_so() {
    let sc = Scripted::new(passing(&["alpha", "beta"]));
    let (out, _, stderr) = run(&mut sc.knotmeter_run(&["alph"]));
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "`alph` is no file or directory here: running the 1 benchmark(s) whose id contains it"
        ),
        "{stderr}"
    );
    let (out, _, stderr) = run(&mut sc.knotmeter_run(&["exmaples/quickstart"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr.contains(
            "`exmaples/quickstart` is no file or directory here, and no benchmark matches \
             `exmaples/quickstart`"
        ),
        "{stderr}"
    );
    let (out, _, stderr) = run(&mut sc.knotmeter_run(&["exmaples/quickstart", "alpha"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr.contains("`exmaples/quickstart` does not exist"),
        "{stderr}"
    );
}

/// `knotmeter run --format jsonl | head -1`: the reader leaves after one line; the run stops
/// quietly (no "Broken pipe", no panic) instead of measuring on for nobody.
#[test]
fn a_closed_pipe_stops_the_run_quietly() {
    let sc = Scripted::new(json!({"cases": {
        "a": {"kind": "pass"},
        "b": {"kind": "sleep", "secs": 0.5},
        "c": {"kind": "sleep", "secs": 30},
        "d": {"kind": "sleep", "secs": 30},
    }}));
    let mut child = sc
        .knotmeter_run(&["--format", "jsonl"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // The reader goes away here (the pipe's read end is dropped).
    assert!(first.contains("sc::a"), "{first}");
    let started = Instant::now();
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "it stopped measuring"
    );
    assert_eq!(status.code(), Some(141), "{stderr}");
    assert!(
        !stderr.contains("Broken pipe") && !stderr.contains("panicked"),
        "{stderr}"
    );
    assert!(
        stderr.contains("stopped: standard output was closed"),
        "{stderr}"
    );

    // The pretty table cut by `head` after the run: the run's own status, and quiet.
    let sc = Scripted::new(passing(&["a", "b", "c"]));
    let mut child = sc
        .knotmeter_run(&[])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(
        !stderr.contains("Broken pipe") && !stderr.contains("panicked"),
        "{stderr}"
    );
    assert_eq!(status.code(), Some(0), "{stderr}");
}

/// A bench target without `harness = false` is explained before anything is built, with the
/// entry to add, whether the entry lacks the line or does not exist at all.
#[test]
fn a_missing_harness_false_is_explained_before_building() {
    let sc = Scripted::new(passing(&["a"]));
    let manifest = std::fs::read_to_string(sc.path("Cargo.toml")).unwrap();
    sc.fx
        .write("Cargo.toml", &manifest.replace("harness = false\n", ""));
    let (out, stdout, stderr) = run(&mut sc.knotmeter_run(&[]));
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("the bench target `sc` of `sc` needs `harness = false`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("[[bench]]\nname = \"sc\"\nharness = false"),
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("harness = false\n\n").count(),
        1,
        "the explanation is shown once: {stderr}"
    );
    assert!(
        !stdout.contains("harness = false\n\n"),
        "and not again: {stdout}"
    );
    assert_eq!(sc.builds(), 0, "nothing was built");

    // No [[bench]] entry at all: cargo finds benches/sc.rs by itself, with libtest's harness.
    sc.fx.write(
        "Cargo.toml",
        &manifest.replace("[[bench]]\nname = \"sc\"\nharness = false\n", ""),
    );
    let (out, _, stderr) = run(&mut sc.knotmeter_run(&[]));
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("needs a [[bench]] entry with `harness = false`"),
        "{stderr}"
    );
    assert_eq!(sc.builds(), 0);
}

/// A bench binary built with libtest's harness by an engine without the compile-time check,
/// in a manifest the scan cannot read for sure: libtest's reply to `--list --format json`
/// gives it away, and the user is told what to add (it was an unreadable-JSON error).
#[test]
fn a_libtest_bench_binary_is_recognised_by_its_reply() {
    let sc = Scripted::new(json!({"cases": {"a": {"kind": "pass"}}, "libtest": true}));
    let manifest = std::fs::read_to_string(sc.path("Cargo.toml")).unwrap();
    let unreadable_for_the_scan = manifest.replace("harness = false\n", "").replace(
        "edition = \"2021\"\n",
        "edition = \"2021\"\ndescription = \"\"\"\nA fixture.\n\"\"\"\n",
    );
    sc.fx.write("Cargo.toml", &unreadable_for_the_scan);
    let (out, stdout, stderr) = run(sc.knotmeter_run(&["--format", "jsonl"]));
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(
        stderr.contains(
            "the bench target `sc` of `sc` needs `harness = false` in its [[bench]] entry"
        ),
        "{stderr}"
    );
    let line: Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    assert_eq!(line["state"], "errored", "{stdout}");
    assert_eq!(sc.builds(), 1, "found after the build");
}

/// `knotmeter run --format jsonl` of `sc`, the processes it leaves behind marked for `marker`
/// to kill; it must succeed within `within`. Returns standard output, standard error and how
/// many items passed.
fn run_succeeding_within(
    sc: &Scripted,
    marker: &common::Marker,
    within: Duration,
) -> (String, String, usize) {
    let mut command = sc.knotmeter_run(&["--format", "jsonl"]);
    marker.mark(&mut command);
    let started = Instant::now();
    let (out, stdout, stderr) = run(command);
    let took = started.elapsed();
    assert!(took < within, "took {took:?}: {stderr}");
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let passed = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|l| l["state"] == "passed")
        .count();
    (stdout, stderr, passed)
}

/// Issue 21: a benchmark's set-up starts a process that inherits the bench binary's standard
/// output and error and outlives it (`sleep 400`). The cases passed at once, then `knotmeter
/// run` waited 120 s for the pipes to close and exited 4: "the bench binary said nothing for
/// 120 s outside any case". The run ends when the bench binary exits. A process left in the
/// bench binary's process group is ended with it, as every process of that group is at the
/// end of a run; one that left the group (`setsid`) is not touched, and no longer read.
#[test]
fn a_child_holding_the_pipes_open_kept_the_run_waiting_120_s() {
    let marker = common::Marker::new();
    let sc = Scripted::new(json!({"cases": {
        "spawns": {"kind": "pass", "spawn": [{"secs": 400}]},
        "escapes": {"kind": "pass", "spawn": [{"secs": 400, "session": true}]},
    }}));
    // 120 s before; a second or two now, with room for a loaded machine.
    let (stdout, stderr, passed) = run_succeeding_within(&sc, &marker, Duration::from_secs(30));
    assert!(!stderr.contains("said nothing"), "{stderr}");
    assert_eq!(passed, 2, "{stdout}");
    let spawned = sc.spawned();
    assert_eq!(spawned.len(), 2, "{spawned:?}");
    for (pid, left_the_group) in spawned {
        let deadline = Instant::now() + Duration::from_secs(10);
        while common::alive(pid) && !left_the_group && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(
            common::alive(pid),
            left_the_group,
            "pid {pid}: ended with the bench binary's group unless it left it"
        );
    }
    // The marker kills the one that left the group.
}

/// A bench binary whose `--list` starts a process that holds its standard output open (a
/// criterion group function runs while listing) kept `knotmeter run` waiting 30 s for the
/// pipe to close, then said the binary "did not answer within 30 s". The list is what the
/// binary printed before it exited.
#[test]
fn a_child_holding_the_pipes_of_list_open_kept_the_run_waiting_30_s() {
    let marker = common::Marker::new();
    let sc = Scripted::new(json!({
        "cases": {"a": {"kind": "pass"}},
        "list_spawn": [{"secs": 400, "session": true}],
    }));
    // 30 s before; a second or two now.
    let (stdout, stderr, passed) = run_succeeding_within(&sc, &marker, Duration::from_secs(20));
    assert!(!stderr.contains("did not answer"), "{stderr}");
    assert_eq!(passed, 1, "{stdout}");
    assert_eq!(sc.spawned().len(), 1, "the listing started its process");
    // The marker kills the process that left the group.
}

/// Issue 21: a benchmark prints 100 MB (a million lines of 100 bytes) while standard error
/// is read slower than that: `knotmeter run` held everything not yet shown (a peak of 364 MB)
/// and took as long as the reader to finish. Now a few MiB at most wait to be shown; what
/// could not be is dropped and said where it was (`… N bytes (M lines) of output dropped`)
/// and at the end; the first and last lines, the case and its result are kept.
#[test]
fn a_hundred_megabytes_of_prints_to_a_slow_standard_error_were_all_held_in_memory() {
    let sc = Scripted::new(json!({"cases": {
        "flood": {"kind": "pass", "print": {"lines": 1_000_000, "width": 100}},
    }}));
    let mut child = sc
        .knotmeter_run(&["--format", "jsonl"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    // `VmHWM` is the peak so far: its last reading before the process ends is its peak.
    let peak = std::thread::spawn(move || {
        let mut peak = 0;
        while let Some(kib) = common::peak_resident_kib(pid) {
            peak = kib;
            std::thread::sleep(Duration::from_millis(10));
        }
        peak
    });
    // A reader of about 3 MB/s: far slower than the benchmark prints, and than `knotmeter run`
    // reads even in a debug build on a loaded machine (some 50 MB/s), so some output must go.
    let mut stderr_pipe = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let (mut all, mut chunk) = (Vec::new(), vec![0; 64 * 1024]);
        loop {
            match stderr_pipe.read(&mut chunk) {
                Ok(0) | Err(_) => return all,
                Ok(n) => all.extend_from_slice(&chunk[..n]),
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    });
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let stderr = reader.join().unwrap();
    let peak_mib = peak.join().unwrap() / 1024;
    let status = child.wait().unwrap();
    let stderr = String::from_utf8_lossy(&stderr);
    let tail: String = stderr.chars().rev().take(2000).collect::<String>();
    let tail: String = tail.chars().rev().collect();
    assert_eq!(status.code(), Some(0), "{tail}");
    let line: Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    assert_eq!(line["state"], "passed", "{stdout}");
    // Wide margins: a few MiB of output wait, beside the process's own 10–20 MiB.
    assert!(peak_mib < 100, "peak resident memory {peak_mib} MiB");
    assert!(stderr.contains("first printed line"), "{tail}");
    assert!(stderr.contains("last printed line"), "{tail}");
    assert!(stderr.contains("of output dropped"), "{tail}");
    assert!(
        stderr.contains("of what the bench binary printed were dropped"),
        "{tail}"
    );
    assert!(stderr.len() < 90_000_000, "shown: {} bytes", stderr.len());
}
