//! Building targets with cargo and finding their executables.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root (the parent of `xtask/`).
pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the repository")
        .to_owned()
}

/// The cargo that runs this xtask (`CARGO`), or `cargo` from `PATH`.
pub(crate) fn program() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

/// Runs `command` (a cargo command) with `args` in the repository root; its output, or an error
/// naming the command with what cargo said on standard error.
pub(crate) fn run(command: &mut Command, args: &[&str]) -> Result<Output, String> {
    let out = command
        .args(args)
        .current_dir(root())
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo {} failed:\n{}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(out)
}

/// Builds with `cargo <args> --message-format=json` and returns the executables cargo reports,
/// as `(target name, path)`.
pub(crate) fn build(args: &[&str]) -> Result<Vec<(String, PathBuf)>, String> {
    let args = [args, &["--message-format=json"]].concat();
    let out = run(&mut Command::new(program()), &args)?;
    let mut executables = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if message["reason"] == "compiler-artifact" {
            if let Some(path) = message["executable"].as_str() {
                let name = message["target"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
                executables.push((name, PathBuf::from(path)));
            }
        }
    }
    Ok(executables)
}

/// The executable of target `name` among `executables`.
pub(crate) fn find(executables: &[(String, PathBuf)], name: &str) -> Result<PathBuf, String> {
    executables
        .iter()
        .find(|(target, _)| target == name)
        .map(|(_, path)| path.clone())
        .ok_or_else(|| format!("cargo built no executable named `{name}`"))
}
