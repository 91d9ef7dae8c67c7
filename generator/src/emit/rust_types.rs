//! Rust types for IR shapes.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::ir::{Primitive, Shape, Ty};

/// Spells IR shapes as Rust types. Named types are spelled by `named`, so
/// that the models crate can say `Address` and the other crates
/// `models::Address`; crates the models crate depends on are spelled under
/// `deps` (empty inside the models crate, `models::` elsewhere).
pub struct RustTypes<'a> {
    /// How to spell a named type.
    pub named: &'a dyn Fn(&str) -> TokenStream,
    /// The path prefix of the models crate's dependencies.
    pub deps: TokenStream,
}

impl RustTypes<'_> {
    /// The type of a value of `shape`, `Option` included when it is nullable.
    pub fn shape(&self, shape: &Shape) -> TokenStream {
        let ty = self.ty(&shape.ty);
        if shape.nullable {
            quote!(Option<#ty>)
        } else {
            ty
        }
    }

    /// The type of `ty`, not counting nullability.
    pub fn ty(&self, ty: &Ty) -> TokenStream {
        let deps = &self.deps;
        match ty {
            Ty::Named(name) => (self.named)(name),
            Ty::Primitive(p) => self.primitive(*p),
            Ty::Array(item) => {
                let item = self.shape(item);
                quote!(Vec<#item>)
            }
            Ty::Map(value) if value.ty == Ty::Any && !value.nullable => {
                quote!(#deps serde_json::Map<String, #deps serde_json::Value>)
            }
            Ty::Map(value) => {
                let value = self.shape(value);
                quote!(std::collections::BTreeMap<String, #value>)
            }
            Ty::Any => quote!(#deps serde_json::Value),
        }
    }

    /// The type of a primitive.
    pub fn primitive(&self, p: Primitive) -> TokenStream {
        let deps = &self.deps;
        match p {
            Primitive::String | Primitive::Binary => quote!(String),
            Primitive::Uuid => quote!(#deps uuid::Uuid),
            Primitive::DateTime => quote!(#deps chrono::DateTime<#deps chrono::Utc>),
            Primitive::Date => quote!(#deps chrono::NaiveDate),
            Primitive::Bool => quote!(bool),
            Primitive::Null => quote!(()),
            other => {
                let name = format_ident!("{}", other.rust_name());
                quote!(#name)
            }
        }
    }
}
