//! Code that checks one value against its shape's constraints, in the two
//! walks of the validation runtime: over decoded values ([`typed`]) and over
//! raw JSON ([`json`]), the latter behind the models crate's
//! [`JSON_WALKS_FEATURE`]. The models emitter writes both; the server's
//! parameter parsing uses [`typed`] too, with the models crate's runtime
//! under another path.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::emit::RustTypes;
use crate::ir::{Api, Checks, Primitive, Shape, Ty};

/// The models crate's feature that the `ValidateJson` impls are under.
pub(crate) const JSON_WALKS_FEATURE: &str = "validate-json";

/// `impl ValidateJson for name`, walking the raw JSON `value` with `body`:
/// only with the models crate's `validate-json` feature, which the server
/// stubs turn on (a client never walks raw JSON).
pub(crate) fn validate_json_impl(
    runtime: &TokenStream,
    name: &proc_macro2::Ident,
    body: TokenStream,
) -> TokenStream {
    let feature = JSON_WALKS_FEATURE;
    quote! {
        #[cfg(feature = #feature)]
        impl #runtime::ValidateJson for #name {
            fn validate_json<'v>(value: &'v serde_json::Value, path: &mut Path<'v>, report: &mut Report) {
                #body
            }
        }
    }
}

/// `impl Validate for name { body }`, or the trait's empty default when
/// there is nothing to check.
pub(crate) fn validate_impl(
    cx: &CheckContext<'_>,
    name: &proc_macro2::Ident,
    body: TokenStream,
) -> TokenStream {
    let runtime = &cx.runtime;
    if body.is_empty() {
        quote! {
            impl #runtime::Validate for #name {}
        }
    } else {
        quote! {
            impl #runtime::Validate for #name {
                fn validate<'s>(&'s self, path: &mut Path<'s>, report: &mut Report) {
                    #body
                }
            }
        }
    }
}

/// The part of a decoded JSON value's `shape` that its Rust type does not
/// check itself: the top level's own constraints (an inline array's
/// `maxItems`, an integer's `minimum`); `None` when there are none. A named
/// type checks itself, and items were checked when they were decoded.
pub(crate) fn own_constraints(shape: &Shape) -> Option<Shape> {
    if shape.checks.is_empty() || matches!(shape.ty, Ty::Named(_)) {
        return None;
    }
    Some(Shape {
        ty: match &shape.ty {
            Ty::Array(_) => Ty::Array(Box::new(Shape::of(Ty::Any))),
            Ty::Map(_) => Ty::Map(Box::new(Shape::of(Ty::Any))),
            other => other.clone(),
        },
        ..shape.clone()
    })
}

/// What the generated checks refer to.
pub struct CheckContext<'a> {
    /// The API, to know which named types have checks.
    pub api: &'a Api,
    /// The path of the validation runtime (`crate::validation` or `models::validation`).
    pub runtime: TokenStream,
    /// How to spell types.
    pub types: &'a RustTypes<'a>,
    /// The variable holding the `Report`.
    pub report: Ident,
}

impl CheckContext<'_> {
    fn named_has_checks(&self, name: &str) -> bool {
        self.api.type_named(name).is_some_and(|t| t.has_checks)
    }

    /// Whether checking a decoded value of `shape` does anything.
    pub fn typed_needed(&self, shape: &Shape) -> bool {
        (!shape.checks.is_empty() && !is_formatted_text(&shape.ty))
            || match &shape.ty {
                Ty::Named(name) => self.named_has_checks(name),
                Ty::Array(item) | Ty::Map(item) => self.typed_needed(item),
                Ty::Primitive(_) | Ty::Any => false,
            }
    }

    /// Checks of the decoded value in the variable `value` (a reference to
    /// the shape's type, `Option` included when nullable) at the current `path`.
    pub fn typed(&self, shape: &Shape, value: &Ident) -> TokenStream {
        if !self.typed_needed(shape) {
            return TokenStream::new();
        }
        if shape.nullable {
            let inner = self.typed(
                &Shape {
                    nullable: false,
                    ..shape.clone()
                },
                value,
            );
            return quote! {
                if let Some(#value) = #value {
                    #inner
                }
            };
        }
        let runtime = &self.runtime;
        let report = &self.report;
        let own = if shape.ty == Ty::Any {
            // A value of any type is its JSON (a schema with `maxLength` but
            // no `type`): each constraint applies when it has the type the
            // constraint is about, as on the raw body.
            let counts = self.count_checks(&shape.checks, &quote!(#value));
            let own = self.own_checks(&shape.checks, &shape.ty, &quote!(#value), true);
            quote!(#counts #own)
        } else {
            self.own_checks(&shape.checks, &shape.ty, &quote!(#value), false)
        };
        let item = format_ident!("item");
        let nested = match &shape.ty {
            Ty::Named(name) if self.named_has_checks(name) => {
                quote!(#runtime::Validate::validate(#value, path, #report);)
            }
            Ty::Array(item_shape) if self.typed_needed(item_shape) => {
                let inner = self.typed(item_shape, &item);
                quote! {
                    for (index, item) in #value.iter().enumerate() {
                        path.push_index(index);
                        #inner
                        path.pop();
                    }
                }
            }
            Ty::Map(value_shape) if self.typed_needed(value_shape) => {
                let inner = self.typed(value_shape, &item);
                quote! {
                    for (key, item) in #value {
                        path.push_key(key);
                        #inner
                        path.pop();
                    }
                }
            }
            _ => TokenStream::new(),
        };
        quote!(#own #nested)
    }

    /// Checks of the raw JSON value `expr` (a `&Value`) against `shape`:
    /// its type and all its constraints. `null` is the caller's concern unless
    /// the shape is nullable.
    pub fn json(&self, shape: &Shape, expr: &TokenStream) -> TokenStream {
        if shape.nullable {
            let inner = self.json(
                &Shape {
                    nullable: false,
                    ..shape.clone()
                },
                expr,
            );
            return quote! {
                if !#expr.is_null() {
                    #inner
                }
            };
        }
        let runtime = &self.runtime;
        let report = &self.report;
        let ty = self.types.ty(&shape.ty);
        let counts = self.count_checks(&shape.checks, expr);
        let walk = quote!(#runtime::walk::<#ty>(#expr, path, #report););
        let own = self.own_checks(&shape.checks, &shape.ty, expr, true);
        let nested = self.json_nested(&shape.ty, expr);
        quote!(#counts #walk #own #nested)
    }

    /// The constraints of the items of an array, or of the values of a map,
    /// in the raw JSON value `expr`, at any depth (an array of arrays of
    /// bounded strings); nothing when they have none.
    fn json_nested(&self, ty: &Ty, expr: &TokenStream) -> TokenStream {
        match ty {
            Ty::Array(item) if item.has_own_checks() => {
                let inner = self.json_constraints(item, &quote!(item));
                quote! {
                    if let Some(items) = #expr.as_array() {
                        for (index, item) in items.iter().enumerate() {
                            path.push_index(index);
                            #inner
                            path.pop();
                        }
                    }
                }
            }
            Ty::Map(value) if value.has_own_checks() => {
                let inner = self.json_constraints(value, &quote!(item));
                quote! {
                    if let Some(object) = #expr.as_object() {
                        for (key, item) in object {
                            path.push_key(key);
                            #inner
                            path.pop();
                        }
                    }
                }
            }
            _ => TokenStream::new(),
        }
    }

    /// The constraints of `shape` on raw JSON, without the type walk (which
    /// an enclosing array or map walk already did).
    fn json_constraints(&self, shape: &Shape, expr: &TokenStream) -> TokenStream {
        let counts = self.count_checks(&shape.checks, expr);
        let own = self.own_checks(&shape.checks, &shape.ty, expr, true);
        let nested = self.json_nested(&shape.ty, expr);
        let body = quote!(#counts #own #nested);
        if shape.nullable && !body.is_empty() {
            quote!(if !#expr.is_null() { #body })
        } else {
            body
        }
    }

    /// Item-count checks, which are cheap and come before the item walk.
    fn count_checks(&self, checks: &Checks, expr: &TokenStream) -> TokenStream {
        if checks.min_items.is_none() && checks.max_items.is_none() {
            return TokenStream::new();
        }
        let runtime = &self.runtime;
        let report = &self.report;
        let (min, max, code) = (
            opt_usize(checks.min_items),
            opt_usize(checks.max_items),
            opt_str(&checks.error_code),
        );
        quote! {
            if let Some(items) = #expr.as_array() {
                #runtime::check_items(items.len(), #min, #max, #code, path, #report);
            }
        }
    }

    /// Checks of one value's own constraints. On raw JSON (`json`), each check
    /// applies only when the value has the type it is about.
    fn own_checks(&self, checks: &Checks, ty: &Ty, expr: &TokenStream, json: bool) -> TokenStream {
        let runtime = &self.runtime;
        let report = &self.report;
        let code = opt_str(&checks.error_code);
        let mut text_checks = Vec::new();
        if checks.min_length.is_some() || checks.max_length.is_some() {
            let (min, max) = (opt_usize(checks.min_length), opt_usize(checks.max_length));
            text_checks
                .push(quote!(#runtime::check_length(text, #min, #max, #code, path, #report);));
        }
        if checks.email {
            text_checks.push(quote!(#runtime::check_email(text, #code, path, #report);));
        }
        if let Some(pattern) = &checks.pattern {
            text_checks.push(quote! {
                static PATTERN: std::sync::LazyLock<regex_lite::Regex> =
                    std::sync::LazyLock::new(|| regex_lite::Regex::new(#pattern).expect("checked when generated"));
                #runtime::check_pattern(text, &PATTERN, #code, path, #report);
            });
        }
        let mut number_checks = Vec::new();
        if checks.minimum.is_some() || checks.maximum.is_some() {
            let (min, max) = (opt_bound(checks.minimum), opt_bound(checks.maximum));
            number_checks
                .push(quote!(#runtime::check_range(number, #min, #max, #code, path, #report);));
        }
        if let Some(factor) = checks.multiple_of {
            let factor = proc_macro2::Literal::f64_unsuffixed(factor);
            number_checks
                .push(quote!(#runtime::check_multiple_of(number, #factor, #code, path, #report);));
        }
        if !json && is_formatted_text(ty) {
            text_checks.clear();
        }
        let mut out = TokenStream::new();
        if !text_checks.is_empty() {
            out.extend(if json {
                quote!(if let Some(text) = #expr.as_str() { #(#text_checks)* })
            } else {
                quote!({ let text: &str = #expr; #(#text_checks)* })
            });
        }
        if !number_checks.is_empty() {
            out.extend(if json {
                quote!(if let Some(number) = #expr.as_f64() { #(#number_checks)* })
            } else {
                let conversion = number_to_f64(ty, expr);
                quote!({ let number = #conversion; #(#number_checks)* })
            });
        }
        if !json && (checks.min_items.is_some() || checks.max_items.is_some()) {
            let (min, max) = (opt_usize(checks.min_items), opt_usize(checks.max_items));
            out.extend(
                quote!(#runtime::check_items(#expr.len(), #min, #max, #code, path, #report);),
            );
        }
        if checks.min_properties.is_some() || checks.max_properties.is_some() {
            let (min, max) = (
                opt_usize(checks.min_properties),
                opt_usize(checks.max_properties),
            );
            out.extend(if json {
                quote! {
                    if let Some(object) = #expr.as_object() {
                        #runtime::check_property_count(object.len(), #min, #max, path, #report);
                    }
                }
            } else {
                quote!(#runtime::check_property_count(#expr.len(), #min, #max, path, #report);)
            });
        }
        if checks.unique_items {
            out.extend(if json {
                quote!(if let Some(items) = #expr.as_array() { #runtime::check_unique(items, #code, path, #report); })
            } else {
                quote!(#runtime::check_unique(#expr, #code, path, #report);)
            });
        }
        out
    }
}

/// Whether `ty` is a formatted string (a UUID, a date, a date-time): its
/// typed value has no text of its own (its Rust form may differ from what
/// was sent), so its length and pattern are checked on the raw JSON only,
/// which is what a server reads.
fn is_formatted_text(ty: &Ty) -> bool {
    matches!(
        ty,
        Ty::Primitive(Primitive::Uuid | Primitive::DateTime | Primitive::Date)
    )
}

/// `*value as f64`, for the number types (the value is a reference).
fn number_to_f64(ty: &Ty, expr: &TokenStream) -> TokenStream {
    match ty {
        Ty::Primitive(Primitive::F64) => quote!(*#expr),
        _ => quote!(*#expr as f64),
    }
}

fn opt_usize(value: Option<usize>) -> TokenStream {
    match value {
        Some(n) => {
            let n = proc_macro2::Literal::usize_unsuffixed(n);
            quote!(Some(#n))
        }
        None => quote!(None),
    }
}

fn opt_str(value: &Option<String>) -> TokenStream {
    match value {
        Some(s) => quote!(Some(#s)),
        None => quote!(None),
    }
}

fn opt_bound(value: Option<(f64, bool)>) -> TokenStream {
    match value {
        Some((n, exclusive)) => {
            let n = proc_macro2::Literal::f64_unsuffixed(n);
            quote!(Some((#n, #exclusive)))
        }
        None => quote!(None),
    }
}

/// The `report` identifier.
pub fn report_ident() -> Ident {
    format_ident!("report")
}
