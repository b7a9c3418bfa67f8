//! The process-wide panic hook: every panic is either its case's failure or printed, never lost.
//!
//! * A panic on the thread that runs the benchmarks, while a case runs, is that case's failure:
//!   the hook records its message and location for `execute`, and prints nothing in the middle
//!   of the report.
//! * A panic on any other thread (one the benchmark spawned) is recorded against the case in
//!   progress, which then fails: a benchmark whose threads panic did not do the work it claims
//!   to time. It is recorded first and printed after, on standard error, by the hook that was
//!   installed before (Rust's default: message, location, backtrace): printing a backtrace can
//!   take longer than the case, and a panic recorded only then was found by no case. A thread
//!   that outlives its case is blamed on the case in progress when it panics (nothing records
//!   which case spawned a thread); one that panics between cases fails the run, and names the
//!   case that ran last, the one that probably left it running.
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
    /// The cases that had last started on the benchmark thread when it panicked.
    pub(crate) after: Vec<String>,
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

    /// One line for a panic that happened while no case ran, naming the case that probably
    /// left the thread running: the one that ran last before it.
    pub(crate) fn describe_stray(&self) -> String {
        let by = match self.after.as_slice() {
            [] => String::new(),
            ids => format!(
                ", probably left running by {}, the last to run before it",
                ids.iter()
                    .map(|id| format!("`{id}`"))
                    .collect::<Vec<_>>()
                    .join(" or ")
            ),
        };
        format!("{} between cases{by}", self.describe())
    }
}

/// Panics of other threads since they were last taken.
static THREAD_PANICS: Mutex<Vec<ThreadPanic>> = Mutex::new(Vec::new());
/// The cases that started last on the benchmark thread (a pair's two).
static LAST_CASES: Mutex<Vec<String>> = Mutex::new(Vec::new());

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
        if !BENCH_THREAD.get() {
            record_thread_panic(info);
        }
        previous(info);
    }));
}

/// Records a panic of another thread for whoever takes them next, before it is printed.
fn record_thread_panic(info: &PanicHookInfo<'_>) {
    let (message, location) = message_and_location(info);
    let current = std::thread::current();
    let thread = current
        .name()
        .map_or_else(|| format!("{:?}", current.id()), str::to_owned);
    let after = lock(&LAST_CASES).clone();
    lock(&THREAD_PANICS).push(ThreadPanic {
        thread,
        message,
        location,
        after,
    });
}

/// Locks `mutex`, also after a panic while it was held (the data are plain lists).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
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

/// Runs `f` as the function of case `ids` (a pair's two): a panic on this thread is recorded
/// for [`take_case_panic`] instead of printed, and a thread that panics after it is blamed on
/// these cases.
pub(crate) fn in_case<T>(ids: &[&str], f: impl FnOnce() -> T) -> T {
    *lock(&LAST_CASES) = ids.iter().map(|id| (*id).to_owned()).collect();
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
    std::mem::take(&mut *lock(&THREAD_PANICS))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A panic between cases names the cases that ran last, as the run prints it.
    #[test]
    fn a_stray_panic_names_the_case_that_ran_last() {
        let panic = ThreadPanic {
            thread: "helper".into(),
            message: "gives up".into(),
            location: Some("benches/a.rs:3:5".into()),
            after: vec!["group/base".into(), "group/member".into()],
        };
        assert_eq!(
            panic.describe_stray(),
            "thread 'helper' panicked at benches/a.rs:3:5: gives up between cases, probably \
             left running by `group/base` or `group/member`, the last to run before it"
        );
        let first = ThreadPanic {
            after: Vec::new(),
            ..panic
        };
        assert_eq!(
            first.describe_stray(),
            "thread 'helper' panicked at benches/a.rs:3:5: gives up between cases"
        );
    }
}
