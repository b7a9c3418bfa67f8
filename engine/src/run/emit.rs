//! The reporter behind a run, and the first error writing the report.
//!
//! A write error means nobody can read what the run would measure (the reader of a pipe went
//! away, the disk is full): the first one cancels the run like a signal would, and nothing more
//! is written. A broken pipe then ends the process quietly, as `cargo bench | head` expects;
//! any other error is said on standard error.

use std::io;

use crate::cancel::{self, Cause};
use crate::cli::{self, Options};
use crate::output::{self, ReportOut};
use crate::report::{self, Reporter};

/// The run's reporter, and the first error met writing the report.
pub(super) struct Output {
    reporter: Box<dyn Reporter + Send>,
    failed: Option<io::Error>,
}

impl Output {
    /// The reporter `options` ask for, writing to `out`: colour and the in-progress line as
    /// where the report goes allows.
    pub(super) fn new(options: &Options, out: ReportOut) -> Self {
        let terminal = out.is_terminal();
        let color = options.color.unwrap_or_else(|| cli::auto_color(terminal));
        Output {
            reporter: report::reporter(options.format, Box::new(out), color, terminal),
            failed: None,
        }
    }

    /// Hands `event` to the reporter, unless writing already failed. The first failure
    /// cancels the run.
    pub(super) fn emit(&mut self, event: impl FnOnce(&mut dyn Reporter) -> io::Result<()>) {
        if self.failed.is_some() {
            return;
        }
        if let Err(err) = event(self.reporter.as_mut()) {
            cancel::cancel(Cause::OutputFailed);
            self.failed = Some(err);
        }
    }

    /// Whether writing failed for another reason than a closed pipe; says so on standard
    /// error (once per call).
    pub(super) fn failed_loudly(&self) -> bool {
        match &self.failed {
            Some(err) if !output::is_broken_pipe(err) => {
                eprintln!("knotmeter: cannot write the report, so the run stopped: {err}");
                true
            }
            _ => false,
        }
    }
}
