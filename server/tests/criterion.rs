//! criterion benchmarks through knotmeter-criterion, end to end: the compat fixture
//! (`compat/criterion-fixture`, written against criterion's documented API) copied to a
//! temporary directory, discovered before any build, built, listed, run by `knotmeter serve`
//! and `knotmeter run`, placed on the lines of their calls, and stored in the history.

use crate::common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::{fixture_cargo_config, Client, Fixture};
use serde_json::{json, Value};

const BUILD: Duration = Duration::from_secs(600);

/// The compat fixture in a temporary directory, its dependency on knotmeter-criterion made
/// absolute, building in the fixtures' shared target directory with the repository's lock file.
fn criterion_fixture() -> Fixture {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../compat/criterion-fixture");
    let fx = common::empty_fixture("criterion");
    for file in ["src/lib.rs", "benches/suite.rs", "benches/compared.rs"] {
        fx.write(file, &std::fs::read_to_string(source.join(file)).unwrap());
    }
    let compat = source.join("../criterion").canonicalize().unwrap();
    let manifest = std::fs::read_to_string(source.join("Cargo.toml")).unwrap();
    assert!(manifest.contains("path = \"../criterion\""));
    // The copy's own version, so that two live copies never share build outputs.
    assert!(manifest.contains("\nversion = \"0.1.0\"\n"));
    fx.write(
        "Cargo.toml",
        &manifest
            .replace(
                "path = \"../criterion\"",
                &format!("path = {:?}", compat.display().to_string()),
            )
            .replacen(
                "\nversion = \"0.1.0\"\n",
                &format!("\nversion = \"{}\"\n", fx.version()),
                1,
            ),
    );
    let lock = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock");
    std::fs::copy(lock, fx.path("Cargo.lock")).unwrap();
    fx.write(".cargo/config.toml", &fixture_cargo_config());
    fx
}

/// The 0-based line of the first line of `file` that contains `needle`.
fn line_of(fx: &Fixture, file: &str, needle: &str) -> u64 {
    fx.read(file)
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} is not in {file}")) as u64
}

fn item<'a>(items: &'a [Value], id: &str) -> &'a Value {
    items
        .iter()
        .find(|i| i["id"] == id)
        .unwrap_or_else(|| panic!("no item {id} in {items:#?}"))
}

fn passed_result<'a>(states: &'a [Value], id: &str) -> &'a Value {
    &states
        .iter()
        .rev()
        .find(|s| s["id"] == id && s["state"] == "passed")
        .unwrap_or_else(|| panic!("{id} did not pass: {states:#?}"))["result"]
}

fn warning_codes(result: &Value) -> Vec<&str> {
    result["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["code"].as_str().unwrap())
        .collect()
}

#[test]
fn criterion_targets_show_before_a_build_then_list_run_sit_on_their_calls_and_store_history() {
    let fx = criterion_fixture();
    // Its own history (the client's) and the fixtures' target dir, whatever the environment says.
    let mut client = Client::spawn_with(&fx.root(), |command| {
        command.env_remove("CARGO_TARGET_DIR");
    });
    client.initialize(
        &fx.root(),
        json!({"quickTimeSecs": 0.02, "fullTimeSecs": 0.05, "caseTimeoutSecs": 60}),
    );

    // Before any build: the targets that use knotmeter-criterion, each with a note.
    let discover = client.request("knotmeter/discover", json!({}));
    let items = discover["result"]["items"].as_array().unwrap().clone();
    let target = item(&items, "target:criterion-fixture/suite");
    assert!(
        target["detail"].as_str().unwrap().contains("build"),
        "{target}"
    );
    assert!(items.iter().all(|i| i["kind"] != "bench"), "{items:#?}");

    // Running the target builds it, lists its benchmarks and runs every one.
    let response = client.request(
        "knotmeter/run",
        json!({"include": ["target:criterion-fixture/suite"], "mode": "quick"}),
    );
    let run_id = response["result"]["runId"].as_i64().unwrap();
    let states = client.run_to_end(run_id, BUILD);
    let finals = client.finals(run_id);
    let listed: Vec<&(String, String)> = finals
        .iter()
        .filter(|(id, _)| id.starts_with("suite::"))
        .collect();
    assert_eq!(listed.len(), 20, "{finals:?}");
    assert!(
        listed.iter().all(|(_, state)| state == "passed"),
        "{finals:?}"
    );

    // Each case measured its own closure, as criterion's methods say.
    let custom = passed_result(&states, "suite::custom");
    assert!(warning_codes(custom).contains(&"self_timed"), "{custom}");
    assert_eq!(custom["overhead"]["per_op_ns"], 0.0, "{custom}");
    let fib = passed_result(&states, "suite::fib 20");
    assert!(!warning_codes(fib).contains(&"self_timed"), "{fib}");
    let tokio = passed_result(&states, "suite::async/tokio");
    assert!(
        tokio["overhead"]["per_op_ns"].as_f64().unwrap()
            > fib["overhead"]["per_op_ns"].as_f64().unwrap(),
        "an empty future blocked on by tokio is the baseline of a tokio benchmark: {tokio}"
    );
    let checksum = passed_result(&states, "suite::checksum/1024");
    assert_eq!(checksum["throughput"]["unit"], "bytes", "{checksum}");
    assert_eq!(checksum["throughput"]["per_operation"], 1024);
    let rate = checksum["throughput"]["per_second"].as_f64().unwrap();
    let median = checksum["estimate"]["median_ns"].as_f64().unwrap();
    assert!(
        (rate - 1024.0 * 1e9 / median).abs() < rate * 1e-9,
        "{checksum}"
    );

    // The tree now has the listed benchmarks, each on the line of the call that declared it.
    let discover = client.request("knotmeter/discover", json!({}));
    let items = discover["result"]["items"].as_array().unwrap().clone();
    assert!(item(&items, "target:criterion-fixture/suite")
        .get("detail")
        .is_none());
    let fib_case = item(&items, "suite::fib/30");
    assert_eq!(
        fib_case["range"]["start"]["line"],
        line_of(
            &fx,
            "benches/suite.rs",
            "c.bench_with_input(BenchmarkId::new(\"fib\", 30)"
        ),
        "{fib_case}"
    );
    let fib_20 = item(&items, "suite::fib 20");
    let line = line_of(&fx, "benches/suite.rs", "c.bench_function(\"fib 20\"");
    assert_eq!(fib_20["range"]["start"]["line"], line, "{fib_20}");
    // The range starts at the method's name, not at the start of the line.
    let column = fx
        .read("benches/suite.rs")
        .lines()
        .nth(line as usize)
        .unwrap()
        .find("bench_function")
        .unwrap();
    assert_eq!(fib_20["range"]["start"]["character"], column as u64);
    // Cases declared in a helper function sit on the helper's call.
    assert_eq!(
        item(&items, "suite::sort/stable/1000")["range"]["start"]["line"],
        line_of(
            &fx,
            "benches/suite.rs",
            "BenchmarkId::new(\"stable\", size)"
        )
    );
    assert_eq!(item(&items, "suite::checksum")["kind"], "bench");
    assert_eq!(
        item(&items, "suite::checksum/64")["parent"],
        "suite::checksum"
    );

    // Lenses sit on those lines too.
    let lenses = client.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": fx.uri("benches/suite.rs")}}),
    );
    let lens_lines: Vec<u64> = lenses["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["range"]["start"]["line"].as_u64().unwrap())
        .collect();
    assert!(lens_lines.contains(&line), "{lenses}");

    // The engine stored the run; the daemon reads it back.
    let history = client.request(
        "knotmeter/history",
        json!({"id": "suite::checksum/1024", "limit": 5}),
    );
    assert!(
        !history["result"]["points"].as_array().unwrap().is_empty(),
        "{history}"
    );
    assert!(client.shutdown().success());
}

#[test]
fn knotmeter_run_runs_criterion_targets_and_the_opt_in_group_compares_against_its_baseline() {
    let fx = criterion_fixture();
    let history = tempfile::tempdir().unwrap();
    let out = Command::new(common::knotmeter())
        .args(["run", ".", "--quick", "--time", "0.05", "--format", "json"])
        .current_dir(fx.root())
        .env_remove("CARGO_TARGET_DIR")
        .env("KNOTMETER_HISTORY", history.path().join("history.db"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    // `--format json`: every finished item, with the comparisons decided at the end.
    let document: Value = serde_json::from_str(&stdout).unwrap();
    let items = document["items"].as_array().unwrap();
    let result = |id: &str| {
        items
            .iter()
            .find(|l| l["id"] == id && l["state"] == "passed")
            .map(|l| l["result"].clone())
            .unwrap_or_else(|| panic!("{id} did not pass:\n{stdout}\n{stderr}"))
    };
    // The opt-in (`knotmeter_compare_against("stable")`): the member is measured paired with
    // the baseline of the same parameter and gets a verdict against it.
    let unstable = result("compared::sorts/unstable/1000");
    assert_eq!(unstable["group"], "sorts");
    assert_eq!(
        unstable["comparison"]["against"], "compared::sorts/stable/1000",
        "{unstable}"
    );
    assert!(result("compared::sorts/stable/1000")["baseline"]
        .as_bool()
        .unwrap());
    // A plain criterion group is not a comparison group.
    let sort = result("suite::sort/unstable/100");
    assert!(sort["group"].is_null(), "{sort}");

    // The bench binary itself: libtest-style and JSON lists, filters.
    let list = Command::new("cargo")
        .args([
            "bench", "-q", "--bench", "suite", "--", "--list", "--format", "json", "checksum",
        ])
        .current_dir(fx.root())
        .env_remove("CARGO_TARGET_DIR")
        .env("KNOTMETER_HISTORY", history.path().join("history.db"))
        .output()
        .unwrap();
    assert!(
        list.status.success(),
        "{}",
        String::from_utf8_lossy(&list.stderr)
    );
    let document: Value = serde_json::from_slice(&list.stdout).unwrap();
    let ids: Vec<&str> = document["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "suite::checksum/64",
            "suite::checksum/1024",
            "suite::checksum/16384"
        ]
    );
    assert_eq!(document["cases"][0]["bench_id"], "suite::checksum");
    assert_eq!(document["cases"][0]["args"], "64");
}
