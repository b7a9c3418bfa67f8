//! knotmeter-server-builds: two builds of a workspace (two git revisions, or one and the
//! working tree) built in their own worktrees and target directories and measured side by side,
//! round by round, each round a fresh pair of bench binaries driven case by case (the engine's
//! `--driven` mode): `knotmeter compare [REV] [PATH] [FILTER]`, "is my change faster?", and the
//! editor's "Compare with base". It reports through steps and events and never prints (a lint
//! makes that a compile error). The paired statistics and the verdicts stay in the engine.
//!
//! 1. **Sides** (`sides`): the head is the working tree (or `--head REV`); the base is REV, or
//!    `HEAD` when the tree has uncommitted changes, or the merge base with the upstream
//!    branch. A commit other than the working tree is checked out in a git worktree under
//!    `<target dir>/knotmeter/compare/<commit>`, kept for the next comparison.
//! 2. **Builds** (`build`): `cargo bench --no-run` on each side, with the same profile and
//!    flags. The head builds in its own target directory; the base in one of its own under it
//!    (`<target dir>/knotmeter/compare/target`), shared by every base commit so its
//!    dependencies are built once: in one directory, cargo would take one side's executable for
//!    the other's (it names a workspace crate's artifacts by its path relative to the workspace
//!    root). A base that does not build, or whose knotmeter predates driven mode, is no loss
//!    for the head: its cases are measured on their own, stored in the history as a run, and
//!    shown with why the base could not be compared.
//! 3. **Measuring** (`measure`): per bench target, one binary of each side in driven mode;
//!    the head measures each case against the base's, the orchestrator carrying one request at
//!    a time, so the processes never measure at the same moment. Both are pinned to one CPU.
//! 4. **Verdicts** (`finalize`): one head binary corrects every estimate together
//!    (Benjamini–Hochberg) and decides the verdicts in the engine's one verdict function, then
//!    stores the comparison in the history with both commits named.
//! 5. **Output** (`render`): a table or a pull-request comment, laid out from
//!    `knotmeter_format::compared`.
//!
//! Steps 1 to 4 are one pipeline ([`pipeline`]), reported as steps and never printed here: the
//! command line (the server's `headless::compare`, with its signals, its output and
//! `--fail-on-regression`) and the editor's comparison run ([`execute_job`]) both follow it,
//! each showing the steps its own way. When the base cannot be compared with, both measure the
//! head's cases on their own ([`head_alone`]).
//!
//! The server never links the engine: everything measured or decided comes from the bench
//! binaries through the protocol (`knotmeter_protocol::DrivenCommand`, `DrivenEvent`).

#![deny(missing_docs)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod args;
mod binary;
mod build;
mod finalize;
mod git;
pub mod head_alone;
mod job;
mod measure;
mod pin;
pub mod pipeline;
pub mod render;
mod sides;

pub use args::{BuildsArgs, BuildsFormat, BuildsRequest, MeasureArg, Profiler, Words};
pub use build::{reserve, BuildCancelled};
pub use job::execute_job;
pub use measure::MeasureEvent;
pub use sides::{resolve, Sides};

use knotmeter_server_discovery::discovery;
use knotmeter_server_process::process;
use knotmeter_server_runs::{cargo_build, runs};
