//! How knotmeter's results, verdicts and warnings read, for every surface: the engine's
//! reporters (`cargo bench`), the daemon's terminal commands (`knotmeter run`, `history`), its
//! editor features (hover, code lens, inlay hint, diagnostics) and, through the protocol, the
//! VS Code extension.
//!
//! One function decides what a person sees for a measured case, [`shown`]; everything else
//! lays its fields out. It depends on the protocol crate only, so the daemon uses it without
//! linking the measurement engine.
//!
//! ```
//! use knotmeter_format::shown;
//! use knotmeter_protocol::{BenchResult, Outcome};
//!
//! # fn result() -> BenchResult {
//! #     serde_json::from_str(include_str!("../tests/fixtures/example-result.json")).unwrap()
//! # }
//! let result: BenchResult = result(); // a `case_finished` result, as the engine sends it
//! let shown = shown(&result, None);
//! assert_eq!(shown.outcome, Outcome::Passed);
//! assert_eq!(shown.headline, "12.3 ns ±1.8%");
//! assert_eq!(shown.line, "12.3 ns ±1.8% · 3.1% faster than run 7");
//! ```
//!
//! The expected presentation of a set of shared fixtures (`tests/fixtures/`) is checked in;
//! the Rust surfaces and the extension's TypeScript are tested against the same files.

#![deny(missing_docs)]

pub mod compared;
pub mod csv;
pub mod layout;
pub mod markdown;
pub mod profile;
pub mod profile_compared;
mod shown;
pub mod suggest;
mod tally;
pub mod text;
pub mod units;
pub mod values;

pub use shown::{figure, shown, DETAIL_ONLY};
pub use tally::Tally;
