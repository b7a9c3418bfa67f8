//! knotmeter-server-builds: `knotmeter compare`, two builds of a workspace (two git revisions,
//! or one and the working tree) built in their own worktrees and target directories and
//! measured side by side, round by round, each round a fresh pair of bench binaries driven
//! case by case (the engine's `--driven` mode). The command line and the editor's session both
//! follow its one pipeline ([`compare::pipeline`], [`compare::execute_job`]); it reports
//! through steps and events and never prints (a lint makes that a compile error). The paired
//! statistics and the verdicts stay in the engine.

#![deny(missing_docs)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod compare;

use knotmeter_server_discovery::discovery;
use knotmeter_server_process::process;
use knotmeter_server_runs::{cargo_build, runs};
