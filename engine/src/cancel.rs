//! Cancellation: stop at the next sample boundary, report what was measured, and never outlive
//! the reason to run.
//!
//! * The first SIGINT or SIGTERM sets [`CANCEL`]; the measuring code checks it between
//!   samples, the runner reports the case in progress as partial and starts no other case. The
//!   exit status is then 130 (SIGINT) or 143 (SIGTERM), as a shell reports those signals.
//! * A second SIGINT or SIGTERM ends the process at once, by that signal, for a benchmark that
//!   never reaches a sample boundary.
//! * With `--stdin-cancel` (what the daemon passes), the end of standard input cancels too: the
//!   parent closed it or died. A watchdog then gives the benchmark [`GRACE`] to reach a sample
//!   boundary and the run [`FINISH_GRACE`] more to report; past either, the process ends by
//!   itself (status 130), so no bench binary spins on after the tool that started it is gone.
//! * The report's reader going away (`cargo bench | head`) cancels the same way.

use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::time::Duration;

use knotmeter_protocol::HARNESS_THREAD_PREFIX;

/// Set once the run is cancelled, for whatever reason.
pub(crate) static CANCEL: AtomicBool = AtomicBool::new(false);
/// Set once the measuring code has seen [`CANCEL`]: the benchmark reached a sample boundary.
static SEEN: AtomicBool = AtomicBool::new(false);
/// The first reason for the cancel ([`Cause`] as a number; 0 while there is none).
static CAUSE: AtomicU8 = AtomicU8::new(0);
/// Set by the first SIGINT or SIGTERM: arms the immediate exit on the second.
#[cfg(unix)]
static SIGNALLED: AtomicBool = AtomicBool::new(false);
/// Set by SIGINT.
#[cfg(unix)]
static INTERRUPTED: AtomicBool = AtomicBool::new(false);
/// Set by SIGTERM.
#[cfg(unix)]
static TERMINATED: AtomicBool = AtomicBool::new(false);

/// How long a benchmark has to reach a sample boundary once standard input closed.
pub(crate) const GRACE: Duration = Duration::from_secs(2);
/// How long the run then has to report and store what it measured.
pub(crate) const FINISH_GRACE: Duration = Duration::from_secs(10);

/// Why a run was cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cause {
    /// SIGINT (Ctrl-C).
    Interrupt = 1,
    /// SIGTERM.
    Terminate = 2,
    /// Standard input closed under `--stdin-cancel`.
    InputClosed = 3,
    /// The report could not be written (its reader went away).
    OutputFailed = 4,
}

impl Cause {
    /// The process's exit status after a graceful cancel for this reason (`None`: the status
    /// the run would have had anyway).
    pub(crate) fn exit_status(self) -> Option<u8> {
        match self {
            Cause::Interrupt | Cause::InputClosed => Some(130),
            Cause::Terminate => Some(143),
            Cause::OutputFailed => None,
        }
    }

    fn from_number(n: u8) -> Option<Cause> {
        [
            Cause::Interrupt,
            Cause::Terminate,
            Cause::InputClosed,
            Cause::OutputFailed,
        ]
        .into_iter()
        .find(|cause| *cause as u8 == n)
    }
}

/// Cancels the run for `cause`; the first cause is the one that counts.
pub(crate) fn cancel(cause: Cause) {
    let _ = CAUSE.compare_exchange(0, cause as u8, Ordering::SeqCst, Ordering::SeqCst);
    CANCEL.store(true, Ordering::SeqCst);
}

/// Why the run was cancelled, if it was. A signal counts before the other causes (the daemon
/// closes standard input and sends SIGTERM at the same moment).
pub(crate) fn cause() -> Option<Cause> {
    #[cfg(unix)]
    {
        if INTERRUPTED.load(Ordering::SeqCst) {
            return Some(Cause::Interrupt);
        }
        if TERMINATED.load(Ordering::SeqCst) {
            return Some(Cause::Terminate);
        }
    }
    Cause::from_number(CAUSE.load(Ordering::SeqCst))
}

/// True once cancellation was requested. Every caller is at a sample boundary (or between
/// cases), so a true answer also tells the watchdog that the benchmark is not stuck.
pub(crate) fn requested() -> bool {
    let cancelled = CANCEL.load(Ordering::Relaxed);
    if cancelled {
        reached_boundary();
    }
    cancelled
}

/// Tells the watchdog that the run saw the cancel at a sample boundary or between cases.
pub(crate) fn reached_boundary() {
    SEEN.store(true, Ordering::SeqCst);
}

/// Installs the signal handlers and, with `stdin_cancel`, the standard-input watcher.
pub(crate) fn install(stdin_cancel: bool) {
    #[cfg(unix)]
    if let Err(err) = install_signals() {
        eprintln!(
            "knotmeter: cannot install signal handlers ({err}); Ctrl-C will end the run abruptly"
        );
    }
    if stdin_cancel {
        std::thread::Builder::new()
            .name(format!("{HARNESS_THREAD_PREFIX}stdin"))
            .spawn(watch_stdin)
            .expect("a thread to watch standard input");
    }
}

#[cfg(unix)]
fn install_signals() -> io::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    use signal_hook::flag;
    for (signal, flag) in [(SIGINT, &INTERRUPTED), (SIGTERM, &TERMINATED)] {
        // Order matters: the default action acts only when an earlier signal already armed it,
        // so it must be registered before the flags this signal sets.
        flag::register_conditional_default(signal, &SIGNALLED)?;
        flag::register(signal, flag)?;
        flag::register(signal, &CANCEL)?;
        flag::register(signal, &SIGNALLED)?;
    }
    Ok(())
}

/// Reads standard input to its end, then cancels and starts the watchdog.
fn watch_stdin() {
    let mut buffer = [0u8; 256];
    let mut stdin = io::stdin();
    // Anything written is ignored; end of input or an error means the parent is gone.
    while matches!(stdin.read(&mut buffer), Ok(n) if n > 0) {}
    cancel(Cause::InputClosed);
    std::thread::sleep(GRACE);
    if !SEEN.load(Ordering::SeqCst) {
        give_up(&format!(
            "the benchmark did not reach a sample boundary within {} s of standard input \
             closing; ending the process",
            GRACE.as_secs()
        ));
    }
    std::thread::sleep(FINISH_GRACE);
    give_up(&format!(
        "the run did not finish within {} s of standard input closing; ending the process",
        (GRACE + FINISH_GRACE).as_secs()
    ));
}

/// Ends the process now, from the watchdog: whatever the main thread is doing is stuck.
fn give_up(why: &str) -> ! {
    eprintln!("knotmeter: {why}");
    #[cfg(unix)]
    {
        // `_exit`: no exit handlers, which might wait on a lock the stuck thread holds.
        signal_hook::low_level::exit(130)
    }
    #[cfg(not(unix))]
    std::process::exit(130)
}
