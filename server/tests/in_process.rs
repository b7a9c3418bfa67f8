//! The tests that drive the LSP service in memory, in one test binary: `lsp_service.rs` and
//! `scale.rs` are its modules. Both point the process's own `KNOTMETER_HISTORY` and
//! `CARGO_TARGET_DIR` at the tests' files (`common::isolate_this_process`, once per process),
//! so they share a process with each other and with no test that starts `knotmeter`.

mod common;

mod lsp_service;
mod scale;
