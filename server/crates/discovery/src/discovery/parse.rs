//! Parsing one source file with syn: its `#[bench]` functions and its `mod` declarations.
//!
//! A file is parsed on its own, without knowing where it sits in the module tree: benchmark
//! module paths are relative to the file (inline `mod m { .. }` blocks only), and the caller
//! ([`super::Discovery`]) prefixes the file's own module path. So a changed file is re-parsed
//! alone and the others keep their cached results.
//!
//! Spans come from proc-macro2's `span-locations` (line, and column in characters) and are
//! turned into LSP positions (UTF-16 code units) with the file's text. proc-macro2 keeps a
//! per-thread source map of everything parsed; it is cleared after each file so a long-lived
//! daemon does not grow.

use std::hash::{Hash, Hasher};

use knotmeter_protocol::canonical_arg;
use knotmeter_protocol::editor::Range;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, Item, ItemFn, Lit};

use super::criterion::CriterionScan;
use super::lines::LineIndex;

/// What one file declares.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParsedFile {
    /// The `#[bench]` functions, in source order.
    pub benches: Vec<BenchFn>,
    /// The `mod name;` declarations (modules in other files), in source order.
    pub mods: Vec<ModDecl>,
    /// criterion's API in the file: `criterion_main!` and the benchmark calls.
    pub criterion: CriterionScan,
}

/// One `#[bench]` / `#[knotmeter::bench]` function.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchFn {
    /// Inline modules between the file's module and the function.
    pub inline_path: Vec<String>,
    /// The function's name (without `r#`).
    pub name: String,
    /// 1-based line of the name, as the engine's `line!()` reports it.
    pub line: u32,
    /// From the `#[bench]` attribute to the closing brace.
    pub range: Range,
    /// The name.
    pub name_range: Range,
    /// From the `#[bench]` attribute to the opening brace of the body: where hovers apply.
    pub header_range: Range,
    /// One entry per `args` value: its canonical text and its range. Empty without `args`.
    pub args: Vec<(String, Range)>,
    /// `group = ".."`.
    pub group: Option<String>,
    /// `baseline`.
    pub baseline: bool,
    /// What the function's code is, as a hash of its tokens: it changes with the code, not
    /// with its comments or layout (run-on-save runs the benchmarks a save edited first).
    pub fingerprint: u64,
}

/// A `mod name;` whose body is in another file.
#[derive(Debug, Clone, PartialEq)]
pub struct ModDecl {
    /// Inline modules between the file's module and the declaration.
    pub inline_path: Vec<String>,
    /// The module's name (without `r#`).
    pub name: String,
    /// The `#[path = ".."]` attribute, if any.
    pub path_attr: Option<String>,
}

/// Parses `text`. A file that does not parse gives the syn error's message.
pub fn parse_file(text: &str) -> Result<ParsedFile, String> {
    let parsed = syn::parse_file(text).map_err(|e| {
        let at = e.span().start();
        format!("{}:{}: {e}", at.line, at.column + 1)
    });
    let result = parsed.map(|file| {
        let lines = LineIndex::new(text);
        let mut out = ParsedFile::default();
        walk(&file.items, &mut Vec::new(), &lines, &mut out);
        out.criterion = super::criterion::scan(&file, &lines);
        out
    });
    proc_macro2::extra::invalidate_current_thread_spans();
    result
}

fn walk(items: &[Item], inline: &mut Vec<String>, lines: &LineIndex, out: &mut ParsedFile) {
    for item in items {
        match item {
            Item::Fn(function) => {
                if let Some(attr) = function.attrs.iter().find(|a| is_bench_attr(a)) {
                    out.benches
                        .push(bench_fn(function, attr, inline.clone(), lines));
                }
            }
            Item::Mod(module) => {
                let name = module.ident.to_string();
                let name = name.strip_prefix("r#").unwrap_or(&name).to_owned();
                match &module.content {
                    Some((_, items)) => {
                        inline.push(name);
                        walk(items, inline, lines, out);
                        inline.pop();
                    }
                    None => out.mods.push(ModDecl {
                        inline_path: inline.clone(),
                        name,
                        path_attr: path_attr(&module.attrs),
                    }),
                }
            }
            _ => {}
        }
    }
}

/// A hash of `function`'s tokens: its attributes but the doc comments, its signature and its
/// body. Comments and layout are not tokens, so they leave it as it is.
fn fingerprint(function: &ItemFn) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    for attr in function.attrs.iter().filter(|a| !a.path().is_ident("doc")) {
        attr.to_token_stream().to_string().hash(&mut hasher);
    }
    function.sig.to_token_stream().to_string().hash(&mut hasher);
    function
        .block
        .to_token_stream()
        .to_string()
        .hash(&mut hasher);
    hasher.finish()
}

/// `#[bench]`, `#[knotmeter::bench]` or `#[::knotmeter::bench]`.
fn is_bench_attr(attr: &Attribute) -> bool {
    let segments: Vec<String> = attr
        .path()
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    matches!(
        segments.iter().map(String::as_str).collect::<Vec<_>>()[..],
        ["bench"] | ["knotmeter", "bench"]
    )
}

fn path_attr(attrs: &[Attribute]) -> Option<String> {
    attrs.iter().find_map(|attr| {
        if !attr.path().is_ident("path") {
            return None;
        }
        match &attr.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(syn::ExprLit {
                    lit: Lit::Str(s), ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        }
    })
}

fn bench_fn(
    function: &ItemFn,
    attr: &Attribute,
    inline: Vec<String>,
    lines: &LineIndex,
) -> BenchFn {
    let ident = &function.sig.ident;
    let name = ident.to_string();
    let name = name.strip_prefix("r#").unwrap_or(&name).to_owned();
    let start = lines.position(attr.pound_token.span.start());
    let end = lines.position(function.block.brace_token.span.close().end());
    let open = lines.position(function.block.brace_token.span.open().end());
    let mut bench = BenchFn {
        inline_path: inline,
        name,
        line: ident.span().start().line as u32,
        range: Range { start, end },
        name_range: lines.range(ident.span()),
        header_range: Range { start, end: open },
        args: Vec::new(),
        group: None,
        baseline: false,
        fingerprint: fingerprint(function),
    };
    // Options that do not parse are left out: the compiler reports them on the next build.
    if matches!(attr.meta, syn::Meta::List(_)) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("args") {
                if let Expr::Array(array) = meta.value()?.parse::<Expr>()? {
                    bench.args = array
                        .elems
                        .iter()
                        .map(|value| {
                            (
                                canonical_arg(&value.to_token_stream().to_string()),
                                lines.range(value.span()),
                            )
                        })
                        .collect();
                }
            } else if meta.path.is_ident("group") {
                if let Expr::Lit(syn::ExprLit {
                    lit: Lit::Str(s), ..
                }) = meta.value()?.parse::<Expr>()?
                {
                    bench.group = Some(s.value());
                }
            } else if meta.path.is_ident("baseline") {
                bench.baseline = true;
                if meta.input.peek(syn::Token![=]) {
                    if let Expr::Lit(syn::ExprLit {
                        lit: Lit::Bool(b), ..
                    }) = meta.value()?.parse::<Expr>()?
                    {
                        bench.baseline = b.value;
                    }
                }
            } else if !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
                // An unknown option with a value: skip the value.
                let _ = meta.value()?.parse::<Expr>()?;
            }
            Ok(())
        });
    }
    bench
}

#[cfg(test)]
mod tests {
    use super::*;
    use knotmeter_protocol::editor::Position;

    const SOURCE: &str = r#"
use knotmeter::{bench, Bencher};

/// Doc.
#[bench]
fn plain() -> u64 { 1 }

#[knotmeter::bench(args = [-5, 1 << 10, "a b"], group = "g", baseline)]
fn sized(n: i64) -> i64 { n }

fn not_a_bench() {}

mod inner {
    #[bench(group = "x", baseline = false)]
    fn r#deep(b: &mut Bencher) { b.iter(|| 1) }
    mod more;
}

#[path = "other/file.rs"]
mod elsewhere;
"#;

    #[test]
    fn finds_benches_args_groups_and_mods() {
        let parsed = parse_file(SOURCE).unwrap();
        let names: Vec<_> = parsed
            .benches
            .iter()
            .map(|b| (b.inline_path.join("::"), b.name.as_str(), b.line))
            .collect();
        assert_eq!(
            names,
            [
                ("".into(), "plain", 6),
                ("".into(), "sized", 9),
                ("inner".into(), "deep", 15)
            ]
        );
        let sized = &parsed.benches[1];
        let args: Vec<_> = sized.args.iter().map(|(a, _)| a.as_str()).collect();
        assert_eq!(args, ["-5", "1<<10", "\"a b\""]);
        assert_eq!((sized.group.as_deref(), sized.baseline), (Some("g"), true));
        assert!(!parsed.benches[2].baseline);
        assert_eq!(parsed.benches[2].group.as_deref(), Some("x"));
        // `#[bench]` starts on line 5 (index 4); the body closes on line 6.
        assert_eq!(
            parsed.benches[0].range.start,
            Position {
                line: 4,
                character: 0
            }
        );
        assert_eq!(
            parsed.benches[0].range.end,
            Position {
                line: 5,
                character: 23
            }
        );
        assert_eq!(
            parsed.benches[0].name_range,
            Range {
                start: Position {
                    line: 5,
                    character: 3
                },
                end: Position {
                    line: 5,
                    character: 8
                }
            }
        );
        assert_eq!(
            sized.args[0].1.start,
            Position {
                line: 7,
                character: 27
            }
        );
        let mods: Vec<_> = parsed
            .mods
            .iter()
            .map(|m| {
                (
                    m.inline_path.join("::"),
                    m.name.as_str(),
                    m.path_attr.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            mods,
            [
                ("inner".into(), "more", None),
                ("".into(), "elsewhere", Some("other/file.rs"))
            ]
        );
    }

    #[test]
    fn columns_are_utf16_code_units() {
        let parsed = parse_file("const É: &str = \"😀\"; #[bench] fn f() {}").unwrap();
        // `É` is one UTF-16 unit and `😀` two, so `#` is at character 22 (21 chars).
        assert_eq!(parsed.benches[0].range.start.character, 22);
    }

    #[test]
    fn syntax_errors_are_reported() {
        let err = parse_file("fn f( {").unwrap_err();
        assert!(err.starts_with("1:"), "{err}");
    }

    #[test]
    fn a_fingerprint_follows_the_code_not_its_comments_or_layout() {
        let code = |text: &str| -> Vec<u64> {
            let parsed = parse_file(text).unwrap();
            parsed.benches.iter().map(|b| b.fingerprint).collect()
        };
        let original = code("#[bench]\nfn a() -> u64 { work(1) }\n#[bench]\nfn b() {}\n");
        let commented = code(
            "/// Doc.\n#[bench]\nfn a() -> u64 {\n    // a comment\n    work(1)\n}\n\n#[bench]\nfn b() {}\n",
        );
        assert_eq!(original, commented);
        let edited = code("#[bench]\nfn a() -> u64 { work(2) }\n#[bench]\nfn b() {}\n");
        assert_ne!(original[0], edited[0]);
        assert_eq!(original[1], edited[1]);
        let grouped =
            code("#[bench(group = \"g\")]\nfn a() -> u64 { work(1) }\n#[bench]\nfn b() {}\n");
        assert_ne!(original[0], grouped[0], "the attribute is part of the code");
    }
}
