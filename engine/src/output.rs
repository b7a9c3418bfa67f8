//! The report channel: standard output carries the report and nothing else.
//!
//! A benchmark is arbitrary code: it may `print!`, write to descriptor 1 through libc, spawn
//! programs that write to their standard output, or print from a background thread in the
//! middle of an event. None of that may reach the machine-readable stream. So at start-up,
//! before any benchmark code runs, [`claim_stdout`] keeps a private duplicate of standard
//! output for the reporter (close-on-exec, so child processes never inherit it) and points
//! descriptor 1 at standard error. From then on everything the benchmark prints reaches the
//! user on standard error, whatever the format, and the report is the only writer of standard
//! output. (Consumers read events from standard output and the benchmark's own output from
//! standard error: docs/json-format.md describes this as part of the protocol.)
//!
//! Why this and not a pipe the daemon passes in: a dedicated descriptor would protect only the
//! runs a tool sets up for, while `cargo bench -- --format json > report.json` needs the same
//! guarantee; moving descriptor 1 protects every consumer, needs no negotiation, and keeps the
//! contract consumers already had (events on standard output, everything else on standard
//! error).
//!
//! [`ReportOut`] buffers what the reporter writes and hands it to the descriptor on `flush`,
//! so a reporter that flushes once per event writes each event with one `write`.
//!
//! On platforms other than Unix, standard output is shared as before: there is no
//! descriptor to move.

use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};

/// The reporter's end of standard output.
pub(crate) struct ReportOut {
    inner: BufWriter<Sink>,
    terminal: bool,
}

/// Where [`ReportOut`] writes.
enum Sink {
    /// The private duplicate of the original standard output.
    File(File),
    /// The shared standard output (no duplicate could be made, or not on Unix).
    Stdout(io::Stdout),
    /// Nowhere: standard output was closed when the process started.
    Closed,
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::File(file) => file.write(buf),
            Sink::Stdout(stdout) => stdout.write(buf),
            Sink::Closed => Ok(buf.len()),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::File(file) => file.flush(),
            Sink::Stdout(stdout) => stdout.flush(),
            Sink::Closed => Ok(()),
        }
    }
}

/// Large enough for any event but one carrying raw samples; those are written directly.
const BUFFER: usize = 64 * 1024;

impl ReportOut {
    fn new(sink: Sink) -> Self {
        let terminal = match &sink {
            Sink::File(file) => file.is_terminal(),
            Sink::Stdout(stdout) => stdout.is_terminal(),
            Sink::Closed => false,
        };
        ReportOut {
            inner: BufWriter::with_capacity(BUFFER, sink),
            terminal,
        }
    }

    /// Whether the report goes to a terminal (for colour and the in-progress line).
    pub(crate) fn is_terminal(&self) -> bool {
        self.terminal
    }
}

impl Write for ReportOut {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.inner.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Takes standard output for the report and sends everything else written to descriptor 1 to
/// standard error. Call it first thing in `main`, before any benchmark code runs, and once.
pub(crate) fn claim_stdout() -> ReportOut {
    // Anything Rust buffered for descriptor 1 belongs before the switch.
    let _ = io::stdout().flush();
    ReportOut::new(redirect())
}

#[cfg(unix)]
fn redirect() -> Sink {
    use std::os::fd::{AsFd, AsRawFd};

    // `try_clone_to_owned` duplicates with F_DUPFD_CLOEXEC: a descriptor above 2 that child
    // processes do not inherit.
    let sink = match io::stdout().as_fd().try_clone_to_owned() {
        Ok(fd) => Sink::File(File::from(fd)),
        Err(err) if err.raw_os_error() == Some(libc::EBADF) => {
            eprintln!(
                "knotmeter: standard output is closed, so the report goes nowhere; the history \
                 still records the run"
            );
            Sink::Closed
        }
        Err(err) => {
            eprintln!(
                "knotmeter: cannot duplicate standard output ({err}); what the benchmarks print \
                 shares it with the report"
            );
            return Sink::Stdout(io::stdout());
        }
    };
    // SAFETY: dup2 only replaces descriptor 1, which this process no longer uses for the
    // report; Rust's `Stdout` refers to descriptor 1 by number and follows the change.
    let moved = unsafe { libc::dup2(io::stderr().as_raw_fd(), libc::STDOUT_FILENO) };
    if moved < 0 {
        // No standard error either: what the benchmarks print is discarded rather than mixed
        // into the report.
        if let Ok(null) = File::options().write(true).open("/dev/null") {
            // SAFETY: as above; `null` stays open until dup2 returns.
            unsafe { libc::dup2(null.as_raw_fd(), libc::STDOUT_FILENO) };
        }
    }
    sink
}

#[cfg(not(unix))]
fn redirect() -> Sink {
    Sink::Stdout(io::stdout())
}

/// Whether `err` means the reader of the report went away (`cargo bench | head`).
pub(crate) fn is_broken_pipe(err: &io::Error) -> bool {
    err.kind() == io::ErrorKind::BrokenPipe
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that records each `write` call separately.
    #[derive(Default)]
    struct Writes(Vec<Vec<u8>>);

    impl Write for Writes {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.push(buf.to_vec());
            Ok(buf.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn what_is_written_between_flushes_leaves_in_one_write() {
        let mut out = BufWriter::with_capacity(BUFFER, Writes::default());
        out.write_all(b"{\"event\":").unwrap();
        out.write_all(b"\"case_started\"}").unwrap();
        out.write_all(b"\n").unwrap();
        out.flush().unwrap();
        let big = vec![b'x'; BUFFER * 3];
        out.write_all(&big).unwrap();
        out.flush().unwrap();
        let writes = &out.get_ref().0;
        assert_eq!(writes.len(), 2, "{writes:?}");
        assert_eq!(writes[0], b"{\"event\":\"case_started\"}\n");
        assert_eq!(writes[1].len(), BUFFER * 3);
    }
}
