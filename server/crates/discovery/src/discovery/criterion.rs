//! criterion benchmarks in a source file: whether it ends with `criterion_main!`, and where its
//! `bench_function` / `bench_with_input` calls are.
//!
//! criterion names benchmarks at run time, so the tree of a criterion target comes from the
//! built binary's `--list` (see [`super::Discovery::reconcile`]). Each listed case carries the
//! file and line of the call that declared it (knotmeter-criterion records the caller's
//! location, which for a method call is the line of the method's name). The calls found here
//! turn that line into the call's exact range, and find the call again by its literal name when
//! lines moved since the build, so gutter buttons, lenses and annotations sit on the call.

use knotmeter_protocol::editor::Range;
use syn::visit::Visit;
use syn::{Expr, ExprMethodCall, Item, Lit};

use super::lines::LineIndex;

/// What a file holds of criterion's API.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CriterionScan {
    /// The file invokes `criterion_main!`: its target is a criterion bench target.
    pub main: bool,
    /// Every `bench_function` and `bench_with_input` call, in source order.
    pub calls: Vec<BenchCall>,
}

/// One `bench_function(..)` or `bench_with_input(..)` call.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchCall {
    /// The function name when the id is a literal: `bench_function("name", ..)` or
    /// `BenchmarkId::new("name", ..)`; `None` for names computed at run time and
    /// `BenchmarkId::from_parameter`.
    pub name: Option<String>,
    /// 1-based line of the method's name: what the caller location reports.
    pub line: u32,
    /// From the method's name to the closing parenthesis.
    pub range: Range,
    /// The method's name.
    pub name_range: Range,
}

/// Scans a parsed file.
pub fn scan(file: &syn::File, lines: &LineIndex) -> CriterionScan {
    let mut visitor = Visitor {
        lines,
        out: CriterionScan::default(),
    };
    visitor.out.main = file.items.iter().any(is_criterion_main);
    visitor.visit_file(file);
    visitor.out
}

fn is_criterion_main(item: &Item) -> bool {
    matches!(item, Item::Macro(m) if m.mac.path.segments.last().is_some_and(|s| s.ident == "criterion_main"))
}

struct Visitor<'a, 'l> {
    lines: &'l LineIndex<'a>,
    out: CriterionScan,
}

impl<'ast> Visit<'ast> for Visitor<'_, '_> {
    fn visit_expr_method_call(&mut self, call: &'ast ExprMethodCall) {
        let method = call.method.to_string();
        if method == "bench_function" || method == "bench_with_input" {
            let start = call.method.span().start();
            self.out.calls.push(BenchCall {
                name: call.args.first().and_then(literal_name),
                line: start.line as u32,
                range: Range {
                    start: self.lines.position(start),
                    end: self.lines.position(call.paren_token.span.close().end()),
                },
                name_range: self.lines.range(call.method.span()),
            });
        }
        syn::visit::visit_expr_method_call(self, call);
    }
}

/// The literal function name of an id expression, if it has one.
fn literal_name(id: &Expr) -> Option<String> {
    match id {
        Expr::Lit(lit) => string(&lit.lit),
        Expr::Reference(reference) => literal_name(&reference.expr),
        Expr::Call(call) => {
            let Expr::Path(path) = &*call.func else {
                return None;
            };
            let segments: Vec<String> = path
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            match segments.iter().map(String::as_str).collect::<Vec<_>>()[..] {
                [.., "BenchmarkId", "new"] => call.args.first().and_then(literal_name),
                _ => None,
            }
        }
        _ => None,
    }
}

fn string(lit: &Lit) -> Option<String> {
    match lit {
        Lit::Str(s) => Some(s.value()),
        _ => None,
    }
}

impl CriterionScan {
    /// The call that declared a listed case named `name` (the function part of its id) at
    /// `line`: the call on that line, unless its literal name says otherwise; else the one
    /// call with that literal name (lines moved since the build); else the nearest call
    /// without a literal name. `None` when nothing fits.
    pub fn call_for(&self, name: &str, line: u32) -> Option<&BenchCall> {
        let fits = |call: &&BenchCall| call.name.as_deref().is_none_or(|n| n == name);
        if let Some(call) = self.calls.iter().filter(fits).find(|c| c.line == line) {
            return Some(call);
        }
        let mut named = self
            .calls
            .iter()
            .filter(|c| c.name.as_deref() == Some(name));
        if let (Some(call), None) = (named.next(), named.next()) {
            return Some(call);
        }
        self.calls
            .iter()
            .filter(fits)
            .min_by_key(|c| c.line.abs_diff(line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = r#"
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

fn benches(c: &mut Criterion) {
    c.bench_function("fib 20", |b| b.iter(|| 1));
    let mut group = c.benchmark_group("sort");
    for n in [10, 100] {
        group
            .bench_with_input(BenchmarkId::new("stable", n), &n, |b, n| b.iter(|| n));
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, n| b.iter(|| n));
    }
    let name = String::from("computed");
    group.bench_function(&name, |b| b.iter(|| 2));
}

criterion_group!(g, benches);
criterion_main!(g);
"#;

    fn scanned(source: &str) -> CriterionScan {
        let file = syn::parse_file(source).unwrap();
        scan(&file, &LineIndex::new(source))
    }

    #[test]
    fn finds_criterion_main_and_every_bench_call_with_its_literal_name() {
        let scan = scanned(SOURCE);
        assert!(scan.main);
        let calls: Vec<(Option<&str>, u32)> = scan
            .calls
            .iter()
            .map(|c| (c.name.as_deref(), c.line))
            .collect();
        assert_eq!(
            calls,
            [
                (Some("fib 20"), 5),
                (Some("stable"), 9),
                (None, 10),
                (None, 13)
            ]
        );
        // The range starts at the method's name (where the caller location points), on the
        // second line of a chained call, and ends at its closing parenthesis.
        let stable = &scan.calls[1].range;
        assert_eq!((stable.start.line, stable.start.character), (8, 13));
        assert_eq!(stable.end.line, 8);
        assert!(!scanned("fn main() {}").main);
    }

    #[test]
    fn a_listed_case_finds_its_call_by_line_then_by_literal_name() {
        let scan = scanned(SOURCE);
        assert_eq!(scan.call_for("stable", 9).unwrap().line, 9);
        // Lines moved since the build: the literal name still finds the call.
        assert_eq!(scan.call_for("fib 20", 2).unwrap().line, 5);
        // A parameter-only id has no literal: the call on its line.
        assert_eq!(scan.call_for("sort", 10).unwrap().line, 10);
        assert_eq!(scan.call_for("computed", 13).unwrap().line, 13);
        // A literal name that disagrees with the line is not taken for it.
        assert_ne!(scan.call_for("unstable", 9).unwrap().line, 9);
    }
}
