//! A recorded run reads back field for field, with its raw samples in their compact form.

use crate::common;

use common::{manifest, result, result_with_samples, rich_result, temp_history, without_stored_at};
use knotmeter_history::{
    machine_key, stored_samples, History, HistoryError, RunId, STORED_BASELINE_SAMPLES,
    STORED_WORKLOAD_SAMPLES,
};
use knotmeter_protocol::Verdict;

#[test]
fn a_run_with_several_results_reads_back_equal() {
    let (_dir, path) = temp_history();
    let manifest = manifest();
    let key = machine_key(&manifest);
    let big = result_with_samples("q::big", 250.0, 25_000);
    // Every optional field set, but complete (a partial result is never looked up).
    let mut rich = rich_result("q::chain_n/1000", 1_234.567_891_234_5, Verdict::Faster);
    rich.partial = false;
    let results = vec![result("q::parse", 41.5), rich, big.clone()];

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

    // Sorted workload samples, few enough, read back as they were; the 100 baseline samples
    // are stored as their 21 quantiles.
    for expected in &results[..2] {
        let mut expected = expected.clone();
        expected.raw.baseline_ns =
            stored_samples(&expected.raw.baseline_ns, STORED_BASELINE_SAMPLES);
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
        assert_eq!(
            without_stored_at(stored.result),
            expected,
            "every field, every bit"
        );
    }

    let stored = history.previous("q::big", &key, None).unwrap().unwrap();
    let raw = &stored.result.raw;
    assert_eq!(raw.workload_ns.len(), STORED_WORKLOAD_SAMPLES);
    assert_eq!(raw.baseline_ns.len(), STORED_BASELINE_SAMPLES);
    // The workload is 250.0, 250.1, ... 2749.9: its quantile at p is 250 + 2499.9·p.
    assert_eq!(raw.workload_ns[0], 250.0);
    assert_eq!(raw.workload_ns[100], big.raw.workload_ns[24_999]);
    assert!((raw.workload_ns[50] - (250.0 + 2_499.9 / 2.0)).abs() < 1e-9);
    assert!(raw.workload_ns.windows(2).all(|w| w[0] <= w[1]), "sorted");
    assert_eq!(
        raw.baseline_ns,
        stored_samples(&big.raw.baseline_ns, STORED_BASELINE_SAMPLES)
    );
    // Everything but the raw samples is kept as measured, including the sample count.
    let mut full = without_stored_at(stored.result.clone());
    full.raw = big.raw.clone();
    assert_eq!(full, big);
    assert_eq!(stored.result.samples, 25_000);
}

#[test]
fn unsorted_samples_are_stored_sorted() {
    let (_dir, path) = temp_history();
    let mut history = History::open(&path).unwrap();
    let mut r = result("q::x", 10.0);
    r.raw.workload_ns.reverse();
    history.record_run(&manifest(), &[r.clone()], None).unwrap();
    let stored = history
        .previous("q::x", &machine_key(&manifest()), None)
        .unwrap()
        .unwrap();
    let mut sorted = r.raw.workload_ns.clone();
    sorted.sort_by(f64::total_cmp);
    assert_eq!(stored.result.raw.workload_ns, sorted);
}

/// The figure docs/history.md gives: a result of 1 s of sampling stores in about 3 KB.
#[test]
fn a_stored_result_takes_a_few_kilobytes() {
    let (_dir, path) = temp_history();
    let mut history = History::open(&path).unwrap();
    // A `--quick`-less run of a fast case takes thousands of samples of each kind.
    let mut r = rich_result(
        "quickstart::chain_n/1000",
        1_234.567_891_234_5,
        Verdict::Same,
    );
    r.raw = result_with_samples("q::x", 1_234.567_891_234_5, 5_000).raw;
    for x in r.raw.workload_ns.iter_mut() {
        *x *= 1.000_000_123_456_7;
    }
    history.record_run(&manifest(), &[r], None).unwrap();
    let bytes: i64 = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row("SELECT length(result) FROM results", [], |row| row.get(0))
        .unwrap();
    assert!(
        (1_000..4_000).contains(&bytes),
        "{bytes} bytes of JSON per result"
    );
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
    assert_eq!(point.budget_ms, Some(1000));
    assert_eq!(point.partial, Some(true), "rich_result is a partial result");

    // `HistoryPoint` is the editor protocol's wire type (knotmeter-protocol): camelCase.
    let json = serde_json::to_value(point).unwrap();
    assert_eq!(json["run"], run.0);
    assert_eq!(json["verdict"], "slower");
    assert_eq!(json["medianNs"], 80.0);
    assert_eq!(json["status"], "complete");
    assert_eq!(json["budgetMs"], 1000);
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
    assert!(history.runs(10).unwrap().is_empty());
}
