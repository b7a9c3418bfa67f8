//! The compile-time check behind [`main!`](crate::main) that a bench target does not use
//! libtest's harness.
//!
//! Without `harness = false`, cargo compiles a bench target with `--test`: libtest supplies
//! `main`, knotmeter's `main` is never called, and `cargo bench` prints `running 0 tests ... ok`
//! and passes. A failing `#[test]` cannot say so: under `cargo bench` libtest marks every
//! `#[test]` `ignored` and still exits 0. `cfg(test)` cannot tell the two apart either: cargo
//! passes `--cfg test` to bench targets with `harness = false` too. What differs is that
//! `#[test]` keeps its function only under `--test`. So `main!` emits a `#[test]` function whose
//! body holds a constant evaluated by [`check`], and that constant fails the build with the exact
//! lines to add to Cargo.toml. A binary's unit-test build (`cargo test` compiles `src/bin/*.rs`
//! with `--test`, legitimately) passes: cargo sets `CARGO_TARGET_TMPDIR` only for integration
//! tests and benchmarks.

/// Longest message the check can build; a longer one is cut at a character boundary.
const CAPACITY: usize = 1024;

/// Fails compilation with an explanation when `libtest_harness` is true: the target at `file`
/// (`file!()` of the `main!` call) is a bench or test target built with libtest's harness.
pub const fn check(libtest_harness: bool, file: &str) {
    check_for("knotmeter::main!()", libtest_harness, file);
}

/// [`check`] for a `main`-writing macro other than `main!` (`criterion_main!()` of
/// knotmeter-criterion), which the message names.
pub const fn check_for(macro_call: &str, libtest_harness: bool, file: &str) {
    if libtest_harness {
        let message = message_for(macro_call, file);
        panic!("{}", message.as_str());
    }
}

/// The explanation for the target at `file`.
#[cfg(test)]
const fn message(file: &str) -> Text {
    message_for("knotmeter::main!()", file)
}

/// The explanation for the target at `file`, whose `main` `macro_call` writes.
const fn message_for(macro_call: &str, file: &str) -> Text {
    let (section, name) = target_of(file);
    Text::new()
        .push(macro_call)
        .push(" in `")
        .push(file)
        .push(
            "` is compiled with libtest's harness, which never calls it: `cargo bench` would run \
             none of its benchmarks and report `running 0 tests ... ok`. Tell cargo that this \
             target has its own `main`: add to Cargo.toml\n\n    [[",
        )
        .push(section)
        .push("]]\n    name = \"")
        .push(name)
        .push("\"\n    harness = false\n\n(or add `harness = false` to the [[")
        .push(section)
        .push("]] entry that names this file already)\n")
}

/// The Cargo.toml section (`bench` or `test`) and target name of the target whose root is
/// `file`: `benches/NAME.rs` or `benches/NAME/main.rs`, under `tests/` for a test target.
const fn target_of(file: &str) -> (&str, &str) {
    let bytes = file.as_bytes();
    let end = if ends_with(bytes, b".rs") {
        bytes.len() - 3
    } else {
        bytes.len()
    };
    let slash = last_separator(bytes, end);
    let stem_start = match slash {
        Some(at) => at + 1,
        None => 0,
    };
    let (mut name_start, mut name_end) = (stem_start, end);
    let mut parent_end = slash;
    if let Some(at) = slash {
        if equals(bytes, stem_start, end, b"main") {
            let above = last_separator(bytes, at);
            name_start = match above {
                Some(above) => above + 1,
                None => 0,
            };
            name_end = at;
            parent_end = above;
        }
    }
    let section = match parent_end {
        Some(end) => {
            let start = match last_separator(bytes, end) {
                Some(at) => at + 1,
                None => 0,
            };
            if equals(bytes, start, end, b"tests") {
                "test"
            } else {
                "bench"
            }
        }
        None => "bench",
    };
    (section, slice(file, name_start, name_end))
}

/// The index of the last `/` or `\` before `end`.
const fn last_separator(bytes: &[u8], end: usize) -> Option<usize> {
    let mut at = end;
    while at > 0 {
        at -= 1;
        if bytes[at] == b'/' || bytes[at] == b'\\' {
            return Some(at);
        }
    }
    None
}

/// Whether `bytes[start..end]` is `expected`.
const fn equals(bytes: &[u8], start: usize, end: usize, expected: &[u8]) -> bool {
    if end < start || end - start != expected.len() {
        return false;
    }
    let mut i = 0;
    while i < expected.len() {
        if bytes[start + i] != expected[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether `bytes` ends with `suffix`.
const fn ends_with(bytes: &[u8], suffix: &[u8]) -> bool {
    bytes.len() >= suffix.len() && equals(bytes, bytes.len() - suffix.len(), bytes.len(), suffix)
}

/// `text[start..end]`, where both ends follow an ASCII separator or a text end.
const fn slice(text: &str, start: usize, end: usize) -> &str {
    let (_, tail) = text.as_bytes().split_at(start);
    let (middle, _) = tail.split_at(end - start);
    match std::str::from_utf8(middle) {
        Ok(middle) => middle,
        Err(_) => "<the target's name>",
    }
}

/// Text built in a constant.
struct Text {
    bytes: [u8; CAPACITY],
    len: usize,
}

impl Text {
    const fn new() -> Self {
        Text {
            bytes: [0; CAPACITY],
            len: 0,
        }
    }

    /// Appends `text`, as much as fits.
    const fn push(mut self, text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() && self.len < CAPACITY {
            self.bytes[self.len] = bytes[i];
            self.len += 1;
            i += 1;
        }
        self
    }

    /// The text, cut at the last whole character if it overflowed.
    const fn as_str(&self) -> &str {
        let mut len = self.len;
        loop {
            let (text, _) = self.bytes.split_at(len);
            match std::str::from_utf8(text) {
                Ok(text) => return text,
                Err(err) => len = err.valid_up_to(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_target_and_its_section() {
        assert_eq!(target_of("benches/demo.rs"), ("bench", "demo"));
        assert_eq!(
            target_of("crates/x/benches/my-bench.rs"),
            ("bench", "my-bench")
        );
        assert_eq!(target_of("benches/suite/main.rs"), ("bench", "suite"));
        assert_eq!(target_of("tests/smoke.rs"), ("test", "smoke"));
        assert_eq!(target_of(r"benches\win.rs"), ("bench", "win"));
        assert_eq!(target_of("lonely.rs"), ("bench", "lonely"));
    }

    #[test]
    fn the_message_says_exactly_what_to_add() {
        let text = message("benches/my-bench.rs");
        let text = text.as_str();
        assert!(text.contains(
            "add to Cargo.toml\n\n    [[bench]]\n    name = \"my-bench\"\n    harness = false\n"
        ));
        assert!(text.starts_with("knotmeter::main!() in `benches/my-bench.rs` is compiled"));
    }

    #[test]
    fn the_message_names_the_macro_that_wrote_main() {
        let text = message_for("criterion_main!()", "benches/suite.rs");
        assert!(text
            .as_str()
            .starts_with("criterion_main!() in `benches/suite.rs` is compiled"));
    }

    #[test]
    fn a_long_path_is_cut_at_a_character() {
        let long = format!("{}é.rs", "x/".repeat(600));
        let text = message(&long);
        assert!(text.as_str().len() <= CAPACITY);
        assert!(text.as_str().starts_with("knotmeter::main!() in `x/x/"));
    }

    #[test]
    fn the_check_fails_only_under_libtest() {
        assert!(std::panic::catch_unwind(|| check(false, "benches/demo.rs")).is_ok());
        let failed = std::panic::catch_unwind(|| check(true, "benches/demo.rs")).unwrap_err();
        let text = failed.downcast_ref::<String>().unwrap();
        assert!(text.contains("name = \"demo\""), "{text}");
    }
}
