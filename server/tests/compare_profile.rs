//! `knotmeter compare --profile CASE`: one case profiled on two commits of a real git
//! repository (the compare fixture, whose `slower` does three times the work in its head), and
//! the functions whose own cost changed most.

use knotmeter_protocol::{ProfileComparison, ProfileTool};

use crate::compare_support::{stderr, Repo};

/// Counted with callgrind, the function that does three times the work in the head is the
/// largest change, by three times its instructions; the region's totals say the same; both
/// sides are named; nothing is stored.
#[test]
fn the_function_a_change_made_costlier_is_the_first_change() {
    let repo = Repo::new(&["base", "head"]);
    let root = repo.root();
    let out = repo
        .knotmeter_command(&root, &["compare", "HEAD~1", "--profile", "slower"])
        .args(["--format", "json", "--time", "0.3"])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert!(out.status.success(), "{}\n{err}", out.status);
    assert!(
        err.contains("knotmeter: the head: valgrind")
            && err.contains("knotmeter: the base: valgrind"),
        "each side is profiled and says so: {err}"
    );
    let cmp: ProfileComparison = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(cmp.id, "two::slower");
    assert!(cmp.base_label.starts_with("HEAD~1 ("), "{}", cmp.base_label);
    assert!(
        cmp.head_label.starts_with("working tree"),
        "{}",
        cmp.head_label
    );
    assert_eq!(cmp.head.tool, ProfileTool::Callgrind);
    let first = &cmp.changes[0];
    assert!(first.name.ends_with("two::spin"), "{:?}", cmp.changes);
    let (base, head) = (first.base_per_op.unwrap(), first.head_per_op.unwrap());
    let ratio = head / base;
    assert!(
        (2.9..3.1).contains(&ratio),
        "1 500 rounds against 500: {head} / {base}"
    );
    let totals = cmp.head.total_per_op / cmp.base.total_per_op;
    assert!((2.5..3.1).contains(&totals), "{totals}");
    assert!(
        !repo.history().exists()
            || knotmeter_history::History::open_read_only(&repo.history())
                .unwrap()
                .latest_profiles()
                .unwrap()
                .is_empty(),
        "a base's profile is not of the code in the editor: nothing is stored"
    );

    let markdown = repo
        .knotmeter_command(&root, &["compare", "HEAD~1", "--profile", "two::slower"])
        .args(["--format", "markdown", "--time", "0.3"])
        .output()
        .unwrap();
    assert!(markdown.status.success(), "{}", stderr(&markdown));
    let text = String::from_utf8(markdown.stdout).unwrap();
    assert!(
        text.starts_with(&format!(
            "### Profile of `two::slower`: {} → {}",
            cmp.base_label, cmp.head_label
        )),
        "{text}"
    );
    assert!(text.contains("| `two::spin` | +"), "{text}");
}

/// A case the base does not have is an error naming the base, before anything is built; a
/// FILTER beside `--profile` and `--quick` with it are refused.
#[test]
fn a_case_the_base_lacks_and_misused_arguments_are_errors() {
    let repo = Repo::new(&["base", "head"]);
    let root = repo.root();
    let out = repo
        .knotmeter_command(&root, &["compare", "HEAD~1", "--profile", "new"])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("the base, HEAD~1"), "{err}");
    assert!(err.contains("has no case two::new"), "{err}");
    assert!(!err.contains("Compiling"), "nothing was built: {err}");
    for (args, says) in [
        (
            &["compare", "HEAD~1", ".", "slow", "--profile", "slower"][..],
            "not a FILTER as well",
        ),
        (
            &["compare", "--profile", "slower", "--quick"][..],
            "cannot be used with '--quick'",
        ),
        (
            &["compare", "--profiler", "perf"][..],
            "required arguments were not provided",
        ),
    ] {
        let out = repo.knotmeter_command(&root, args).output().unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?} says {says:?}: {err}");
    }
}

/// "Compare with base" with profiling on, from an editor that draws profiles (a real stdio
/// client announcing the feature `profiles`): the case passes; `knotmeter/profileCompared`
/// carries the comparison with its heading; the head, the working tree, is also sent as a
/// plain profile (its hot lines are of the code in the editor); the run's output has the table.
#[test]
fn the_editor_compares_profiles_with_a_base() {
    use serde_json::json;
    use std::time::Duration;

    let repo = Repo::new(&["base", "head"]);
    let root = repo.root();
    let mut client = daemon(&repo);
    let uri = format!("file://{}", root.display());
    client.request(
        "initialize",
        json!({
            "processId": null,
            "rootUri": uri,
            "workspaceFolders": [{"uri": uri, "name": "repo"}],
            "capabilities": {"experimental": {"knotmeter": {"profiles": true}}},
            "initializationOptions": {"caseTimeoutSecs": 120},
        }),
    );
    client.notify("initialized", json!({}));
    let response = client.request(
        "knotmeter/run",
        json!({"include": ["two::slower"], "compare": "HEAD~1", "profile": true}),
    );
    let run_id = response["result"]["runId"]
        .as_i64()
        .unwrap_or_else(|| panic!("{response}"));
    let states = client.run_to_end(run_id, Duration::from_secs(600));
    assert_eq!(
        client.finals(run_id),
        [("two::slower".to_owned(), "passed".to_owned())],
        "{states:?}"
    );
    let of = |method: &str| -> Vec<serde_json::Value> {
        client
            .log
            .iter()
            .filter(|r| r.message["method"] == method)
            .map(|r| r.message["params"].clone())
            .collect()
    };
    let compared = of("knotmeter/profileCompared");
    assert_eq!(compared.len(), 1, "{compared:?}");
    let cmp: ProfileComparison = serde_json::from_value(compared[0]["comparison"].clone()).unwrap();
    assert!(
        cmp.changes[0].name.ends_with("two::spin"),
        "{:?}",
        cmp.changes
    );
    let heading = compared[0]["heading"].as_str().unwrap();
    assert!(heading.starts_with("two::slower: "), "{heading}");
    let profiled = of("knotmeter/profiled");
    assert!(
        profiled
            .iter()
            .any(|p| p["runId"] == run_id
                && p["profile"] == serde_json::to_value(&cmp.head).unwrap()),
        "the head's profile, as a profile: {profiled:?}"
    );
    let output: Vec<String> = of("knotmeter/output")
        .iter()
        .filter_map(|p| p["text"].as_str().map(str::to_owned))
        .collect();
    assert!(
        output.iter().any(|t| t.starts_with(heading)),
        "the table in the run's output: {output:?}"
    );
}

/// "Compare profiles with base" against a revision that does not exist: every case ends
/// `errored` with the reason, nothing is built or profiled, and the daemon goes on serving.
#[test]
fn the_editor_compare_of_profiles_with_no_such_base_errors_its_cases() {
    use serde_json::json;
    use std::time::Duration;

    let repo = Repo::new(&["base", "head"]);
    let root = repo.root();
    let mut client = daemon(&repo);
    client.initialize(&root, json!({"caseTimeoutSecs": 60}));
    let response = client.request(
        "knotmeter/run",
        json!({"include": ["two::slower", "two::same"], "compare": "no-such-rev", "profile": true}),
    );
    let run_id = response["result"]["runId"]
        .as_i64()
        .unwrap_or_else(|| panic!("{response}"));
    let states = client.run_to_end(run_id, Duration::from_secs(120));
    let finals = client.finals(run_id);
    assert_eq!(finals.len(), 2, "{states:?}");
    assert!(
        finals.iter().all(|(_, state)| state == "errored"),
        "{finals:?}"
    );
    let message = states
        .iter()
        .find(|s| s["state"] == "errored")
        .and_then(|s| s["message"].as_str())
        .unwrap_or_default()
        .to_owned();
    assert!(message.contains("no-such-rev"), "{message}");
    assert!(
        !states.iter().any(|s| s["state"] == "started"),
        "nothing was profiled: {states:?}"
    );
    let again = client.request("knotmeter/discover", json!({}));
    assert!(
        again.get("error").is_none(),
        "the daemon still serves: {again}"
    );
}

/// A daemon serving `repo`, against the repository's own history and the fixture's target
/// directory, not yet initialized.
fn daemon(repo: &Repo) -> crate::common::Client {
    let history = repo.history();
    crate::common::Client::spawn_with(&repo.root(), |c| {
        c.env("KNOTMETER_HISTORY", &history)
            .env_remove("CARGO_TARGET_DIR");
    })
}
