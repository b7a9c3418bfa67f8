//! criterion lets a program call its group functions from its own `main`; knotmeter needs
//! `criterion_main!` to list benchmarks before measuring them, so a benchmark declared
//! outside it fails with what to do instead of measuring something else or nothing.

use knotmeter_criterion::Criterion;

#[test]
fn a_benchmark_declared_outside_criterion_main_panics_with_what_to_do() {
    let caught = std::panic::catch_unwind(|| {
        let mut c = Criterion::default().configure_from_args();
        c.bench_function("mine", |b| b.iter(|| 1 + 1));
    });
    let payload = caught.expect_err("declaring outside criterion_main! must not pass silently");
    let message = payload
        .downcast_ref::<String>()
        .expect("a formatted message");
    assert!(
        message.contains("`mine` was called outside `criterion_main!`")
            && message.contains("criterion_main!(your_groups)"),
        "{message}"
    );
}
