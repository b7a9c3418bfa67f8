//! The stamp and the check on git repositories of the tests' own (under the target directory):
//! a section is measured through the writers' path (`take_at`, `seal`, `docs::write_section`),
//! commits follow, and the check must pass or fail.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::check::check;
use super::sections::{Measures, Section};
use super::{line, read, short, take_at};

/// A section of the test repositories: `docs/page.md`, depending on `src` and `Cargo.toml`.
const DEMO: Section = Section {
    page: "docs/page.md",
    name: "demo",
    command: "cargo xtask demo",
    measures: Measures::WorkingTree,
    depends_on: &[&["src", "Cargo.toml"]],
};

/// The same section, measured on fresh clones.
const CLONED: Section = Section {
    measures: Measures::Clones,
    ..DEMO
};

/// A git repository of one test, under the target directory; removed when dropped.
struct Repo(PathBuf);

impl Repo {
    /// A repository with one commit, "the code": `src/lib.rs`, `Cargo.toml` and `docs/page.md`,
    /// whose section holds figures with no stamp.
    fn new(test: &str) -> Repo {
        let repo = Repo::empty(test);
        repo.git(&["init", "-q", "-b", "main"]);
        repo.write("src/lib.rs", "pub fn work() {}\n");
        repo.write("Cargo.toml", "[package]\n");
        repo.write(
            "docs/page.md",
            "# Page\n\n<!-- xtask demo: begin -->\nold figures\n<!-- xtask demo: end -->\n\nhand\n",
        );
        repo.commit("the code");
        repo
    }

    /// A fresh directory for `test` (with this process's id: test runs may overlap).
    fn empty(test: &str) -> Repo {
        let exe = std::env::current_exe().unwrap();
        let target = exe
            .ancestors()
            .find(|d| d.join("CACHEDIR.TAG").is_file())
            .map_or_else(|| crate::cargo::root().join("target"), Path::to_owned);
        let dir = target
            .join("xtask-stamp")
            .join(format!("{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Repo(dir)
    }

    fn write(&self, path: &str, text: &str) {
        let path = self.0.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// Commits everything; the new commit's full hash.
    fn commit(&self, message: &str) -> String {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message]);
        self.git(&["rev-parse", "HEAD"])
    }

    /// Runs git with no configuration but the test's own, and returns its trimmed output.
    fn git(&self, args: &[&str]) -> String {
        let out = Command::new("git")
            .args([
                "-c",
                "user.name=test",
                "-c",
                "user.email=test@example.invalid",
            ])
            .args(["-c", "commit.gpgsign=false"])
            .args(args)
            .current_dir(&self.0)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    }

    /// Measures the section as a writer does: the stamp before, the sealed text written after.
    fn measure(&self, section: &'static Section, figures: &str) -> Result<(), String> {
        let stamp = take_at(&self.0, section)?;
        let text = format!("{}\n{figures}\n{}\n", section.begin(), section.end());
        let text = stamp.seal(&text)?;
        crate::docs::write_section(
            &self.0.join(section.page),
            (&section.begin(), &section.end()),
            &text,
            "",
        )
    }

    fn check(&self) -> Result<(), String> {
        check(&self.0, &DEMO)
    }

    fn page(&self) -> String {
        std::fs::read_to_string(self.0.join(DEMO.page)).unwrap()
    }
}

impl Drop for Repo {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn a_section_measured_and_then_committed_alone_passes_until_a_dependency_changes() {
    let repo = Repo::new("passes");
    let code = repo.git(&["rev-parse", "HEAD"]);
    repo.measure(&DEMO, "new figures").unwrap();
    let page = repo.page();
    assert!(
        page.contains(&format!(
            "<!-- xtask demo: begin -->\n{}\nnew figures\n",
            line(&code)
        )),
        "{page}"
    );
    repo.commit("docs: the figures");
    repo.check().unwrap();
    repo.write("docs/page.md", &(page + "more hand text\n"));
    repo.write("README.md", "not a dependency\n");
    repo.commit("docs and a README");
    repo.check().unwrap();

    repo.write("src/lib.rs", "pub fn work() { faster() }\n");
    let change = repo.commit("faster work");
    let err = repo.check().unwrap_err();
    for part in [
        "docs/page.md, section `xtask demo`",
        &format!("measured at {}", short(&code)),
        "1 commit since",
        &format!("\n    {}", &change[..7]),
        " faster work\n",
        "`cargo xtask demo`",
    ] {
        assert!(err.contains(part), "{part:?} not in:\n{err}");
    }
    assert!(!err.contains("docs and a README"), "{err}");
}

#[test]
fn a_failure_lists_five_commits_and_counts_the_rest() {
    let repo = Repo::new("five");
    repo.measure(&DEMO, "figures").unwrap();
    repo.commit("docs: the figures");
    for i in 1..=7 {
        repo.write("Cargo.toml", &format!("[package]\n# {i}\n"));
        repo.commit(&format!("manifest change {i}"));
    }
    let err = repo.check().unwrap_err();
    assert!(err.contains("7 commits since"), "{err}");
    assert!(
        err.contains("manifest change 7") && err.contains("manifest change 3"),
        "{err}"
    );
    assert!(!err.contains("manifest change 2"), "{err}");
    assert!(err.contains("… and 2 more"), "{err}");
}

#[test]
fn a_section_without_a_stamp_fails() {
    let repo = Repo::new("unstamped");
    let err = repo.check().unwrap_err();
    assert!(err.contains("it has no stamp"), "{err}");
    assert!(err.contains("`cargo xtask demo`"), "{err}");
}

#[test]
fn a_stamp_naming_a_missing_commit_fails() {
    let repo = Repo::new("missing");
    let missing = "0123456789abcdef0123456789abcdef01234567";
    repo.write(
        "docs/page.md",
        &format!(
            "<!-- xtask demo: begin -->\n{}\nfigures\n<!-- xtask demo: end -->\n",
            line(missing)
        ),
    );
    repo.commit("docs: a stamp from nowhere");
    let err = repo.check().unwrap_err();
    assert!(
        err.contains(&format!("commit {missing}, which does not exist")),
        "{err}"
    );
}

#[test]
fn a_stamp_off_the_history_of_head_fails() {
    let repo = Repo::new("off-history");
    repo.git(&["checkout", "-q", "-b", "side"]);
    repo.write("src/lib.rs", "pub fn work() { other() }\n");
    let side = repo.commit("other work");
    repo.git(&["checkout", "-q", "main"]);
    repo.write(
        "docs/page.md",
        &format!(
            "<!-- xtask demo: begin -->\n{}\nfigures\n<!-- xtask demo: end -->\n",
            line(&side)
        ),
    );
    repo.commit("docs: figures of the side branch");
    let err = repo.check().unwrap_err();
    assert!(err.contains("not in HEAD's history"), "{err}");
}

#[test]
fn a_shallow_clone_without_the_stamp_s_commit_says_it_is_shallow() {
    let repo = Repo::new("shallow");
    repo.measure(&DEMO, "figures").unwrap();
    repo.commit("docs: the figures");
    let clone = Repo::empty("shallow-clone");
    let url = format!("file://{}", repo.0.display());
    repo.git(&[
        "clone",
        "-q",
        "--depth",
        "1",
        &url,
        &clone.0.display().to_string(),
    ]);
    let err = check(&clone.0, &DEMO).unwrap_err();
    assert!(err.contains("cannot be checked"), "{err}");
    assert!(err.contains("the clone is shallow"), "{err}");
    assert!(err.contains("git fetch --unshallow"), "{err}");
}

#[test]
fn measuring_refuses_uncommitted_changes_to_dependencies_only() {
    let repo = Repo::new("dirty");
    repo.write("src/lib.rs", "pub fn work() { unsaved() }\n");
    repo.write("src/new.rs", "\n");
    let err = repo.measure(&DEMO, "figures").unwrap_err();
    for part in [
        "M src/lib.rs",
        "?? src/new.rs",
        "Commit them first",
        "`cargo xtask demo`",
    ] {
        assert!(err.contains(part), "{part:?} not in:\n{err}");
    }
    assert!(repo.page().contains("old figures"), "{}", repo.page());
    repo.measure(&CLONED, "figures of the clones").unwrap();

    repo.commit("the unsaved work");
    repo.write(
        "docs/page.md",
        "<!-- xtask demo: begin -->\n<!-- xtask demo: end -->\n",
    );
    repo.write("README.md", "unsaved, not a dependency\n");
    repo.measure(&DEMO, "figures").unwrap();
}

#[test]
fn sealing_refuses_when_the_tree_changed_while_measuring() {
    let repo = Repo::new("moved");
    let text = format!("{}\nfigures\n{}\n", DEMO.begin(), DEMO.end());
    let stamp = take_at(&repo.0, &DEMO).unwrap();
    repo.write("src/lib.rs", "pub fn work() { edited() }\n");
    let err = stamp.seal(&text).unwrap_err();
    assert!(
        err.contains("(while measuring)") && err.contains("src/lib.rs"),
        "{err}"
    );
    repo.commit("edited while measuring");
    let err = stamp.seal(&text).unwrap_err();
    assert!(err.contains("HEAD moved from"), "{err}");
    assert!(take_at(&repo.0, &DEMO).unwrap().seal("no markers").is_err());
}

#[test]
fn a_stamp_is_one_line_naming_a_full_commit() {
    let full = "0123456789abcdef0123456789abcdef01234567";
    assert_eq!(read(&format!("a\n{}\nb", line(full))), Ok(Some(full)));
    assert_eq!(read("a\nb"), Ok(None));
    assert!(read(&line("0123456789"))
        .unwrap_err()
        .contains("not a full commit hash"));
    let two = format!("{}\n{}", line(full), line(full));
    assert!(read(&two).unwrap_err().contains("2 stamp lines"));
}

/// `cargo xtask stale --run` runs each section's command: each must be a `cargo xtask`
/// command of this repository, with the flags the section says it was measured with where the
/// section names them.
#[test]
fn every_sections_command_is_the_xtask_command_its_figures_name() {
    let root = crate::cargo::root();
    for section in super::sections::SECTIONS {
        let words: Vec<&str> = section.command.split_whitespace().collect();
        assert_eq!(words[..2], ["cargo", "xtask"], "{}", section.command);
        let page = std::fs::read_to_string(root.join(section.page)).unwrap();
        let begin = page.find(&section.begin()).unwrap();
        let body = &page[begin..page[begin..].find(&section.end()).unwrap() + begin];
        // A section that names its flags (`Measured with `cargo xtask drift --runs 14``) names
        // the same ones (a commit may be abbreviated to more or fewer digits).
        if let Some(named) = body.split("Measured with `").nth(1) {
            let named = &named[..named.find('`').unwrap()];
            let same = |a: &str, b: &str| a.starts_with(b) || b.starts_with(a);
            let given: Vec<&str> = named.split_whitespace().collect();
            assert!(
                given.len() <= words.len() && given.iter().zip(&words).all(|(a, b)| same(a, b)),
                "{}: the section says it was measured with `{named}`, the table says `{}`",
                section.name,
                section.command
            );
        }
    }
}
