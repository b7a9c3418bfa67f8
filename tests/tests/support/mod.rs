//! Helpers shared by the end-to-end tests: run a fixture bench binary and read its report.

#![allow(dead_code)]

use std::process::Command;

use serde_json::Value;

/// Runs `binary` with `args` and no history, and parses its `--format json` report.
pub fn json_report(binary: &str, args: &[&str]) -> Value {
    let out = Command::new(binary)
        .args(["--bench", "--format", "json", "--no-history"])
        .args(args)
        .output()
        .expect("the fixture bench binary runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is one JSON report")
}

/// The result with `id` in `report`.
pub fn result<'r>(report: &'r Value, id: &str) -> &'r Value {
    report["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("no result {id} in {report:#}"))
}

/// The warning codes of a result or summary.
pub fn codes(value: &Value) -> Vec<String> {
    value["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["code"].as_str().unwrap().to_owned())
        .collect()
}
