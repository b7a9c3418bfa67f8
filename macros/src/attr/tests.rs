//! Unit tests of attribute parsing.

use super::*;
use quote::quote;

fn err(tokens: TokenStream) -> String {
    match BenchAttr::parse(tokens) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn empty_attribute_has_no_options() {
    let attr = BenchAttr::parse(quote!()).unwrap();
    assert!(attr.args.is_none() && attr.group.is_none() && !attr.is_baseline());
}

#[test]
fn parses_all_options() {
    let attr = BenchAttr::parse(quote!(
        args = [1, 2 + 3, "x".to_string()],
        group = "g",
        baseline
    ))
    .unwrap();
    let args = attr.args.unwrap();
    assert_eq!(args.key, "args");
    assert_eq!(args.values.len(), 3);
    assert_eq!(attr.group.unwrap().value(), "g");
    assert!(attr.baseline.is_some_and(|(_, b)| b));
}

#[test]
fn baseline_accepts_bool_values() {
    let attr = BenchAttr::parse(quote!(group = "g", baseline = false)).unwrap();
    assert!(!attr.is_baseline());
    let attr = BenchAttr::parse(quote!(baseline = true, group = "g")).unwrap();
    assert!(attr.is_baseline());
    // `baseline = false` without a group is harmless.
    assert!(BenchAttr::parse(quote!(baseline = false)).is_ok());
}

#[test]
fn trailing_comma_is_accepted() {
    assert!(BenchAttr::parse(quote!(args = [1, 2,], group = "g",)).is_ok());
}

#[test]
fn rejects_unknown_option() {
    assert_eq!(
        err(quote!(foo = 1)),
        "unknown `#[bench]` option `foo`; expected `args`, `group` or `baseline`"
    );
    assert!(err(quote!(a::b)).contains("option `a::b`"));
}

#[test]
fn rejects_duplicates() {
    assert_eq!(
        err(quote!(args = [1], args = [2])),
        "duplicate `#[bench]` option `args`"
    );
    assert_eq!(
        err(quote!(group = "a", group = "b")),
        "duplicate `#[bench]` option `group`"
    );
    assert!(err(quote!(baseline, baseline = false)).contains("duplicate"));
}

#[test]
fn rejects_bad_values() {
    assert!(err(quote!(args = [])).contains("at least one value"));
    assert!(err(quote!(args = 5)).contains("an array literal"));
    assert!(err(quote!(args)).contains("`args` needs a value"));
    assert!(err(quote!(group = sort)).contains("string literal"));
    assert!(err(quote!(group = "")).contains("non-empty"));
    assert!(err(quote!(group)).contains("`group` needs a value"));
    assert!(err(quote!(group = "g", baseline = 1)).contains("`baseline = true`"));
}

#[test]
fn baseline_requires_group() {
    assert!(err(quote!(baseline)).starts_with("`baseline` needs `group"));
}
