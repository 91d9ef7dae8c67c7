//! Enums of integers, numbers and booleans: a Rust enum of unit variants
//! whose serde implementations are written out (a value on the wire is the
//! number or boolean itself, not a string), with the same helpers as string
//! enums (`ALL`, `VALUES`, `as_str`, `Display`, `FromStr`) so that parameters
//! and headers of such a type work as for strings, plus `value` and
//! `from_value` for the typed value.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::ir::{EnumDef, EnumRepr};

/// Everything generated for an enum whose `repr` is not a string.
pub fn scalar_enum_items(
    e: &EnumDef,
    name: &proc_macro2::Ident,
    doc: &TokenStream,
    json_walks: bool,
) -> TokenStream {
    let idents: Vec<_> = e
        .variants
        .iter()
        .map(|v| format_ident!("{}", v.name))
        .collect();
    let wires: Vec<&str> = e.variants.iter().map(|v| v.wire.as_str()).collect();
    let variants = idents.iter().zip(&e.variants).map(|(ident, variant)| {
        let doc = crate::emit::docs::variant_attrs(variant);
        quote!(#doc #ident,)
    });
    let count = Literal::usize_unsuffixed(e.variants.len());
    let (rust_ty, serialize, type_word) = match e.repr {
        EnumRepr::Integer => (quote!(i64), quote!(serialize_i64), "an integer"),
        EnumRepr::Number => (quote!(f64), quote!(serialize_f64), "a number"),
        EnumRepr::Boolean => (quote!(bool), quote!(serialize_bool), "a boolean"),
        EnumRepr::String => unreachable!("string enums are written by `items`"),
    };
    let literals: Vec<TokenStream> = wires.iter().map(|w| literal(e.repr, w)).collect();
    let from_json = match e.repr {
        EnumRepr::Integer => quote!(value.as_i64()),
        EnumRepr::Number => quote!(value.as_f64()),
        _ => quote!(value.as_bool()),
    };
    let type_message = format!("must be {type_word}");
    let validate_json = json_walks.then(|| {
        crate::emit::checks::validate_json_impl(
            &quote!(validation),
            name,
            quote! {
                match #from_json {
                    Some(value) if Self::from_value(value).is_some() => {}
                    Some(_) => report.push(
                        path,
                        format!("must be one of: {}", Self::VALUES.join(", ")),
                        "InvalidEnumValue",
                    ),
                    None => report.push(path, #type_message, "InvalidType"),
                }
            },
        )
    });
    quote! {
        #doc
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum #name {
            #(#variants)*
        }

        impl #name {
            /// Every value, in the document's order.
            pub const ALL: [Self; #count] = [#(Self::#idents),*];

            /// Every value as JSON text, in the document's order.
            pub const VALUES: &'static [&'static str] = &[#(#wires),*];

            /// The value.
            pub fn value(self) -> #rust_ty {
                match self {
                    #(Self::#idents => #literals,)*
                }
            }

            /// The variant whose value is `value`, if there is one.
            pub fn from_value(value: #rust_ty) -> Option<Self> {
                Self::ALL.into_iter().find(|v| v.value() == value)
            }

            /// The value as JSON text (and as it is written in a URL or a header).
            pub fn as_str(self) -> &'static str {
                match self {
                    #(Self::#idents => #wires,)*
                }
            }
        }

        impl std::fmt::Display for #name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for #name {
            type Err = validation::UnknownEnumValue;

            fn from_str(text: &str) -> Result<Self, Self::Err> {
                text.trim()
                    .parse::<#rust_ty>()
                    .ok()
                    .and_then(Self::from_value)
                    .ok_or_else(|| validation::UnknownEnumValue {
                        value: text.to_owned(),
                        expected: Self::VALUES,
                    })
            }
        }

        impl serde::Serialize for #name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.#serialize(self.value())
            }
        }

        impl<'de> serde::Deserialize<'de> for #name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = <#rust_ty as serde::Deserialize>::deserialize(deserializer)?;
                Self::from_value(value).ok_or_else(|| {
                    serde::de::Error::custom(format_args!(
                        "unknown value {value}, expected one of: {}",
                        Self::VALUES.join(", ")
                    ))
                })
            }
        }

        impl validation::Validate for #name {}

        #validate_json
    }
}

/// The Rust literal of a value given as JSON text.
fn literal(repr: EnumRepr, wire: &str) -> TokenStream {
    match repr {
        EnumRepr::Integer => {
            let value: i64 = wire.parse().unwrap_or_default();
            let literal = Literal::u64_unsuffixed(value.unsigned_abs());
            if value < 0 {
                quote!(-#literal)
            } else {
                quote!(#literal)
            }
        }
        EnumRepr::Number => {
            let value: f64 = wire.parse().unwrap_or_default();
            let literal = Literal::f64_suffixed(value.abs());
            if value < 0.0 {
                quote!(-#literal)
            } else {
                quote!(#literal)
            }
        }
        EnumRepr::Boolean => {
            if wire == "true" {
                quote!(true)
            } else {
                quote!(false)
            }
        }
        EnumRepr::String => quote!(#wire),
    }
}
