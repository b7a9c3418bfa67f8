//! knotmeter-server-runs: building bench binaries with cargo (compiler errors as structure) and
//! running them, one job at a time, their machine stream read as protocol events and forwarded
//! through a sink, with the history read back for what was stored. It serves the session and the
//! headless commands alike and knows neither: no LSP type, no terminal. Its children start
//! through knotmeter-server-process; the benchmarks it builds and runs are discovery's.

#![deny(missing_docs)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod cargo_build;
pub mod runs;
pub mod stored;

use knotmeter_server_discovery::discovery;
use knotmeter_server_process::process;
