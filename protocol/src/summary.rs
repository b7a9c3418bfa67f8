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
}

/// Complexity classes fitted to the medians of an `args` benchmark, ranked by AICc.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ComplexityFit {
    /// The best-ranked class, e.g. `O(n)`.
    pub best: String,
    /// The second-best class, where one could be fitted.
    pub runner_up: Option<String>,
    /// Whether the best beats the runner-up by an AICc margin of at least 2.
    pub distinguishable: bool,
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
