//! A check run by `cargo test`: every integration-test file of the workspace is built.
//!
//! The crates whose integration tests are modules of one binary set `autotests = false`
//! (docs/architecture.md, "Test binaries"). Cargo then builds only the `[[test]]` targets their
//! Cargo.toml names, so a file added to `tests/` and declared nowhere would never be compiled,
//! and its tests would never run, without a word. The test below fails on such a file.

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// The files in `tests/` (`NAME.rs`, or `NAME/main.rs`) of the package at `package` that
    /// no `[[test]]` of its Cargo.toml builds: neither the root of a test target nor a module
    /// (`mod NAME;`) of one. Only `[[test]]` entries that take the default path are read.
    fn unbuilt_test_files(package: &Path) -> Vec<String> {
        let manifest = std::fs::read_to_string(package.join("Cargo.toml")).unwrap();
        let roots: Vec<String> = manifest
            .split("[[test]]")
            .skip(1)
            .filter_map(|entry| {
                let line = entry.lines().find(|l| l.trim_start().starts_with("name"))?;
                Some(line.split('"').nth(1)?.to_owned())
            })
            .collect();
        let declared: Vec<String> = roots
            .iter()
            .filter_map(|root| {
                std::fs::read_to_string(package.join(format!("tests/{root}.rs"))).ok()
            })
            .flat_map(|text| {
                text.lines()
                    .filter_map(|l| l.strip_prefix("mod ")?.strip_suffix(';').map(str::to_owned))
                    .collect::<Vec<_>>()
            })
            .collect();
        let mut unbuilt = Vec::new();
        for entry in std::fs::read_dir(package.join("tests")).unwrap().flatten() {
            let path = entry.path();
            let name = if path.extension().is_some_and(|e| e == "rs") {
                path.file_stem().unwrap().to_string_lossy().into_owned()
            } else if path.join("main.rs").is_file() {
                path.file_name().unwrap().to_string_lossy().into_owned()
            } else {
                continue;
            };
            if !roots.contains(&name) && !declared.contains(&name) {
                unbuilt.push(format!("{}", path.display()));
            }
        }
        unbuilt.sort();
        unbuilt
    }

    #[test]
    fn every_test_file_of_a_package_without_autotests_is_built() {
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let mut checked = 0;
        for package in ["history", "server", "tests"] {
            let dir = workspace.join(package);
            let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
            assert!(
                manifest.contains("autotests = false"),
                "{package}: expected `autotests = false` (docs/architecture.md, \"Test binaries\")"
            );
            let unbuilt = unbuilt_test_files(&dir);
            assert!(
                unbuilt.is_empty(),
                "test files no test target builds (with `autotests = false` their tests never \
                 run): {unbuilt:?}; add `mod NAME;` to the package's tests/integration.rs, or a \
                 [[test]] to its Cargo.toml"
            );
            checked += 1;
        }
        assert_eq!(checked, 3);
    }

    #[test]
    fn a_test_file_declared_nowhere_is_found() {
        let dir = tempfile_dir();
        std::fs::create_dir_all(dir.join("tests")).unwrap();
        std::fs::write(
            dir.join("Cargo.toml"),
            "[package]\nautotests = false\n\n[[test]]\nname = \"integration\"\n",
        )
        .unwrap();
        std::fs::write(dir.join("tests/integration.rs"), "mod kept;\n").unwrap();
        std::fs::write(dir.join("tests/kept.rs"), "").unwrap();
        std::fs::write(dir.join("tests/forgotten.rs"), "").unwrap();
        let unbuilt = unbuilt_test_files(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(unbuilt.len(), 1, "{unbuilt:?}");
        assert!(unbuilt[0].ends_with("tests/forgotten.rs"), "{unbuilt:?}");
    }

    /// A fresh directory of this test's own in the system's temporary directory.
    fn tempfile_dir() -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("xtask-test-layout-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }
}
