//! `cargo xtask package`: fails when a crate meant for crates.io would not publish.
//!
//! Every workspace member that `publish` allows is checked, so a crate added later (and any
//! crate a published one depends on) is held to the same rule:
//!
//! 1. the metadata crates.io shows: description, licence, repository, readme, keywords and
//!    categories, and the licence texts (`LICENSE-MIT`, `LICENSE-APACHE`) in the crate;
//! 2. the package is lean: it holds the sources, `build.rs`, the readme and the licences, and
//!    nothing else (tests, benches and fixtures that need the repository stay out);
//! 3. `cargo publish --dry-run --workspace` succeeds: it packages them all and builds each
//!    from its package alone, in publishing order, the workspace dependencies taken from the
//!    packages just made (so path dependencies must carry versions, and a dev-dependency
//!    cycle must be a path without a version, which packaging drops).
//!
//! `--no-verify` packages them all the same way but builds none of them (cargo's own
//! `--no-verify`): what CI runs, since the builds are a whole dependency tree compiled once
//! more, about 7.5 minutes of a cold CI run on two cores. What it leaves unchecked is a package
//! that packages but does not compile from its own files; run the full check before a release
//! (docs/performance.md, "CI").
//!
//! Each crate's size is printed.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::cargo;

/// The crates the docs promise on crates.io (README, docs/criterion.md): they must stay
/// publishable.
const PROMISED: [&str; 6] = [
    "knotmeter-protocol",
    "knotmeter-macros",
    "knotmeter-history",
    "knotmeter",
    "knotmeter-criterion",
    "knotmeter-server",
];

/// Files a package may hold besides `src/**`.
const ALLOWED: [&str; 9] = [
    "Cargo.toml",
    "Cargo.toml.orig",
    "Cargo.lock",
    ".cargo_vcs_info.json",
    "README.md",
    "LICENSE-MIT",
    "LICENSE-APACHE",
    "build.rs",
    "CHANGELOG.md",
];

/// Runs the check.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let verify = match args {
        [] => true,
        [flag] if flag == "--no-verify" => false,
        [arg, ..] => {
            return Err(format!(
                "`cargo xtask package` takes only `--no-verify` (got {arg:?})"
            ))
        }
    };
    let metadata = cargo_json(&["metadata", "--no-deps", "--format-version", "1", "--locked"])?;
    let publishable = publishable(&metadata);
    if publishable.is_empty() {
        return Err("no workspace member may be published".to_owned());
    }
    let mut problems: Vec<String> = PROMISED
        .iter()
        .filter(|name| !publishable.iter().any(|p| p["name"] == **name))
        .map(|name| format!("{name}: not publishable (`publish = false`, or not a member)"))
        .collect();
    for package in &publishable {
        problems.extend(metadata_problems(package));
        let name = package["name"].as_str().unwrap_or_default();
        let listed = cargo_text(&["package", "--list", "--allow-dirty", "--locked", "-p", name])?;
        problems.extend(unexpected_files(name, &listed));
    }
    if !problems.is_empty() {
        return Err(format!(
            "crates that would not publish as they should:\n  {}",
            problems.join("\n  ")
        ));
    }
    let target = PathBuf::from(metadata["target_directory"].as_str().unwrap_or("target"))
        .join("package-check");
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .ok_or("neither CARGO_HOME nor HOME is set")?;
    forget_earlier_packages(&target, &cargo_home, &publishable)?;
    let mut publish = vec![
        "publish",
        "--dry-run",
        "--workspace",
        "--allow-dirty",
        "--locked",
    ];
    if !verify {
        publish.push("--no-verify");
    }
    let report = cargo_report_in(&target, &publish)?;
    // Cargo's own account of each package: `Packaging NAME vX` then `Packaged N files, …`.
    let mut name = "";
    for line in report.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("Packaging ") {
            name = rest.split(' ').next().unwrap_or("");
        } else if let Some(size) = line.strip_prefix("Packaged ") {
            println!("{name:<20} {size}");
        }
    }
    Ok(())
}

/// Makes the dry run build today's packages, not an earlier run's.
///
/// The dry run verifies each package against the others through a scratch registry, and
/// cargo trusts a registry's package of an unchanged version: it unpacks it into
/// `$CARGO_HOME/registry/src/<registry>/<name>-<version>` only when that directory is absent,
/// and keeps what it compiled from it (the packaged files carry a fixed date, so their
/// modification times never look newer). So the dry run builds in a target directory of its
/// own (`<target>/package-check`, where nothing else is built), from which this removes what
/// was compiled of these packages, and the unpacked copies are removed too. Only local
/// registries' directories (named `-<hash>`) are touched: crates.io's never are.
fn forget_earlier_packages(
    target: &Path,
    cargo_home: &Path,
    packages: &[&Value],
) -> Result<(), String> {
    let remove = |path: &Path| {
        std::fs::remove_dir_all(path).map_err(|e| format!("cannot remove {}: {e}", path.display()))
    };
    let names: Vec<&str> = packages.iter().filter_map(|p| p["name"].as_str()).collect();
    // `<name>-<16 hex digits>`: a compiled unit of one of these packages.
    let compiled = |dir: &str| {
        dir.rsplit_once('-').is_some_and(|(name, hash)| {
            names.contains(&name) && hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit())
        })
    };
    for profile in ["debug", "release"] {
        let Ok(entries) = std::fs::read_dir(target.join(profile).join(".fingerprint")) else {
            continue;
        };
        for entry in entries.flatten() {
            if compiled(&entry.file_name().to_string_lossy()) {
                remove(&entry.path())?;
            }
        }
    }
    let Ok(registries) = std::fs::read_dir(cargo_home.join("registry").join("src")) else {
        return Ok(());
    };
    for registry in registries.flatten() {
        if !registry.file_name().to_string_lossy().starts_with('-') {
            continue;
        }
        for package in packages {
            let (name, version) = (package["name"].as_str(), package["version"].as_str());
            let unpacked =
                registry
                    .path()
                    .join(format!("{}-{}", name.unwrap_or(""), version.unwrap_or("")));
            if unpacked.is_dir() {
                remove(&unpacked)?;
            }
        }
    }
    Ok(())
}

/// The workspace members `publish` allows (absent or naming registries; `false` is `[]`).
fn publishable(metadata: &Value) -> Vec<&Value> {
    let members: Vec<&str> = metadata["workspace_members"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| members.contains(&p["id"].as_str().unwrap_or_default()))
        .filter(|p| p["publish"].as_array().is_none_or(|r| !r.is_empty()))
        .collect()
}

/// What a package's metadata lacks for crates.io, one line each.
fn metadata_problems(package: &Value) -> Vec<String> {
    let name = package["name"].as_str().unwrap_or("?");
    let mut problems = Vec::new();
    let text = |field: &str| package[field].as_str().filter(|v| !v.trim().is_empty());
    for field in ["description", "license", "repository", "readme"] {
        if text(field).is_none() {
            problems.push(format!("{name}: no `{field}` in its Cargo.toml"));
        }
    }
    for (field, most) in [("keywords", 5), ("categories", 5)] {
        let count = package[field].as_array().map_or(0, Vec::len);
        if count == 0 || count > most {
            problems.push(format!(
                "{name}: {count} `{field}` (crates.io takes 1 to {most})"
            ));
        }
    }
    let dir = Path::new(package["manifest_path"].as_str().unwrap_or("")).parent();
    if let (Some(readme), Some(dir)) = (text("readme"), dir) {
        if !dir.join(readme).is_file() {
            problems.push(format!("{name}: its readme {readme} does not exist"));
        }
    }
    let licence = text("license").unwrap_or_default();
    for (id, file) in [("MIT", "LICENSE-MIT"), ("Apache-2.0", "LICENSE-APACHE")] {
        let named = licence.split([' ', '(', ')']).any(|word| word == id);
        if named && !dir.is_some_and(|d| d.join(file).is_file()) {
            problems.push(format!("{name}: licensed {id} but has no {file}"));
        }
    }
    problems
}

/// Files in `cargo package --list` output that a lean package should not hold.
fn unexpected_files(name: &str, listed: &str) -> Vec<String> {
    listed
        .lines()
        .map(str::trim)
        .filter(|f| !f.is_empty() && !f.starts_with("src/") && !ALLOWED.contains(f))
        .map(|f| {
            format!("{name}: packages {f} (keep it out with `include`, or allow it in xtask/src/package.rs)")
        })
        .collect()
}

fn cargo_text(args: &[&str]) -> Result<String, String> {
    let out = cargo::run(&mut Command::new(cargo::program()), args)?;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `cargo ARGS` building into `target`; returns what cargo said on standard error.
fn cargo_report_in(target: &Path, args: &[&str]) -> Result<String, String> {
    let mut command = Command::new(cargo::program());
    // Verification builds each package alone, outside the workspace's profiles: without
    // debug info it takes a third of the disk and less time.
    command
        .env("CARGO_TARGET_DIR", target)
        .env("CARGO_PROFILE_DEV_DEBUG", "false");
    let out = cargo::run(&mut command, args)?;
    Ok(String::from_utf8_lossy(&out.stderr).into_owned())
}

fn cargo_json(args: &[&str]) -> Result<Value, String> {
    serde_json::from_str(&cargo_text(args)?)
        .map_err(|e| format!("cargo {} printed no JSON: {e}", args.join(" ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn takes_no_verify_and_refuses_anything_else_before_running_cargo() {
        for args in [
            vec!["--verify"],
            vec!["--no-verify", "--no-verify"],
            vec!["x"],
        ] {
            let args: Vec<String> = args.into_iter().map(String::from).collect();
            let err = run(&args).unwrap_err();
            assert!(err.contains("takes only `--no-verify`"), "{args:?}: {err}");
        }
    }

    fn package(dir: &Path) -> Value {
        std::fs::write(dir.join("README.md"), "# x\n").unwrap();
        std::fs::write(dir.join("LICENSE-MIT"), "").unwrap();
        std::fs::write(dir.join("LICENSE-APACHE"), "").unwrap();
        json!({
            "name": "x", "description": "d", "license": "MIT OR Apache-2.0",
            "repository": "https://example.invalid/x", "readme": "README.md",
            "keywords": ["a"], "categories": ["development-tools"],
            "manifest_path": dir.join("Cargo.toml"),
        })
    }

    #[test]
    fn complete_metadata_passes() {
        let dir = std::env::temp_dir().join(format!("xtask-package-ok-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(metadata_problems(&package(&dir)), Vec::<String>::new());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn missing_metadata_and_licence_texts_are_named() {
        let dir = std::env::temp_dir().join(format!("xtask-package-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut p = package(&dir);
        p["description"] = Value::Null;
        p["keywords"] = json!([]);
        std::fs::remove_file(dir.join("LICENSE-APACHE")).unwrap();
        assert_eq!(
            metadata_problems(&p),
            [
                "x: no `description` in its Cargo.toml",
                "x: 0 `keywords` (crates.io takes 1 to 5)",
                "x: licensed Apache-2.0 but has no LICENSE-APACHE",
            ]
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn tests_and_fixtures_in_a_package_are_named() {
        let listed = "Cargo.toml\nREADME.md\nsrc/lib.rs\ntests/e2e.rs\nbenches/b.rs\n";
        let found = unexpected_files("x", listed);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].starts_with("x: packages tests/e2e.rs"));
    }

    /// Before: the dry run verified the engine against the protocol package an earlier run had
    /// unpacked and compiled (same version), and failed on types the protocol had gained since.
    #[test]
    fn earlier_packages_are_forgotten_and_nothing_else() {
        let dir = std::env::temp_dir().join(format!("xtask-forget-{}", std::process::id()));
        let (target, home) = (dir.join("target"), dir.join("cargo-home"));
        let fingerprint = target.join("debug").join(".fingerprint");
        let made = [
            fingerprint.join("knotmeter-protocol-0123456789abcdef"),
            fingerprint.join("knotmeter-0123456789abcdef"),
            fingerprint.join("serde-0123456789abcdef"),
            fingerprint.join("knotmeter-protocol-build"),
            home.join("registry/src/-3ca82dcaa01a7b04/knotmeter-protocol-0.1.0"),
            home.join("registry/src/index.crates.io-1949cf8c6b5b557f/knotmeter-protocol-0.1.0"),
        ];
        for path in &made {
            std::fs::create_dir_all(path).unwrap();
        }
        let packages = [
            json!({"name": "knotmeter-protocol", "version": "0.1.0"}),
            json!({"name": "knotmeter", "version": "0.1.0"}),
        ];
        let packages: Vec<&Value> = packages.iter().collect();
        forget_earlier_packages(&target, &home, &packages).unwrap();
        let left: Vec<bool> = made.iter().map(|p| p.exists()).collect();
        assert_eq!(left, [false, false, true, true, false, true]);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn publish_false_members_are_skipped() {
        let metadata = json!({
            "workspace_members": ["a 0.1.0", "b 0.1.0"],
            "packages": [
                {"id": "a 0.1.0", "name": "a", "publish": null},
                {"id": "b 0.1.0", "name": "b", "publish": []},
                {"id": "c 0.1.0", "name": "c", "publish": null},
            ],
        });
        let names: Vec<&str> = publishable(&metadata)
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["a"]);
    }
}
