//! criterion's small setting types: throughput, batch sizes, plots, sampling modes, filters.
//!
//! The plot and sampling types are accepted and have no effect: knotmeter draws no plots of
//! its own (the editor's panel does) and chooses operations per sample itself.

use knotmeter::__private::ThroughputUnit;

/// How much work one iteration does; the result then shows a rate (bytes, bits or elements
/// per second) beside the time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Throughput {
    /// Bytes processed by one iteration, shown with binary prefixes (KiB/s, MiB/s).
    Bytes(u64),
    /// Bytes processed by one iteration, shown with decimal prefixes (kB/s, MB/s).
    BytesDecimal(u64),
    /// Elements (items, lines, values) processed by one iteration.
    Elements(u64),
    /// Bits processed by one iteration.
    Bits(u64),
}

impl Throughput {
    /// The engine's unit and amount.
    pub(crate) fn to_engine(&self) -> (ThroughputUnit, u64) {
        match *self {
            Throughput::Bytes(n) => (ThroughputUnit::Bytes, n),
            Throughput::BytesDecimal(n) => (ThroughputUnit::BytesDecimal, n),
            Throughput::Elements(n) => (ThroughputUnit::Elements, n),
            Throughput::Bits(n) => (ThroughputUnit::Bits, n),
        }
    }
}

/// How many inputs criterion prepares at once for `iter_batched`. Accepted; knotmeter
/// prepares exactly one sample's inputs before each sample (always outside the timed region),
/// and chooses the sample's operation count itself.
#[derive(Debug, Eq, PartialEq, Copy, Hash, Clone)]
pub enum BatchSize {
    /// Small inputs: many can be held in memory at once.
    SmallInput,
    /// Large inputs or outputs.
    LargeInput,
    /// One input per batch.
    PerIteration,
    /// A given number of batches per sample.
    NumBatches(u64),
    /// A given number of iterations per batch.
    NumIterations(u64),
}

/// How criterion handles its saved baseline directory. Accepted; knotmeter compares against
/// its history store (`--save-baseline NAME`, `--baseline NAME` on the bench binary).
#[derive(Debug, Clone, Copy)]
pub enum Baseline {
    /// Compare against a saved baseline if there is one.
    CompareLenient,
    /// Compare against a saved baseline, which must exist.
    CompareStrict,
    /// Save the results as the baseline.
    Save,
    /// Discard the results.
    Discard,
}

/// criterion's plotting back ends. Accepted and ignored: knotmeter draws no plots of its own.
#[derive(Debug, Clone, Copy)]
pub enum PlottingBackend {
    /// gnuplot.
    Gnuplot,
    /// The plotters crate.
    Plotters,
    /// No plots.
    None,
}

/// Which benchmarks a `Criterion` runs. Accepted; knotmeter filters with the bench binary's
/// command line (`cargo bench -- FILTER`, `--exact`, `--skip`).
#[derive(Clone, Debug)]
pub enum BenchmarkFilter {
    /// Run all benchmarks.
    AcceptAll,
    /// Run the benchmark whose id is exactly this.
    Exact(String),
    /// Run none.
    RejectAll,
}

/// Axis scale of criterion's summary plots. Accepted and ignored.
#[derive(Debug, Default, Clone, Copy)]
pub enum AxisScale {
    /// Linear axes.
    #[default]
    Linear,
    /// Logarithmic axes.
    Logarithmic,
}

/// Plot settings of a benchmark group. Accepted and ignored.
#[derive(Debug, Clone, Default)]
pub struct PlotConfiguration {
    summary_scale: AxisScale,
}

impl PlotConfiguration {
    /// Sets the summary plots' axis scale (no effect under knotmeter).
    #[must_use]
    pub fn summary_scale(mut self, new_scale: AxisScale) -> PlotConfiguration {
        self.summary_scale = new_scale;
        self
    }
}

/// How criterion chooses iteration counts per sample. Accepted; knotmeter tunes the operation
/// count so that each sample spans far more than the clock's resolution.
#[derive(Debug, Clone, Copy)]
pub enum SamplingMode {
    /// Choose automatically.
    Auto,
    /// Linearly growing iteration counts.
    Linear,
    /// The same iteration count in every sample.
    Flat,
}
