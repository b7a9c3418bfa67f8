//! Running one harness invocation: its standard output with the time of each line, its wall
//! time, and its peak memory (through the `measured` wrapper of the comparisons workspace, which
//! waits for it with `wait4`).

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// One process to run: an executable, its arguments and extra environment.
#[derive(Debug, Clone)]
pub(crate) struct Invocation {
    pub(crate) exe: PathBuf,
    pub(crate) args: Vec<String>,
    pub(crate) env: Vec<(String, String)>,
    /// Exit codes that are answers rather than failures (tango's `compare` exits with 1 when it
    /// finds a regression; zenbench's confirmation with 1 or 2).
    pub(crate) answer_codes: Vec<i32>,
    /// The working directory, when not the xtask's own (zenbench keeps its baselines in
    /// `.zenbench/` under it).
    pub(crate) cwd: Option<PathBuf>,
}

impl Invocation {
    /// `exe` with `args`, in the xtask's environment and working directory.
    pub(crate) fn new(exe: &Path, args: &[&str]) -> Invocation {
        Invocation {
            exe: exe.to_owned(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            env: Vec::new(),
            answer_codes: Vec::new(),
            cwd: None,
        }
    }

    /// Accepts exit code `code` as an answer.
    pub(crate) fn answer_code(mut self, code: i32) -> Invocation {
        self.answer_codes.push(code);
        self
    }

    /// Runs the process in `dir`.
    pub(crate) fn cwd(mut self, dir: &Path) -> Invocation {
        self.cwd = Some(dir.to_owned());
        self
    }

    /// Sets environment variable `key` to `value` for the process.
    pub(crate) fn env(mut self, key: &str, value: impl Into<String>) -> Invocation {
        self.env.push((key.to_owned(), value.into()));
        self
    }

    /// The command line, for error messages and the doc: the bench target's name without
    /// cargo's hash, paths relative to the repository.
    pub(crate) fn display(&self) -> String {
        let name = self
            .exe
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let name = match name.rsplit_once('-') {
            Some((target, hash)) if hash.chars().all(|c| c.is_ascii_hexdigit()) => {
                target.to_owned()
            }
            _ => name,
        };
        let root = format!("{}/", crate::cargo::root().display());
        let env: String = self
            .env
            .iter()
            .map(|(k, v)| format!("{k}={} ", v.replace(&root, "")))
            .collect();
        let cd = self.cwd.as_ref().map_or(String::new(), |dir| {
            format!("cd {} && ", dir.display().to_string().replace(&root, ""))
        });
        format!("{cd}{env}{name} {}", self.args.join(" "))
    }
}

/// What one invocation did.
#[derive(Debug, Clone)]
pub(crate) struct Outcome {
    /// Standard output, with ANSI escapes and carriage returns removed.
    pub(crate) stdout: String,
    /// Standard error, as written.
    pub(crate) stderr: String,
    /// From spawning to the end of the process, in seconds.
    pub(crate) wall_s: f64,
    /// From spawning to the first line that `is_result` accepted, in seconds.
    pub(crate) first_result_s: Option<f64>,
    /// Peak resident set of the process (or of its largest descendant), in KiB.
    pub(crate) max_rss_kib: u64,
}

/// Runs `invocation` under the `measured` wrapper and waits for it.
pub(crate) fn run(
    measured: &Path,
    scratch: &Path,
    invocation: &Invocation,
    is_result: &dyn Fn(&str) -> bool,
) -> Result<Outcome, String> {
    let report = scratch.join("measured.report");
    let _ = std::fs::remove_file(&report);
    let started = Instant::now();
    let mut command = Command::new(measured);
    if let Some(dir) = &invocation.cwd {
        command.current_dir(dir);
    }
    let mut child = command
        .arg(&report)
        .arg("--")
        .arg(&invocation.exe)
        .args(&invocation.args)
        .envs(invocation.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", measured.display()))?;
    let mut stderr = child.stderr.take().expect("piped");
    let stderr_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let mut stdout = String::new();
    let mut first_result_s = None;
    for line in BufReader::new(child.stdout.take().expect("piped")).lines() {
        let Ok(line) = line else { break };
        let line = strip_ansi(&line);
        if first_result_s.is_none() && is_result(&line) {
            first_result_s = Some(started.elapsed().as_secs_f64());
        }
        stdout.push_str(&line);
        stdout.push('\n');
    }
    let status = child
        .wait()
        .map_err(|e| format!("cannot wait for {}: {e}", invocation.display()))?;
    let wall_s = started.elapsed().as_secs_f64();
    let stderr = stderr_reader.join().unwrap_or_default();
    let answer = status
        .code()
        .is_some_and(|c| invocation.answer_codes.contains(&c));
    if !status.success() && !answer {
        return Err(format!(
            "`{}` failed ({status}):\n{}\n{}",
            invocation.display(),
            tail(&stdout),
            tail(&stderr)
        ));
    }
    let report = std::fs::read_to_string(&report).map_err(|e| {
        format!(
            "`measured` wrote no report for `{}`: {e}",
            invocation.display()
        )
    })?;
    let max_rss_kib = report
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| format!("`measured` wrote a report without a peak: {report}"))?;
    Ok(Outcome {
        stdout,
        stderr,
        wall_s,
        first_result_s,
        max_rss_kib,
    })
}

/// Removes ANSI escape sequences (CSI `ESC [ … letter`) and carriage returns.
pub(crate) fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => {
                if chars.peek() == Some(&'[') {
                    chars.next();
                    for c in chars.by_ref() {
                        if c.is_ascii_alphabetic() {
                            break;
                        }
                    }
                }
            }
            '\r' => {}
            c => out.push(c),
        }
    }
    out
}

fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::strip_ansi;

    #[test]
    fn strips_colours_and_line_clears() {
        assert_eq!(
            strip_ansi("\r\u{1b}[2Kaa   [ 9.8 us ... \u{1b}[31m8.3 us\u{1b}[0m ]"),
            "aa   [ 9.8 us ... 8.3 us ]"
        );
    }
}
