//! Unit tests of the generated code (compared with whitespace removed).

use super::*;

fn expand(attr: TokenStream, item: TokenStream) -> String {
    bench(attr, item)
        .to_string()
        .replace(char::is_whitespace, "")
}

fn has(expanded: &str, fragment: &str) -> bool {
    expanded.contains(&fragment.replace(char::is_whitespace, ""))
}

const BB: &str = "::knotmeter::__private::black_box";

#[test]
fn keeps_the_function_and_registers_it() {
    let out = expand(
        quote!(),
        quote!(
            #[doc = "x"]
            pub fn chain_1000() -> u64 {
                1
            }
        ),
    );
    assert!(
        out.starts_with("#[doc=\"x\"]pubfnchain_1000()->u64{1}const_:()={"),
        "{out}"
    );
    assert!(has(
        &out,
        "#[::knotmeter::__private::linkme::distributed_slice(::knotmeter::__private::BENCHES)]"
    ));
    assert!(has(
        &out,
        "#[linkme(crate = ::knotmeter::__private::linkme)]"
    ));
    let location = "module_path: ::core::module_path!(), file: ::core::file!(), \
                    line: ::core::line!()";
    assert!(
        has(&out, &format!("name: \"chain_1000\", {location}")),
        "{out}"
    );
    assert!(has(
        &out,
        "group: ::core::option::Option::None, baseline: false, args: &[], run: __knotmeter_run"
    ));
    let run = "fn __knotmeter_run(b: &mut ::knotmeter::__private::Bencher, case: usize)";
    assert!(
        has(&out, &format!("{run} {{ b.iter(chain_1000) }}")),
        "{out}"
    );
}

#[test]
fn raw_identifiers_are_registered_without_prefix() {
    let out = expand(
        quote!(),
        quote!(
            fn r#match() {}
        ),
    );
    assert!(has(&out, "name: \"match\""), "{out}");
}

#[test]
fn group_and_baseline() {
    let out = expand(
        quote!(group = "sort", baseline),
        quote!(
            fn f(b: &mut Bencher) {}
        ),
    );
    assert!(
        has(
            &out,
            "group: ::core::option::Option::Some(\"sort\"), baseline: true"
        ),
        "{out}"
    );
    assert!(has(&out, "{ f(b); }"), "{out}");
    let out = expand(
        quote!(),
        quote!(
            fn f(b: &mut Bencher) -> Result<(), ()> {
                Ok(())
            }
        ),
    );
    assert!(has(&out, "{ let _ = f(b); }"), "{out}");
}

#[test]
fn copy_args_are_timed_with_iter() {
    let out = expand(
        quote!(args = [10, 1 << 4]),
        quote!(
            fn chain_n(n: u64) -> u64 {
                n
            }
        ),
    );
    assert!(has(&out, "args: &[\"10\", \"1 << 4\"]"), "{out}");
    let case0 = format!("0usize => {{ let arg: u64 = 10; b.iter(move || chain_n({BB}(arg))) }}");
    assert!(has(&out, &case0), "{out}");
    assert!(has(&out, "1usize => { let arg: u64 = 1 << 4;"), "{out}");
    assert!(has(&out, "_ => ::core::panic!("), "{out}");
}

#[test]
fn clone_args_are_run_by_value() {
    // Not `with_inputs(..).run(..)`, whose baseline drops its input after the clock while `f`
    // drops its argument inside it.
    let out = expand(
        quote!(args = [String::new()]),
        quote!(
            fn f(s: String) {}
        ),
    );
    let timed = "let arg: String = String::new(); \
                 ::knotmeter::__private::run_by_value(\
                 b, move || ::core::clone::Clone::clone(&arg), |input| f(input))";
    assert!(has(&out, timed), "{out}");
}

#[test]
fn async_functions_use_iter_async() {
    let out = expand(
        quote!(),
        quote!(
            async fn lookup() -> u64 {
                1
            }
        ),
    );
    assert!(has(&out, "b.iter_async(lookup)"), "{out}");
    let out = expand(
        quote!(args = [1]),
        quote!(
            async fn f(n: u32) {}
        ),
    );
    assert!(
        has(&out, &format!("b.iter_async(move || f({BB}(arg)))")),
        "{out}"
    );
    let out = expand(
        quote!(args = [vec![1]]),
        quote!(
            async fn f(n: Vec<u8>) {}
        ),
    );
    let timed = format!("b.iter_async(move || f({BB}(::core::clone::Clone::clone(&arg))))");
    assert!(has(&out, &timed), "{out}");
}

#[test]
fn bencher_with_arg() {
    let out = expand(
        quote!(args = [10]),
        quote!(
            fn f(b: &mut Bencher, n: usize) {}
        ),
    );
    assert!(
        has(
            &out,
            &format!("0usize => {{ let arg: usize = 10; f(b, {BB}(arg)); }}")
        ),
        "{out}"
    );
}

#[test]
fn cfg_attributes_are_copied_to_the_registration() {
    let out = expand(
        quote!(),
        quote!(
            #[cfg(unix)]
            #[inline]
            fn f() {}
        ),
    );
    assert!(has(&out, "#[cfg(unix)] const _: () ="), "{out}");
    assert!(!has(&out, "#[inline] const _"), "{out}");
}

#[test]
fn errors_keep_the_item() {
    let out = expand(
        quote!(bogus),
        quote!(
            fn f() {}
        ),
    );
    assert!(out.starts_with("::core::compile_error!"), "{out}");
    assert!(out.ends_with("fnf(){}"), "{out}");
    let out = expand(
        quote!(),
        quote!(
            struct S;
        ),
    );
    assert!(has(&out, "can only be applied to functions"), "{out}");
}
