//! `criterion_group!` and `criterion_main!`, in criterion's forms.

/// Defines a group function `pub fn $name()` that runs the target functions with a
/// [`Criterion`](crate::Criterion): `criterion_group!(benches, bench_a, bench_b);`, or with
/// your own configuration:
///
/// ```no_run
/// # extern crate knotmeter_criterion as criterion;
/// use std::time::Duration;
/// use criterion::{criterion_group, criterion_main, Criterion};
///
/// fn bench_a(c: &mut Criterion) {
///     c.bench_function("a", |b| b.iter(|| 1 + 1));
/// }
///
/// criterion_group! {
///     name = benches;
///     config = Criterion::default().measurement_time(Duration::from_secs(2));
///     targets = bench_a
/// }
/// criterion_main!(benches);
/// ```
#[macro_export]
macro_rules! criterion_group {
    (name = $name:ident; config = $config:expr; targets = $( $target:path ),+ $(,)*) => {
        /// A criterion benchmark group: runs its target functions (see `criterion_main!`).
        pub fn $name() {
            let mut criterion: $crate::Criterion<_> = $config
                .configure_from_args();
            $(
                $crate::__private::target(&mut criterion, $target);
            )+
        }
    };
    ($name:ident, $( $target:path ),+ $(,)*) => {
        $crate::criterion_group!{
            name = $name;
            config = $crate::Criterion::default();
            targets = $( $target ),+
        }
    }
}

/// Defines `fn main` for the bench target: lists the groups' benchmarks and runs them on
/// knotmeter's engine (`criterion_main!(benches);`). The target needs `harness = false` in
/// Cargo.toml, as with criterion.
#[macro_export]
macro_rules! criterion_main {
    ( $( $group:path ),+ $(,)* ) => {
        fn main() -> ::std::process::ExitCode {
            static GROUPS: &[fn()] = &[$( $group as fn() ),+];
            $crate::__private::main(::std::cfg!(debug_assertions), ::std::module_path!(), GROUPS)
        }

        /// Fails the build when cargo compiles this target with libtest's harness, which would
        /// never call the `main` above (see `knotmeter::main!`).
        #[test]
        fn knotmeter_harness_check() {
            const _: () = $crate::__private::check_harness_for(
                "criterion_main!()",
                ::std::option_env!("CARGO_TARGET_TMPDIR").is_some(),
                ::std::file!(),
            );
        }
    };
}
