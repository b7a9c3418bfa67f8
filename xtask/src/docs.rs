//! Writing measured figures into `docs/`: each xtask owns one section of a page, between two
//! markers, and rewrites only that section.

use std::path::Path;

/// Replaces the section of `path` between `begin` and `end` (markers `section` starts and ends
/// with) by `section`, or appends it when the page has none; the rest of the page is kept. A
/// missing page starts as `new_page`.
pub(crate) fn write_section(
    path: &Path,
    (begin, end): (&str, &str),
    section: &str,
    new_page: &str,
) -> Result<(), String> {
    let existing = std::fs::read_to_string(path).unwrap_or_else(|_| new_page.to_owned());
    let updated = match (existing.find(begin), existing.find(end)) {
        (Some(b), Some(e)) if b < e => format!(
            "{}{}{}",
            &existing[..b],
            section.trim_end(),
            &existing[e + end.len()..]
        ),
        _ => format!("{}\n\n{}", existing.trim_end(), section),
    };
    std::fs::write(path, updated).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// What `command` (a shell command: `date -u '+%H:%M'`, `getconf CLK_TCK`) printed, trimmed:
/// the dates and machine facts a section states.
pub(crate) fn shell(command: &str) -> Result<String, String> {
    let out = std::process::Command::new("sh")
        .args(["-c", command])
        .output()
        .map_err(|e| format!("cannot run `{command}`: {e}"))?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// The machine's load averages over 1, 5 and 15 minutes, as `/proc/loadavg` gives them.
pub(crate) fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

/// The flags of a command that measures `--runs N` times and, with `--write`, writes its
/// section: the runs (`default` without the flag, at least `least`) and whether to write; an
/// error with `usage` for anything else.
pub(crate) fn runs_and_write(
    args: &[String],
    default: usize,
    least: usize,
    usage: &str,
) -> Result<(usize, bool), String> {
    let (mut runs, mut write) = (default, false);
    let mut args = args.iter();
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--write" => write = true,
            "--runs" => {
                let value = args.next().ok_or(usage)?;
                runs = value
                    .parse::<usize>()
                    .map_err(|_| format!("--runs takes a number, not {value}"))?
                    .max(least);
            }
            _ => return Err(usage.into()),
        }
    }
    Ok((runs, write))
}

/// When and where a section's runs were measured, as the section states it.
pub(crate) struct Sitting {
    pub(crate) runs: usize,
    pub(crate) date: String,
    pub(crate) commit: String,
    pub(crate) cpu: String,
    pub(crate) cores: String,
    pub(crate) load_at_start: String,
    pub(crate) load_at_end: String,
}

impl Sitting {
    /// The facts at the start of `runs` runs; an error when one cannot be read.
    pub(crate) fn begin(runs: usize) -> Result<Self, String> {
        Ok(Self {
            runs,
            date: shell("date -u '+%Y-%m-%d %H:%M UTC'")?,
            commit: shell("git rev-parse --short HEAD")?,
            cpu: shell("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2")?,
            cores: shell("nproc")?,
            load_at_start: loadavg(),
            load_at_end: String::new(),
        })
    }

    /// How a section opens: `Measured with `COMMAND` at commit `…`, DATE, on CPU × CORES (load
    /// average … at the start, … at the end)`; the section goes on from there.
    pub(crate) fn measured_with(&self, command: &str) -> String {
        format!(
            "Measured with `{command}` at commit `{}`, {}, on {} × {} (load average {} at the \
             start, {} at the end)",
            self.commit, self.date, self.cpu, self.cores, self.load_at_start, self.load_at_end
        )
    }

    /// The same, with the load average once the runs are over.
    pub(crate) fn end(self) -> Self {
        Self {
            load_at_end: loadavg(),
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::write_section;

    #[test]
    fn a_section_is_replaced_in_place_or_appended_and_the_rest_kept() {
        let dir = tempfile_dir();
        let page = dir.join("page.md");
        let markers = ("<!-- b -->", "<!-- e -->");
        write_section(
            &page,
            markers,
            "<!-- b -->\none\n<!-- e -->\n",
            "# Page\n\nhand text\n",
        )
        .unwrap();
        std::fs::write(
            &page,
            std::fs::read_to_string(&page).unwrap() + "\n\nafter\n",
        )
        .unwrap();
        write_section(&page, markers, "<!-- b -->\ntwo\n<!-- e -->\n", "unused").unwrap();
        assert_eq!(
            std::fs::read_to_string(&page).unwrap(),
            "# Page\n\nhand text\n\n<!-- b -->\ntwo\n<!-- e -->\n\n\nafter\n"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    fn tempfile_dir() -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("xtask-docs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}
