//! [`Criterion`]: the benchmark manager handed to every target function.

use std::path::Path;
use std::time::Duration;

use crate::bencher::Bencher;
use crate::driver::{self, Declaration};
use crate::group::{BenchmarkGroup, BenchmarkId};
use crate::measurement::{Measurement, WallTime};
use crate::profiler::Profiler;
use crate::settings::{BenchmarkFilter, PlottingBackend};

/// Settings shared by a `Criterion` and the groups made from it. Only the times reach the
/// engine (as the case's budget); the rest are checked as criterion checks them and kept.
#[derive(Debug, Clone, Default)]
pub(crate) struct Settings {
    pub(crate) warm_up_time: Option<Duration>,
    pub(crate) measurement_time: Option<Duration>,
}

impl Settings {
    /// The case's time budget: the times set in code, added; `None` when neither was set, so
    /// knotmeter's own budget applies.
    pub(crate) fn budget(&self) -> Option<Duration> {
        match (self.warm_up_time, self.measurement_time) {
            (None, None) => None,
            (warm, measure) => Some(warm.unwrap_or_default() + measure.unwrap_or_default()),
        }
    }
}

/// The benchmark manager: configure it, then declare benchmarks with
/// [`bench_function`](Criterion::bench_function), [`bench_with_input`](Criterion::bench_with_input)
/// or [`benchmark_group`](Criterion::benchmark_group).
///
/// Sample counts, times and statistical levels are knotmeter's to decide: see
/// `docs/criterion.md` for what each setting maps to.
pub struct Criterion<M: Measurement = WallTime> {
    pub(crate) settings: Settings,
    pub(crate) measurement: M,
}

impl Default for Criterion {
    /// A manager with criterion's defaults (which knotmeter's own rules replace: see the type's
    /// documentation).
    fn default() -> Criterion {
        Criterion {
            settings: Settings::default(),
            measurement: WallTime,
        }
    }
}

impl<M: Measurement> Criterion<M> {
    /// Changes what is measured. knotmeter measures wall time only: benchmarks under another
    /// measurement fail with a message that says so.
    pub fn with_measurement<M2: Measurement>(self, m: M2) -> Criterion<M2> {
        Criterion {
            settings: self.settings,
            measurement: m,
        }
    }

    /// Accepted; knotmeter runs no profiler around benchmarks.
    pub fn with_profiler<P: Profiler + 'static>(self, _p: P) -> Criterion<M> {
        self
    }

    /// Accepted and ignored: knotmeter draws no plots of its own.
    pub fn plotting_backend(self, _backend: PlottingBackend) -> Criterion<M> {
        self
    }

    /// Accepted (at least 10, as criterion requires); knotmeter samples until the median is
    /// precise enough or the case's budget is spent.
    #[must_use]
    pub fn sample_size(self, n: usize) -> Criterion<M> {
        assert!(n >= 10);
        self
    }

    /// Adds to the case's time budget (with [`measurement_time`](Self::measurement_time)).
    #[must_use]
    pub fn warm_up_time(mut self, dur: Duration) -> Criterion<M> {
        assert!(dur.as_nanos() > 0);
        self.settings.warm_up_time = Some(dur);
        self
    }

    /// Sets the case's time budget (with [`warm_up_time`](Self::warm_up_time)); `--quick` and
    /// `--time` on the command line override it.
    #[must_use]
    pub fn measurement_time(mut self, dur: Duration) -> Criterion<M> {
        assert!(dur.as_nanos() > 0);
        self.settings.measurement_time = Some(dur);
        self
    }

    /// Accepted; knotmeter's intervals are distribution-free and need no resampling.
    #[must_use]
    pub fn nresamples(self, n: usize) -> Criterion<M> {
        assert!(n > 0);
        self
    }

    /// Accepted; knotmeter's noise threshold is the bench binary's `--noise-threshold`
    /// (default 1%), widened by the run-to-run noise its history has seen.
    #[must_use]
    pub fn noise_threshold(self, threshold: f64) -> Criterion<M> {
        assert!(threshold >= 0.0);
        self
    }

    /// Accepted; knotmeter reports 95% intervals.
    #[must_use]
    pub fn confidence_level(self, cl: f64) -> Criterion<M> {
        assert!(cl > 0.0 && cl < 1.0);
        self
    }

    /// Accepted; knotmeter decides verdicts at a 5% false-discovery rate over the whole run
    /// (Benjamini–Hochberg).
    #[must_use]
    pub fn significance_level(self, sl: f64) -> Criterion<M> {
        assert!(sl > 0.0 && sl < 1.0);
        self
    }

    /// Accepted and ignored: the editor's panel and `--format markdown` replace the plots.
    #[must_use]
    pub fn with_plots(self) -> Criterion<M> {
        self
    }

    /// Accepted and ignored.
    #[must_use]
    pub fn without_plots(self) -> Criterion<M> {
        self
    }

    /// Accepted; name a baseline with the bench binary's `--save-baseline NAME`.
    #[must_use]
    pub fn save_baseline(self, _baseline: String) -> Criterion<M> {
        self
    }

    /// Accepted; compare against a named baseline with the bench binary's `--baseline NAME`.
    #[must_use]
    pub fn retain_baseline(self, _baseline: String, _strict: bool) -> Criterion<M> {
        self
    }

    /// Accepted; filter with the bench binary's command line (`cargo bench -- FILTER`).
    #[must_use]
    pub fn with_filter<S: Into<String>>(self, _filter: S) -> Criterion<M> {
        self
    }

    /// Accepted; filter with the bench binary's command line.
    #[must_use]
    pub fn with_benchmark_filter(self, _filter: BenchmarkFilter) -> Criterion<M> {
        self
    }

    /// Accepted; colour follows the bench binary's `--color`.
    #[must_use]
    pub fn with_output_color(self, _enabled: bool) -> Criterion<M> {
        self
    }

    /// Accepted; results go to knotmeter's history store (`KNOTMETER_HISTORY`).
    #[must_use]
    pub fn output_directory(self, _path: &Path) -> Criterion<M> {
        self
    }

    /// Accepted; knotmeter has no profiling mode.
    #[must_use]
    pub fn profile_time(self, _profile_time: Option<Duration>) -> Criterion<M> {
        self
    }

    /// The command line is read by knotmeter's engine before any group runs; this returns the
    /// manager unchanged.
    #[must_use]
    pub fn configure_from_args(self) -> Criterion<M> {
        self
    }

    /// Does nothing: knotmeter's report ends with its own summary.
    pub fn final_summary(&self) {}

    /// Starts a group of benchmarks whose ids begin with `group_name/`.
    pub fn benchmark_group<S: Into<String>>(&mut self, group_name: S) -> BenchmarkGroup<'_, M> {
        let name = group_name.into();
        assert!(!name.is_empty(), "Group name must not be empty.");
        BenchmarkGroup::new(self, name)
    }
}

impl<M> Criterion<M>
where
    M: Measurement + 'static,
{
    /// Declares a benchmark with id `id`; `f` calls one of the [`Bencher`]'s timing methods.
    #[track_caller]
    pub fn bench_function<F>(&mut self, id: &str, mut f: F) -> &mut Criterion<M>
    where
        F: FnMut(&mut Bencher<'_, M>),
    {
        assert!(!id.is_empty(), "Function name must not be empty.");
        self.declare(Some(id), None, &mut |b| f(b));
        self
    }

    /// Declares a benchmark of `input` with id `id` (`function/parameter`).
    #[track_caller]
    pub fn bench_with_input<F, I>(
        &mut self,
        id: BenchmarkId,
        input: &I,
        mut f: F,
    ) -> &mut Criterion<M>
    where
        F: FnMut(&mut Bencher<'_, M>, &I),
        I: ?Sized,
    {
        let function = id.function_name.as_deref().expect(
            "Cannot use BenchmarkId::from_parameter with Criterion::bench_with_input. \
             Consider using a BenchmarkGroup or BenchmarkId::new instead.",
        );
        self.declare(Some(function), id.parameter.as_deref(), &mut |b| {
            f(b, input)
        });
        self
    }

    #[track_caller]
    fn declare(
        &mut self,
        function: Option<&str>,
        parameter: Option<&str>,
        f: &mut dyn FnMut(&mut Bencher<'_, M>),
    ) {
        let declaration = Declaration {
            group: None,
            function,
            parameter,
            throughput: None,
            budget: self.settings.budget(),
            compare_against: None,
            location: std::panic::Location::caller(),
        };
        let measurement = &self.measurement;
        driver::bench(declaration, &mut |engine| {
            f(&mut Bencher::new(engine, measurement));
        });
    }
}
