//! `knotmeter`: the daemon (`serve`) and the terminal commands (`run`, `list`, `history`).

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = knotmeter_server::cli::Cli::parse();
    match knotmeter_server::main(cli) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("knotmeter: {error}");
            for cause in error.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            ExitCode::from(2)
        }
    }
}
