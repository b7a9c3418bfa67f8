//! Code generation: the user's function, unchanged, followed by its registration.
//!
//! ```text
//! fn chain_n(n: u64) -> u64 { .. }                    // as written
//! const _: () = {
//!     #[::knotmeter::__private::linkme::distributed_slice(::knotmeter::__private::BENCHES)]
//!     #[linkme(crate = ::knotmeter::__private::linkme)]
//!     static __KNOTMETER_BENCH: BenchDef = BenchDef { name: "chain_n", .., run: __knotmeter_run };
//!     fn __knotmeter_run(b: &mut Bencher, case: usize) {
//!         match case {
//!             0 => { let arg: u64 = 10; b.iter(move || chain_n(black_box(arg))) }
//!             ..
//!         }
//!     }
//! };
//! ```

use crate::attr::BenchAttr;
use crate::signature::{classify, BenchFn, Shape, ValueParam};
use crate::types::Passing;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Expr, Item, ItemFn};

/// Expands `#[bench(attr)] item`. On error, the item is still emitted unchanged beside the
/// error so that code calling the function does not produce follow-up errors.
pub(crate) fn bench(attr: TokenStream, item: TokenStream) -> TokenStream {
    match try_expand(attr, item.clone()) {
        Ok(registration) => quote!(#item #registration),
        Err(error) => {
            let error = error.into_compile_error();
            quote!(#error #item)
        }
    }
}

fn try_expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let function = match syn::parse2::<Item>(item)? {
        Item::Fn(function) => function,
        other => {
            let msg = "`#[bench]` can only be applied to functions (`fn` items with a body)";
            return Err(syn::Error::new_spanned(other, msg));
        }
    };
    let attr = BenchAttr::parse(attr)?;
    let bench = classify(&function.sig, attr.args.as_ref())?;
    Ok(registration(&function, &attr, &bench))
}

/// The `const _: () = { .. };` block registering `function`.
fn registration(function: &ItemFn, attr: &BenchAttr, bench: &BenchFn) -> TokenStream {
    let private = quote!(::knotmeter::__private);
    let ident = &bench.ident;
    let name = ident.unraw().to_string();
    let line = quote_spanned!(ident.span()=> ::core::line!());
    let group = match &attr.group {
        Some(group) => quote!(::core::option::Option::Some(#group)),
        None => quote!(::core::option::Option::None),
    };
    let baseline = attr.is_baseline();
    let values: &[Expr] = attr.args.as_ref().map_or(&[], |args| &args.values);
    let sources = values
        .iter()
        .map(|value| value.to_token_stream().to_string());
    let body = run_body(bench, values);
    let (b, case) = (hygienic("b"), hygienic("case"));
    // A `#[cfg]` on the function must also remove its registration.
    let cfgs = function.attrs.iter().filter(|a| a.path().is_ident("cfg"));
    quote! {
        #(#cfgs)*
        const _: () = {
            #[#private::linkme::distributed_slice(#private::BENCHES)]
            #[linkme(crate = #private::linkme)]
            static __KNOTMETER_BENCH: #private::BenchDef = #private::BenchDef {
                name: #name,
                module_path: ::core::module_path!(),
                file: ::core::file!(),
                line: #line,
                group: #group,
                baseline: #baseline,
                args: &[#(#sources),*],
                run: __knotmeter_run,
            };
            fn __knotmeter_run(#b: &mut #private::Bencher, #case: usize) {
                #body
            }
        };
    }
}

/// The body of `__knotmeter_run(b, case)`.
fn run_body(bench: &BenchFn, values: &[Expr]) -> TokenStream {
    let b = hygienic("b");
    let f = &bench.ident;
    let (value, timed) = match &bench.shape {
        Shape::Plain if bench.is_async => return quote!(#b.iter_async(#f)),
        Shape::Plain => return quote!(#b.iter(#f)),
        Shape::Bencher => return discard(bench, quote!(#f(#b))),
        Shape::Arg(value) => (value, timed_call(bench, value)),
        Shape::BencherArg(value) => (value, with_bencher(bench)),
    };
    let arg = hygienic("arg");
    let ty = &value.ty;
    let cases = values
        .iter()
        .enumerate()
        .map(|(i, expr)| quote!(#i => { let #arg: #ty = #expr; #timed }));
    let case = hygienic("case");
    let name = bench.ident.unraw().to_string();
    quote! {
        match #case {
            #(#cases)*
            _ => ::core::panic!("knotmeter: benchmark `{}` has no case {}", #name, #case),
        }
    }
}

/// `f(b, black_box(arg))`.
fn with_bencher(bench: &BenchFn) -> TokenStream {
    let (b, arg, f) = (hygienic("b"), hygienic("arg"), &bench.ident);
    discard(
        bench,
        quote!(#f(#b, ::knotmeter::__private::black_box(#arg))),
    )
}

/// The timed loop of `fn f(n: T)` for the value bound to `arg`.
fn timed_call(bench: &BenchFn, value: &ValueParam) -> TokenStream {
    let (b, arg, input, f) = (
        hygienic("b"),
        hygienic("arg"),
        hygienic("input"),
        &bench.ident,
    );
    let black_box = quote!(::knotmeter::__private::black_box);
    // Located at the parameter's type, so a missing `Clone` impl is reported there.
    let at_ty = Span::mixed_site().located_at(value.ty.span());
    let arg_at_ty = syn::Ident::new("arg", at_ty);
    let clone = quote_spanned!(at_ty=> ::core::clone::Clone::clone(&#arg_at_ty));
    match (value.passing, bench.is_async) {
        (Passing::Copy, false) => quote!(#b.iter(move || #f(#black_box(#arg)))),
        (Passing::Copy, true) => quote!(#b.iter_async(move || #f(#black_box(#arg)))),
        // Cloned outside the timed region; the engine passes each clone through `black_box`,
        // and its baseline drops a clone inside the clock as `f` does.
        (Passing::Clone, false) => quote!(
            ::knotmeter::__private::run_by_value(#b, move || #clone, |#input| #f(#input))
        ),
        // The engine has no async form of `with_inputs`: the clone happens when the
        // future is created, inside the timed region.
        (Passing::Clone, true) => quote!(#b.iter_async(move || #f(#black_box(#clone)))),
    }
}

/// Calls `call` as a statement, discarding a returned value explicitly.
fn discard(bench: &BenchFn, call: TokenStream) -> TokenStream {
    if bench.returns_value {
        quote!(let _ = #call;)
    } else {
        quote!(#call;)
    }
}

/// A local name that cannot clash with names in the user's `args` expressions.
fn hygienic(name: &str) -> syn::Ident {
    syn::Ident::new(name, Span::mixed_site())
}

#[cfg(test)]
mod tests;
