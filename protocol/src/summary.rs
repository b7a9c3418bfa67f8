//! What is known about a benchmark function as a whole, once all its cases ran: how its cost
//! scales with its argument.

use serde::{Deserialize, Serialize};

use crate::Warning;

/// The analysis of one benchmark function across its `args` cases.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct BenchSummary {
    /// The benchmark's id (its cases' ids without `/arg`).
    pub id: String,
    /// The function's name.
    pub name: String,
    /// The fitted complexity, with three or more numeric arguments; `null` otherwise.
    pub complexity: Option<ComplexityFit>,
    /// Scaling warnings such as `flat_scaling`, each with a stable code.
    pub warnings: Vec<Warning>,
    /// The cases with a numeric argument the analysis used, by increasing argument (absent
    /// from engines that predate the field).
    #[serde(default)]
    #[cfg_attr(feature = "typescript", ts(as = "Option<Vec<ScalingPoint>>", optional))]
    pub points: Vec<ScalingPoint>,
}

/// One case of a scaling analysis: its numeric argument and its median.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ScalingPoint {
    /// The case id.
    pub id: String,
    /// The argument's value (`1<<10` is 1024).
    pub n: f64,
    /// The case's median per operation, in nanoseconds.
    pub median_ns: f64,
    /// Lower bound of the median's 95% interval, in nanoseconds.
    pub low_ns: f64,
    /// Upper bound of the median's 95% interval, in nanoseconds.
    pub high_ns: f64,
}

/// Complexity classes fitted to the medians of an `args` benchmark, ranked by AICc (plain AIC
/// with four points or fewer).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ComplexityFit {
    /// The class reported: the simplest of the classes that fit about equally well, and
    /// `O(1)` for a benchmark whose cost does not grow (`flat_scaling`). E.g. `O(n)`.
    pub best: String,
    /// The best-ranked class other than `best`, where one could be fitted.
    pub runner_up: Option<String>,
    /// Whether the best beats every other class by the criterion's margin (AICc 2, or plain
    /// AIC 10 with too few points for AICc).
    pub distinguishable: bool,
    /// Every class within that margin of the best-fitting one, simplest first: the classes
    /// the data cannot tell apart. `best` is the simplest of them (just `best` when it is
    /// distinguishable; absent from engines that predate the field).
    #[serde(default)]
    #[cfg_attr(feature = "typescript", ts(as = "Option<Vec<String>>", optional))]
    pub candidates: Vec<String>,
    /// Every class, best first.
    pub fits: Vec<ClassFit>,
}

/// One fitted class: time ≈ intercept + coefficient · g(n).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ClassFit {
    /// The class, e.g. `O(n log n)`.
    pub class: String,
    /// Nanoseconds per unit of g(n).
    pub coefficient_ns: f64,
    /// Nanoseconds independent of n.
    pub intercept_ns: f64,
    /// The small-sample corrected Akaike criterion; `null` where it is undefined (too few
    /// points for the model, or g(n) overflows).
    pub aicc: Option<f64>,
}
