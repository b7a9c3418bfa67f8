//! criterion's profiler hook. Accepted and never called: knotmeter runs no profiler around a
//! benchmark (`--profile-time` is not supported).

use std::path::Path;

/// A profiler that criterion would start and stop around each benchmark under
/// `--profile-time`.
pub trait Profiler {
    /// Called before a benchmark is profiled.
    fn start_profiling(&mut self, benchmark_id: &str, benchmark_dir: &Path);
    /// Called after a benchmark is profiled.
    fn stop_profiling(&mut self, benchmark_id: &str, benchmark_dir: &Path);
}

/// A profiler that does nothing (criterion's default).
pub struct ExternalProfiler;

impl Profiler for ExternalProfiler {
    fn start_profiling(&mut self, _benchmark_id: &str, _benchmark_dir: &Path) {}
    fn stop_profiling(&mut self, _benchmark_id: &str, _benchmark_dir: &Path) {}
}
