//! Stable identifiers of benchmarks and their cases.
//!
//! A benchmark's id is its Rust path inside the bench target, as `module_path!()` spells it
//! followed by the function name: `quickstart::parsing::parse_csv`. The first segment is the
//! bench target's crate name (its `[[bench]] name` with `-` turned into `_`). A case of an
//! `args` benchmark appends `/` and the canonical text of the argument expression:
//! `quickstart::chain_n/1000`.
//!
//! The engine (through the `#[bench]` macro) and the daemon's discovery (through `syn`) both
//! build ids with these functions, so the two always agree without a build.

/// The canonical text of an argument expression: its source text with all white space
/// removed outside string and character literals.
///
/// Token printers differ in where they put spaces (`- 5` or `-5`, `1 .. 4` or `1..4`), so the
/// id must not depend on them.
pub fn canonical_arg(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in source.chars() {
        match quote {
            Some(q) => {
                out.push(c);
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
            }
            None if c == '"' => {
                quote = Some('"');
                out.push(c);
            }
            None if c.is_whitespace() => {}
            None => out.push(c),
        }
    }
    out
}

/// The id of one case of a benchmark: the benchmark's id, then `/` and the canonical
/// argument text when the benchmark takes `args`.
pub fn case_id(bench_id: &str, arg: Option<&str>) -> String {
    match arg {
        Some(arg) => format!("{bench_id}/{}", canonical_arg(arg)),
        None => bench_id.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_arg_ignores_token_spacing() {
        assert_eq!(canonical_arg("- 5"), "-5");
        assert_eq!(canonical_arg("1 << 10"), "1<<10");
        assert_eq!(canonical_arg("vec ! [1 , 2]"), "vec![1,2]");
    }

    #[test]
    fn canonical_arg_keeps_spaces_inside_string_literals() {
        assert_eq!(canonical_arg("\"a b\" . len ()"), "\"a b\".len()");
        assert_eq!(
            canonical_arg(r#""say \"hi there\"""#),
            r#""say \"hi there\"""#
        );
    }

    #[test]
    fn case_id_appends_the_argument() {
        assert_eq!(case_id("q::chain_n", Some("1 000")), "q::chain_n/1000");
        assert_eq!(case_id("q::sort", None), "q::sort");
    }
}
