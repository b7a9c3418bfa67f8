//! Unit tests of signature classification.

use super::*;
use crate::attr::BenchAttr;
use quote::{quote, ToTokens};
use syn::parse_quote;

fn args() -> Option<BenchAttr> {
    Some(BenchAttr::parse(quote!(args = [1, 2])).unwrap())
}

fn ok(sig: Signature, with_args: bool) -> BenchFn {
    let attr = if with_args { args() } else { None };
    match classify(&sig, attr.as_ref().and_then(|a| a.args.as_ref())) {
        Ok(bench) => bench,
        Err(e) => panic!("unexpected error: {e}"),
    }
}

fn err(sig: Signature, with_args: bool) -> String {
    let attr = if with_args { args() } else { None };
    match classify(&sig, attr.as_ref().and_then(|a| a.args.as_ref())) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

fn value(bench: &BenchFn) -> &ValueParam {
    match &bench.shape {
        Shape::Arg(v) | Shape::BencherArg(v) => v,
        _ => panic!("expected a value parameter"),
    }
}

#[test]
fn plain_functions() {
    let bench = ok(parse_quote!(fn chain_1000() -> u64), false);
    assert!(matches!(bench.shape, Shape::Plain));
    assert!(bench.returns_value && !bench.is_async);
    assert_eq!(bench.ident, "chain_1000");
    assert!(!ok(parse_quote!(fn f()), false).returns_value);
    assert!(!ok(parse_quote!(fn f() -> ()), false).returns_value);
    assert!(ok(parse_quote!(async fn f() -> u64), false).is_async);
    // Lifetime parameters, `const fn` and other ABIs are fine.
    assert!(matches!(
        ok(parse_quote!(const fn f<'a>()), false).shape,
        Shape::Plain
    ));
}

#[test]
fn bencher_functions() {
    let shape = ok(parse_quote!(fn f(b: &mut Bencher)), false).shape;
    assert!(matches!(shape, Shape::Bencher));
    let shape = ok(parse_quote!(fn f(b: &mut knotmeter::Bencher)), false).shape;
    assert!(matches!(shape, Shape::Bencher));
    let shape = ok(parse_quote!(fn f(_: &mut Bencher, mut n: usize)), true).shape;
    assert!(matches!(shape, Shape::BencherArg(_)));
}

#[test]
fn value_parameters() {
    let bench = ok(parse_quote!(fn f(mut n: u64) -> u64), true);
    assert!(matches!(bench.shape, Shape::Arg(_)));
    assert_eq!(value(&bench).ty.to_token_stream().to_string(), "u64");
    let bench = ok(parse_quote!(async fn f((a, b): (u32, u32))), true);
    assert!(bench.is_async);
    assert_eq!(value(&bench).passing, Passing::Copy);
}

#[test]
fn copy_or_clone() {
    let passing = |sig: Signature| value(&ok(sig, true)).passing;
    for sig in [
        parse_quote!(fn f(n: u8)),
        parse_quote!(fn f(n: i128)),
        parse_quote!(fn f(n: f64)),
        parse_quote!(fn f(n: bool)),
        parse_quote!(fn f(n: char)),
        parse_quote!(fn f(n: &str)),
        parse_quote!(fn f(n: &[u8])),
        parse_quote!(fn f(n: &Vec<String>)),
        parse_quote!(fn f(n: (usize, &str))),
        parse_quote!(fn f(n: [isize; 4])),
    ] {
        assert_eq!(passing(sig), Passing::Copy);
    }
    for sig in [
        parse_quote!(fn f(n: String)),
        parse_quote!(fn f(n: Vec<u8>)),
        parse_quote!(fn f(n: (u8, String))),
        parse_quote!(fn f(n: std::primitive::u8)),
        parse_quote!(fn f(n: MyType)),
    ] {
        assert_eq!(passing(sig), Passing::Clone);
    }
}

#[test]
fn lifetime_parameters_are_erased_in_the_let_type() {
    let bench = ok(parse_quote!(fn f<'a>(s: &'a str, ) -> &'a str), true);
    let ty = value(&bench).ty.to_token_stream().to_string();
    assert_eq!(ty, "& '_ str");
    let bench = ok(parse_quote!(fn f(s: &'static str)), true);
    assert_eq!(
        value(&bench).ty.to_token_stream().to_string(),
        "& 'static str"
    );
}

#[test]
fn rejects_unsupported_functions() {
    assert!(err(parse_quote!(fn f(&self)), false).contains("methods"));
    assert!(err(parse_quote!(fn f(self: Box<Self>)), false).contains("methods"));
    assert!(err(parse_quote!(unsafe fn f()), false).contains("`unsafe fn`"));
    assert!(err(parse_quote!(fn f<T>()), false).contains("type parameters"));
    assert!(err(parse_quote!(fn f<const N: usize>()), false).contains("const parameters"));
    assert!(err(parse_quote!(fn f(n: u8, ...)), true).contains("variadic"));
}

#[test]
fn rejects_bad_parameter_lists() {
    let e = err(parse_quote!(fn f(n: u64)), false);
    assert!(
        e.starts_with("this parameter needs `#[bench(args = [...])]`"),
        "{e}"
    );
    let e = err(parse_quote!(fn f()), true);
    assert!(e.starts_with("`args` needs a parameter"), "{e}");
    let e = err(parse_quote!(fn f(b: &mut Bencher)), true);
    assert!(e.starts_with("`args` needs a parameter"), "{e}");
    let e = err(parse_quote!(fn f(a: u64, b: u64)), true);
    assert!(
        e.contains("at most one parameter besides the `Bencher`"),
        "{e}"
    );
    let e = err(parse_quote!(fn f(n: impl Into<u64>)), true);
    assert!(e.contains("`impl Trait`"), "{e}");
    let e = err(parse_quote!(fn f(n: Vec<impl Clone>)), true);
    assert!(e.contains("`impl Trait`"), "{e}");
    let e = err(parse_quote!(fn f(n: &mut Vec<u8>)), true);
    assert!(e.contains("`&mut` reference"), "{e}");
}

#[test]
fn rejects_bad_bencher_parameters() {
    let must_be_mut = "the `Bencher` parameter must be `&mut Bencher`";
    assert_eq!(err(parse_quote!(fn f(b: &Bencher)), false), must_be_mut);
    assert_eq!(err(parse_quote!(fn f(b: Bencher)), false), must_be_mut);
    assert_eq!(
        err(parse_quote!(fn f(b: &mut &mut Bencher)), false),
        must_be_mut
    );
    let e = err(parse_quote!(fn f(n: u64, b: &mut Bencher)), true);
    assert!(
        e.starts_with("the `Bencher` parameter must come first"),
        "{e}"
    );
    let e = err(parse_quote!(fn f(a: &mut Bencher, b: &mut Bencher)), false);
    assert_eq!(e, "only one `Bencher` parameter is allowed");
    let e = err(parse_quote!(async fn f(b: &mut Bencher)), false);
    assert!(
        e.starts_with("an `async fn` benchmark cannot take a `Bencher`"),
        "{e}"
    );
}
