//! UI tests of `#[bench]`, compiled against the real engine with trybuild:
//! `tests/ui/*.rs` must fail with the error in the matching `.stderr`, and
//! `tests/pass/*.rs` (every accepted form) must compile and run.
//!
//! Regenerate the `.stderr` files with `TRYBUILD=overwrite cargo test -p knotmeter-macros`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/pass/*.rs");
}
