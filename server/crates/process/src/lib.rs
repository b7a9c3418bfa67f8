//! knotmeter-server-process: the daemon's one way to start a child process (in a process group
//! of its own, killed with the daemon whatever ends it) and the signals that stop `knotmeter run`
//! and `knotmeter serve`. It knows nothing of cargo, bench binaries or editors: the rooms above it
//! (building, running, two-build comparisons, the session) start their children through it.

#![deny(missing_docs)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod process;
pub mod signals;
