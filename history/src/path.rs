//! Where the history file lives.
//!
//! The first rule that gives an answer wins:
//!
//! 1. `KNOTMETER_HISTORY`, when set and not empty, is the path of the file itself.
//! 2. Otherwise the file is `<target dir>/knotmeter/history.db`, the target dir being the
//!    first of:
//!    - the one the caller passes (the daemon and the CLI know the workspace and should
//!      pass its target directory, as `cargo metadata` reports it);
//!    - `CARGO_TARGET_DIR`, when set and not empty;
//!    - the one the running executable was built into ([`target_dir_from_exe`]): a bench
//!      binary runs from `<target>/<profile>/deps/<name>-<hash>`;
//!    - the nearest `target` directory found walking up from the current directory (cargo
//!      runs benches in the package's directory; a workspace keeps `target` at its root);
//!    - `target` under the current directory.
//!
//! Relative paths are taken from the current directory, as cargo does, so the result is
//! absolute whenever the current directory is known.

use std::env;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

/// The environment variable that names the history file, overriding the default location.
pub const HISTORY_ENV: &str = "KNOTMETER_HISTORY";

/// The history file to use: `KNOTMETER_HISTORY`, else `<target dir>/knotmeter/history.db`
/// with the target dir from `target_dir`, `CARGO_TARGET_DIR`, the running executable's
/// location or the current directory (see the module documentation for the exact rule).
pub fn resolve_path(target_dir: Option<&Path>) -> PathBuf {
    resolve(
        &Inputs {
            history_env: env::var_os(HISTORY_ENV),
            target_dir: target_dir.map(Path::to_path_buf),
            cargo_target_dir: env::var_os("CARGO_TARGET_DIR"),
            exe: env::current_exe().ok(),
            cwd: env::current_dir().ok(),
        },
        |path| path.is_dir(),
    )
}

/// The cargo target directory an executable was built into: the directory cargo tagged with
/// `CACHEDIR.TAG` above it (see `tagged_target_dir`), or else judged from its path alone, or
/// `None` when the path does not look like cargo's layout.
///
/// Cargo puts bench, test and example binaries in `<target>/<profile>/deps/` or
/// `<target>/<profile>/examples/`, and `[[bin]]` binaries in `<target>/<profile>/`; with
/// `--target <triple>` the profile directory sits in `<target>/<triple>/`. So:
///
/// * when the executable's directory is `deps` or `examples`, its parent is the profile
///   directory; otherwise, when the directory is named `debug` or `release`, it is the
///   profile directory itself;
/// * the target directory is the profile directory's parent, except that a parent whose
///   name contains `-` and which sits in a directory named `target` is a target triple's
///   directory, and that `target` directory is the answer;
/// * when neither layout matches (a build script, a binary installed elsewhere), the nearest
///   ancestor named `target` is the answer, if there is one.
///
/// A custom target directory not named `target` combined with `--target` gives
/// `<dir>/<triple>`; set `CARGO_TARGET_DIR` or `KNOTMETER_HISTORY` for that setup.
pub fn target_dir_from_exe(exe: &Path) -> Option<PathBuf> {
    tagged_target_dir(exe).or_else(|| target_dir_from_layout(exe))
}

/// The target directory as cargo marks it on disk: the nearest ancestor of `exe` holding
/// `CACHEDIR.TAG`, which cargo writes at the root of every target directory. A target triple's
/// directory may carry the tag too; when the nearest tagged directory's name looks like a
/// triple (two dashes or more, as `x86_64-unknown-linux-gnu`) and its parent is tagged, the
/// parent is the answer. This tells `target/e2e-fixtures` (a target directory of its own) from
/// `target/aarch64-apple-darwin` (a triple inside `target`), which the layout alone cannot.
fn tagged_target_dir(exe: &Path) -> Option<PathBuf> {
    let tagged = |dir: &Path| dir.join("CACHEDIR.TAG").is_file();
    let nearest = exe.ancestors().skip(1).find(|dir| tagged(dir))?;
    let looks_like_triple = name(nearest).is_some_and(|n| n.matches('-').count() >= 2);
    match nearest.parent() {
        Some(parent) if looks_like_triple && tagged(parent) => Some(parent.to_path_buf()),
        _ => Some(nearest.to_path_buf()),
    }
}

/// The target directory judged from the path's layout alone (see [`target_dir_from_exe`]).
fn target_dir_from_layout(exe: &Path) -> Option<PathBuf> {
    let dir = exe.parent()?;
    let profile_dir = match name(dir) {
        Some("deps" | "examples") => dir.parent(),
        Some("debug" | "release") => Some(dir),
        _ => None,
    };
    if let Some(candidate) = profile_dir.and_then(Path::parent) {
        if name(candidate).is_some() {
            let in_target = candidate.parent().filter(|p| name(p) == Some("target"));
            return match in_target {
                Some(target) if name(candidate).is_some_and(|n| n.contains('-')) => {
                    Some(target.to_path_buf())
                }
                _ => Some(candidate.to_path_buf()),
            };
        }
    }
    dir.ancestors()
        .find(|a| name(a) == Some("target"))
        .map(Path::to_path_buf)
}

/// Everything [`resolve_path`] reads from the process, gathered so the rule can be tested.
struct Inputs {
    history_env: Option<OsString>,
    target_dir: Option<PathBuf>,
    cargo_target_dir: Option<OsString>,
    exe: Option<PathBuf>,
    cwd: Option<PathBuf>,
}

fn resolve(inputs: &Inputs, is_dir: impl Fn(&Path) -> bool) -> PathBuf {
    let absolute = |path: PathBuf| match &inputs.cwd {
        Some(cwd) => cwd.join(path),
        None => path,
    };
    if let Some(file) = non_empty(inputs.history_env.as_deref()) {
        return absolute(PathBuf::from(file));
    }
    let target = inputs
        .target_dir
        .clone()
        .or_else(|| non_empty(inputs.cargo_target_dir.as_deref()).map(PathBuf::from))
        .or_else(|| inputs.exe.as_deref().and_then(target_dir_from_exe))
        .or_else(|| {
            let cwd = inputs.cwd.as_deref()?;
            cwd.ancestors()
                .map(|a| a.join("target"))
                .find(|candidate| is_dir(candidate))
        })
        .unwrap_or_else(|| PathBuf::from("target"));
    absolute(target).join("knotmeter").join("history.db")
}

fn non_empty(value: Option<&OsStr>) -> Option<&OsStr> {
    value.filter(|v| !v.is_empty())
}

fn name(path: &Path) -> Option<&str> {
    path.file_name().and_then(OsStr::to_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exe(path: &str) -> Option<PathBuf> {
        target_dir_from_exe(Path::new(path))
    }

    fn some(path: &str) -> Option<PathBuf> {
        Some(PathBuf::from(path))
    }

    #[test]
    fn bench_test_and_example_binaries_sit_in_the_profile_directory() {
        assert_eq!(exe("/w/target/release/deps/q-0123abcd"), some("/w/target"));
        assert_eq!(exe("/w/target/debug/deps/q-0123abcd"), some("/w/target"));
        assert_eq!(exe("/w/target/release/examples/demo"), some("/w/target"));
        assert_eq!(exe("/w/target/debug/knotmeter"), some("/w/target"));
    }

    #[test]
    fn custom_profiles_and_custom_target_directories_are_found_by_layout() {
        assert_eq!(exe("/w/target/perf/deps/q-0123"), some("/w/target"));
        assert_eq!(exe("/tmp/build/release/deps/q-0123"), some("/tmp/build"));
        // A project under a directory that happens to be called `target`.
        assert_eq!(exe("/target/p/out/release/deps/q-1"), some("/target/p/out"));
    }

    #[test]
    fn a_target_triple_directory_is_skipped() {
        assert_eq!(
            exe("/w/target/x86_64-unknown-linux-gnu/release/deps/q-0123"),
            some("/w/target")
        );
        assert_eq!(
            exe("/w/target/aarch64-apple-darwin/debug/examples/demo"),
            some("/w/target")
        );
    }

    #[test]
    fn other_layouts_fall_back_to_the_nearest_target_ancestor() {
        assert_eq!(
            exe("/w/target/debug/build/q-0123/build-script-build"),
            some("/w/target")
        );
        assert_eq!(exe("/home/u/.cargo/bin/knotmeter"), None);
        assert_eq!(exe("knotmeter"), None);
    }

    fn inputs() -> Inputs {
        Inputs {
            history_env: None,
            target_dir: None,
            cargo_target_dir: None,
            exe: Some(PathBuf::from("/w/target/release/deps/q-0123")),
            cwd: Some(PathBuf::from("/w/crates/q")),
        }
    }

    #[test]
    fn the_rules_apply_in_order() {
        let never = |_: &Path| false;
        let db = |dir: &str| Path::new(dir).join("knotmeter").join("history.db");

        let mut i = inputs();
        i.exe = None;
        assert_eq!(resolve(&i, never), db("/w/crates/q/target"));
        assert_eq!(
            resolve(&i, |p: &Path| p == Path::new("/w/target")),
            db("/w/target")
        );

        i.exe = Some(PathBuf::from("/w/target/release/deps/q-0123"));
        assert_eq!(resolve(&i, never), db("/w/target"));

        i.cargo_target_dir = Some(OsString::from("../../out"));
        assert_eq!(resolve(&i, never), db("/w/crates/q/../../out"));
        i.cargo_target_dir = Some(OsString::new());
        assert_eq!(resolve(&i, never), db("/w/target"));

        i.target_dir = Some(PathBuf::from("/given"));
        assert_eq!(resolve(&i, never), db("/given"));

        i.history_env = Some(OsString::from("/elsewhere/h.db"));
        assert_eq!(resolve(&i, never), PathBuf::from("/elsewhere/h.db"));
        i.history_env = Some(OsString::from("h.db"));
        assert_eq!(resolve(&i, never), PathBuf::from("/w/crates/q/h.db"));
    }

    #[test]
    fn cargo_s_tag_tells_a_target_dir_inside_target_from_a_triple() {
        let root = tempfile::tempdir().unwrap();
        let make = |dir: &str, tagged: bool| {
            let dir = root.path().join(dir);
            std::fs::create_dir_all(dir.join("release/deps")).unwrap();
            if tagged {
                std::fs::write(
                    dir.join("CACHEDIR.TAG"),
                    "Signature: 8a477f597d28d172789f06886806bc55",
                )
                .unwrap();
            }
            dir
        };
        let target = make("target", true);
        let fixtures = make("target/e2e-fixtures", true);
        let triple = make("target/x86_64-unknown-linux-gnu", true);
        assert_eq!(
            target_dir_from_exe(&fixtures.join("release/deps/q-1")),
            Some(fixtures)
        );
        assert_eq!(
            target_dir_from_exe(&triple.join("release/deps/q-1")),
            Some(target.clone())
        );
        assert_eq!(
            target_dir_from_exe(&target.join("release/deps/q-1")),
            Some(target)
        );
    }
}
