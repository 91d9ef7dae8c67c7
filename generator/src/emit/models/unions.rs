//! A union's items: its enum (one variant per alternative), its `Validate`
//! impl, and how it is read, written and walked as raw JSON, untagged or by
//! a tag property (a base schema's subtypes falling back to its own struct).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::emit::checks::{CheckContext, validate_impl, validate_json_impl};
use crate::ir::{Shape, Tagging, Ty, UnionDef};

/// Everything generated for a union: its enum with `#[serde(untagged)]` or
/// hand-written serde, `Validate`, and `ValidateJson` with `json_walks`.
pub(super) fn union_items(
    cx: &CheckContext<'_>,
    u: &UnionDef,
    name: &proc_macro2::Ident,
    doc: &TokenStream,
    json_walks: bool,
) -> TokenStream {
    let runtime = &cx.runtime;
    // A base schema's subtypes: the discriminator, and the variant any
    // other value is read as.
    let inheritance = match &u.tagging {
        Tagging::Internal {
            property,
            fallback: Some(i),
        } => Some((property, &u.variants[*i])),
        _ => None,
    };
    let variants = union_variants(cx, u, inheritance);
    let labels: Vec<String> = u.variants.iter().map(|v| v.name.clone()).collect();
    let alternatives = labels.join(", ");
    let validate = union_validate_impl(cx, u, name);
    let UnionSerde {
        derive_deserialize,
        deserialize_impl,
        serialize_impl,
        json_walk,
    } = match &u.tagging {
        Tagging::Untagged => untagged_serde(cx, u, &alternatives),
        Tagging::Internal { property, .. } => tagged_serde(
            cx,
            u,
            name,
            property,
            inheritance.map(|(_, fallback)| fallback),
        ),
    };
    // Alternatives of very different sizes are the document's; a user
    // matches on them as they are rather than through boxes.
    let may_be_large = u
        .variants
        .iter()
        .any(|v| matches!(v.shape.ty, Ty::Named(_)) && !v.boxed);
    let large = may_be_large.then(|| quote!(#[allow(clippy::large_enum_variant)]));
    let validate_json = json_walks.then(|| validate_json_impl(runtime, name, json_walk));
    let derives = match &serialize_impl {
        None => quote! {
            #[derive(Debug, Clone, PartialEq, serde::Serialize, #derive_deserialize)]
            #[serde(untagged)]
        },
        Some(_) => quote!(#[derive(Debug, Clone, PartialEq)]),
    };
    // The subtypes are open: one the document adds later is a variant
    // more, and a value of a subtype unknown here is still read.
    let open = inheritance.map(|(property, fallback)| {
        let line = format!(
            " A value is read as the variant its `{property}` names; any other as [`{0}`](Self::{0}).",
            fallback.name
        );
        quote!(#[doc = ""] #[doc = #line] #[non_exhaustive])
    });
    let enum_name = name.to_string();
    let repeats_name = u.variants.iter().any(|v| {
        v.name != enum_name && (v.name.starts_with(&enum_name) || v.name.ends_with(&enum_name))
    });
    let repeats_name = repeats_name.then(|| {
        quote!(#[allow(clippy::enum_variant_names, reason = "variants are named as the document names their types")])
    });
    quote! {
        #doc
        #open
        #derives
        #large
        #repeats_name
        pub enum #name {
            #(#variants)*
        }

        #serialize_impl

        #deserialize_impl

        #validate

        #validate_json
    }
}

/// The variants of a union's enum, each documented with the type it holds
/// (linked by its path) and, for a base's subtypes, the tags that name it.
fn union_variants(
    cx: &CheckContext<'_>,
    u: &UnionDef,
    inheritance: Option<(&String, &crate::ir::UnionVariant)>,
) -> Vec<TokenStream> {
    let variant_ty = |v: &crate::ir::UnionVariant| {
        let ty = cx.types.shape(&v.shape);
        if v.boxed { quote!(Box<#ty>) } else { ty }
    };
    u.variants
        .iter()
        .map(|v| {
            let ident = format_ident!("{}", v.name);
            let ty = variant_ty(v);
            let line = match &v.shape.ty {
                // The type may live in another module: link to it by its path.
                Ty::Named(named) => {
                    let path = cx.types.shape(&v.shape).to_string().replace(' ', "");
                    if path == *named {
                        format!(" A [`{named}`].")
                    } else {
                        format!(" A [`{named}`]({path}).")
                    }
                }
                _ => format!(" The `{}` alternative.", v.name),
            };
            let tags = inheritance.map(|(property, fallback)| {
                let values: Vec<String> = v.tag_values.iter().map(|t| format!("`{t}`")).collect();
                let line = match (values.is_empty(), fallback.name == v.name) {
                    (false, false) => format!(" `{property}`: {}.", values.join(", ")),
                    (false, true) => format!(
                        " `{property}`: {}, or any value no other variant names.",
                        values.join(", ")
                    ),
                    (true, _) => format!(" Any `{property}` no other variant names."),
                };
                quote!(#[doc = ""] #[doc = #line])
            });
            quote!(#[doc = #line] #tags #ident(#ty),)
        })
        .collect()
}

/// The union's `Validate` impl: the checks of whichever variant it holds.
fn union_validate_impl(
    cx: &CheckContext<'_>,
    u: &UnionDef,
    name: &proc_macro2::Ident,
) -> TokenStream {
    let typed_arms: Vec<TokenStream> = u
        .variants
        .iter()
        .map(|v| {
            let ident = format_ident!("{}", v.name);
            let checks = cx.typed(&v.shape, &format_ident!("value"));
            if checks.is_empty() {
                quote!(Self::#ident(_) => {})
            } else {
                quote!(Self::#ident(value) => { #checks })
            }
        })
        .collect();
    let any_typed = u.variants.iter().any(|v| cx.typed_needed(&v.shape));
    validate_impl(
        cx,
        name,
        if any_typed {
            quote!(match self { #(#typed_arms)* })
        } else {
            TokenStream::new()
        },
    )
}

/// How a union is read and written, and how its raw JSON is walked.
struct UnionSerde {
    /// `serde::Deserialize,` when the derive reads it (untagged).
    derive_deserialize: TokenStream,
    /// A `Deserialize` impl written by hand (tagged).
    deserialize_impl: TokenStream,
    /// A `Serialize` impl written by hand, when the tag must be written.
    serialize_impl: Option<TokenStream>,
    /// The body of its `validate_json`.
    json_walk: TokenStream,
}

/// An untagged union: serde tries each alternative in order, and the
/// raw-JSON walk reports that none fits when none does.
fn untagged_serde(cx: &CheckContext<'_>, u: &UnionDef, alternatives: &str) -> UnionSerde {
    let runtime = &cx.runtime;
    let attempts = u.variants.iter().map(|v| {
        let attempt_cx = CheckContext {
            api: cx.api,
            runtime: cx.runtime.clone(),
            types: cx.types,
            report: format_ident!("attempt"),
        };
        let checks = attempt_cx.json(&v.shape, &quote!(value));
        quote! {
            {
                let attempt = &mut Report::new();
                #checks
                if attempt.is_empty() {
                    return;
                }
            }
        }
    });
    UnionSerde {
        derive_deserialize: quote!(serde::Deserialize,),
        deserialize_impl: TokenStream::new(),
        serialize_impl: None,
        json_walk: quote! {
            #(#attempts)*
            #runtime::report_no_alternative(path, #alternatives, report);
        },
    }
}

/// A union tagged by `property`: read and walked by the tag's value, the
/// `fallback` (a base's own struct) taking a value whose tag names no
/// other variant.
fn tagged_serde(
    cx: &CheckContext<'_>,
    u: &UnionDef,
    name: &proc_macro2::Ident,
    property: &str,
    fallback: Option<&crate::ir::UnionVariant>,
) -> UnionSerde {
    let runtime = &cx.runtime;
    let mut serialize_impl = None;
    let is_fallback = |v: &crate::ir::UnionVariant| fallback.is_some_and(|f| f.name == v.name);
    let expected: Vec<&String> = u.variants.iter().flat_map(|v| &v.tag_values).collect();
    let expected_text = expected
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let decode = |v: &crate::ir::UnionVariant| {
        let ident = format_ident!("{}", v.name);
        let wrap = if v.boxed {
            quote!(|v| Self::#ident(Box::new(v)))
        } else {
            quote!(Self::#ident)
        };
        quote!(serde_json::from_value(value).map(#wrap).map_err(serde::de::Error::custom))
    };
    let walk = |v: &crate::ir::UnionVariant| {
        let ty = cx.types.ty(&v.shape.ty);
        quote!(<#ty as #runtime::ValidateJson>::validate_json(value, path, report))
    };
    let tagged = || u.variants.iter().filter(|v| !is_fallback(v));
    let deserialize_arms = tagged().map(|v| {
        let values = &v.tag_values;
        let decode = decode(v);
        quote!(#(Some(#values))|* => #decode,)
    });
    let json_arms = tagged().map(|v| {
        let values = &v.tag_values;
        let walk = walk(v);
        quote!(#(Some(#values))|* => #walk,)
    });
    // An alternative that may leave its tag out (an optional
    // discriminator with a default, as Pydantic writes one) is
    // written with it, or no reader could tell which it is.
    // The base of subtypes is written as it came: a value read
    // without a tag (or with one no subtype has) keeps it.
    if u.variants.iter().any(|v| !requires(cx, &v.shape, property)) {
        let arms = u.variants.iter().map(|v| {
            let ident = format_ident!("{}", v.name);
            match v.tag_values.first().filter(|_| !is_fallback(v)) {
                Some(tag) => quote! {
                    Self::#ident(value) => #runtime::serialize_tagged(value, #property, #tag, serializer),
                },
                None => quote! {
                    Self::#ident(value) => serde::Serialize::serialize(value, serializer),
                },
            }
        });
        serialize_impl = Some(quote! {
            impl serde::Serialize for #name {
                fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                    match self {
                        #(#arms)*
                    }
                }
            }
        });
    }
    let unknown = format!("must be one of: {expected_text}");
    let unknown_tag = format!(
        "unknown `{}` value `{{other}}`; expected one of: {}",
        property.replace('{', "{{").replace('}', "}}"),
        expected_text.replace('{', "{{").replace('}', "}}")
    );
    // A value whose tag names no other alternative (or that has
    // none) is the fallback's to read, or an error.
    let (other_tags, other_walks) = match fallback {
        Some(fallback) => {
            let (decode, walk) = (decode(fallback), walk(fallback));
            (quote!(_ => #decode,), quote!(_ => #walk,))
        }
        None => (
            quote! {
                Some(other) => Err(serde::de::Error::custom(format_args!(#unknown_tag))),
                None => Err(serde::de::Error::missing_field(#property)),
            },
            quote! {
                Some(_) => report.push_child(path, #property, #unknown, "InvalidEnumValue"),
                None => report.push_child(path, #property, "is required", "Required"),
            },
        ),
    };
    UnionSerde {
        derive_deserialize: TokenStream::new(),
        deserialize_impl: quote! {
            impl<'de> serde::Deserialize<'de> for #name {
                fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                    let value = serde_json::Value::deserialize(deserializer)?;
                    let tag = value.get(#property).and_then(serde_json::Value::as_str).map(str::to_owned);
                    match tag.as_deref() {
                        #(#deserialize_arms)*
                        #other_tags
                    }
                }
            }
        },
        serialize_impl,
        json_walk: quote! {
            let Some(object) = #runtime::expect_object(value, path, report) else {
                return;
            };
            match object.get(#property).and_then(serde_json::Value::as_str) {
                #(#json_arms)*
                #other_walks
            }
        },
    }
}

/// Whether every value of `shape` has the property `wire`: an object type
/// that declares it required.
fn requires(cx: &CheckContext<'_>, shape: &Shape, wire: &str) -> bool {
    crate::ir::struct_of(&cx.api.types, shape)
        .is_some_and(|def| def.fields.iter().any(|f| f.wire == wire && f.required))
}
