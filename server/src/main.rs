//! `knotmeter`: the daemon (`serve`) and the terminal commands (`run`, `list`, `history`).

// Holds no test (they are the library's): keeps the libtest build of this binary that `cargo
// test --all-targets` makes empty, instead of a second link of the whole daemon.
#![cfg(not(test))]

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = knotmeter_server::cli::Cli::parse();
    match knotmeter_server::main(cli) {
        Ok(code) => code,
        Err(error) => {
            // `knotmeter list | head`: the reader left; that is not an error.
            let broken_pipe = error
                .downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe);
            if broken_pipe {
                return ExitCode::SUCCESS;
            }
            eprintln!("knotmeter: {error}");
            for cause in error.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            ExitCode::from(2)
        }
    }
}
