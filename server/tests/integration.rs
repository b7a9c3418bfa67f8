//! The daemon's end-to-end tests in one test binary: each file beside this one is a module here
//! (`e2e.rs` is `e2e`, its tests `e2e::…`), so they are linked once and `common` is compiled
//! once. Three kinds of test keep binaries of their own (see Cargo.toml): `isolation.rs` sets
//! `CARGO_TARGET_DIR` and `KNOTMETER_HISTORY` for its whole process; `compare_reuse.rs` must
//! not share the base's target directory with other comparisons while it runs; and the
//! in-process tests (`in_process.rs`) point their process's environment at a history of its
//! own.

mod common;
mod compare_support;

mod ci;
mod compare;
mod compare_profile;
mod counts;
mod criterion;
mod e2e;
mod faults;
mod history;
mod history_comparisons;
mod lsp_edges;
mod neovim;
mod profile;
mod run_on_save;
mod signals;
mod surfaces;
mod tour;
