//! UI tests of `#[bench]`, compiled against the real engine with trybuild: `tests/ui/*.rs`
//! must fail with the error in the matching `.stderr`. Every accepted form compiles and runs
//! in `tests/all_forms.rs`, a test target of its own, so trybuild has no case to build and
//! only type-checks (`cargo check`, no code generation).
//!
//! Regenerate the `.stderr` files with
//! `TRYBUILD=overwrite cargo test -p knotmeter --test compile_fail`.

use std::io::IsTerminal;

#[test]
fn ui() {
    // trybuild colours its report whenever `TERM` allows it, into a pipe or a CI log too. Its
    // one switch is `NO_COLOR`: set it unless colour is wanted, by the rule the bench binaries
    // and the daemon follow (`NO_COLOR` first, then `CARGO_TERM_COLOR`, then a terminal).
    // This binary holds this one test, so setting the variable for the process is safe.
    let colour = match std::env::var("CARGO_TERM_COLOR").as_deref() {
        Ok("always") => true,
        Ok("never") => false,
        _ => std::io::stderr().is_terminal(),
    };
    if !colour {
        std::env::set_var("NO_COLOR", "1");
    }
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
