//! The process-wide panic hook: every panic is either its case's failure or printed, never lost.
//!
//! * A panic on the thread that runs the benchmarks, while a case runs, is that case's failure:
//!   the hook records its message and location for `execute`, and prints nothing in the middle
//!   of the report.
//! * A panic on any other thread (one the benchmark spawned) is printed on standard error by
//!   the hook that was installed before (Rust's default: message, location, backtrace note) and
//!   recorded against the case in progress, which then fails: a benchmark whose threads panic
//!   did not do the work it claims to time. A thread that outlives its case is blamed on the
//!   case in progress when it panics (nothing records which case spawned a thread); one that
//!   panics between cases fails the run.
//! * Any other panic on the benchmark thread (a fault of the engine itself) goes to the
//!   previous hook as well.

use std::cell::{Cell, RefCell};
use std::panic::{self, PanicHookInfo};
use std::sync::Mutex;

/// A panic's message and `file:line:column`.
pub(crate) type Panic = (String, Option<String>);

thread_local! {
    /// Set on the benchmark thread while a case's function runs.
    static IN_CASE: Cell<bool> = const { Cell::new(false) };
    /// The message and location of the last panic of a case on this thread.
    static LAST_PANIC: RefCell<Option<Panic>> = const { RefCell::new(None) };
}

/// A panic on a thread other than the benchmark thread.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ThreadPanic {
    /// The thread's name, or its id when it has none.
    pub(crate) thread: String,
    /// The panic message.
    pub(crate) message: String,
    /// `file:line:column` of the panic.
    pub(crate) location: Option<String>,
}

impl ThreadPanic {
    /// One line for a failure message: `thread 'name' panicked at file:line:col: message`.
    pub(crate) fn describe(&self) -> String {
        let at = self
            .location
            .as_ref()
            .map_or(String::new(), |l| format!(" at {l}"));
        format!("thread '{}' panicked{at}: {}", self.thread, self.message)
    }
}

/// Panics of other threads since they were last taken.
static THREAD_PANICS: Mutex<Vec<ThreadPanic>> = Mutex::new(Vec::new());

thread_local! {
    /// Set on the thread that installed the hook: the one that runs the benchmarks.
    static BENCH_THREAD: Cell<bool> = const { Cell::new(false) };
}

/// Installs the hook, on the thread that runs the benchmarks, before the first case.
pub(crate) fn install() {
    BENCH_THREAD.set(true);
    let previous = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if IN_CASE.get() {
            LAST_PANIC.with(|last| *last.borrow_mut() = Some(message_and_location(info)));
            return;
        }
        previous(info);
        if !BENCH_THREAD.get() {
            let (message, location) = message_and_location(info);
            let current = std::thread::current();
            let thread = current
                .name()
                .map_or_else(|| format!("{:?}", current.id()), str::to_owned);
            THREAD_PANICS
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .push(ThreadPanic {
                    thread,
                    message,
                    location,
                });
        }
    }));
}

fn message_and_location(info: &PanicHookInfo<'_>) -> Panic {
    let message = info
        .payload_as_str()
        .map_or_else(|| "Box<dyn Any>".to_owned(), str::to_owned);
    let location = info
        .location()
        .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
    (message, location)
}

/// Runs `f` as a case's function: a panic on this thread is recorded for [`take_case_panic`]
/// instead of printed.
pub(crate) fn in_case<T>(f: impl FnOnce() -> T) -> T {
    let outer = IN_CASE.replace(true);
    let _restore = Restore(outer);
    f()
}

/// Puts back the previous `IN_CASE` value, also when `f` unwinds.
struct Restore(bool);

impl Drop for Restore {
    fn drop(&mut self) {
        IN_CASE.set(self.0);
    }
}

/// The last panic of a case on this thread, if any.
pub(crate) fn take_case_panic() -> Option<Panic> {
    LAST_PANIC.with(|last| last.borrow_mut().take())
}

/// The panics of other threads since the last call.
pub(crate) fn take_thread_panics() -> Vec<ThreadPanic> {
    std::mem::take(
        &mut *THREAD_PANICS
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()),
    )
}
