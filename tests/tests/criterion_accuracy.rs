//! knotmeter-criterion's figures for routines whose cost is known by construction
//! (`src/bin/criterion_accuracy.rs`): `iter_custom`'s durations are divided by the count the
//! routine was asked for, and the set-ups and drops that criterion keeps out of its clock stay
//! out of knotmeter's, for every loop that promises it. docs/criterion.md ("The level") says why
//! this matters: the two harnesses' figures were compared, and a gap had to be explained.

mod support;

use std::collections::HashMap;

/// Measures every benchmark of the fixture (`--quick`, no history), and returns each one's
/// median in nanoseconds by id.
fn medians() -> HashMap<String, f64> {
    let report = support::json_report(env!("CARGO_BIN_EXE_criterion_accuracy"), &["--quick"]);
    report["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let id = r["id"].as_str().unwrap();
            let name = id.rsplit("::").next().unwrap().to_owned();
            (name, r["estimate"]["median_ns"].as_f64().unwrap())
        })
        .collect()
}

/// 20 µs, what each slow set-up, drop and body in the fixture costs, in nanoseconds.
const SPIN_NS: f64 = 20_000.0;

#[test]
fn criterion_loops_time_the_routine_and_leave_set_up_and_drops_out() {
    let medians = medians();
    assert_eq!(medians.len(), 6, "{medians:?}");
    // `iter_custom`: nothing subtracted, nothing divided by the wrong count.
    assert_eq!(medians["custom_10ns"], 10.0, "{medians:?}");
    // 20 µs per operation of set-up or drop outside the clock: a trivial routine reads far
    // below it. Inside the clock, it would read 20 µs or more.
    for outside in [
        "batched_slow_setup",
        "with_setup_slow_setup",
        "batched_ref_slow_drop",
        "large_drop_slow_drop",
    ] {
        assert!(
            medians[outside] < SPIN_NS / 10.0,
            "{outside} read {} ns: its set-up or drop was timed ({medians:?})",
            medians[outside]
        );
    }
    // The control: the same 20 µs in the body is measured (within the clock's calibration: the
    // engine may read the TSC, the spin reads `Instant`).
    assert!(medians["body_20us"] >= SPIN_NS * 0.9, "{medians:?}");
}
