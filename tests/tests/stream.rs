//! The report stream cannot be corrupted by the benchmark (issue 10 §1): whatever the
//! benchmarks print, to standard output or to descriptor 1, from the main thread, another
//! thread or a child process, reaches standard error, and standard output carries the report
//! alone, in every format. Read from the consumer's side: events from standard output, the
//! benchmarks' own output from standard error.

use std::process::{Command, Output};

/// Every case of the `noisy` fixture, in run order.
const CASES: [&str; 5] = [
    "noisy::no_newline",
    "noisy::forged_event",
    "noisy::thread_printer",
    "noisy::child_process",
    "noisy::raw_descriptor",
];

/// What the benchmarks print, each of which must reach standard error and only it.
const PRINTED: [&str; 5] = [
    "x",
    r#""message":"forged""#,
    "tick 1 from a thread of the benchmark",
    "from a child process",
    "written to descriptor 1",
];

fn run(format: &str) -> Output {
    let history = tempfile::tempdir().unwrap();
    Command::new(env!("CARGO_BIN_EXE_noisy"))
        .args(["--bench", "--quick", "--format", format])
        .env("KNOTMETER_HISTORY", history.path().join("history.db"))
        .output()
        .expect("the fixture runs")
}

fn assert_printed_on_stderr_only(out: &Output) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    for printed in PRINTED {
        assert!(
            stderr.contains(printed),
            "{printed:?} is not on stderr:\n{stderr}"
        );
    }
    for printed in &PRINTED[1..] {
        assert!(
            !stdout.contains(printed),
            "{printed:?} reached stdout:\n{stdout}"
        );
    }
    assert!(!stdout.contains("tick"), "{stdout}");
}

#[test]
fn print_without_newline_forged_events_threads_and_children_cannot_corrupt_jsonl() {
    let out = run("jsonl");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_printed_on_stderr_only(&out);
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    let events: Vec<serde_json::Value> = stdout
        .lines()
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not an event ({e}): {line:?}"))
        })
        .collect();
    assert_eq!(events.first().unwrap()["event"], "run_started");
    let last = events.last().unwrap();
    assert_eq!(last["event"], "run_finished");
    assert_eq!(
        (last["passed"].as_u64(), last["failed"].as_u64()),
        (Some(5), Some(0))
    );
    let finished: Vec<&str> = events
        .iter()
        .filter(|e| e["event"] == "case_finished")
        .map(|e| e["result"]["id"].as_str().unwrap())
        .collect();
    assert_eq!(finished, CASES);
    assert!(
        !events.iter().any(|e| e["event"] == "case_failed"),
        "{stdout}"
    );
    assert_eq!(
        events
            .iter()
            .filter(|e| e["event"] == "run_finished")
            .count(),
        1
    );
}

#[test]
fn print_without_newline_forged_events_threads_and_children_cannot_corrupt_json() {
    let out = run("json");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_printed_on_stderr_only(&out);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    let ids: Vec<&str> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, CASES);
    assert_eq!(report["failures"], serde_json::json!([]));
}

#[test]
fn print_without_newline_forged_events_threads_and_children_cannot_corrupt_pretty() {
    let out = run("pretty");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_printed_on_stderr_only(&out);
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    for id in CASES {
        let label = id.trim_start_matches("noisy::");
        assert!(
            stdout
                .lines()
                .any(|line| line.starts_with(label) && line.contains(" ns")),
            "no row for {label}:\n{stdout}"
        );
    }
    // The totals: every case measured (a noisy one may be warned), none failed.
    let last = stdout.lines().last().unwrap();
    let (counts, _) = last.split_once(" in ").expect("the closing line");
    let measured: u32 = counts
        .split(", ")
        .map(|c| match c.split_once(' ') {
            Some((n, "passed" | "warned")) => n.parse::<u32>().unwrap(),
            _ => panic!("{stdout}"),
        })
        .sum();
    assert_eq!(measured, 5, "{stdout}");
}

/// The consumer's side of the marks (docs/json-format.md, "Standard output and standard
/// error"): in `--format jsonl` the start and end of every slot of a case (one per round) are
/// marked on standard error, and what each benchmark printed lies between its own marks, so a consumer reading
/// two pipes at its own pace still knows whose output a line is.
#[test]
fn what_each_case_printed_lies_between_its_marks_on_standard_error() {
    use knotmeter_protocol::OutputMark;

    let out = run("jsonl");
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut current: Option<String> = None;
    let mut marks = Vec::new();
    let mut printed_by: Vec<(Option<String>, String)> = Vec::new();
    for line in stderr.lines() {
        let (text, mark) = OutputMark::split(line);
        if !text.is_empty() {
            printed_by.push((current.clone(), text.to_owned()));
        }
        match mark {
            Some(OutputMark::CaseStarted(id)) => {
                assert_eq!(current, None, "{id} started inside another case:\n{stderr}");
                marks.push(format!("start {id}"));
                current = Some(id);
            }
            Some(OutputMark::CaseEnded(id)) => {
                assert_eq!(current.as_deref(), Some(id.as_str()), "{stderr}");
                marks.push(format!("end {id}"));
                current = None;
            }
            None => {}
        }
    }
    // Each case is measured in rounds, one slot per round, in a shuffled order: every case's
    // slots are marked, each start followed by its own end.
    for id in CASES {
        let slots = marks
            .iter()
            .filter(|m| **m == format!("start {id}"))
            .count();
        assert!(slots >= 2, "{id}: {slots} slots marked:\n{stderr}");
        assert_eq!(
            slots,
            marks.iter().filter(|m| **m == format!("end {id}")).count(),
            "{stderr}"
        );
    }
    assert_eq!(current, None, "the last slot's end is marked:\n{stderr}");
    for (case, printed) in CASES.iter().zip(PRINTED) {
        let owners: Vec<_> = printed_by
            .iter()
            // `x` alone is the whole text of its line: it is glued to its case's end mark.
            .filter(|(_, text)| text == printed || (printed.len() > 1 && text.contains(printed)))
            .map(|(owner, _)| owner.as_deref())
            .collect();
        assert!(!owners.is_empty(), "{printed:?} not found:\n{stderr}");
        assert!(
            owners.iter().all(|owner| *owner == Some(*case)),
            "{printed:?} attributed to {owners:?}, not {case}"
        );
    }
}

/// The engine measures its probe of the machine in every round beside the cases
/// (`engine/src/probe.rs`): it comes once, with the run's totals and in the JSON document,
/// never as a case of its own, and `--list` does not name it.
#[test]
fn the_machine_probe_is_reported_with_the_run_and_never_as_a_case() {
    let out = run("jsonl");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let events: Vec<serde_json::Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let last = events.last().unwrap();
    assert_eq!(last["event"], "run_finished");
    let probe = &last["probe"];
    let per_step = probe["ns_per_step"].as_f64().unwrap_or(0.0);
    assert!(per_step > 0.05 && per_step < 100.0, "{probe}");
    assert!(probe["low_ns"].as_f64().unwrap() <= per_step);
    assert!(probe["high_ns"].as_f64().unwrap() >= per_step);
    assert!(
        probe["rounds"]["medians_ns"].as_array().unwrap().len() >= 2,
        "{probe}"
    );
    let before_the_end = &events[..events.len() - 1];
    assert!(
        before_the_end
            .iter()
            .all(|e| !e.to_string().contains("machine_probe")),
        "{stdout}"
    );
    // Nor do the marks that say which case printed what (the daemon would give what a stray
    // thread printed meanwhile to a case that does not exist).
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("noisy::no_newline"),
        "marks were written: {stderr}"
    );
    assert!(!stderr.contains("machine_probe"), "{stderr}");

    let report: serde_json::Value = serde_json::from_slice(&run("json").stdout).unwrap();
    assert!(
        report["probe"]["ns_per_step"].as_f64().unwrap() > 0.0,
        "{report}"
    );
    assert_eq!(report["results"].as_array().unwrap().len(), CASES.len());

    let list = Command::new(env!("CARGO_BIN_EXE_noisy"))
        .args(["--list", "--format", "json"])
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&list.stdout);
    assert!(listed.contains("noisy::no_newline"), "{listed}");
    assert!(!listed.contains("machine_probe"), "{listed}");
}
