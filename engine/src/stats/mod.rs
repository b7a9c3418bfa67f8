//! Pure statistics for knotmeter: descriptive summaries, distribution-free
//! confidence intervals, rank tests, shift estimates, multiple-comparison
//! control and empirical complexity fits. Std only, no I/O, no panics on
//! empty or degenerate input (functions return `Option` or a documented
//! value such as NaN).
//!
//! Conventions: functions taking `sorted` expect ascending order (see
//! [`summary::sorted`]); inputs should be finite (callers filter NaN/∞;
//! the shift estimators return None on non-finite input). Every method
//! scales to ~20,000 samples per side in O((n + m) log(n + m)) time and
//! O(n + m) memory: pairwise-difference and Walsh-average order statistics
//! are selected exactly ([`select`]), never materialised or thinned.

// Items are consumed by the engine's analysis and report code, which is
// written concurrently; until every item is wired up, unused ones must not
// fail `clippy -D warnings`.
#![allow(dead_code)]

pub(crate) mod complexity;
pub(crate) mod fdr;
pub(crate) mod hodges_lehmann;
pub(crate) mod mann_whitney;
pub(crate) mod median_ci;
pub(crate) mod mvalue;
pub(crate) mod normal;
pub(crate) mod outliers;
pub(crate) mod paired;
pub(crate) mod ranks;
pub(crate) mod rounds;
pub(crate) mod select;
pub(crate) mod student;
pub(crate) mod summary;
#[cfg(test)]
pub(crate) mod testutil;

#[allow(unused_imports)]
pub(crate) use self::{
    complexity::{fit_complexity, Complexity, ComplexityReport, Fit},
    fdr::benjamini_hochberg,
    hodges_lehmann::{hodges_lehmann, Shift},
    mann_whitney::{mann_whitney, MannWhitney},
    median_ci::{median_ci, relative_half_width, MedianCi},
    mvalue::{mvalue, MVALUE_BIMODAL, MVALUE_MULTIMODAL, MVALUE_SEVERAL_MODES},
    normal::{normal_cdf, normal_quantile},
    outliers::{tukey, without_outliers, Tukey},
    paired::{one_sample_location, wilcoxon_signed_rank_p},
    student::{t_critical, t_two_sided_p},
    summary::{mean, median, quantile, sorted, std_dev},
};
