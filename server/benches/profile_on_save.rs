//! Profiling on save: from saving a benchmark in the editor to its new profile, on the real
//! `knotmeter serve` over stdio, a real cargo profile build and callgrind.
//!
//! `cargo bench -p knotmeter-server --bench profile_on_save -- --saves N`: the fixture
//! `tests/fixtures/profiled`, its `chain_1000` (seed 001's chain, about 1.5 µs an operation)
//! profiled once; then `N` times its size is edited (1000 ↔ 1001, so cargo compiles and links
//! the profile build again), the file saved (`didChange`, `didSave`), and, as the extension does
//! on save under a continuous "Profile" run, a quick profile run of the benchmark asked for
//! (`knotmeter/run` with `profile` and `mode: quick`). Each save prints one JSON line: the
//! seconds from the save to the profile (`knotmeter/profiled`, which the extension draws at
//! once as the hot lines' marks), and to the run's end; then the median of each. Without
//! `--bench` (as under `cargo test`) it makes one save and checks that its profile arrives.

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use serde_json::json;

/// How long one save's profile may take before the benchmark gives up.
const LIMIT: Duration = Duration::from_secs(120);

/// The benchmark profiled on every save.
const ID: &str = "profiled::chain_1000";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let measuring = args.iter().any(|a| a == "--bench");
    let saves: usize = args
        .windows(2)
        .find(|w| w[0] == "--saves")
        .map_or(if measuring { 7 } else { 1 }, |w| {
            w[1].parse().expect("--saves takes a number")
        });
    let fixture = common::fixture("profiled");
    let root = fixture.root();
    let history = root.join("history.db");
    let mut client = common::Client::spawn_with(&root, |c| {
        c.env("KNOTMETER_LOG", "warn")
            .env("KNOTMETER_HISTORY", &history);
    });
    client.initialize(&root, json!({}));
    // Seconds from `since` to the profile and to the run's end.
    let profile = |client: &mut common::Client, since: Instant| -> (f64, f64) {
        let run = client.request(
            "knotmeter/run",
            json!({"include": [ID], "mode": "quick", "profile": true}),
        );
        let run_id = run["result"]["runId"].as_i64().expect("a run id");
        client.notification("knotmeter/profiled", LIMIT, |p| {
            p["runId"] == run_id && p["profile"]["id"] == ID
        });
        let profiled = since.elapsed().as_secs_f64();
        client.notification("knotmeter/runEnd", LIMIT, |p| p["runId"] == run_id);
        (profiled, since.elapsed().as_secs_f64())
    };
    // The first profile builds the profile build whole: every save then finds it warm.
    profile(&mut client, Instant::now());
    let uri = fixture.uri("benches/profiled.rs");
    let mut text = fixture.read("benches/profiled.rs");
    let (mut profiled, mut ended) = (Vec::new(), Vec::new());
    for save in 0..saves {
        let (from, to) = if save % 2 == 0 {
            ("black_box(1000)", "black_box(1001)")
        } else {
            ("black_box(1001)", "black_box(1000)")
        };
        assert!(text.contains(from), "the chain's size in {text}");
        text = text.replacen(from, to, 1);
        fixture.write("benches/profiled.rs", &text);
        client.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": save + 2},
                   "contentChanges": [{"text": text}]}),
        );
        let saved = Instant::now();
        client.notify(
            "textDocument/didSave",
            json!({"textDocument": {"uri": uri}, "text": text}),
        );
        let (p, e) = profile(&mut client, saved);
        println!("{}", json!({"save": save, "profiled": p, "ended": e}));
        eprintln!("save {save}: profiled {p:.3} s, run ended {e:.3} s");
        profiled.push(p);
        ended.push(e);
    }
    println!(
        "{}",
        json!({"saves": saves, "median_profiled": median(&mut profiled),
               "median_ended": median(&mut ended)})
    );
}

/// The median of `values`.
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}
