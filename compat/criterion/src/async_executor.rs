//! Executors for `Bencher::to_async`, as in criterion: a tokio `Runtime` (feature
//! `async_tokio`) or [`FuturesExecutor`].
//!
//! Each operation is one `block_on` of the routine's future, and the empty baseline is one
//! `block_on` of an empty future on the same executor, so the executor's own cost per
//! operation is measured and subtracted like any other harness overhead.

use std::future::Future;

/// Runs a future to completion (criterion's trait).
pub trait AsyncExecutor {
    /// Blocks on `future` and returns its output.
    fn block_on<T>(&self, future: impl Future<Output = T>) -> T;
}

/// criterion's executor from the futures crate; here, knotmeter's own minimal executor, which
/// polls on the benchmark's thread and parks while the future is pending (no reactor: tokio
/// timers and sockets need a tokio runtime).
#[derive(Debug, Clone, Copy, Default)]
pub struct FuturesExecutor;

thread_local! {
    static EXECUTOR: knotmeter::__private::declared::ThreadExecutor =
        knotmeter::__private::declared::ThreadExecutor::new();
}

impl AsyncExecutor for FuturesExecutor {
    fn block_on<T>(&self, future: impl Future<Output = T>) -> T {
        EXECUTOR.with(|executor| executor.block_on(future))
    }
}

#[cfg(feature = "async_tokio")]
impl AsyncExecutor for tokio::runtime::Runtime {
    fn block_on<T>(&self, future: impl Future<Output = T>) -> T {
        tokio::runtime::Runtime::block_on(self, future)
    }
}

#[cfg(feature = "async_tokio")]
impl AsyncExecutor for &tokio::runtime::Runtime {
    fn block_on<T>(&self, future: impl Future<Output = T>) -> T {
        tokio::runtime::Runtime::block_on(self, future)
    }
}
