//! [`BenchmarkGroup`] and [`BenchmarkId`]: benchmarks that share a name prefix and settings.

use std::fmt;
use std::time::Duration;

use crate::bencher::Bencher;
use crate::criterion::{Criterion, Settings};
use crate::driver::{self, Declaration};
use crate::measurement::{Measurement, WallTime};
use crate::settings::{PlotConfiguration, SamplingMode, Throughput};

/// A group of benchmarks whose ids start with the group's name, sharing settings.
///
/// A criterion group is a naming and settings scope, not a knotmeter comparison group: its
/// members are measured one by one. To have knotmeter measure members interleaved with one
/// of them and give each a ratio and a verdict against it, opt in with
/// [`knotmeter_compare_against`](BenchmarkGroup::knotmeter_compare_against).
pub struct BenchmarkGroup<'a, M: Measurement = WallTime> {
    criterion: &'a mut Criterion<M>,
    name: String,
    settings: Settings,
    throughput: Option<Throughput>,
    compare_against: Option<String>,
}

impl<'a, M: Measurement> BenchmarkGroup<'a, M> {
    pub(crate) fn new(criterion: &'a mut Criterion<M>, name: String) -> Self {
        let settings = criterion.settings.clone();
        BenchmarkGroup {
            criterion,
            name,
            settings,
            throughput: None,
            compare_against: None,
        }
    }

    /// Accepted (at least 10, as criterion requires); knotmeter's stopping rule decides.
    pub fn sample_size(&mut self, n: usize) -> &mut Self {
        assert!(n >= 10);
        self
    }

    /// Adds to the time budget of the group's benchmarks declared after this call.
    pub fn warm_up_time(&mut self, dur: Duration) -> &mut Self {
        assert!(dur.as_nanos() > 0);
        self.settings.warm_up_time = Some(dur);
        self
    }

    /// Sets the time budget of the group's benchmarks declared after this call (with the warm-up
    /// time); `--quick` and `--time` on the command line override it.
    pub fn measurement_time(&mut self, dur: Duration) -> &mut Self {
        assert!(dur.as_nanos() > 0);
        self.settings.measurement_time = Some(dur);
        self
    }

    /// Accepted; knotmeter needs no resampling.
    pub fn nresamples(&mut self, n: usize) -> &mut Self {
        assert!(n > 0);
        self
    }

    /// Accepted; see [`Criterion::noise_threshold`].
    pub fn noise_threshold(&mut self, threshold: f64) -> &mut Self {
        assert!(threshold >= 0.0);
        self
    }

    /// Accepted; knotmeter reports 95% intervals.
    pub fn confidence_level(&mut self, cl: f64) -> &mut Self {
        assert!(cl > 0.0 && cl < 1.0);
        self
    }

    /// Accepted; see [`Criterion::significance_level`].
    pub fn significance_level(&mut self, sl: f64) -> &mut Self {
        assert!(sl > 0.0 && sl < 1.0);
        self
    }

    /// Accepted and ignored.
    pub fn plot_config(&mut self, _new_config: PlotConfiguration) -> &mut Self {
        self
    }

    /// Sets the work per iteration of the benchmarks declared after this call: their results
    /// show bytes, bits or elements per second.
    pub fn throughput(&mut self, throughput: Throughput) -> &mut Self {
        self.throughput = Some(throughput);
        self
    }

    /// Accepted; knotmeter chooses operations per sample itself.
    pub fn sampling_mode(&mut self, _new_mode: SamplingMode) -> &mut Self {
        self
    }

    /// Not in criterion: makes this group a knotmeter comparison group whose baseline is the
    /// benchmark with function name `function` (for ids made with `BenchmarkId::new(function,
    /// parameter)`, the one with the same parameter). Every other member declared after this
    /// call is measured interleaved with the baseline and gets a ratio and a verdict against
    /// it. Code that calls this no longer builds with criterion itself.
    pub fn knotmeter_compare_against(&mut self, function: &str) -> &mut Self {
        self.compare_against = Some(function.to_owned());
        self
    }

    /// Consumes the group. (criterion prints a summary here; knotmeter's report has one.)
    pub fn finish(self) {}
}

impl<M: Measurement + 'static> BenchmarkGroup<'_, M> {
    /// Declares the benchmark `id` (a name or a [`BenchmarkId`]) in this group.
    #[track_caller]
    pub fn bench_function<ID: IntoBenchmarkId, F>(&mut self, id: ID, mut f: F) -> &mut Self
    where
        F: FnMut(&mut Bencher<'_, M>),
    {
        self.declare(id.into_benchmark_id(), &mut |b| f(b));
        self
    }

    /// Declares the benchmark `id` of `input` in this group.
    #[track_caller]
    pub fn bench_with_input<ID: IntoBenchmarkId, F, I>(
        &mut self,
        id: ID,
        input: &I,
        mut f: F,
    ) -> &mut Self
    where
        F: FnMut(&mut Bencher<'_, M>, &I),
        I: ?Sized,
    {
        self.declare(id.into_benchmark_id(), &mut |b| f(b, input));
        self
    }

    #[track_caller]
    fn declare(&mut self, id: BenchmarkId, f: &mut dyn FnMut(&mut Bencher<'_, M>)) {
        let declaration = Declaration {
            group: Some(&self.name),
            function: id.function_name.as_deref(),
            parameter: id.parameter.as_deref(),
            throughput: self.throughput.as_ref().map(Throughput::to_engine),
            budget: self.settings.budget(),
            compare_against: self.compare_against.as_deref(),
            location: std::panic::Location::caller(),
        };
        let measurement = &self.criterion.measurement;
        driver::bench(declaration, &mut |engine| {
            f(&mut Bencher::new(engine, measurement));
        });
    }
}

/// The id of a benchmark in a group: a function name, a parameter, or both
/// (`group/function/parameter`). Unique within its group.
#[derive(Clone, Eq, PartialEq, Hash, Debug)]
pub struct BenchmarkId {
    pub(crate) function_name: Option<String>,
    pub(crate) parameter: Option<String>,
}

impl BenchmarkId {
    /// An id from a function name and a parameter (shown with `Display`).
    pub fn new<S: Into<String>, P: fmt::Display>(function_name: S, parameter: P) -> BenchmarkId {
        BenchmarkId {
            function_name: Some(function_name.into()),
            parameter: Some(parameter.to_string()),
        }
    }

    /// An id from a parameter alone, for one function over many inputs.
    pub fn from_parameter<P: fmt::Display>(parameter: P) -> BenchmarkId {
        BenchmarkId {
            function_name: None,
            parameter: Some(parameter.to_string()),
        }
    }
}

impl fmt::Display for BenchmarkId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.function_name, &self.parameter) {
            (Some(function), Some(parameter)) => write!(f, "{function}/{parameter}"),
            (Some(only), None) | (None, Some(only)) => f.write_str(only),
            (None, None) => Ok(()),
        }
    }
}

mod private {
    pub trait Sealed {}
    impl Sealed for super::BenchmarkId {}
    impl<S: Into<String>> Sealed for S {}
}

/// A benchmark id, or a string that becomes one (criterion's sealed trait).
pub trait IntoBenchmarkId: private::Sealed {
    /// The id.
    fn into_benchmark_id(self) -> BenchmarkId;
}

impl IntoBenchmarkId for BenchmarkId {
    fn into_benchmark_id(self) -> BenchmarkId {
        self
    }
}

impl<S: Into<String>> IntoBenchmarkId for S {
    fn into_benchmark_id(self) -> BenchmarkId {
        let function_name = self.into();
        assert!(
            !function_name.is_empty(),
            "Function name must not be empty."
        );
        BenchmarkId {
            function_name: Some(function_name),
            parameter: None,
        }
    }
}
