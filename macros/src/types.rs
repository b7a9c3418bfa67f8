//! Syntactic questions about parameter types: is it the `Bencher`, is it trivially `Copy`,
//! does it hide a generic (`impl Trait`), and its lifetimes made usable elsewhere.

use syn::visit_mut::VisitMut;
use syn::{Ident, Lifetime, Type};

/// How an `args` value reaches each timed call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Passing {
    /// The type is trivially `Copy` (scalar, shared reference, tuple or array of those).
    Copy,
    /// Any other type: cloned for each call.
    Clone,
}

/// Whether values of `ty` are copied (trivially `Copy` types) or cloned.
pub(crate) fn passing(ty: &Type) -> Passing {
    const SCALARS: &[&str] = &[
        "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
        "f32", "f64", "bool", "char",
    ];
    let copy = match strip(ty) {
        Type::Reference(r) => r.mutability.is_none(),
        Type::Path(p) => p.qself.is_none() && SCALARS.iter().any(|s| p.path.is_ident(s)),
        Type::Tuple(t) => t.elems.iter().all(|e| passing(e) == Passing::Copy),
        Type::Array(a) => passing(&a.elem) == Passing::Copy,
        _ => false,
    };
    if copy {
        Passing::Copy
    } else {
        Passing::Clone
    }
}

/// Looks through invisible groups and parentheses.
pub(crate) fn strip(ty: &Type) -> &Type {
    match ty {
        Type::Group(g) => strip(&g.elem),
        Type::Paren(p) => strip(&p.elem),
        other => other,
    }
}

/// `Bencher`, `&Bencher`, `&mut knotmeter::Bencher`, ...: any type naming a path ending in
/// `Bencher`, possibly behind references.
pub(crate) fn names_bencher(ty: &Type) -> bool {
    match strip(ty) {
        Type::Reference(r) => names_bencher(&r.elem),
        Type::Path(p) => {
            p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == "Bencher")
        }
        _ => false,
    }
}

/// `&mut Bencher` (for a type that [`names_bencher`]).
pub(crate) fn is_mut_ref_bencher(ty: &Type) -> bool {
    match strip(ty) {
        Type::Reference(r) => r.mutability.is_some() && matches!(strip(&r.elem), Type::Path(_)),
        _ => false,
    }
}

/// `()`.
pub(crate) fn is_unit(ty: &Type) -> bool {
    matches!(strip(ty), Type::Tuple(t) if t.elems.is_empty())
}

/// Whether `impl Trait` appears anywhere in `ty` (an anonymous type parameter).
pub(crate) fn contains_impl_trait(ty: &Type) -> bool {
    struct Finder(bool);
    impl VisitMut for Finder {
        fn visit_type_impl_trait_mut(&mut self, _: &mut syn::TypeImplTrait) {
            self.0 = true;
        }
    }
    let mut finder = Finder(false);
    finder.visit_type_mut(&mut ty.clone());
    finder.0
}

/// `ty` with the `declared` lifetime parameters of its function replaced by `'_`, so that it
/// can annotate a `let` in another function.
pub(crate) fn erase_lifetimes(ty: &Type, declared: Vec<Ident>) -> Type {
    let mut ty = ty.clone();
    EraseLifetimes(declared).visit_type_mut(&mut ty);
    ty
}

struct EraseLifetimes(Vec<Ident>);

impl VisitMut for EraseLifetimes {
    fn visit_lifetime_mut(&mut self, lifetime: &mut Lifetime) {
        if self.0.contains(&lifetime.ident) {
            *lifetime = Lifetime::new("'_", lifetime.span());
        }
    }
}
