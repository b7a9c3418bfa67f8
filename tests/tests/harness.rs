//! A fresh crate whose bench target forgets `harness = false`, built by cargo as a user would:
//! the build fails and says exactly what to add to Cargo.toml (once, `cargo bench` printed
//! `running 0 tests ... ok` and passed); with the lines added, the same target builds and runs.
//!
//! The crate is built in the target directory the daemon's end-to-end fixtures share
//! (`<target>/e2e-fixtures`), so the engine's dependencies are compiled once for all of them,
//! and never in the user's own target directory, whatever `CARGO_TARGET_DIR` says.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `<target>/e2e-fixtures`, next to the profile directory the fixture binaries were built in.
fn shared_target_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_fixture"))
        .parent()
        .and_then(Path::parent)
        .expect("the fixture binary sits in <target>/<profile>")
        .join("e2e-fixtures")
}

/// The bench profile's settings of every crate built in the shared target directory: the
/// repository's own (SQLite's C file at -O1, docs/performance.md "Build time"), so that the
/// engine's dependencies built there for the daemon's fixtures are this crate's too.
const BENCH_PROFILE: &str = "[profile.bench.package.libsqlite3-sys]\nopt-level = 1\n";

/// Writes a crate with one bench target, `benches/my-bench.rs`, and `extra` at the end of its
/// Cargo.toml.
fn write_crate(dir: &Path, extra: &str) {
    let engine = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../engine")
        .canonicalize()
        .unwrap();
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml");
    assert!(
        std::fs::read_to_string(&workspace)
            .unwrap()
            .contains(BENCH_PROFILE),
        "{} no longer holds this crate's bench profile: make BENCH_PROFILE its bench profile again",
        workspace.display()
    );
    let manifest = format!(
        "[package]\nname = \"forgetful\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n\n\
         [dev-dependencies]\nknotmeter = {{ path = {:?} }}\n\n{BENCH_PROFILE}\n[workspace]\n{extra}",
        engine.display().to_string()
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/lib.rs"), "//! Nothing here.\n").unwrap();
    std::fs::create_dir_all(dir.join("benches")).unwrap();
    std::fs::write(
        dir.join("benches/my-bench.rs"),
        "use knotmeter::{bench, black_box};\n\n\
         #[bench]\nfn sum() -> u64 {\n    (0..black_box(100u64)).sum()\n}\n\n\
         knotmeter::main!();\n",
    )
    .unwrap();
    // The repository's lock file pins every dependency, so nothing is resolved afresh.
    let lock = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock");
    std::fs::copy(lock, dir.join("Cargo.lock")).unwrap();
}

/// `cargo bench --bench my-bench ARGS` in `dir`, in the shared target directory.
fn cargo_bench(dir: &Path, args: &[&str]) -> Output {
    let history = dir.join("history.db");
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["bench", "--bench", "my-bench", "--target-dir"])
        .arg(shared_target_dir())
        .args(args)
        .current_dir(dir)
        .env_remove("CARGO_TARGET_DIR")
        .env("CARGO_TERM_COLOR", "never")
        .env("KNOTMETER_HISTORY", history)
        .output()
        .expect("cargo runs")
}

#[test]
fn a_bench_target_without_harness_false_fails_to_build_and_says_what_to_add() {
    let dir = tempfile::tempdir().unwrap();
    write_crate(dir.path(), "");
    let out = cargo_bench(dir.path(), &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the build must fail:\n{stderr}");
    assert!(
        stderr.contains(
            "knotmeter::main!() in `benches/my-bench.rs` is compiled with libtest's harness"
        ),
        "{stderr}"
    );
    // rustc indents the lines of the message; the three lines to add follow each other.
    let lines: Vec<&str> = stderr.lines().map(str::trim).collect();
    assert!(
        lines
            .windows(3)
            .any(|w| w == ["[[bench]]", "name = \"my-bench\"", "harness = false"]),
        "{stderr}"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("running 0 tests"));

    // Following the advice fixes it.
    write_crate(
        dir.path(),
        "\n[[bench]]\nname = \"my-bench\"\nharness = false\n",
    );
    let out = cargo_bench(dir.path(), &["--", "--list"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("sum: benchmark"), "{stdout}");
}
