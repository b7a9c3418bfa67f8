//! `knotmeter profile`: one case's timed region under callgrind, through a real profile build
//! of a fixture (`tests/fixtures/profiled`), read back as the JSON profile.

use knotmeter_protocol::{Profile, ProfileTool};

use crate::common::fixture;

/// The hot function is most of the region and its line in the fixture's source is marked; the
/// set-up, several times the body's work, is nowhere; the costs are per operation.
#[test]
fn a_profile_holds_the_timed_region_and_marks_the_workspaces_hot_lines() {
    let fx = fixture("profiled");
    let out = fx
        .knotmeter()
        .args(["profile", "hashing", "--format", "json", "--time", "0.5"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{}\n{stderr}", out.status);
    assert!(
        stderr.contains("Finished `knotmeter-profile` profile")
            && stderr.contains("--bench profiled --profile knotmeter-profile"),
        "cargo built the profile build, and the build's line says so: {stderr}"
    );
    let profile: Profile = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(profile.id, "profiled::hashing");
    assert_eq!(profile.tool, ProfileTool::Callgrind);
    assert_eq!(profile.unit, "instructions");
    assert!(profile.operations > 0, "{profile:?}");
    let hot = profile
        .functions
        .iter()
        .find(|f| f.name.ends_with("profiled_fixture::hot"))
        .unwrap_or_else(|| panic!("no `hot` in {:?}", profile.functions));
    assert!(hot.own_share > 0.6, "{hot:?}");
    // 256 elements, a handful of instructions each: per operation, not per run.
    assert!((256.0..256.0 * 20.0).contains(&hot.own_per_op), "{hot:?}");
    assert!(
        profile
            .functions
            .iter()
            .all(|f| !f.name.contains("setup_heavy")),
        "the set-up is outside the region: {:?}",
        profile.functions
    );
    let lib = fx.path("src/lib.rs").display().to_string();
    let marked = profile
        .lines
        .iter()
        .find(|l| l.file == lib)
        .unwrap_or_else(|| panic!("no line of {lib} in {:?}", profile.lines));
    assert!(marked.share > 0.1, "{marked:?}");
    assert!(
        (6..=10).contains(&marked.line),
        "a line of `hot` (lines 6 to 10): {marked:?}"
    );
    // The body's line, inlined into the engine's loop, holds the call to `hot`.
    let bench = fx.path("benches/profiled.rs").display().to_string();
    let body = profile
        .lines
        .iter()
        .find(|l| l.file == bench && l.line == 8)
        .unwrap_or_else(|| panic!("no line 8 of {bench} in {:?}", profile.lines));
    assert!(body.share > 0.6, "{body:?}");
}

/// A case that is not there is an error naming where to look; two arguments are PATH and
/// CASE.
#[test]
fn a_case_that_is_not_there_is_named() {
    let fx = fixture("profiled");
    let out = fx
        .knotmeter()
        .args(["profile", ".", "no_such_case"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no case is `no_such_case`"), "{stderr}");
    assert!(stderr.contains("knotmeter list"), "{stderr}");
}
