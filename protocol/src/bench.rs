//! The result of measuring one benchmark case.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Everything measured for one case. The same object appears in `--format json`'s `results`,
/// in the `case_finished` event of `--format jsonl`, in the history store and in the editor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct BenchResult {
    /// Stable id: `target::module::function`, plus `/arg` for a case of an `args` benchmark.
    pub id: String,
    /// The benchmark function's name.
    pub name: String,
    /// The canonical argument text for an `args` case, `null` otherwise.
    pub args: Option<String>,
    /// The comparison group (`#[bench(group = "..")]`), or `null`.
    pub group: Option<String>,
    /// Whether this case is its group's baseline.
    pub baseline: bool,
    /// The source file of the benchmark function, as `file!()` spells it.
    pub file: String,
    /// The 1-based line of the benchmark function's name.
    pub line: u32,
    /// What the figures count: `time` (nanoseconds; absent in JSON, as from every engine
    /// before counts) or `instructions` (counted by callgrind, `--measure instructions`). Every
    /// figure of the result (estimate, quantiles, overhead, cold call, raw samples) is in its
    /// measure's unit per operation, whatever its field's name says; results of two measures
    /// are never compared.
    #[serde(default, skip_serializing_if = "Measure::is_time")]
    #[cfg_attr(feature = "typescript", ts(as = "Option<Measure>", optional))]
    pub measure: Measure,
    /// The per-operation estimate, corrected for the harness overhead, with its 95% interval
    /// from the variation between rounds (see [`Rounds`]).
    pub estimate: Estimate,
    /// Spread of the corrected per-operation samples.
    pub quantiles: Quantiles,
    /// Relative half-width of the estimate's 95% interval (0.01 is ±1%): the larger of its two
    /// sides, relative to the estimate. The `±` every surface prints beside the figure. `null`
    /// when the estimate is zero, where a relative width means nothing, and when too little was
    /// measured for an interval.
    pub precision: Option<f64>,
    /// The harness's own cost, measured with an empty body of the same shape.
    pub overhead: Overhead,
    /// The first (cold) call, timed on its own, in nanoseconds.
    pub cold_ns: f64,
    /// Operations timed together in one sample.
    pub ops_per_sample: u64,
    /// Number of workload samples (the baseline took as many).
    pub samples: u64,
    /// Wall time spent on this case, calibration and baseline included, in nanoseconds.
    pub wall_ns: f64,
    /// True when the run was cancelled while this case was being measured.
    pub partial: bool,
    /// Validity and environment warnings, each with a stable code.
    pub warnings: Vec<Warning>,
    /// The comparison against a baseline or history; `null` when there is none.
    pub comparison: Option<Comparison>,
    /// How far this case's median moves between runs on this machine, learnt from the history
    /// store: the figure every surface shows as the spread of the headline. `null` when the
    /// run kept no history (`--no-history`, an unreadable store) and in results from engines
    /// that predate the field.
    #[serde(default)]
    #[cfg_attr(feature = "typescript", ts(optional = nullable))]
    pub reproducibility: Option<Reproducibility>,
    /// Allocations per operation; `null` unless the bench binary installs
    /// `knotmeter::CountingAlloc` as its global allocator.
    pub allocations: Option<Allocations>,
    /// A count's cache simulation (`--measure instructions --cache-sim`), per operation;
    /// absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub cache: Option<CacheSimulation>,
    /// The rounds the case was measured in: each round's median, the evidence behind the
    /// estimate and its interval. Absent from engines that measured in one stretch, and from
    /// results read back from histories they wrote.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub rounds: Option<Rounds>,
    /// Raw per-operation timings, before overhead subtraction, in nanoseconds. In a result read
    /// back from the history store they are evenly spaced order statistics (see [`RawSamples`]).
    pub raw: RawSamples,
    /// When the result was stored in the history, in seconds since the Unix epoch: set on a
    /// result read back from the store (the daemon shows those after a restart), absent on a
    /// result just measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stored_at: Option<u64>,
    /// How much work one operation does, as the benchmark declared it (criterion's
    /// `Throughput`), with the rate that follows from the estimate; absent when none was
    /// declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throughput: Option<Throughput>,
}

/// What a result's figures count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Measure {
    /// Wall time, in nanoseconds.
    #[default]
    Time,
    /// Instructions executed, counted by Valgrind's callgrind.
    Instructions,
}

impl Measure {
    /// Whether this is time, the measure a result without one has.
    pub fn is_time(&self) -> bool {
        *self == Measure::Time
    }

    /// The measure's name, as the command line and every format spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Measure::Time => "time",
            Measure::Instructions => "instructions",
        }
    }
}

/// What callgrind's cache simulation (`--cache-sim=yes`) saw per operation of a counted case,
/// the empty body's subtracted as for the instructions: each memory access (instruction
/// fetches, data reads and writes) served by the first-level caches, the last-level cache, or
/// main memory; and the cycles those suggest, by gungraun's (formerly iai's) formula
/// `L1 hits + 5 × LL hits + 35 × RAM hits`. An estimate from a simulated cache, not a
/// measured time.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct CacheSimulation {
    /// Accesses served by the first-level caches.
    pub l1_hits: f64,
    /// Accesses that missed the first level and were served by the last-level cache.
    pub ll_hits: f64,
    /// Accesses that missed every cache.
    pub ram_hits: f64,
    /// `l1_hits + 5 × ll_hits + 35 × ram_hits`.
    pub estimated_cycles: f64,
}

impl CacheSimulation {
    /// The figures from accesses per operation and their first- and last-level misses.
    pub fn from_accesses(accesses: f64, l1_misses: f64, ll_misses: f64) -> Self {
        let (l1_hits, ll_hits, ram_hits) = (accesses - l1_misses, l1_misses - ll_misses, ll_misses);
        CacheSimulation {
            l1_hits,
            ll_hits,
            ram_hits,
            estimated_cycles: l1_hits + 5.0 * ll_hits + 35.0 * ram_hits,
        }
    }
}

/// Work done per operation and the rate it gives: bytes, bits or elements per second.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Throughput {
    /// What is counted, and in which units a rate is shown.
    pub unit: ThroughputUnit,
    /// Units processed by one operation, as declared.
    pub per_operation: u64,
    /// Units per second at the median estimate; `null` when the estimate is zero (a rate
    /// from it would be infinite).
    pub per_second: Option<f64>,
    /// Units per second at the slow end of the estimate's 95% interval (its `high_ns`).
    pub per_second_low: Option<f64>,
    /// Units per second at the fast end of the interval (its `low_ns`); `null` when that end
    /// is zero.
    pub per_second_high: Option<f64>,
}

/// The rounds of a case: the unit of evidence behind its estimate, its interval and every
/// comparison of it.
///
/// A run is a schedule of short slots, round by round, the cases of each round in a shuffled
/// order, each round in a fresh process of the bench binary: the state a process is born with
/// (where its memory landed, the CPU it runs on, what the machine does meanwhile) holds for
/// its whole life and moves its figures by more than any number of its own samples can show.
/// The samples of one slot are not independent evidence; the rounds are. Each round gives one
/// median per operation (its samples less the median of its own empty body), and the estimate
/// is their geometric mean with a Student's t interval over their logarithms.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Rounds {
    /// Each round's median per operation, overhead subtracted, in nanoseconds, in the order the
    /// rounds ran.
    pub medians_ns: Vec<f64>,
    /// How many separate processes the rounds ran in: one per round, or 1 when they all ran in
    /// the bench binary's own process (`--in-process`), whose interval then cannot see what
    /// differs between processes.
    pub processes: u32,
    /// The interval was widened to how far this case's estimate moves between runs on this
    /// machine, learnt from the history ([`Reproducibility`]): a machine whose speed drifts
    /// over minutes moves a whole run, and no run's own rounds can see that.
    #[serde(default)]
    pub widened: bool,
    /// How far the machine's speed moves between whole runs, learnt from the probes of the
    /// earlier runs stored on this machine (five at least): the standard deviation of one run's
    /// log figure, which the interval holds beside what the case's own run strays from it.
    /// Absent while it is assumed (no history, or too few runs with a probe: docs/measurement.md,
    /// §7), and from engines that predate the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub machine_sd: Option<f64>,
}

/// What a [`Throughput`] counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ThroughputUnit {
    /// Bytes, shown with binary prefixes (KiB/s, MiB/s, GiB/s).
    Bytes,
    /// Bytes, shown with decimal prefixes (kB/s, MB/s, GB/s).
    BytesDecimal,
    /// Bits, shown with decimal prefixes (Kb/s, Mb/s, Gb/s).
    Bits,
    /// Elements (items, lines, values), shown as elem/s with decimal prefixes.
    Elements,
}

impl Throughput {
    /// The throughput of `per_operation` units at an estimate of `median_ns` per operation,
    /// with its interval `[low_ns, high_ns]`. A rate is only given where the time is above zero.
    pub fn at(
        unit: ThroughputUnit,
        per_operation: u64,
        median_ns: f64,
        low_ns: f64,
        high_ns: f64,
    ) -> Self {
        let rate = |ns: f64| (ns > 0.0 && ns.is_finite()).then(|| per_operation as f64 * 1e9 / ns);
        Throughput {
            unit,
            per_operation,
            per_second: rate(median_ns),
            per_second_low: rate(high_ns),
            per_second_high: rate(low_ns),
        }
    }
}

/// How reproducible a case's median is from one run to the next on this machine.
///
/// The engine learns it from the case's earlier comparable runs in the history store (same
/// machine, build profile and time budget): three times the 75th percentile of the relative
/// changes between consecutive stored medians. It is also the noise floor below which a
/// before/after comparison calls a change `same`. Until enough runs are stored, `spread` is
/// `null`: the within-run interval of the median says nothing about the next run. Only steps
/// between runs of the same code are used once enough of them are stored
/// ([`SpreadSource::SameCode`]): a user who alternates between two branches would otherwise
/// take the difference between them for noise.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Reproducibility {
    /// The next run's median is likely within ±`spread` of this one (0.01 is ±1%); `null`
    /// until `runs` reaches `runs_needed`.
    pub spread: Option<f64>,
    /// Comparable earlier runs of this case found in the history (at most 20 are read).
    pub runs: u32,
    /// Comparable earlier runs needed before `spread` is known.
    pub runs_needed: u32,
    /// Which earlier runs `spread` was learnt from; absent while it is not known (and from a
    /// knotmeter that did not say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub learnt_from: Option<SpreadSource>,
}

/// Which earlier runs the spread between runs was learnt from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum SpreadSource {
    /// Runs of the same code: the steps between consecutive runs at one commit, none with
    /// uncommitted changes. A real change between commits cannot inflate it.
    SameCode,
    /// Consecutive runs whatever code they measured: too few runs of one clean commit were
    /// stored, or their commits are not known. A real change between two of them counts as
    /// noise (the estimate is robust to one step in four), so it errs wide.
    AnyCode,
}

/// Heap allocations made by one operation, counted outside the timed samples.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Allocations {
    /// Allocations (including reallocations) per operation.
    pub per_op: f64,
    /// Bytes requested per operation.
    pub bytes_per_op: f64,
}

/// The per-operation estimate of a case, in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Estimate {
    /// The estimate per operation: the geometric mean of the rounds' medians (see
    /// [`Rounds`]); with one round, that round's median. The name is kept from the formats'
    /// first version, in which it was the median of one process's samples.
    pub median_ns: f64,
    /// Lower bound of the estimate's 95% interval: Student's t over the rounds' log medians
    /// (with one round, the distribution-free interval of its median, which says nothing
    /// about another process).
    pub low_ns: f64,
    /// Upper bound of the estimate's 95% interval.
    pub high_ns: f64,
    /// Mean of the corrected per-operation samples.
    pub mean_ns: f64,
}

/// Quantiles and spread of the corrected per-operation samples, in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Quantiles {
    /// Smallest sample.
    pub min_ns: f64,
    /// 5th percentile.
    pub p5_ns: f64,
    /// First quartile.
    pub q1_ns: f64,
    /// Third quartile.
    pub q3_ns: f64,
    /// 95th percentile.
    pub p95_ns: f64,
    /// Largest sample.
    pub max_ns: f64,
    /// Sample standard deviation.
    pub std_dev_ns: f64,
    /// Samples outside Tukey's fences (1.5 × IQR beyond the quartiles). Never dropped.
    pub outliers: u64,
}

/// The harness overhead that was subtracted, per operation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Overhead {
    /// Median per-operation time of the empty body of the same shape, in nanoseconds.
    pub per_op_ns: f64,
    /// Change of the baseline's median between the first and second half of the run,
    /// in nanoseconds per operation (positive: the harness got slower); `null` with fewer than
    /// two baseline samples, which have no halves to compare.
    pub drift: Option<f64>,
    /// Samples in which the subtraction would have gone below zero and was capped at zero.
    pub capped: u64,
}

/// Raw per-operation timings in nanoseconds, in the order they were taken. Bounded in size.
///
/// The history store keeps a compact form: each vector sorted ascending and, when it held more
/// than the store's limit, reduced to that many evenly spaced order statistics (its minimum,
/// its median and its maximum among them). A stored result's `samples` still counts what was
/// measured. See `docs/history.md`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RawSamples {
    /// The workload's samples divided by the operation count, before subtraction.
    pub workload_ns: Vec<f64>,
    /// The empty baseline's samples divided by the operation count, interleaved in time with
    /// the workload's.
    pub baseline_ns: Vec<f64>,
}

/// A warning attached to a result or a run. `code` is stable; `message` says what to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Warning {
    /// Stable machine-readable code such as `debug_build` or `optimized_away`.
    pub code: String,
    /// Human-readable explanation with the action to take.
    pub message: String,
    /// `warning` (the figure may be wrong) or `info` (worth knowing, not a defect).
    #[serde(default)]
    pub severity: Severity,
}

/// How much a [`Warning`] matters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// The figure may be wrong or misleading.
    #[default]
    Warning,
    /// Worth knowing; not a defect.
    Info,
}

/// A comparison of one case against a baseline: another member of its group, or an earlier
/// stored run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Comparison {
    /// The id of the baseline case, or the history run compared against.
    pub against: String,
    /// This case's time divided by the baseline's (below 1 is faster).
    pub ratio: f64,
    /// Lower bound of the ratio's 95% confidence interval.
    pub low: f64,
    /// Upper bound of the ratio's 95% confidence interval.
    pub high: f64,
    /// Two-sided p-value of the test for a difference (after multiple-testing correction).
    pub p_value: f64,
    /// The one verdict every output shows.
    pub verdict: Verdict,
    /// What was compared: a group member with its baseline, a case with the history, or two
    /// builds (`knotmeter compare`). Absent from engines that predate the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ComparisonKind>,
    /// A before/after comparison taken relative to the machine's probe (both runs measured
    /// it): the probe's time in this run over its time in the run compared against, 1.05 when
    /// the machine ran 5% slower now. `ratio` and its interval are then the case's change
    /// less the machine's. Absent otherwise, and from engines that predate the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<f64>,
}

/// What a [`Comparison`] compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ComparisonKind {
    /// A member of a comparison group against its group's baseline, paired in one run
    /// (`against` is the baseline's case id).
    Group,
    /// A case against its stored result, before/after (`against` is `run N` or `baseline
    /// NAME`).
    History,
    /// The same case in two builds, paired across two processes by `knotmeter compare`
    /// (`against` names the base: `main`, `HEAD`, …).
    Builds,
}

/// Whether a case got faster, slower or stayed the same. Computed once, shown everywhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Significantly faster, by more than the noise threshold.
    Faster,
    /// Significantly slower, by more than the noise threshold.
    Slower,
    /// No difference beyond the noise threshold could be shown.
    Same,
}

impl Verdict {
    /// The verdict as one lowercase word, as the wire, the history and the machine formats
    /// spell it: `faster`, `slower`, `same`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::Same => "same",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A word that is not a verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownVerdict(pub String);

impl fmt::Display for UnknownVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown verdict `{}` (faster, slower or same)", self.0)
    }
}

impl std::error::Error for UnknownVerdict {}

impl FromStr for Verdict {
    type Err = UnknownVerdict;

    /// The verdict [`Verdict::as_str`] spells `word`.
    fn from_str(word: &str) -> Result<Self, Self::Err> {
        [Verdict::Faster, Verdict::Slower, Verdict::Same]
            .into_iter()
            .find(|v| v.as_str() == word)
            .ok_or_else(|| UnknownVerdict(word.to_owned()))
    }
}

impl Warning {
    /// A warning with the given code and message.
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            message: message.into(),
            severity: Severity::Warning,
        }
    }

    /// An informational note with the given code and message.
    pub fn info(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Info,
            ..Self::new(code, message)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One spelling of a verdict, wherever it is written: the wire's (serde), `as_str`'s and
    /// what `parse` reads back.
    #[test]
    fn a_verdict_is_spelt_one_way_and_read_back() {
        for verdict in [Verdict::Faster, Verdict::Slower, Verdict::Same] {
            let wire = serde_json::to_string(&verdict).unwrap();
            assert_eq!(wire, format!("\"{}\"", verdict.as_str()));
            assert_eq!(verdict.to_string(), verdict.as_str());
            assert_eq!(verdict.as_str().parse::<Verdict>(), Ok(verdict));
        }
        assert_eq!(
            "Faster".parse::<Verdict>().unwrap_err().to_string(),
            "unknown verdict `Faster` (faster, slower or same)"
        );
    }
}
