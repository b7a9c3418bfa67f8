//! `knotmeter compare` builds a base once per commit and reuses that build. On its own in this
//! file (so in a test binary of its own), because the other comparison tests build other
//! commits in the same base target directory, which rightly makes the next build start over.

mod common;
mod compare_support;

use compare_support::{stderr, Repo};

#[test]
fn the_base_is_built_once_and_reused_by_the_next_comparison_with_it() {
    let repo = Repo::new(&["base", "head"]);
    let first = repo.compare(&["HEAD~1", "same"]);
    assert!(first.status.success(), "{}", stderr(&first));
    let again = repo.compare(&["HEAD~1", "same"]);
    assert!(again.status.success(), "{}", stderr(&again));
    let err = stderr(&again);
    let base_build = err
        .split("building the base")
        .nth(1)
        .expect("the base build is announced");
    let base_build = base_build.split("two::same").next().unwrap_or_default();
    assert!(
        !base_build.contains("Compiling"),
        "the second comparison rebuilt the base:\n{err}"
    );
}
