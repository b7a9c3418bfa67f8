//! Parsing of the `#[bench(...)]` options: `args = [..]`, `group = ".."` and `baseline`.

use proc_macro2::TokenStream;
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::{Expr, Ident, Lit, LitStr, Path, Token};

/// The parsed options of one `#[bench(...)]` attribute.
#[derive(Default)]
pub(crate) struct BenchAttr {
    /// `args = [..]`: the key (for error spans) and the non-empty list of values.
    pub args: Option<Args>,
    /// `group = ".."`.
    pub group: Option<LitStr>,
    /// `baseline` / `baseline = true|false`: the key and the value.
    pub baseline: Option<(Ident, bool)>,
}

/// The `args = [..]` option.
pub(crate) struct Args {
    /// The `args` key itself, for errors about the option as a whole.
    pub key: Ident,
    /// One expression per case, in order; never empty.
    pub values: Vec<Expr>,
}

impl BenchAttr {
    /// Parses the tokens between the parentheses of `#[bench(...)]`.
    pub(crate) fn parse(tokens: TokenStream) -> syn::Result<Self> {
        let mut attr = BenchAttr::default();
        syn::meta::parser(|meta| attr.parse_option(meta)).parse2(tokens)?;
        if let (Some((key, true)), None) = (&attr.baseline, &attr.group) {
            return Err(syn::Error::new(
                key.span(),
                "`baseline` needs `group = \"...\"`: a baseline is the reference point \
                 of a comparison group",
            ));
        }
        Ok(attr)
    }

    /// Whether this function is its group's baseline.
    pub(crate) fn is_baseline(&self) -> bool {
        matches!(self.baseline, Some((_, true)))
    }

    fn parse_option(&mut self, meta: ParseNestedMeta) -> syn::Result<()> {
        let key = match meta.path.get_ident() {
            Some(key) if key == "args" || key == "group" || key == "baseline" => key.clone(),
            _ => return Err(unknown_option(&meta.path)),
        };
        let duplicate = match key.to_string().as_str() {
            "args" => self.args.is_some(),
            "group" => self.group.is_some(),
            _ => self.baseline.is_some(),
        };
        if duplicate {
            let msg = format!("duplicate `#[bench]` option `{key}`");
            return Err(syn::Error::new(key.span(), msg));
        }
        if key == "baseline" {
            let value = if meta.input.peek(Token![=]) {
                match meta.value()?.parse::<Expr>()? {
                    Expr::Lit(syn::ExprLit {
                        lit: Lit::Bool(b), ..
                    }) => b.value,
                    other => {
                        return Err(expected(other, "`baseline = true` or `baseline = false`"))
                    }
                }
            } else {
                true
            };
            self.baseline = Some((key, value));
            return Ok(());
        }
        if !meta.input.peek(Token![=]) {
            let example = if key == "args" {
                "args = [1, 2, 3]"
            } else {
                "group = \"name\""
            };
            let msg = format!("`{key}` needs a value: `{example}`");
            return Err(syn::Error::new(key.span(), msg));
        }
        let value = meta.value()?.parse::<Expr>()?;
        if key == "group" {
            match value {
                Expr::Lit(syn::ExprLit {
                    lit: Lit::Str(s), ..
                }) if !s.value().is_empty() => self.group = Some(s),
                other => {
                    return Err(expected(
                        other,
                        "a non-empty string literal: `group = \"name\"`",
                    ))
                }
            }
            return Ok(());
        }
        match value {
            Expr::Array(array) if array.elems.is_empty() => Err(syn::Error::new_spanned(
                array,
                "`args` must list at least one value, e.g. `args = [10, 100, 1000]`",
            )),
            Expr::Array(array) => {
                let values = array.elems.into_iter().collect();
                self.args = Some(Args { key, values });
                Ok(())
            }
            other => Err(expected(other, "an array literal: `args = [1, 2, 3]`")),
        }
    }
}

fn unknown_option(path: &Path) -> syn::Error {
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let msg = format!(
        "unknown `#[bench]` option `{}`; expected `args`, `group` or `baseline`",
        segments.join("::")
    );
    syn::Error::new_spanned(path, msg)
}

fn expected(found: Expr, what: &str) -> syn::Error {
    syn::Error::new_spanned(found, format!("expected {what}"))
}

#[cfg(test)]
mod tests;
