//! knotmeter-server-builds: `knotmeter compare`, two builds of a workspace (two git revisions,
//! or one and the working tree) built in their own worktrees and target directories and
//! measured side by side, round by round, each round a fresh pair of bench binaries driven
//! case by case (the engine's `--driven` mode). The CLI and the editor's session both start it
//! ([`compare::cli`], [`compare::execute_job`]); it reports through a sink and never through
//! stdout on the daemon's behalf. The paired statistics and the verdicts stay in the engine.

#![deny(missing_docs)]

pub mod compare;

use knotmeter_server_discovery::discovery;
use knotmeter_server_process::{process, signals};
use knotmeter_server_runs::{cargo_build, runs};
