//! Workspaces whose bench binary is a script that speaks the bench binary's protocol with
//! behaviours chosen per case (slow with progress, hung, crashing, refusing its command line,
//! printing), so the daemon's handling of each is tested in seconds and without a build: a
//! stand-in cargo reports the script as the built executable (and runs the real cargo for
//! everything else, such as `cargo metadata`).

use std::path::PathBuf;
use std::process::Command;

use serde_json::{json, Value};

use super::{fixture, Fixture};

/// The stand-in bench binary. `behaviour.json` (next to it) maps case names to behaviours;
/// every invocation's arguments are appended to `args.log`.
const SCRIPT: &str = r#"#!/usr/bin/env python3
import json, os, signal, sys, time
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "args.log"), "a") as log:
    log.write(json.dumps(sys.argv[1:]) + "\n")
spec = json.load(open(os.path.join(here, "behaviour.json")))
cases = spec["cases"]
crate = spec.get("crate", "sc")
if spec.get("libtest"):
    # What a bench target built with libtest's harness says (an engine without the
    # compile-time check).
    if '--format' in sys.argv:
        sys.stderr.write('error: The "json" format is only accepted on the nightly compiler with -Z unstable-options\n')
        sys.exit(101)
    print("0 tests, 0 benchmarks")
    sys.exit(0)
def spawn_all(spawns):
    # Processes that inherit standard output and error and outlive the bench binary;
    # `session` takes one out of the binary's process group.
    import subprocess
    for spawn in spawns:
        child = subprocess.Popen(["sleep", str(spawn.get("secs", 400))],
                                 start_new_session=spawn.get("session", False))
        with open(os.path.join(here, "spawned.pids"), "a") as pids:
            pids.write(f"{child.pid} {int(spawn.get('session', False))}\n")
if '--list' in sys.argv:
    spawn_all(spec.get("list_spawn", []))
    entries = [{"id": f"{crate}::{n}", "bench_id": f"{crate}::{n}", "name": n, "args": None,
                "group": None, "baseline": False, "file": f"benches/{crate}.rs", "line": 1}
               for n in cases]
    print(json.dumps({"version": 1, "cases": entries}))
    sys.exit(0)
if spec.get("refuse"):
    sys.stderr.write(spec["refuse"] + "\n")
    sys.exit(2)
if spec.get("ignore_sigterm"):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
def emit(event):
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()
def result(case_id):
    est = {"median_ns": 1.0, "low_ns": 1.0, "high_ns": 1.0, "mean_ns": 1.0}
    q = {"min_ns": 1.0, "p5_ns": 1.0, "q1_ns": 1.0, "q3_ns": 1.0, "p95_ns": 1.0, "max_ns": 1.0,
         "std_dev_ns": 0.0, "outliers": 0}
    return {"id": case_id, "name": case_id.split("::")[-1], "args": None, "group": None,
            "baseline": False, "file": f"benches/{crate}.rs", "line": 1, "estimate": est, "quantiles": q,
            "precision": 0.0, "overhead": {"per_op_ns": 0.0, "drift": 0.0, "capped": 0},
            "cold_ns": 1.0, "ops_per_sample": 1, "samples": 1, "wall_ns": 1.0, "partial": False,
            "warnings": [], "comparison": None, "allocations": None,
            "raw": {"workload_ns": [1.0 + i / 100 for i in range(spec.get("raw", 0))],
                    "baseline_ns": [0.5] * spec.get("raw", 0)}}
ids = sys.argv[sys.argv.index("--exact") + 1:] if "--exact" in sys.argv else []
manifest = {"knotmeter_version": "0.0.0", "rustc": "rustc", "profile": "bench", "opt_level": "3",
            "debug_assertions": False, "target": "x", "cpu": "x", "cores": 1,
            "timer": {"kind": "instant", "precision_ns": 1.0, "read_cost_ns": 1.0},
            "git_commit": None, "timestamp": 0, "seed": 1, "budget_ms": 1000,
            "target_precision": 0.01, "warnings": []}
emit({"event": "run_started", "version": 1, "manifest": manifest, "cases": []})
for case_id in ids:
    b = cases[case_id.split("::")[-1]]
    kind = b["kind"]
    emit({"event": "case_started", "id": case_id})
    if b.get("stderr"):
        # Well after `case_started`, so the reader has it: the lines belong to the case.
        time.sleep(0.3)
    for line in b.get("stderr", []):
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    # A set-up that starts processes which outlive the bench binary.
    spawn_all(b.get("spawn", []))
    if b.get("print"):
        p = b["print"]
        out = sys.stderr.buffer
        out.write(b"first printed line\n")
        block = (b"x" * (p.get("width", 100) - 1) + b"\n") * 1000
        for _ in range(p.get("lines", 0) // 1000):
            out.write(block)
        if p.get("line_bytes"):
            out.write(b"y" * p["line_bytes"] + b"\n")
        out.write(b"last printed line\n")
        out.flush()
    if kind == "hang":
        while True:
            time.sleep(0.05)
    if kind == "hang_after_step":
        emit({"event": "progress", "id": case_id, "samples": 0, "fraction": 0.0, "longest_step_ns": 1e6})
        while True:
            time.sleep(0.05)
    if kind == "slow":
        longest = 0.0
        for i, step in enumerate(b["steps"]):
            time.sleep(step)
            longest = max(longest, step)
            emit({"event": "progress", "id": case_id, "samples": i, "fraction": (i + 1) / len(b["steps"]),
                  "longest_step_ns": longest * 1e9})
    if kind == "abort":
        os.abort()
    if kind == "sleep":
        time.sleep(b["secs"])
    emit({"event": "case_finished", "result": result(case_id)})
emit({"event": "run_finished", "passed": len(ids), "failed": 0, "cancelled": False, "wall_ns": 1.0})
sys.exit(spec.get("exit", 0))
"#;

/// A workspace with one bench target `sc` whose cases behave as `behaviour` says:
/// `{"cases": {"name": {"kind": "pass" | "slow" | "hang" | "hang_after_step" | "abort" |
/// "sleep", ...}}, "refuse": "text", "exit": 1, "ignore_sigterm": true, "libtest": true,
/// "raw": N, "crate": "name", "list_spawn": [{"secs": 400, "session": true}]}` (`raw`: each result carries N raw samples per vector; `crate`:
/// the package and bench target's name instead of `sc`)
/// (`libtest`: answers as a target built with libtest's harness does). A `slow` case
/// sleeps each of its `steps` (seconds) and reports progress after each; `sleep` sleeps
/// `secs`; every case may write `stderr` lines when it starts, start processes that inherit
/// its standard output and error and outlive it (`"spawn": [{"secs": 400, "session": false}]`,
/// each pid and whether it left the process group appended to `bin/spawned.pids`; with
/// `list_spawn`, `--list` starts such processes too), and flood
/// standard error (`"print": {"lines": N, "width": 100, "line_bytes": B}`: `first printed
/// line`, N lines of `width` bytes, one line of B bytes, `last printed line`).
pub struct Scripted {
    /// The workspace.
    pub fx: Fixture,
}

impl Scripted {
    /// A new workspace whose cases are the keys of `behaviour["cases"]`.
    pub fn new(behaviour: Value) -> Self {
        let fx = fixture("empty");
        let root = fx.root();
        let name = behaviour["crate"].as_str().unwrap_or("sc");
        fx.write(
            "Cargo.toml",
            &format!(
                "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
                 [dev-dependencies]\nknotmeter = \"0.1\"\n\n[[bench]]\nname = \"{name}\"\n\
                 harness = false\n\n[workspace]\n"
            ),
        );
        let names: Vec<String> = behaviour["cases"]
            .as_object()
            .expect("behaviour.cases is an object")
            .keys()
            .cloned()
            .collect();
        let source: String = names
            .iter()
            .map(|n| format!("#[knotmeter::bench]\nfn {n}() {{}}\n"))
            .collect();
        fx.write(
            &format!("benches/{name}.rs"),
            &format!("{source}knotmeter::main!();\n"),
        );
        let bench = root.join("bin/sc-bench");
        fx.write("bin/sc-bench", SCRIPT);
        fx.write("bin/behaviour.json", &behaviour.to_string());
        let artifact = json!({
            "reason": "compiler-artifact", "package_id": format!("path+file:///{name}#0.1.0"),
            "manifest_path": root.join("Cargo.toml"),
            "target": {"name": name, "kind": ["bench"], "crate_types": ["bin"], "required-features": [],
                       "src_path": root.join(format!("benches/{name}.rs")), "edition": "2021", "doctest": false,
                       "test": false, "doc": false},
            "profile": {"opt_level": "3", "debuginfo": 0, "debug_assertions": false,
                        "overflow_checks": false, "test": true},
            "features": [], "filenames": [bench], "executable": bench, "fresh": true
        });
        let real_cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        fx.write(
            "bin/cargo",
            &format!(
                "#!/bin/sh\nif [ \"$1\" = bench ]; then echo \"$@\" >> {log}; echo '{artifact}'; \
                 echo '{{\"reason\":\"build-finished\",\"success\":true}}'; exit 0; fi\n\
                 exec {real_cargo} \"$@\"\n",
                log = root.join("bin/cargo.log").display()
            ),
        );
        for script in ["bin/sc-bench", "bin/cargo"] {
            let status = Command::new("chmod")
                .arg("+x")
                .arg(root.join(script))
                .status()
                .unwrap();
            assert!(status.success());
        }
        Self { fx }
    }

    /// The stand-in cargo, for the `CARGO` environment variable.
    pub fn cargo(&self) -> PathBuf {
        self.fx.path("bin/cargo")
    }

    /// `knotmeter run ARGS` in the workspace with the stand-in cargo and a history file of
    /// its own.
    pub fn knotmeter_run(&self, args: &[&str]) -> Command {
        let mut command = Command::new(super::knotmeter());
        command
            .arg("run")
            .args(args)
            .current_dir(self.fx.root())
            .env("CARGO", self.cargo())
            .env("KNOTMETER_HISTORY", self.fx.path("history.db"))
            .env_remove("CARGO_TARGET_DIR")
            .env_remove("KNOTMETER_LOG");
        command
    }

    /// Every argument list the bench binary was started with, in order.
    pub fn invocations(&self) -> Vec<Vec<String>> {
        let log = std::fs::read_to_string(self.fx.path("bin/args.log")).unwrap_or_default();
        log.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The processes the cases started (`spawn`): each pid, and whether it left the bench
    /// binary's process group.
    pub fn spawned(&self) -> Vec<(u32, bool)> {
        std::fs::read_to_string(self.fx.path("bin/spawned.pids"))
            .unwrap_or_default()
            .lines()
            .map(|l| {
                let (pid, session) = l.split_once(' ').unwrap();
                (pid.parse().unwrap(), session == "1")
            })
            .collect()
    }

    /// How many times the stand-in cargo was asked to build.
    pub fn builds(&self) -> usize {
        std::fs::read_to_string(self.fx.path("bin/cargo.log"))
            .unwrap_or_default()
            .lines()
            .count()
    }

    /// The workspace root.
    pub fn root(&self) -> PathBuf {
        self.fx.root()
    }

    /// A path in the workspace.
    pub fn path(&self, relative: &str) -> PathBuf {
        self.fx.path(relative)
    }
}
