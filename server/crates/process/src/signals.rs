//! The signals that stop `knotmeter run` and `knotmeter serve`: SIGINT (Ctrl-C), SIGTERM
//! (`kill`, `timeout`, a service manager) and SIGHUP (the terminal went away).
//!
//! Listening replaces their default action, which would end the process at once and leave its
//! children running. Instead the first one cancels gracefully (the bench binary stops at the
//! next sample boundary, the results measured so far are kept, then every child is killed)
//! and a second one ends at once. Either way the exit status is the shell's convention for a
//! process ended by that signal: 128 + its number (130 for SIGINT, 143 for SIGTERM).
//! Children run in their own process groups, so a Ctrl-C in the terminal reaches only
//! `knotmeter`, which passes the cancellation on.

use std::fmt;
use std::io;

use nix::sys::signal::Signal;
use tokio::signal::unix::{signal, SignalKind};

/// A stopping signal that arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stop(pub Signal);

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Listens for SIGINT, SIGTERM and SIGHUP from creation on.
pub struct Signals {
    interrupt: tokio::signal::unix::Signal,
    terminate: tokio::signal::unix::Signal,
    hangup: tokio::signal::unix::Signal,
}

impl Signals {
    /// Starts listening (inside a tokio runtime).
    pub fn new() -> io::Result<Self> {
        Ok(Self {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
            hangup: signal(SignalKind::hangup())?,
        })
    }

    /// The next stopping signal.
    pub async fn next(&mut self) -> Stop {
        tokio::select! {
            _ = self.interrupt.recv() => Stop(Signal::SIGINT),
            _ = self.terminate.recv() => Stop(Signal::SIGTERM),
            _ = self.hangup.recv() => Stop(Signal::SIGHUP),
        }
    }
}

/// How a piece of work followed with [`Signals::follow`] ended.
#[derive(Debug)]
pub enum Followed<T> {
    /// It ended by itself; `stopped` is the signal that cancelled it, if one did.
    Ended {
        /// What the work returned.
        result: T,
        /// The first signal, which asked it to cancel.
        stopped: Option<Stop>,
    },
    /// A second signal arrived first: the command stops at once, with the first's status.
    AtOnce {
        /// The signal that cancelled.
        first: Stop,
        /// The signal that arrived again.
        again: Stop,
    },
}

impl Signals {
    /// Follows `work` to its end while listening: the first signal calls `cancel` (which asks
    /// the work to stop gracefully), a second ends the following at once. `knotmeter compare`
    /// and `knotmeter profile` follow their pipelines so.
    pub async fn follow<T>(
        &mut self,
        work: impl std::future::Future<Output = T>,
        mut cancel: impl FnMut(Stop),
    ) -> Followed<T> {
        tokio::pin!(work);
        let mut stopping = Stopping::default();
        loop {
            tokio::select! {
                result = &mut work => {
                    return Followed::Ended { result, stopped: stopping.first() };
                }
                stop = self.next() => match stopping.hear(stop) {
                    Heard::AtOnce { first, again } => return Followed::AtOnce { first, again },
                    Heard::Cancel(stop) => cancel(stop),
                },
            }
        }
    }
}

/// The stopping signals a command heard: the first cancels gracefully, a second stops at once.
/// Both `knotmeter run` and `knotmeter compare` keep one, so the rule and its wording are the
/// same for both.
#[derive(Debug, Default, Clone, Copy)]
pub struct Stopping {
    first: Option<Stop>,
}

/// What a stopping signal asks of the command that heard it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Heard {
    /// The first signal: cancel gracefully, keeping what was measured.
    Cancel(Stop),
    /// A second one: stop at once. The exit status stays the first signal's.
    AtOnce {
        /// The signal that cancelled.
        first: Stop,
        /// The signal that arrived again.
        again: Stop,
    },
}

impl Stopping {
    /// Takes `stop` in: the first cancels, any later one stops at once.
    pub fn hear(&mut self, stop: Stop) -> Heard {
        match self.first {
            Some(first) => Heard::AtOnce { first, again: stop },
            None => {
                self.first = Some(stop);
                Heard::Cancel(stop)
            }
        }
    }

    /// The signal that cancelled, if one arrived.
    pub fn first(&self) -> Option<Stop> {
        self.first
    }
}

impl Heard {
    /// What a second signal prints, before the command stops at once.
    pub fn at_once_note(again: Stop) -> String {
        format!("knotmeter: {again} again: stopped at once")
    }
}

/// The exit status of a process stopped by `stop`: 128 + the signal's number.
pub fn exit_status(stop: Stop) -> u8 {
    (128 + stop.0 as i32).clamp(0, 255) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_follow_the_shells_convention() {
        assert_eq!(exit_status(Stop(Signal::SIGINT)), 130);
        assert_eq!(exit_status(Stop(Signal::SIGTERM)), 143);
        assert_eq!(exit_status(Stop(Signal::SIGHUP)), 129);
    }

    #[test]
    fn the_first_signal_cancels_and_any_later_one_stops_at_once_with_the_first_status() {
        let mut stopping = Stopping::default();
        let (int, term) = (Stop(Signal::SIGINT), Stop(Signal::SIGTERM));
        assert_eq!(stopping.hear(term), Heard::Cancel(term));
        assert_eq!(
            stopping.hear(int),
            Heard::AtOnce {
                first: term,
                again: int
            }
        );
        assert_eq!(stopping.first(), Some(term));
    }
}
