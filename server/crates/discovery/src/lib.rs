//! knotmeter-server-discovery: which benchmarks a workspace holds, read from its manifests
//! (`cargo metadata`) and its sources (`syn`) without building anything, and a watch on those
//! sources that reports changes made outside the editor. It starts no build and runs nothing:
//! building and running are the runs room's (knotmeter-server-runs), and what the editor holds
//! open is the session's.

#![deny(missing_docs)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod discovery;
pub mod watch;
