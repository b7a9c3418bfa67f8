//! Tests never touch the user's data, and their logs carry no colour codes.
//!
//! A user may have `CARGO_TARGET_DIR` and `KNOTMETER_HISTORY` set for their own work. This test
//! process sets both, as such a user's shell would, and checks that a fixture run still builds
//! into the tests' own target directory and stores into the fixture's own history.

mod common;

use std::path::Path;

/// `knotmeter run` on `fixture`'s `plain` benchmark with the quick budget.
fn run_plain(fx: &common::Fixture) -> std::process::Output {
    fx.knotmeter()
        .args(["run", ".", "plain", "--quick", "--time", "0.02"])
        .env("KNOTMETER_LOG", "info")
        .output()
        .unwrap()
}

fn files_under(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                found.extend(files_under(&path));
            } else {
                found.push(path.display().to_string());
            }
        }
    }
    found
}

#[test]
fn fixture_runs_stay_out_of_the_users_target_dir_and_history() {
    let user = tempfile::tempdir().unwrap();
    let user_target = user.path().join("target");
    let user_history = user.path().join("history.db");
    // This test binary holds this one test that reads the variables, so setting them for the
    // whole process is what a user's shell would do.
    std::env::set_var("CARGO_TARGET_DIR", &user_target);
    std::env::set_var("KNOTMETER_HISTORY", &user_history);

    let fx = common::fixture("basic");
    let out = run_plain(&fx);
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        common::history_file(&fx.root()).is_file(),
        "the run is stored in the fixture's own history"
    );
    assert_eq!(
        files_under(user.path()),
        Vec::<String>::new(),
        "nothing was built or stored in the user's CARGO_TARGET_DIR or KNOTMETER_HISTORY"
    );
}

#[test]
fn daemon_log_to_a_pipe_carries_no_colour_codes() {
    let fx = common::fixture("basic");
    let out = run_plain(&fx);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // The info line of the build, so there is a log line to look at.
    assert!(stderr.contains("building"), "{stderr}");
    assert!(!stderr.contains('\u{1b}'), "colour codes in {stderr:?}");
}

#[test]
fn a_log_filter_that_does_not_parse_is_said() {
    let fx = common::fixture("basic");
    let out = fx
        .knotmeter()
        .args(["list"])
        .env("KNOTMETER_LOG", "knotmeter_server=loud")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("the log filter \"knotmeter_server=loud\" does not parse"),
        "{stderr}"
    );
}

/// The executable of `fixture`'s knotmeter bench target `basic`, built with cargo.
fn bench_executable(fx: &common::Fixture) -> String {
    let out = common::command_in(
        std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()),
        &fx.root(),
    )
    .args(["bench", "--no-run", "--message-format=json"])
    .output()
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .find(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "basic")
        .and_then(|m| m["executable"].as_str().map(str::to_owned))
        .expect("cargo built the bench target `basic`")
}

#[test]
fn two_copies_of_a_fixture_build_from_their_own_sources() {
    // Copies share the fixtures' target directory. Cargo names a workspace package's outputs
    // without its path, so two live copies of one fixture shared output files, and cargo
    // judges freshness by modification times: a copy edited before the other copy's build
    // finished looked older than that build's output, was called fresh, and the other copy's
    // binary ran in its place (a daemon test then measured code it never wrote).
    let first = common::fixture("basic");
    let second = common::fixture("basic");
    let source = second.read("benches/basic.rs");
    second.write(
        "benches/basic.rs",
        &source.replace(
            "knotmeter::main!();",
            "#[bench]\nfn only_in_the_second_copy() -> u64 {\n    7\n}\n\nknotmeter::main!();",
        ),
    );
    bench_executable(&first);
    let exe = bench_executable(&second);
    let list = std::process::Command::new(&exe)
        .arg("--list")
        .output()
        .unwrap();
    let list = String::from_utf8_lossy(&list.stdout);
    assert!(
        list.contains("only_in_the_second_copy"),
        "{exe} was not built from the second copy:\n{list}"
    );
}
