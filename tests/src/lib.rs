//! End-to-end tests of knotmeter. The fixture bench binary is `src/bin/fixture.rs`; the tests
//! in `tests/` run it as `cargo bench` or the daemon would, and read its output as a consumer.

/// Seed 001's dependency chain, the one the quickstart example defines.
pub use quickstart::chain;
