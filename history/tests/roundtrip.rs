//! A recorded run reads back field for field, with its raw samples thinned.

mod common;

use common::{manifest, result, result_with_samples, rich_result, temp_history};
use knotmeter_history::{
    machine_key, thin_samples, History, HistoryError, RunId, MAX_STORED_SAMPLES,
};
use knotmeter_protocol::Verdict;

#[test]
fn a_run_with_several_results_reads_back_equal() {
    let (_dir, path) = temp_history();
    let manifest = manifest();
    let key = machine_key(&manifest);
    let big = result_with_samples("q::big", 250.0, 25_000);
    let results = vec![
        result("q::parse", 41.5),
        rich_result("q::chain_n/1000", 1_234.567_891_234_5, Verdict::Faster),
        big.clone(),
    ];

    let mut history = History::open(&path).expect("open a new history");
    assert!(path.is_file(), "open creates the file and its directories");
    let run = history
        .record_run(&manifest, &results, None)
        .expect("record the run");
    drop(history);

    let history = History::open_read_only(&path).expect("reopen read-only");
    assert_eq!(history.path(), path);
    assert_eq!(history.manifest(run).unwrap(), Some(manifest.clone()));
    assert_eq!(history.manifest(RunId(run.0 + 1)).unwrap(), None);

    for expected in &results[..2] {
        let stored = history
            .previous(&expected.id, &key, None)
            .unwrap()
            .expect("the result is found");
        assert_eq!(stored.run, run);
        assert_eq!(stored.timestamp, 1_760_000_000);
        assert_eq!(
            stored.git_commit.as_deref(),
            Some("0123456789abcdef0123456789abcdef01234567")
        );
        assert_eq!(&stored.result, expected, "every field, every bit");
    }

    let stored = history.previous("q::big", &key, None).unwrap().unwrap();
    let raw = &stored.result.raw;
    assert_eq!(raw.workload_ns.len(), MAX_STORED_SAMPLES);
    assert_eq!(raw.baseline_ns.len(), MAX_STORED_SAMPLES);
    // 25,000 thinned to 10,000 keeps indices 0, 2, 5, 7, 10, ...: floor(i * 2.5).
    assert_eq!(raw.workload_ns[0], big.raw.workload_ns[0]);
    assert_eq!(raw.workload_ns[1], big.raw.workload_ns[2]);
    assert_eq!(raw.workload_ns[2], big.raw.workload_ns[5]);
    assert_eq!(raw.workload_ns[9_999], big.raw.workload_ns[24_997]);
    assert_eq!(
        raw.baseline_ns,
        thin_samples(&big.raw.baseline_ns, MAX_STORED_SAMPLES)
    );
    // Everything but the raw samples is kept as measured, including the sample count.
    let mut unthinned = stored.result.clone();
    unthinned.raw = big.raw.clone();
    assert_eq!(unthinned, big);
    assert_eq!(stored.result.samples, 25_000);
}

#[test]
fn points_carry_the_indexed_columns() {
    let (_dir, path) = temp_history();
    let mut history = History::open(&path).unwrap();
    let manifest = manifest();
    let run = history
        .record_run(
            &manifest,
            &[rich_result("q::a", 80.0, Verdict::Slower)],
            Some("main"),
        )
        .unwrap();

    let points = history.points("q::a", 10).unwrap();
    assert_eq!(points.len(), 1);
    let point = &points[0];
    assert_eq!(point.run, run);
    assert_eq!(point.timestamp, manifest.timestamp);
    assert_eq!(point.git_commit, manifest.git_commit);
    assert_eq!(point.machine_key, machine_key(&manifest));
    assert_eq!(point.baseline.as_deref(), Some("main"));
    assert_eq!(point.median_ns, 80.0);
    assert_eq!(point.low_ns, 80.0 * 0.99);
    assert_eq!(point.high_ns, 80.0 * 1.01);
    assert_eq!(point.verdict, Some(Verdict::Slower));

    // `HistoryPoint` is the editor protocol's wire type (knotmeter-protocol): camelCase.
    let json = serde_json::to_value(point).unwrap();
    assert_eq!(json["run"], run.0);
    assert_eq!(json["verdict"], "slower");
    assert_eq!(json["medianNs"], 80.0);
}

#[test]
fn a_run_that_cannot_be_stored_is_rejected_whole() {
    let (_dir, path) = temp_history();
    let mut history = History::open(&path).unwrap();
    let manifest = manifest();

    let mut nan = result("q::nan", 5.0);
    nan.estimate.mean_ns = f64::NAN;
    let cases: [(Vec<_>, Option<&str>, &str); 3] = [
        (
            vec![result("q::ok", 1.0), result("q::ok", 2.0)],
            None,
            "appears twice",
        ),
        (vec![result("q::ok", 1.0), nan], None, "NaN"),
        (vec![result("q::ok", 1.0)], Some(" "), "baseline name"),
    ];
    for (results, baseline, expected) in cases {
        let error = history
            .record_run(&manifest, &results, baseline)
            .expect_err("the run is rejected");
        assert!(
            matches!(&error, HistoryError::Rejected { path: p, detail } if *p == path && detail.contains(expected)),
            "{error:?}"
        );
        assert!(error.to_string().contains(&path.display().to_string()));
    }
    assert!(
        history.points("q::ok", 10).unwrap().is_empty(),
        "nothing of a rejected run is written"
    );
}
