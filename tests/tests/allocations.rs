//! Allocations per operation, with `CountingAlloc` installed.

use crate::support;

use support::{json_report, result};

#[test]
fn allocations_are_counted_per_operation() {
    let report = json_report(env!("CARGO_BIN_EXE_allocs"), &["--quick"]);
    let one = &result(&report, "allocs::one_vec")["allocations"];
    assert_eq!(one["per_op"], 1.0, "{one:#}");
    assert_eq!(one["bytes_per_op"], 16.0, "{one:#}");
    let none = &result(&report, "allocs::sort_given")["allocations"];
    assert_eq!(
        none["per_op"], 0.0,
        "set-up allocations are not counted: {none:#}"
    );
}

#[test]
fn without_the_allocator_nothing_is_reported() {
    let report = json_report(
        env!("CARGO_BIN_EXE_fixture"),
        &["--quick", "--exact", "plain"],
    );
    assert!(result(&report, "fixture::plain")["allocations"].is_null());
}
