//! knotmeter's opt-in for criterion groups: `knotmeter_compare_against` makes a group a
//! comparison group, so each member is measured interleaved with the baseline of the same
//! parameter and gets a ratio and a verdict. Not in criterion, so this target is not part of
//! the suite that also builds with criterion itself.

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};
use criterion_fixture::shuffled;

fn bench_sorts(c: &mut Criterion) {
    let mut group = c.benchmark_group("sorts");
    group.knotmeter_compare_against("stable");
    for size in [1000usize] {
        let data = shuffled(size);
        group.bench_with_input(BenchmarkId::new("stable", size), &data, |b, data| {
            b.iter_batched(|| data.clone(), |mut v| { v.sort(); v }, BatchSize::SmallInput)
        });
        group.bench_with_input(BenchmarkId::new("unstable", size), &data, |b, data| {
            b.iter_batched(|| data.clone(), |mut v| { v.sort_unstable(); v }, BatchSize::SmallInput)
        });
    }
    group.finish();
}

criterion_group!(benches, bench_sorts);
criterion_main!(benches);
