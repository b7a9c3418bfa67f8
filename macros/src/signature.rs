//! Classification of the benchmarked function's signature into one of the accepted shapes.

use crate::attr::Args;
use crate::types::{
    contains_impl_trait, erase_lifetimes, is_mut_ref_bencher, is_unit, names_bencher, passing,
    strip, Passing,
};
use syn::{FnArg, Ident, PatType, ReturnType, Signature, Type};

/// What the generated runner needs to know about the user's function.
pub(crate) struct BenchFn {
    /// The function's name.
    pub ident: Ident,
    /// `async fn`: the runner uses `Bencher::iter_async`.
    pub is_async: bool,
    /// The function declares a return type (used to discard it explicitly in `Bencher` forms).
    pub returns_value: bool,
    /// The parameter list.
    pub shape: Shape,
}

/// The accepted parameter lists.
pub(crate) enum Shape {
    /// `fn f()`: the whole call is timed.
    Plain,
    /// `fn f(b: &mut Bencher)`: the function times itself.
    Bencher,
    /// `fn f(n: T)` with `args`: the whole call is timed, once per value.
    Arg(ValueParam),
    /// `fn f(b: &mut Bencher, n: T)` with `args`: the function times itself, once per value.
    BencherArg(ValueParam),
}

/// The parameter that receives the `args` values.
pub(crate) struct ValueParam {
    /// The parameter's type, with the function's lifetime parameters replaced by `'_` so it
    /// can annotate a `let` in another function.
    pub ty: Type,
    /// How the value reaches each timed call.
    pub passing: Passing,
}

/// Checks that `sig` is a benchmark the engine can run, given the `args` option.
pub(crate) fn classify(sig: &Signature, args: Option<&Args>) -> syn::Result<BenchFn> {
    if let Some(variadic) = &sig.variadic {
        return Err(error(variadic, VARIADIC));
    }
    if let Some(unsafety) = &sig.unsafety {
        return Err(error(unsafety, UNSAFE));
    }
    if let Some(param) = sig.generics.type_params().next() {
        return Err(error(param, &generic("type")));
    }
    if let Some(param) = sig.generics.const_params().next() {
        return Err(error(param, &generic("const")));
    }
    let mut bencher: Option<&PatType> = None;
    let mut value: Option<&PatType> = None;
    for (i, input) in sig.inputs.iter().enumerate() {
        let param = match input {
            FnArg::Receiver(receiver) => return Err(error(receiver, METHOD)),
            FnArg::Typed(param) => param,
        };
        if names_bencher(&param.ty) {
            check_bencher(sig, param, i, bencher.is_some())?;
            bencher = Some(param);
        } else if value.is_some() {
            return Err(error(param, TWO_VALUES));
        } else {
            value = Some(param);
        }
    }
    let value = match (value, args) {
        (None, None) => None,
        (Some(param), Some(_)) => Some(value_param(sig, param)?),
        (Some(param), None) => return Err(error(param, NEEDS_ARGS)),
        (None, Some(args)) => return Err(error(&args.key, NEEDS_PARAM)),
    };
    let shape = match (bencher.is_some(), value) {
        (false, None) => Shape::Plain,
        (true, None) => Shape::Bencher,
        (false, Some(value)) => Shape::Arg(value),
        (true, Some(value)) => Shape::BencherArg(value),
    };
    let returns_value = match &sig.output {
        ReturnType::Default => false,
        ReturnType::Type(_, ty) => !is_unit(ty),
    };
    Ok(BenchFn {
        ident: sig.ident.clone(),
        is_async: sig.asyncness.is_some(),
        returns_value,
        shape,
    })
}

fn check_bencher(sig: &Signature, param: &PatType, index: usize, seen: bool) -> syn::Result<()> {
    if seen {
        Err(error(param, "only one `Bencher` parameter is allowed"))
    } else if !is_mut_ref_bencher(&param.ty) {
        Err(error(
            &param.ty,
            "the `Bencher` parameter must be `&mut Bencher`",
        ))
    } else if index != 0 {
        Err(error(param, BENCHER_FIRST))
    } else if sig.asyncness.is_some() {
        Err(error(param, ASYNC_BENCHER))
    } else {
        Ok(())
    }
}

fn value_param(sig: &Signature, param: &PatType) -> syn::Result<ValueParam> {
    if contains_impl_trait(&param.ty) {
        return Err(error(&param.ty, IMPL_TRAIT));
    }
    if matches!(strip(&param.ty), Type::Reference(r) if r.mutability.is_some()) {
        return Err(error(&param.ty, MUT_REF));
    }
    let declared = sig.generics.lifetimes().map(|l| l.lifetime.ident.clone());
    Ok(ValueParam {
        passing: passing(&param.ty),
        ty: erase_lifetimes(&param.ty, declared.collect()),
    })
}

const VARIADIC: &str = "`#[bench]` functions cannot be variadic";
const UNSAFE: &str = "`#[bench]` cannot be used on an `unsafe fn`; \
    make the function safe and put an `unsafe` block inside it";
fn generic(kind: &str) -> String {
    format!(
        "`#[bench]` functions cannot be generic ({kind} parameters are not allowed); \
         write one function per concrete type or value"
    )
}
const METHOD: &str = "`#[bench]` cannot be used on methods (functions taking `self`); \
    use a free function";
const TWO_VALUES: &str = "a `#[bench]` function takes at most one parameter besides the \
    `Bencher`; to vary several values, pass a tuple: `args = [(1, 2), (3, 4)]`";
const NEEDS_ARGS: &str = "this parameter needs `#[bench(args = [...])]`: \
    one benchmark case per value, e.g. `#[bench(args = [10, 100])]`";
const NEEDS_PARAM: &str = "`args` needs a parameter to receive each value, \
    e.g. `fn f(n: u64)` or `fn f(b: &mut Bencher, n: u64)`";
const BENCHER_FIRST: &str =
    "the `Bencher` parameter must come first: `fn f(b: &mut Bencher, n: T)`";
const ASYNC_BENCHER: &str = "an `async fn` benchmark cannot take a `Bencher`: it is already \
    awaited inside the timed region; remove the parameter, or make the function sync and \
    call `b.iter_async(..)`";
const IMPL_TRAIT: &str = "`impl Trait` parameters make the function generic, \
    which `#[bench]` does not allow; use a concrete type";
const MUT_REF: &str = "an `args` parameter cannot be a `&mut` reference; \
    take the value by value (it is cloned outside the timed region)";

fn error(tokens: impl quote::ToTokens, msg: &str) -> syn::Error {
    syn::Error::new_spanned(tokens, msg)
}

#[cfg(test)]
mod tests;
