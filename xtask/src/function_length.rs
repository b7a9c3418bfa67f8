//! A check run by `cargo test`: no function of the product's code is longer than
//! [`MAX_LINES`] lines (docs/architecture.md, "Invariants"). A function that long does
//! several things; its parts get names of their own.
//!
//! The product's code is the `src/` of every crate in `crate::sources::PRODUCT`; a file's inline
//! `#[cfg(test)]` module (which runs to the end of the file, by this repository's layout) and
//! files of tests (`tests.rs`, anything under a `tests/` directory) are not product code. A function runs
//! from its `fn` line to the first line after it that closes it at its own indentation.

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    /// The most lines a function may have, its signature and closing brace included.
    const MAX_LINES: usize = 100;

    /// Every `.rs` file under `dir` that is not a file of tests.
    fn product_files(dir: &Path) -> Vec<PathBuf> {
        let mut found = Vec::new();
        let mut dirs = vec![dir.to_path_buf()];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                if path.is_dir() {
                    if name != "tests" {
                        dirs.push(path);
                    }
                } else if name.ends_with(".rs") && name != "tests.rs" {
                    found.push(path);
                }
            }
        }
        found
    }

    /// The name of the function a line declares, with the line's indentation: attributes on
    /// the same line, visibility (`pub(in path)` too), `async`, `const`, `unsafe` and `extern
    /// "ABI"` before `fn` are passed over.
    fn declared(line: &str) -> Option<(&str, &str)> {
        let indent = &line[..line.len() - line.trim_start().len()];
        let mut rest = line.trim_start();
        while let Some(attribute) = rest.strip_prefix("#[") {
            rest = attribute.split_once(']')?.1.trim_start();
        }
        let mut words = rest.split_whitespace().peekable();
        while let Some(&word) = words.peek() {
            if word.starts_with("pub(") && !word.ends_with(')') {
                // `pub(in path)`: to the word that closes it.
                words.find(|w| w.ends_with(')'));
                continue;
            }
            let modifier = word == "pub"
                || word.starts_with("pub(")
                || matches!(word, "async" | "const" | "unsafe" | "extern")
                || word.starts_with('"');
            if !modifier {
                break;
            }
            words.next();
        }
        if words.next()? != "fn" {
            return None;
        }
        let name = words.next()?;
        let name = name.split(['(', '<']).next().unwrap_or(name);
        Some((indent, name))
    }

    /// Where a file's product code ends: at its inline test module (`#[cfg(test)]` on the line
    /// before `mod … {`), which runs to the end of the file; a `#[cfg(test)]` item elsewhere
    /// (`#[cfg(test)] mod fixtures;`) does not end it.
    fn product_end(lines: &[&str]) -> usize {
        (0..lines.len())
            .find(|&i| {
                lines[i].trim() == "#[cfg(test)]"
                    && lines.get(i + 1).is_some_and(|next| {
                        let next = next.trim();
                        next.starts_with("mod ") && next.ends_with('{')
                    })
            })
            .unwrap_or(lines.len())
    }

    /// Whether `line` closes a block opened at `indent`: `}` there, alone or before a comment.
    fn closes(line: &str, indent: &str) -> bool {
        line.strip_prefix(indent)
            .and_then(|rest| rest.strip_prefix('}'))
            .is_some_and(|after| {
                let after = after.trim();
                after.is_empty() || after.starts_with("//")
            })
    }

    /// Each function of `text` longer than `max` lines: its name, first line (from 1) and
    /// length.
    fn long_functions(text: &str, max: usize) -> Vec<(String, usize, usize)> {
        let lines: Vec<&str> = text.lines().collect();
        let end = product_end(&lines);
        let mut long = Vec::new();
        let mut at = 0;
        while at < end {
            let Some((indent, name)) = declared(lines[at]) else {
                at += 1;
                continue;
            };
            // A declaration without a body (a trait's) ends on its own line.
            if lines[at].trim_end().ends_with(';') {
                at += 1;
                continue;
            }
            let last = (at + 1..end)
                .find(|&i| closes(lines[i], indent))
                .unwrap_or(end - 1);
            if last - at + 1 > max {
                long.push((name.to_owned(), at + 1, last - at + 1));
            }
            at = last + 1;
        }
        long
    }

    #[test]
    fn a_function_is_measured_from_its_fn_line_to_its_closing_brace() {
        let text = "fn short() {\n    one();\n}\n\npub(crate) async fn long<T>(x: T) {\n    a();\n    b();\n    c();\n}\n#[cfg(test)]\nmod tests {\n    fn in_tests() {\n        a();\n        b();\n        c();\n    }\n}\n";
        assert_eq!(long_functions(text, 4), [("long".to_owned(), 5, 5)]);
        assert_eq!(long_functions(text, 5), []);
        let methods = "impl A {\n    fn m(&self) {\n        a();\n        b();\n    }\n    fn decl(&self);\n}\n";
        assert_eq!(long_functions(methods, 3), [("m".to_owned(), 2, 4)]);
    }

    #[test]
    fn attributes_visibility_abi_and_a_commented_brace_are_read() {
        let text = "#[cfg(test)] mod fixtures;\n#[inline] pub(in crate::a) extern \"system\" fn f() {\n    a();\n    b();\n} // f\nfn g() {\n    a();\n    b();\n}\n";
        assert_eq!(
            long_functions(text, 3),
            [("f".to_owned(), 2, 4), ("g".to_owned(), 6, 4)]
        );
    }

    #[test]
    fn no_function_of_the_product_is_longer_than_the_limit() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut long = Vec::new();
        for src in crate::sources::PRODUCT {
            for file in product_files(&root.join(src)) {
                let text = std::fs::read_to_string(&file).unwrap();
                for (name, line, length) in long_functions(&text, MAX_LINES) {
                    let shown = file.strip_prefix(&root).unwrap_or(&file).display();
                    long.push(format!("{shown}:{line} `{name}`: {length} lines"));
                }
            }
        }
        assert!(
            long.is_empty(),
            "functions over {MAX_LINES} lines (give their parts names of their own): {long:#?}"
        );
    }
}
