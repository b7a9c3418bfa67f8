//! knotmeter-server: the daemon behind `knotmeter serve`, and the `run`, `list`, `history`,
//! `compare` and `profile` commands that use the same pipeline without an editor.
//!
//! ```text
//! editor ──LSP + knotmeter/* over stdio──▶ lsp (forwards) ──▶ session (owns all state)
//!                                                              │  discovery: cargo metadata + syn, no build
//!                                                              │  watch: notify, debounced
//!                                                              │  runs: one job at a time:
//!                                                              │    cargo_build (cargo bench --no-run)
//!                                                              │    bench binary --format jsonl --exact ids
//!                                                              ▼
//!                                                   knotmeter/runState, output, runEnd,
//!                                                   code lenses, inlay hints, hovers, diagnostics
//! ```
//!
//! This crate holds the session, the LSP front end and the headless commands; the rest lives in
//! five rooms it re-exports, each a crate with one job that may use only the rooms below it:
//! knotmeter-server-process (`process`, `signals`), knotmeter-server-discovery (`discovery`,
//! `watch`), knotmeter-server-runs (`cargo_build`, `runs`, `stored`),
//! knotmeter-server-builds (`compare`, two builds) and knotmeter-server-profile (`profile`, one
//! case's timed region under callgrind).
//!
//! The daemon never links the measurement engine: it reads the bench binaries' output through
//! the protocol crate's types. Its stdout is the protocol; logs go through `tracing` to
//! standard error or a file.

#![deny(missing_docs)]

pub mod cli;
pub mod headless;
pub mod lsp;
pub mod session;
pub mod terminal;

pub use knotmeter_server_builds as builds;
pub use knotmeter_server_discovery::{discovery, watch};
pub use knotmeter_server_process::{process, signals};
pub use knotmeter_server_profile as profile;
pub use knotmeter_server_runs::{cargo_build, runs, stored};

use std::process::ExitCode;

use anyhow::Context;

/// Runs the command line: the body of `knotmeter`'s `main`.
pub fn main(cli: cli::Cli) -> anyhow::Result<ExitCode> {
    init_logging(cli.log_file.as_deref())?;
    match cli.command {
        cli::Command::Serve => serve(),
        cli::Command::Run(args) => headless::run(args),
        cli::Command::List(args) => headless::list(args),
        cli::Command::History(args) => headless::history(args),
        cli::Command::Compare(args) => headless::compare(args),
        cli::Command::Profile(args) => headless::profile(args),
    }
}

/// How long `knotmeter serve` waits, after SIGINT or SIGTERM, for the run in progress to
/// stop at a sample boundary before it kills everything and exits (the session's own cancel
/// grace kills the bench binary sooner; this bounds the whole stop).
const STOP_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// How long a stopped daemon keeps writing its last notifications to the client.
const FLUSH_WAIT: std::time::Duration = std::time::Duration::from_millis(300);

/// `knotmeter serve`: LSP on stdin and stdout until `exit` (or the end of stdin), or a
/// signal. Exit status: 0 after `shutdown` and `exit`, 1 when the client ended without
/// `shutdown` (LSP's rule), 128 + the signal's number after SIGINT, SIGTERM or SIGHUP: the
/// run in progress is cancelled gracefully and every child killed; a second signal ends at once.
fn serve() -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let lifeline = session::Lifeline::default();
    let children = lifeline.children.clone();
    let code = runtime.block_on(async {
        let mut signals = signals::Signals::new()?;
        let serving =
            lsp::transport::serve(tokio::io::stdin(), tokio::io::stdout(), lifeline.clone());
        tokio::pin!(serving);
        let code = tokio::select! {
            ended = &mut serving => ended.exit_code(),
            signal = signals.next() => {
                tracing::info!("{signal}: stopping");
                lifeline.stop.cancel();
                // The server keeps running meanwhile: the session's notifications (the run's
                // end) go out through it, and its last ones get a moment to reach the client.
                let stopped = async {
                    lifeline.stopped.cancelled().await;
                    tokio::time::sleep(FLUSH_WAIT).await;
                };
                tokio::select! {
                    _ = stopped => {}
                    _ = &mut serving => {}
                    again = signals.next() => tracing::info!("{again} again: stopping at once"),
                    _ = tokio::time::sleep(STOP_WAIT) => {}
                }
                children.kill_all();
                signals::exit_status(signal)
            }
        };
        anyhow::Ok(code)
    })?;
    // Nothing may outlive the daemon, whichever way it ends.
    children.kill_all();
    // Do not wait for blocked reads of stdin in the runtime's threads.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    Ok(ExitCode::from(code))
}

/// Logs to standard error, or to `file`; never to standard output. `KNOTMETER_LOG` (or
/// `RUST_LOG`) sets the filter as comma-separated `target=level` or `level` directives
/// (`knotmeter_server=debug,warn`), `warn` by default; a filter that does not parse is said
/// in the log and replaced by the default. Colour only on a terminal, and never when
/// `NO_COLOR` is set (see [`colour_on_stderr`]).
fn init_logging(file: Option<&std::path::Path>) -> anyhow::Result<()> {
    use tracing_subscriber::filter::{LevelFilter, Targets};
    use tracing_subscriber::prelude::*;
    let spec = ["KNOTMETER_LOG", "RUST_LOG"]
        .iter()
        .find_map(|name| std::env::var(name).ok().filter(|v| !v.trim().is_empty()));
    let parsed = spec.as_deref().map(str::parse::<Targets>);
    let filter = match &parsed {
        Some(Ok(targets)) => targets.clone(),
        _ => Targets::new().with_default(LevelFilter::WARN),
    };
    let layer = tracing_subscriber::fmt::layer();
    match file {
        Some(path) => {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .with_context(|| format!("cannot open the log file {}", path.display()))?;
            let layer = layer
                .with_ansi(false)
                .with_writer(std::sync::Mutex::new(file));
            tracing_subscriber::registry()
                .with(layer.with_filter(filter))
                .init();
        }
        None => {
            let layer = layer
                .with_ansi(colour_on_stderr())
                .with_writer(std::io::stderr);
            tracing_subscriber::registry()
                .with(layer.with_filter(filter))
                .init();
        }
    }
    if let (Some(spec), Some(Err(error))) = (&spec, &parsed) {
        tracing::warn!("the log filter {spec:?} does not parse ({error}); logging warnings only");
    }
    Ok(())
}

/// Whether the daemon's own messages on standard error may carry colour codes: never when
/// `NO_COLOR` is set (to anything but the empty string), else as `CARGO_TERM_COLOR` says
/// (`always`, `never`), else only on a terminal. The bench binary's `--color auto` follows the
/// same rule.
pub fn colour_on_stderr() -> bool {
    use std::io::IsTerminal;
    colour_choice(
        std::env::var("CARGO_TERM_COLOR").ok().as_deref(),
        std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
        std::io::stderr().is_terminal(),
    )
}

/// The colour rule of [`colour_on_stderr`], over its inputs: `CARGO_TERM_COLOR` (`always`,
/// `never`, or anything else for automatic), whether `NO_COLOR` is set, and whether the
/// stream is a terminal.
pub fn colour_choice(cargo_term_color: Option<&str>, no_color: bool, terminal: bool) -> bool {
    if no_color {
        return false;
    }
    match cargo_term_color {
        Some("always") => true,
        Some("never") => false,
        _ => terminal,
    }
}

#[cfg(test)]
mod tests {
    use super::colour_choice;

    #[test]
    fn log_colour_follows_cargo_term_color_and_no_color() {
        // (CARGO_TERM_COLOR, NO_COLOR set, stderr is a terminal) -> colour
        let cases = [
            (None, false, true, true),
            (None, false, false, false),
            (None, true, true, false),
            (Some("never"), false, true, false),
            (Some("always"), false, false, true),
            (Some("always"), true, true, false),
        ];
        for (cargo, no_color, terminal, expected) in cases {
            assert_eq!(colour_choice(cargo, no_color, terminal), expected);
        }
    }
}
