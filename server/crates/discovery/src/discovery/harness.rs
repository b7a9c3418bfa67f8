//! Whether a bench target forgot `harness = false`, read from its manifest without building.
//!
//! knotmeter's `main!` is the bench binary's `main`. With cargo's default `harness = true` the
//! target is compiled as a libtest crate instead: libtest supplies `main`, knotmeter's is never
//! called, `cargo bench` prints `running 0 tests … ok` and exits 0, and nothing is measured.
//! `cargo metadata` does not report `harness`, so the manifest is read here, `[[bench]]`
//! tables only, line by line. The scan answers only when it is sure: anything it does not
//! follow (an inline `bench = [...]` array, a dotted `bench.` key, multi-line strings,
//! `harness` outside a `[[bench]]` table, a value other than `true` or `false`) makes the
//! answer [`Harness::Unknown`], and the check after the build (libtest's reply to
//! `--list --format json`, see `runs`) still catches the mistake.

use std::path::Path;

/// How a bench target's main function is chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Harness {
    /// `harness = false`: knotmeter's `main!` runs.
    Custom,
    /// libtest's harness (cargo's default, or `harness = true`): knotmeter's `main!` never runs.
    Libtest {
        /// 0-based line of the target's `[[bench]]` header; `None` when the target has no
        /// entry (cargo found `benches/<name>.rs` by itself).
        entry_line: Option<u32>,
    },
    /// The manifest says it in a way this scan does not follow.
    Unknown,
}

/// One `[[bench]]` table of a manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    line: u32,
    name: Option<String>,
    harness: Option<bool>,
}

/// The `[[bench]]` tables of a manifest, or `None` when the scan cannot be sure of them.
fn entries(manifest: &str) -> Option<Vec<Entry>> {
    if manifest.contains("\"\"\"") || manifest.contains("'''") {
        return None;
    }
    let mut entries: Vec<Entry> = Vec::new();
    let mut in_bench = false;
    let mut in_any_table = false;
    for (index, raw) in manifest.lines().enumerate() {
        let line = strip_comment(raw).trim();
        if line.is_empty() {
            continue;
        }
        if line.starts_with('[') {
            let header: String = line.chars().filter(|c| !c.is_whitespace()).collect();
            in_bench = header == "[[bench]]";
            in_any_table = true;
            if in_bench {
                entries.push(Entry {
                    line: index as u32,
                    name: None,
                    harness: None,
                });
            }
            continue;
        }
        if !in_bench && line.contains("harness") {
            return None;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let key = key.trim().trim_matches(['"', '\'']);
        let value = value.trim();
        if in_bench {
            let entry = entries.last_mut().expect("pushed at its header");
            match key {
                "name" => entry.name = Some(unquote(value)?),
                "harness" => {
                    entry.harness = Some(match value {
                        "true" => true,
                        "false" => false,
                        _ => return None,
                    })
                }
                _ => {}
            }
            continue;
        }
        if !in_any_table && (key == "bench" || key.starts_with("bench.")) {
            return None;
        }
    }
    if entries.iter().any(|e| e.name.is_none()) {
        return None;
    }
    Some(entries)
}

/// The harness of bench target `target` according to `manifest`'s text.
pub fn of_target(manifest: &str, target: &str) -> Harness {
    let Some(entries) = entries(manifest) else {
        return Harness::Unknown;
    };
    match entries.iter().find(|e| e.name.as_deref() == Some(target)) {
        Some(Entry {
            harness: Some(false),
            ..
        }) => Harness::Custom,
        Some(entry) => Harness::Libtest {
            entry_line: Some(entry.line),
        },
        None => Harness::Libtest { entry_line: None },
    }
}

/// What to tell the user about bench target `target` of `package` running under libtest: a
/// first line that says it all (it is what one-line views show), then the entry to add.
pub fn explain(package: &str, target: &str, manifest: &Path, implicit: bool) -> String {
    let first = if implicit {
        format!(
            "the bench target `{target}` of `{package}` needs a [[bench]] entry with \
             `harness = false` in {}: without one, cargo builds it with libtest's harness and \
             knotmeter's `main!` never runs",
            manifest.display()
        )
    } else {
        format!(
            "the bench target `{target}` of `{package}` needs `harness = false` in its [[bench]] \
             entry in {}: with libtest's harness knotmeter's `main!` never runs",
            manifest.display()
        )
    };
    format!(
        "{first}\n\n[[bench]]\nname = \"{target}\"\nharness = false\n\n(`cargo bench` would print \
         `running 0 tests` and measure nothing.)"
    )
}

/// `line` without its `#` comment (a `#` inside a string stays).
fn strip_comment(line: &str) -> &str {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (at, c) in line.char_indices() {
        match quote {
            Some('"') if escaped => escaped = false,
            Some('"') if c == '\\' => escaped = true,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '#' => return &line[..at],
            None => {}
        }
    }
    line
}

/// A TOML string value without its quotes; `None` for anything else (or escapes).
fn unquote(value: &str) -> Option<String> {
    let inner = value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .filter(|v| !v.contains('\\') && !v.contains('"'))
        .or_else(|| {
            value
                .strip_prefix('\'')
                .and_then(|v| v.strip_suffix('\''))
                .filter(|v| !v.contains('\''))
        })?;
    Some(inner.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MANIFEST: &str = r#"[package]
name = "demo" # harness would be odd here, but in a comment it is fine
version = "0.1.0"

[dev-dependencies]
knotmeter = "0.1"

[[bench]]
name = "fast"
harness = false

[[ bench ]]
name = 'default'

[[bench]]
"name" = "explicit"
harness = true   # a mistake

[[bench]]
name = "with#hash"
harness = false
"#;

    #[test]
    fn entries_are_read_with_their_harness() {
        assert_eq!(of_target(MANIFEST, "fast"), Harness::Custom);
        assert_eq!(of_target(MANIFEST, "with#hash"), Harness::Custom);
        assert_eq!(
            of_target(MANIFEST, "default"),
            Harness::Libtest {
                entry_line: Some(11)
            }
        );
        assert_eq!(
            of_target(MANIFEST, "explicit"),
            Harness::Libtest {
                entry_line: Some(14)
            }
        );
        // Found by cargo in benches/ without an entry: the default harness.
        assert_eq!(
            of_target(MANIFEST, "implicit"),
            Harness::Libtest { entry_line: None }
        );
    }

    #[test]
    fn what_the_scan_does_not_follow_is_unknown() {
        for manifest in [
            "bench = [{ name = \"b\", harness = false }]\n[package]\nname = \"x\"\n",
            "bench = [{ name = \"b\" }]\n",
            "bench.b.harness = false\n",
            "[package]\ndescription = \"\"\"\n[[bench]]\n\"\"\"\n",
            "[[bench]]\nname = \"b\"\nharness = maybe\n",
            "[[bench]]\npath = \"benches/b.rs\"\n",
            "[[bench]]\nname = \"b\\u0062\"\nharness = false\n",
        ] {
            assert_eq!(of_target(manifest, "b"), Harness::Unknown, "{manifest}");
        }
    }

    #[test]
    fn the_explanation_shows_the_entry_to_add() {
        let text = explain("demo", "fast", Path::new("/w/Cargo.toml"), true);
        assert!(
            text.contains("[[bench]]\nname = \"fast\"\nharness = false"),
            "{text}"
        );
        assert!(text.contains("/w/Cargo.toml"), "{text}");
        assert!(text.starts_with("the bench target `fast` of `demo` needs a [[bench]] entry"));
        let explicit = explain("demo", "fast", Path::new("/w/Cargo.toml"), false);
        let first = explicit.lines().next().unwrap();
        assert!(first.contains("needs `harness = false` in its [[bench]] entry in /w/Cargo.toml"));
        assert!(
            first.ends_with("never runs"),
            "the first line is whole: {first}"
        );
    }
}
