//! The timed region a profiler is told of holds the workload's sampled batches and nothing
//! else, checked under Valgrind's callgrind (`.ci/run` installs `valgrind`).
//!
//! This test binary is its own bench binary: run by `cargo test`, it runs itself under
//! `valgrind --tool=callgrind` twice, measuring its one case in its own process, and reads the
//! costs callgrind wrote per function:
//!
//! * collecting from the start (no region): the set-up that fills each batch is there, beside
//!   the body: the control, so that its absence below means something;
//! * collecting only inside the region (`--collect-atstart=no`, `KNOTMETER_PROFILE_REGION=
//!   callgrind`): the body is there, the set-up and the drop of the outputs are not, nor is
//!   the engine's probe of the machine, and the body is nearly all of it.

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, ExitCode};

use knotmeter::{bench, black_box, Bencher};

/// Set in the copy of this binary that valgrind runs: it is then a bench binary.
const CHILD_ENV: &str = "KNOTMETER_PROFILE_REGION_TEST_CHILD";

/// The body's work: what a profile of the case should show.
#[inline(never)]
fn region_body_work(input: &[u64]) -> u64 {
    input
        .iter()
        .fold(0u64, |acc, x| acc.rotate_left(5) ^ x.wrapping_mul(0x9E37))
}

/// The set-up's work, several times the body's: outside the timed region, so outside the
/// profile.
#[inline(never)]
fn region_setup_work() -> Vec<u64> {
    let mut v: Vec<u64> = (0..64).collect();
    for _ in 0..8 {
        v = v.iter().map(|x| x.wrapping_mul(31) ^ (x >> 3)).collect();
    }
    v
}

/// The input comes back with the result, so the engine drops it after the clock stops: after
/// the region is left, too.
#[bench]
fn marked(b: &mut Bencher) {
    b.with_inputs(region_setup_work).run(|v| {
        let hash = region_body_work(black_box(&v));
        (hash, v)
    });
}

/// A group's baseline: measured paired with its member, never in the member's profile.
#[inline(never)]
fn region_group_baseline_work(x: u64) -> u64 {
    (0..64u64).fold(x, |acc, y| acc.rotate_left(3) ^ y)
}

/// A group's member: the case profiled.
#[inline(never)]
fn region_group_member_work(x: u64) -> u64 {
    (0..64u64).fold(x, |acc, y| acc.rotate_left(7).wrapping_add(y))
}

#[bench(group = "pair", baseline)]
fn group_baseline() -> u64 {
    region_group_baseline_work(black_box(1))
}

#[bench(group = "pair")]
fn group_member() -> u64 {
    region_group_member_work(black_box(1))
}

/// Self cost per function, from a callgrind output written with `--compress-strings=no
/// --compress-pos=no`: each `fn=` line opens a function; the cost lines after it are its own,
/// except the one after each `calls=` line (the cost of the call, the callee's).
fn self_costs(path: &Path) -> HashMap<String, u64> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut costs = HashMap::new();
    let mut current = String::new();
    let mut after_calls = false;
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("fn=") {
            current = name.to_owned();
        } else if line.starts_with("calls=") {
            after_calls = true;
        } else if line.starts_with(|c: char| c.is_ascii_digit() || c == '+' || c == '-') {
            if after_calls {
                after_calls = false;
                continue;
            }
            let cost: u64 = line
                .split_whitespace()
                .nth(1)
                .and_then(|c| c.parse().ok())
                .unwrap_or(0);
            *costs.entry(current.clone()).or_insert(0) += cost;
        }
    }
    costs
}

/// What one run under callgrind collected: the self cost per function, and the operations and
/// batches the engine said the region held (`KNOTMETER_PROFILE_OPS`), summed over its lines.
struct Collected {
    costs: HashMap<String, u64>,
    operations: u64,
    batches: u64,
}

/// Runs this binary's case `marked` under callgrind.
fn under_callgrind(dir: &Path, name: &str, region: bool) -> Collected {
    under_callgrind_exact(dir, name, region, "profile_region::marked")
}

/// Runs this binary's case `id` under callgrind.
fn under_callgrind_exact(dir: &Path, name: &str, region: bool, id: &str) -> Collected {
    let out = dir.join(format!("callgrind.{name}.out"));
    let ops_file = dir.join(format!("operations.{name}"));
    let _ = std::fs::remove_file(&ops_file);
    let exe = std::env::current_exe().unwrap();
    let mut command = Command::new("valgrind");
    command
        .args([
            "--tool=callgrind",
            "--compress-strings=no",
            "--compress-pos=no",
        ])
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(format!(
            "--collect-atstart={}",
            if region { "no" } else { "yes" }
        ))
        .arg(&exe)
        .args(["--bench", "--exact", id, "--in-process"])
        .args([
            "--rounds",
            "1",
            "--time",
            "0.3",
            "--no-history",
            "--format",
            "json",
        ])
        .env(CHILD_ENV, "1")
        .env(knotmeter_protocol::PROFILE_OPS_ENV, &ops_file)
        .env_remove(knotmeter_protocol::PROFILE_REGION_ENV);
    if region {
        command.env(knotmeter_protocol::PROFILE_REGION_ENV, "callgrind");
    }
    let ran = command.output().unwrap_or_else(|e| {
        panic!("valgrind could not be started ({e}): install Debian's `valgrind`")
    });
    assert!(
        ran.status.success(),
        "{name}: {}\n{}",
        ran.status,
        String::from_utf8_lossy(&ran.stderr)
    );
    let told = std::fs::read_to_string(&ops_file).unwrap_or_default();
    let (mut operations, mut batches) = (0, 0);
    for line in told.lines() {
        let fields: Vec<u64> = line.split(' ').map(|f| f.parse().unwrap()).collect();
        assert_eq!(fields.len(), 2, "{line:?}");
        operations += fields[0];
        batches += fields[1];
    }
    Collected {
        costs: self_costs(&out),
        operations,
        batches,
    }
}

fn cost_of(costs: &HashMap<String, u64>, function: &str) -> u64 {
    costs
        .iter()
        .filter(|(name, _)| name.contains(function))
        .map(|(_, cost)| cost)
        .sum()
}

fn check() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("profile_region");
    std::fs::create_dir_all(&dir).unwrap();

    let Collected {
        costs: everything,
        operations,
        ..
    } = under_callgrind(&dir, "everything", false);
    assert_eq!(operations, 0, "no region, no operations told");
    assert!(
        cost_of(&everything, "region_setup_work") > 0,
        "collecting from the start, the set-up is in the profile: {everything:?}"
    );
    assert!(
        cost_of(&everything, "free") > 0,
        "collecting from the start, the drops are in the profile: {everything:?}"
    );

    let Collected {
        costs: region,
        operations,
        batches,
    } = under_callgrind(&dir, "region", true);
    let total: u64 = region.values().sum();
    let body = cost_of(&region, "region_body_work");
    let setup = cost_of(&region, "region_setup_work");
    let freed = cost_of(&region, "free");
    assert!(body > 0, "the body is in the region's profile: {region:?}");
    assert_eq!(setup, 0, "the set-up is not in the region's profile");
    assert_eq!(
        freed, 0,
        "the outputs are dropped outside the region: {region:?}"
    );
    assert_eq!(
        cost_of(&region, "probe::chain"),
        0,
        "the engine's probe is not in the region: {region:?}"
    );
    assert!(
        body as f64 > 0.8 * total as f64,
        "the body is most of the region ({body} of {total}): {region:?}"
    );
    // The body's work is the same on every call: its instructions in the region are a whole
    // number of calls, exactly as many as the operations the engine said the region held.
    assert!(operations > 0 && batches > 0 && operations >= batches);
    assert_eq!(
        body % operations,
        0,
        "{body} instructions over {operations} operations ({batches} batches)"
    );
    let per_call = body / operations;
    assert!(
        (100..100_000).contains(&per_call),
        "{per_call} instructions per call"
    );
    println!(
        "profile region: the body {body} of {total} instructions, {per_call} per operation over \
         {operations} operations in {batches} batches; the set-up none"
    );

    // A group member is measured paired with its baseline: only the member's batches are the
    // region (both were, and the member's profile held both bodies).
    let Collected {
        costs: member,
        operations,
        ..
    } = under_callgrind_exact(&dir, "member", true, "profile_region::group_member");
    let own = cost_of(&member, "region_group_member_work");
    assert!(own > 0, "the member is in its profile: {member:?}");
    assert_eq!(
        cost_of(&member, "region_group_baseline_work"),
        0,
        "the baseline is not in the member's profile: {member:?}"
    );
    assert_eq!(own % operations, 0, "{own} over {operations} operations");
}

fn main() -> ExitCode {
    if std::env::var_os(CHILD_ENV).is_some() {
        return knotmeter::__private::main(cfg!(debug_assertions));
    }
    // `cargo test` may pass libtest's flags; this check takes none.
    check();
    ExitCode::SUCCESS
}
