//! The daemon's footprint and latency, measured on the real `knotmeter serve` over stdio:
//! `cargo bench -p knotmeter-server --bench daemon`. Targets (docs/performance.md): idle
//! resident memory under 30 MB, and under 5 ms from a result line on the bench binary's stdout
//! to the `knotmeter/runState` notification at the client.
//!
//! Latency: `CARGO` names a stand-in cargo whose `bench --no-run` "builds" a stand-in bench
//! binary (a Python script). The script writes each `case_finished` line with the monotonic
//! clock's reading in the result's `name`; the client reads the clock when the notification
//! arrives. Both use CLOCK_MONOTONIC, so the difference is the daemon's whole path: pipe,
//! parse, session, JSON-RPC, stdout. Without `--bench` (as under `cargo test`) it runs once,
//! briefly.

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::Path;
use std::time::Duration;

use serde_json::json;

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

fn monotonic_ns() -> i64 {
    let t = nix::time::clock_gettime(nix::time::ClockId::CLOCK_MONOTONIC).unwrap();
    t.tv_sec() * 1_000_000_000 + t.tv_nsec()
}

const FAKE_BENCH: &str = r#"#!/usr/bin/env python3
import json, sys, time
ids = [a for a in sys.argv[1:] if a.startswith('lat::')]
if '--list' in sys.argv:
    cases = [{"id": f"lat::c{i}", "bench_id": f"lat::c{i}", "name": f"c{i}", "args": None, "group": None, "baseline": False, "file": "benches/lat.rs", "line": 1} for i in range(COUNT)]
    print(json.dumps({"version": 1, "cases": cases}))
    sys.exit(0)
est = {"median_ns": 1.0, "low_ns": 1.0, "high_ns": 1.0, "mean_ns": 1.0}
q = {"min_ns": 1.0, "p5_ns": 1.0, "q1_ns": 1.0, "q3_ns": 1.0, "p95_ns": 1.0, "max_ns": 1.0, "std_dev_ns": 0.0, "outliers": 0}
for i in ids:
    print(json.dumps({"event": "case_started", "id": i}), flush=True)
    time.sleep(0.02)
    r = {"id": i, "name": str(time.monotonic_ns()), "args": None, "group": None, "baseline": False, "file": "benches/lat.rs", "line": 1,
         "estimate": est, "quantiles": q, "precision": 0.0, "overhead": {"per_op_ns": 0.0, "drift": 0.0, "capped": 0},
         "cold_ns": 1.0, "ops_per_sample": 1, "samples": 1, "wall_ns": 1.0, "partial": False, "warnings": [],
         "comparison": None, "allocations": None, "raw": {"workload_ns": [], "baseline_ns": []}}
    print(json.dumps({"event": "case_finished", "result": r}), flush=True)
print(json.dumps({"event": "run_finished", "passed": len(ids), "failed": 0, "cancelled": False, "wall_ns": 1.0}), flush=True)
"#;

fn latency(count: usize) -> Vec<f64> {
    let fx = common::fixture("empty");
    let root = fx.root();
    fx.write(
        "Cargo.toml",
        "[package]\nname = \"lat\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dev-dependencies]\nknotmeter = \"0.1\"\n\n[[bench]]\nname = \"lat\"\nharness = false\n\n[workspace]\n",
    );
    fx.write("benches/lat.rs", "#[knotmeter::bench]\nfn c0() {}\n");
    let bench = root.join("fake-bench");
    fx.write(
        "fake-bench",
        &FAKE_BENCH.replace("COUNT", &count.to_string()),
    );
    let artifact = json!({
        "reason": "compiler-artifact", "package_id": "path+file:///lat#0.1.0",
        "manifest_path": root.join("Cargo.toml"),
        "target": {"name": "lat", "kind": ["bench"], "crate_types": ["bin"], "required-features": [],
                   "src_path": root.join("benches/lat.rs"), "edition": "2021", "doctest": false, "test": false, "doc": false},
        "profile": {"opt_level": "3", "debuginfo": 0, "debug_assertions": false, "overflow_checks": false, "test": true},
        "features": [], "filenames": [bench], "executable": bench, "fresh": true
    });
    let real_cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    fx.write(
        "fake-cargo",
        &format!(
            "#!/bin/sh\nif [ \"$1\" = bench ]; then echo '{artifact}'; echo '{{\"reason\":\"build-finished\",\"success\":true}}'; exit 0; fi\nexec {real_cargo} \"$@\"\n"
        ),
    );
    for script in ["fake-bench", "fake-cargo"] {
        let path = root.join(script);
        std::process::Command::new("chmod")
            .arg("+x")
            .arg(&path)
            .status()
            .unwrap();
    }
    // The daemon lists and runs the ids discovery found; the list must name them too.
    let mut ids = String::new();
    for i in 0..count {
        ids.push_str(&format!("#[knotmeter::bench]\nfn c{i}() {{}}\n"));
    }
    fx.write("benches/lat.rs", &ids);
    let mut client = common::Client::spawn_with(&root, |c| {
        c.env("CARGO", root.join("fake-cargo"))
            .env("KNOTMETER_LOG", "warn");
    });
    client.initialize(&root, json!({}));
    let run = client.request("knotmeter/run", json!({}));
    let run_id = run["result"]["runId"].as_i64().unwrap();
    client.notification("knotmeter/runEnd", Duration::from_secs(60), |p| {
        p["runId"] == run_id
    });
    let mut latencies = Vec::new();
    for received in &client.log {
        let p = &received.message["params"];
        if received.message["method"] == "knotmeter/runState" && p["state"] == "passed" {
            let sent: i64 = p["result"]["name"].as_str().unwrap().parse().unwrap();
            latencies.push((received_ns(received) - sent) as f64 / 1e6);
        }
    }
    assert_eq!(latencies.len(), count);
    client.shutdown();
    latencies
}

/// The monotonic time at which a message arrived (the client records `Instant`s, whose
/// offset to CLOCK_MONOTONIC is measured once here).
fn received_ns(received: &common::Received) -> i64 {
    let now_instant = std::time::Instant::now();
    let now_ns = monotonic_ns();
    now_ns - now_instant.duration_since(received.at).as_nanos() as i64
}

fn idle_rss() -> u64 {
    let quickstart = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/quickstart");
    let mut client = common::Client::spawn_with(&quickstart, |c| {
        c.env("KNOTMETER_LOG", "warn");
    });
    client.initialize(&quickstart.canonicalize().unwrap(), json!({}));
    client.request("knotmeter/discover", json!({}));
    std::thread::sleep(Duration::from_millis(500));
    let rss = rss_kib(client.pid());
    client.shutdown();
    rss
}

fn main() {
    let measure = std::env::args().any(|a| a == "--bench");
    let rss = idle_rss();
    println!(
        "idle resident memory after initialize + discover on examples/quickstart: {:.1} MB",
        rss as f64 / 1024.0
    );
    let mut lat = latency(if measure { 200 } else { 5 });
    lat.sort_by(f64::total_cmp);
    let q = |p: f64| lat[((lat.len() - 1) as f64 * p).round() as usize];
    println!(
        "bench stdout → client, {} result events: median {:.3} ms, p95 {:.3} ms, max {:.3} ms",
        lat.len(),
        q(0.5),
        q(0.95),
        q(1.0)
    );
    if measure {
        assert!(rss < 30 * 1024, "idle RSS {rss} KiB is above 30 MB");
    }
}
