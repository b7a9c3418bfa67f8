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

pub mod complexity;
pub mod fdr;
pub mod hodges_lehmann;
pub mod mann_whitney;
pub mod median_ci;
pub mod mvalue;
pub mod normal;
pub mod outliers;
pub mod paired;
pub mod ranks;
pub mod rounds;
pub mod select;
pub mod student;
pub mod summary;
// Random numbers for the tests and simulations of this crate and the engine's; not part of the
// statistics a user calls.
#[doc(hidden)]
pub mod testutil;

pub use self::{
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
