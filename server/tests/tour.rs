//! The README's tour, run as written: its files make a fresh crate in a temporary directory,
//! outside the repository, and each of its commands runs there in order.
//!
//! Three things differ from a user's first try, all so that the test is quick and offline: the
//! crate gets the repository's `Cargo.lock` (the same versions the rest of the suite compiled)
//! and builds into the fixtures' shared target directory with their bench profile (a
//! `.cargo/config.toml` outside the README's files: SQLite at -O1, as docs/performance.md
//! suggests, so that the engine's dependencies built there for the fixtures serve the tour
//! too); `cargo install` is skipped, the `knotmeter` binary cargo built for this test standing
//! in for the installed one.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

/// The README's path dependency on the engine, which the test points at this repository.
const ENGINE_DEPENDENCY: &str = r#"knotmeter = { path = "../knotmeter/engine" }"#;

/// Every case the tour's `benches/demo.rs` declares.
const CASES: [&str; 9] = [
    "demo::chain_1000",
    "demo::chain_n/10",
    "demo::chain_n/100",
    "demo::chain_n/1000",
    "demo::chain_n/10000",
    "demo::sort_1000",
    "demo::stable",
    "demo::unstable",
    "demo::lookup",
];

/// The files and commands of the README's "A tour" section.
struct Tour {
    /// `(path, contents)` of each code block whose first line names a file.
    files: Vec<(String, String)>,
    /// The shell block's commands, comments removed.
    commands: Vec<String>,
}

fn tour() -> Tour {
    let readme = std::fs::read_to_string(repository().join("README.md")).unwrap();
    let start = readme.find("\n## A tour").expect("README has a tour");
    let section = &readme[start + 1..];
    let section = &section[..section[3..]
        .find("\n## ")
        .map_or(section.len(), |end| end + 3)];
    let mut tour = Tour {
        files: Vec::new(),
        commands: Vec::new(),
    };
    let mut lines = section.lines();
    while let Some(line) = lines.next() {
        let Some(language) = line.strip_prefix("```") else {
            continue;
        };
        let body: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
        match language {
            "sh" => tour.commands.extend(
                body.iter()
                    .map(|l| l.split(" #").next().unwrap().trim().to_owned())
                    .filter(|l| !l.is_empty()),
            ),
            // A file when the first line names one (`# Cargo.toml`, `// src/lib.rs`).
            "toml" | "rust" => {
                let first = body.first().copied().unwrap_or_default();
                let named = first.strip_prefix("# ").or(first.strip_prefix("// "));
                if let Some(path) = named.filter(|p| !p.contains(' ') && p.contains('.')) {
                    tour.files.push((path.to_owned(), body.join("\n") + "\n"));
                }
            }
            _ => {}
        }
    }
    tour
}

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

fn run(root: &Path, command: &str) -> Output {
    let mut words = command.split_whitespace();
    let program = match words.next().unwrap() {
        "cargo" => PathBuf::from(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())),
        "knotmeter" => common::knotmeter(),
        other => panic!("the tour runs {other:?}"),
    };
    let out = common::command_in(program, root)
        .args(words)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "`{command}` failed in the tour's crate:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Checks that a table shows every case, by its name without the crate's prefix (the bench
/// binary's table groups cases under their crate; `knotmeter run` shows whole ids).
fn assert_every_case(text: &str, command: &str) {
    for case in CASES {
        let name = case.trim_start_matches("demo::");
        assert!(
            text.contains(name),
            "`{command}` does not show {name}:\n{text}"
        );
    }
}

#[test]
fn the_readme_tour_works_as_written_in_a_fresh_crate() {
    let tour = tour();
    let paths: Vec<&str> = tour.files.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(paths, ["Cargo.toml", "src/lib.rs", "benches/demo.rs"]);
    let dir = tempfile::Builder::new()
        .prefix("knotmeter-tour-")
        .tempdir()
        .unwrap();
    let root = dir.path().canonicalize().unwrap();
    assert!(!root.starts_with(repository()), "outside the repository");
    for (path, contents) in &tour.files {
        let contents = if path == "Cargo.toml" {
            assert!(contents.contains(ENGINE_DEPENDENCY), "{contents}");
            let engine = repository().join("engine");
            contents.replace(
                ENGINE_DEPENDENCY,
                &format!(
                    "knotmeter = {{ path = {:?} }}",
                    engine.display().to_string()
                ),
            )
        } else {
            contents.clone()
        };
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, contents).unwrap();
    }
    std::fs::copy(repository().join("Cargo.lock"), root.join("Cargo.lock")).unwrap();
    std::fs::create_dir_all(root.join(".cargo")).unwrap();
    std::fs::write(
        root.join(".cargo/config.toml"),
        common::fixture_cargo_config(),
    )
    .unwrap();

    let mut ran = Vec::new();
    for command in &tour.commands {
        if command.starts_with("cargo install ") {
            assert_eq!(command, "cargo install --path ../knotmeter/server");
            continue;
        }
        let out = run(&root, command);
        let stdout = String::from_utf8_lossy(&out.stdout);
        match command.as_str() {
            "cargo bench" | "knotmeter run" => assert_every_case(&stdout, command),
            "knotmeter list" => {
                // A tree of names: the benchmarks, and under chain_n its args.
                for name in [
                    "chain_1000",
                    "chain_n",
                    "10000",
                    "sort_1000",
                    "unstable",
                    "lookup",
                ] {
                    assert!(stdout.contains(name), "`{command}` lacks {name}:\n{stdout}");
                }
            }
            "cargo bench -- --quick --format json" => {
                let report: Value = serde_json::from_str(&stdout)
                    .unwrap_or_else(|e| panic!("not one JSON document ({e}):\n{stdout}"));
                let ids: Vec<&str> = report["results"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| r["id"].as_str().unwrap())
                    .collect();
                assert_eq!(ids, CASES, "{report:#}");
                let unstable = &report["results"][7];
                assert_eq!(
                    unstable["comparison"]["against"], "demo::stable",
                    "{unstable:#}"
                );
            }
            "knotmeter history demo::chain_1000" => {
                // One row per stored run: `cargo bench`, the JSON run and `knotmeter run`.
                let rows = stdout
                    .lines()
                    .skip(1)
                    .filter(|l| !l.trim().is_empty())
                    .count();
                assert_eq!(rows, 3, "{stdout}");
            }
            other => panic!("the test does not know what `{other}` should show"),
        }
        ran.push(command.clone());
    }
    assert_eq!(
        ran,
        [
            "cargo bench",
            "cargo bench -- --quick --format json",
            "knotmeter list",
            "knotmeter run",
            "knotmeter history demo::chain_1000"
        ]
    );
}

#[test]
fn bundled_example_takes_knotmeter_flags_after_cargo_bench() {
    // README: "`cargo bench -p quickstart` runs the same benchmarks through cargo alone"; with
    // flags after `--` too, which the library's libtest harness would reject.
    let history = tempfile::tempdir().unwrap();
    let out = common::command_in(
        std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()),
        &repository(),
    )
    .env("KNOTMETER_HISTORY", history.path().join("history.db"))
    .args(["bench", "--locked", "-p", "quickstart", "--"])
    .args([
        "--quick",
        "--format",
        "json",
        "--exact",
        "quickstart::chain_1000",
    ])
    .output()
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        report["results"][0]["id"], "quickstart::chain_1000",
        "{report:#}"
    );
}
