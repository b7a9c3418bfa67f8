//! `resolve_path` against the real environment and executable. One test only: it changes
//! environment variables, which other threads of this binary must not see half-way.

use std::env;
use std::path::{Path, PathBuf};

use knotmeter_history::{resolve_path, target_dir_from_exe, HISTORY_ENV};

fn db(dir: &Path) -> PathBuf {
    dir.join("knotmeter").join("history.db")
}

#[test]
fn resolve_path_follows_the_environment_then_the_executable() {
    env::remove_var(HISTORY_ENV);
    env::remove_var("CARGO_TARGET_DIR");

    // This test binary runs from `<target>/<profile>/deps/`; cargo tells tests where
    // `<target>/tmp` is, so the real target directory is known independently.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap();
    let exe = env::current_exe().unwrap();
    let from_exe = target_dir_from_exe(&exe).expect("the test binary is in cargo's layout");
    assert_eq!(
        from_exe.canonicalize().unwrap(),
        target.canonicalize().unwrap()
    );
    assert_eq!(resolve_path(None), db(&from_exe));

    let given = Path::new("/somewhere/target");
    assert_eq!(resolve_path(Some(given)), db(given));

    env::set_var("CARGO_TARGET_DIR", "/cargo/target-dir");
    assert_eq!(resolve_path(None), db(Path::new("/cargo/target-dir")));
    assert_eq!(
        resolve_path(Some(given)),
        db(given),
        "an explicit directory wins"
    );

    env::set_var(HISTORY_ENV, "/explicit/bench-history.db");
    assert_eq!(
        resolve_path(Some(given)),
        PathBuf::from("/explicit/bench-history.db")
    );
    env::set_var(HISTORY_ENV, "");
    assert_eq!(
        resolve_path(None),
        db(Path::new("/cargo/target-dir")),
        "empty is unset"
    );

    env::remove_var(HISTORY_ENV);
    env::remove_var("CARGO_TARGET_DIR");
}
