//! The `#[bench]` attribute of knotmeter.
//!
//! Use it through the engine crate: `use knotmeter::bench;` then `#[bench]`, or
//! `#[knotmeter::bench]`. The attribute keeps the function unchanged (so it can still be
//! called) and registers a `BenchDef` for it in the engine's distributed slice, so no
//! central list of benchmarks is needed.
//!
//! Accepted forms:
//!
//! * `#[bench] fn f() -> T`: the whole body is timed; the engine consumes the result.
//! * `#[bench] fn f(b: &mut Bencher)`: the function drives the [`Bencher`] itself.
//! * `#[bench(args = [1, 2, 3])] fn f(n: T)`: one case per value; each value is bound once,
//!   outside the timed region, as `let arg: T = <expr>;`.
//! * `#[bench(args = [..])] fn f(b: &mut Bencher, n: T)`: both of the above.
//! * `async fn` without a `Bencher`, with or without `args`: the future is awaited inside
//!   the timed region.
//! * `group = "name"` puts the function in a comparison group; `baseline` (or
//!   `baseline = true`) marks the group's reference point.
//!
//! For an `args` value of a primitive scalar type (`u64`, `f32`, `bool`, `char`, ...), a
//! shared reference, or a tuple or array of those, the value is copied into every call.
//! Any other type is cloned once per iteration *outside* the timed region, and the drop of
//! each clone, which the function does inside it, is subtracted with the harness overhead (the
//! empty baseline takes and drops a clone too), except for `async fn`, where the clone is made
//! when the future is created and so is inside the timed region, as is its drop.
//!
//! [`Bencher`]: https://docs.rs/knotmeter/latest/knotmeter/struct.Bencher.html

#![deny(missing_docs)]

mod attr;
mod expand;
mod signature;
mod types;

use proc_macro::TokenStream;

/// Registers a function as a knotmeter benchmark.
///
/// See the [crate documentation](crate) for the accepted forms and options
/// (`args = [..]`, `group = ".."`, `baseline`).
#[proc_macro_attribute]
pub fn bench(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::bench(attr.into(), item.into()).into()
}
