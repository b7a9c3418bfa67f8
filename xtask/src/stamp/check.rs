//! The check `cargo test` runs on every generated section of `docs/`: its figures must be of the
//! code at HEAD, as far as the paths they depend on go (`sections.rs`).

use std::path::Path;

use super::sections::Section;
#[cfg(test)]
use super::sections::SECTIONS;
use super::{block, git, read, short};

/// Commits a failure lists, at most.
const LISTED: usize = 5;
/// Characters of a commit's subject a failure shows, at most.
const SUBJECT: usize = 100;

/// Whether the figures of `section`, in the repository at `root`, are of the code at HEAD: `Ok`
/// when its stamp names a commit of HEAD's history and no commit since changed a path the
/// section depends on. Otherwise an error that names the page, the section, the stamp's commit,
/// the commits since that changed its dependencies (at most five, short hash and subject) and
/// the command that measures it again; or, when it cannot be told, why (git cannot run, `root`
/// is not in a repository, a shallow clone lacks the stamp's commit: CI clones the whole
/// history, so this fails too, saying to fetch it).
///
/// Only commits count: an uncommitted change is caught when a writer refuses to stamp over it,
/// and by this check once it is committed.
pub(super) fn check(root: &Path, section: &Section) -> Result<(), String> {
    let at = format!("{}, section `xtask {}`", section.page, section.name);
    match stale(root, section) {
        Ok(None) => Ok(()),
        Ok(Some(why)) => Err(format!(
            "{at}: {why}\n  Measure it again on a clean tree, then commit the page on its own: `{}`",
            section.command
        )),
        Err(e) => Err(format!("{at}: cannot be checked: {e}")),
    }
}

/// Why the section's figures may not be of HEAD's code, or `None`; an error when it cannot be
/// told.
fn stale(root: &Path, section: &Section) -> Result<Option<String>, String> {
    git::head(root)?;
    let page = std::fs::read_to_string(root.join(section.page))
        .map_err(|e| format!("cannot read {}: {e}", section.page))?;
    let Some(block) = block(&page, section) else {
        return Ok(Some(format!(
            "the page has no such section (`{}` … `{}`)",
            section.begin(),
            section.end()
        )));
    };
    let commit = match read(block) {
        Ok(Some(commit)) => commit,
        Ok(None) => {
            return Ok(Some(format!(
                "it has no stamp (`{}` after the begin marker): nothing says which code its \
                 figures are of",
                super::line("<commit>")
            )))
        }
        Err(why) => return Ok(Some(why)),
    };
    if !git::output(root, &["cat-file", "-e", &format!("{commit}^{{commit}}")])?
        .status
        .success()
    {
        if git::run(root, &["rev-parse", "--is-shallow-repository"])? == "true" {
            return Err(format!(
                "its stamp names commit {commit}, which this clone does not have; the clone is \
                 shallow (`git rev-parse --is-shallow-repository` says true), so the commit may \
                 exist upstream. Fetch the whole history (`git fetch --unshallow`) and run the \
                 tests again"
            ));
        }
        return Ok(Some(format!(
            "its stamp names commit {commit}, which does not exist in this repository (rebased \
             away, or never committed)"
        )));
    }
    let ancestor = git::output(root, &["merge-base", "--is-ancestor", commit, "HEAD"])?;
    match ancestor.status.code() {
        Some(0) => {}
        Some(1) => {
            return Ok(Some(format!(
                "its stamp names commit {}, which is not in HEAD's history (another branch, or a \
                 commit since rebased): its figures are of code HEAD may not have",
                short(commit)
            )))
        }
        _ => return Err(String::from_utf8_lossy(&ancestor.stderr).trim().to_owned()),
    }
    let range = format!("{commit}..HEAD");
    let args = [
        &["log", "--format=%h %s", &range, "--"],
        &section.paths()[..],
    ]
    .concat();
    let since = git::run(root, &args)?;
    let since: Vec<&str> = since.lines().collect();
    if since.is_empty() {
        return Ok(None);
    }
    let mut why = format!(
        "measured at {} (its stamp), and {} commit{} since changed what its figures depend on \
         (its paths in xtask/src/stamp/sections.rs):",
        short(commit),
        since.len(),
        if since.len() == 1 { "" } else { "s" }
    );
    for entry in since.iter().take(LISTED) {
        why += &format!("\n    {}", truncated(entry));
    }
    if since.len() > LISTED {
        why += &format!(
            "\n    … and {} more (`git log --oneline {}..HEAD -- <its paths>`)",
            since.len() - LISTED,
            short(commit)
        );
    }
    Ok(Some(why))
}

/// `line` cut to [`SUBJECT`] characters, with `…` when cut.
fn truncated(line: &str) -> String {
    match line.char_indices().nth(SUBJECT) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_owned(),
    }
}

/// The repository root.
#[cfg(test)]
fn root() -> std::path::PathBuf {
    crate::cargo::root()
}

#[test]
fn every_generated_section_of_docs_is_of_the_code_at_head() {
    let failures: Vec<String> = SECTIONS
        .iter()
        .filter_map(|section| check(&root(), section).err())
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} generated sections of docs/ may not be of the code at HEAD (xtask/src/stamp/):\n\n{}\n",
        failures.len(),
        SECTIONS.len(),
        failures.join("\n\n")
    );
}

#[test]
fn every_generated_section_of_docs_is_in_the_table() {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(root().join("docs")).unwrap().flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "md") {
            let text = std::fs::read_to_string(&path).unwrap();
            for line in text.lines() {
                if let Some(name) = line
                    .trim()
                    .strip_prefix("<!-- xtask ")
                    .and_then(|l| l.strip_suffix(": begin -->"))
                {
                    let page = path.strip_prefix(root()).unwrap().display().to_string();
                    found.push((page, name.to_owned()));
                }
            }
        }
    }
    found.sort();
    let mut declared: Vec<(String, String)> = SECTIONS
        .iter()
        .map(|s| (s.page.to_owned(), s.name.to_owned()))
        .collect();
    declared.sort();
    assert_eq!(
        found, declared,
        "the generated sections of docs/ (left) and xtask/src/stamp/sections.rs (right) differ"
    );
}

#[test]
fn every_path_a_section_depends_on_exists() {
    let missing: Vec<String> = SECTIONS
        .iter()
        .flat_map(|s| s.paths().into_iter().map(move |p| (s.name, p)))
        .filter(|(_, path)| !root().join(path).exists())
        .map(|(name, path)| format!("{name}: {path}"))
        .collect();
    assert!(
        missing.is_empty(),
        "paths in xtask/src/stamp/sections.rs that do not exist (renamed? a section would miss \
         their changes): {missing:?}"
    );
}

/// Every file of `protocol/src` is a dependency of the engine's sections, or one of the files
/// a bench binary never compiles (the editor's methods, which the daemon's sections have; the
/// TypeScript generator, a test): a file added to the protocol is not missed.
#[test]
fn protocol_files_are_all_placed() {
    use super::sections::{ENGINE, SERVER};
    let apart = ["protocol/src/editor.rs", "protocol/src/typescript.rs"];
    let unplaced: Vec<String> = std::fs::read_dir(root().join("protocol/src"))
        .expect("protocol/src")
        .map(|entry| {
            format!(
                "protocol/src/{}",
                entry.expect("entry").file_name().to_string_lossy()
            )
        })
        .filter(|path| !ENGINE.contains(&path.as_str()) && !apart.contains(&path.as_str()))
        .collect();
    assert!(
        unplaced.is_empty(),
        "files of protocol/src in no section's dependencies (add them to ENGINE in \
         xtask/src/stamp/sections.rs): {unplaced:?}"
    );
    assert!(SERVER.contains(&"protocol/src/editor.rs"));
}
