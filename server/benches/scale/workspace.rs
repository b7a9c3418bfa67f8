//! The generated workspace: `benches` benchmark functions in files of 20, 50 files per package
//! (a bench target whose root declares the other 49 as modules), with a stand-in cargo and a
//! stand-in bench binary per package, so that a run of 10 000 cases takes seconds and needs no
//! build. Everything the daemon does with it (metadata, discovery, watching, runs) is real.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;

/// Benchmark functions per file.
pub const PER_FILE: usize = 20;
/// Files per package (the root file and its modules).
pub const FILES_PER_PACKAGE: usize = 50;

/// The stand-in bench binary: lists the cases in `list.json` next to it, and "measures" the
/// ids after `--exact`, one every `SCALE_CASE_DELAY` seconds, each with `SCALE_RAW_SAMPLES`
/// raw samples per vector (as the engine's results carry them). SIGTERM or standard input
/// closing (`--stdin-cancel`) stop it at the next case, like the engine.
const FAKE_BENCH: &str = r#"#!/usr/bin/env python3
import json, os, signal, sys, threading, time
here = os.path.dirname(os.path.abspath(__file__))
if '--list' in sys.argv:
    sys.stdout.write(open(os.path.join(here, 'list.json')).read())
    sys.exit(0)
stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())
def watch_stdin():
    try:
        while sys.stdin.buffer.read(4096):
            pass
    except Exception:
        pass
    stop.set()
threading.Thread(target=watch_stdin, daemon=True).start()
delay = float(os.environ.get('SCALE_CASE_DELAY', '0.002'))
n = int(os.environ.get('SCALE_RAW_SAMPLES', '1000'))
raw = ('{"workload_ns": [' + ','.join('%.4f' % (12.3456 + (i % 97) * 0.0173) for i in range(n)) +
       '], "baseline_ns": [' + ','.join('%.4f' % (0.3012 + (i % 13) * 0.0011) for i in range(n)) + ']}')
ids = sys.argv[sys.argv.index('--exact') + 1:] if '--exact' in sys.argv else []
listed = {c['id']: c for c in json.load(open(os.path.join(here, 'list.json')))['cases']}
out = sys.stdout
def emit(line):
    out.write(line + '\n')
    out.flush()
manifest = {"knotmeter_version": "0.0.0", "rustc": "rustc", "profile": "bench", "opt_level": "3",
            "debug_assertions": False, "target": "x", "cpu": "x", "cores": 1,
            "timer": {"kind": "instant", "precision_ns": 1.0, "read_cost_ns": 1.0},
            "git_commit": None, "timestamp": 0, "seed": 1, "budget_ms": 100,
            "target_precision": 0.01, "warnings": []}
emit(json.dumps({"event": "run_started", "version": 1, "manifest": manifest,
                 "cases": [listed[i] for i in ids if i in listed]}))
passed = 0
for case_id in ids:
    if stop.is_set():
        break
    emit(json.dumps({"event": "case_started", "id": case_id}))
    time.sleep(delay)
    c = listed[case_id]
    small = {"id": case_id, "name": c["name"], "args": c["args"], "group": None, "baseline": False,
             "file": c["file"], "line": c["line"],
             "estimate": {"median_ns": 12.0, "low_ns": 11.9, "high_ns": 12.1, "mean_ns": 12.05},
             "quantiles": {"min_ns": 11.5, "p5_ns": 11.7, "q1_ns": 11.9, "q3_ns": 12.2, "p95_ns": 12.6,
                           "max_ns": 13.9, "std_dev_ns": 0.2, "outliers": 3},
             "precision": 0.008, "overhead": {"per_op_ns": 0.3, "drift": 0.001, "capped": 0},
             "cold_ns": 250.0, "ops_per_sample": 4096, "samples": n, "wall_ns": 1e8, "partial": False,
             "warnings": [], "comparison": None, "allocations": None}
    emit('{"event": "case_finished", "result": ' + json.dumps(small)[:-1] + ', "raw": ' + raw + '}}')
    passed += 1
emit(json.dumps({"event": "run_finished", "passed": passed, "failed": 0, "partial": 0,
                 "cancelled": stop.is_set(), "wall_ns": 1.0}))
sys.exit(0)
"#;

/// The stand-in cargo: `cargo bench --no-run` "builds" each package's stand-in bench binary;
/// everything else (`cargo metadata`) goes to the real cargo.
const FAKE_CARGO: &str = r##"#!/usr/bin/env python3
import json, os, sys
args = sys.argv[1:]
if not args or args[0] != 'bench':
    os.execvp(os.environ.get('SCALE_REAL_CARGO', 'cargo'), ['cargo'] + args)
manifest = args[args.index('--manifest-path') + 1]
package = args[args.index('--package') + 1]
pkg_dir = os.path.dirname(manifest)
targets = [args[i + 1] for i, a in enumerate(args) if a == '--bench']
exe = os.path.join(pkg_dir, 'fake-bench')
for t in targets:
    print(json.dumps({
        "reason": "compiler-artifact", "package_id": "path+file://" + pkg_dir + "#0.1.0",
        "manifest_path": manifest,
        "target": {"name": t, "kind": ["bench"], "crate_types": ["bin"], "required-features": [],
                   "src_path": os.path.join(pkg_dir, 'benches', t + '.rs'), "edition": "2021",
                   "doctest": False, "test": False, "doc": False},
        "profile": {"opt_level": "3", "debuginfo": 0, "debug_assertions": False,
                    "overflow_checks": False, "test": True},
        "features": [], "filenames": [exe], "executable": exe, "fresh": True}))
print(json.dumps({"reason": "build-finished", "success": True}))
"##;

/// A generated workspace in a temporary directory.
pub struct Generated {
    /// Keeps the directory alive.
    pub dir: tempfile::TempDir,
    /// Benchmark functions.
    pub benches: usize,
    /// Leaf cases (an `args` benchmark has two).
    pub cases: usize,
    /// Source files with benchmarks.
    pub files: usize,
}

impl Generated {
    /// The workspace root.
    pub fn root(&self) -> PathBuf {
        self.dir.path().canonicalize().unwrap()
    }

    /// The stand-in cargo.
    pub fn cargo(&self) -> PathBuf {
        self.root().join("fake-cargo")
    }

    /// The file the typing scenario edits: a module in the middle of the first package.
    pub fn edited(&self) -> (PathBuf, String) {
        let module = (self.files.min(FILES_PER_PACKAGE) / 2).max(1);
        let path = self.root().join(format!("p0/benches/m{module}.rs"));
        (path, format!("gen_p0::m{module}"))
    }

    /// Adds `count` empty directories under the target directory (what builds leave there).
    pub fn add_target_dirs(&self, count: usize) {
        let target = self.root().join("target");
        for i in 0..count {
            std::fs::create_dir_all(target.join(format!(
                "debug/build/d{}/out{}",
                i / 100,
                i % 100
            )))
            .unwrap();
        }
    }
}

/// The source of one file: `PER_FILE` benchmarks, the first with two `args` values.
pub fn file_text(mods: &[String]) -> String {
    let mut text = String::new();
    for m in mods {
        writeln!(text, "mod {m};").unwrap();
    }
    text.push_str("\nuse knotmeter::{bench, black_box};\n\n");
    for f in 0..PER_FILE {
        if f == 0 {
            text.push_str(
                "/// Scales with n.\n#[bench(args = [10, 100])]\nfn f0(n: u64) -> u64 {\n    (0..n).fold(0, |a, b| a ^ black_box(b))\n}\n\n",
            );
        } else {
            writeln!(
                text,
                "/// Benchmark {f}.\n#[bench]\nfn f{f}() -> u64 {{\n    black_box({f}u64).wrapping_mul(31).rotate_left(3)\n}}\n"
            )
            .unwrap();
        }
    }
    text
}

/// The 0-based line of `fn f10` in `text`.
pub fn f10_line(text: &str) -> u32 {
    text.lines().position(|l| l.starts_with("fn f10(")).unwrap() as u32
}

/// Writes a workspace of `benches` benchmark functions (a multiple of 20).
pub fn generate(benches: usize) -> Generated {
    let dir = tempfile::Builder::new()
        .prefix("knotmeter-scale-")
        .tempdir()
        .unwrap();
    let root = dir.path().to_path_buf();
    let files = benches.div_ceil(PER_FILE);
    let packages = files.div_ceil(FILES_PER_PACKAGE);
    let members: Vec<String> = (0..packages).map(|p| format!("\"p{p}\"")).collect();
    write(
        &root.join("Cargo.toml"),
        &format!(
            "[workspace]\nresolver = \"2\"\nmembers = [{}]\n",
            members.join(", ")
        ),
    );
    write(&root.join(".gitignore"), "/target\n");
    let mut cases = 0;
    let mut left = files;
    for p in 0..packages {
        let here = left.min(FILES_PER_PACKAGE);
        left -= here;
        let pkg = root.join(format!("p{p}"));
        let name = format!("gen_p{p}");
        write(
            &pkg.join("Cargo.toml"),
            &format!(
                "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\nautobenches = false\n\n\
                 [dev-dependencies]\nknotmeter = \"0.1\"\n\n[[bench]]\nname = \"{name}\"\nharness = false\n"
            ),
        );
        write(&pkg.join("src/lib.rs"), "");
        let mods: Vec<String> = (1..here).map(|m| format!("m{m}")).collect();
        let mut root_text = file_text(&mods);
        root_text.push_str("knotmeter::main!();\n");
        write(&pkg.join(format!("benches/{name}.rs")), &root_text);
        let mut list = Vec::new();
        let mut add = |module: Option<&str>, file: &str, text: &str| {
            for f in 0..PER_FILE {
                let bench_id = match module {
                    Some(m) => format!("{name}::{m}::f{f}"),
                    None => format!("{name}::f{f}"),
                };
                let line = text
                    .lines()
                    .position(|l| l.starts_with(&format!("fn f{f}(")))
                    .unwrap()
                    + 1;
                let args: Vec<Option<&str>> = if f == 0 {
                    vec![Some("10"), Some("100")]
                } else {
                    vec![None]
                };
                for arg in args {
                    let id = match arg {
                        Some(a) => format!("{bench_id}/{a}"),
                        None => bench_id.clone(),
                    };
                    list.push(
                        json!({"id": id, "bench_id": bench_id, "name": format!("f{f}"),
                        "args": arg, "group": null, "baseline": false, "file": file, "line": line}),
                    );
                }
            }
        };
        add(None, &format!("benches/{name}.rs"), &root_text);
        for m in &mods {
            let text = file_text(&[]);
            write(&pkg.join(format!("benches/{m}.rs")), &text);
            add(Some(m), &format!("benches/{m}.rs"), &text);
        }
        cases += list.len();
        write(
            &pkg.join("list.json"),
            &json!({"version": 1, "cases": list}).to_string(),
        );
        write(&pkg.join("fake-bench"), FAKE_BENCH);
        chmod(&pkg.join("fake-bench"));
    }
    write(&root.join("fake-cargo"), FAKE_CARGO);
    chmod(&root.join("fake-cargo"));
    Generated {
        dir,
        benches: files * PER_FILE,
        cases,
        files,
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn chmod(path: &Path) {
    let status = Command::new("chmod").arg("+x").arg(path).status().unwrap();
    assert!(status.success());
}
