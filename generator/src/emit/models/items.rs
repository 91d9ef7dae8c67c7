//! One named type: its definition, its helpers and its validators.

use proc_macro2::{Literal, TokenStream};
use quote::{ToTokens, format_ident, quote};

use crate::emit::checks::{CheckContext, validate_json_impl};
use crate::emit::docs;
use crate::error::Result;
use crate::ir::{
    Access, Additional, EnumDef, EnumRepr, Field, Shape, StructDef, Tagging, Ty, TypeDef, TypeKind,
    UnionDef,
};

/// Everything generated for `def`; its `ValidateJson` impl only with
/// `json_walks` (a models crate of its own: server stubs check raw bodies
/// with it, a client alone never does).
pub fn type_items(cx: &CheckContext<'_>, def: &TypeDef, json_walks: bool) -> Result<TokenStream> {
    let fallback = match &def.schema_name {
        Some(name) => format!("The `{name}` schema."),
        None => format!("Defined inline at `{}`.", def.origin),
    };
    let doc = docs::doc_attrs(&def.docs, &fallback);
    let name = format_ident!("{}", def.name);
    Ok(match &def.kind {
        TypeKind::Struct(s) => struct_items(cx, def, s, &doc, json_walks),
        TypeKind::Enum(e) if e.repr != EnumRepr::String => {
            super::scalar_enums::scalar_enum_items(e, &name, &doc, json_walks)
        }
        TypeKind::Enum(e) => enum_items(e, &name, &doc, json_walks),
        TypeKind::Union(u) => union_items(cx, u, &name, &doc, json_walks),
        TypeKind::Newtype(shape) => newtype_items(cx, shape, &name, &doc, json_walks),
        TypeKind::Alias(shape) => {
            let ty = cx.types.shape(shape);
            // An inline schema read as the copy of another
            // (`lower::shared_shapes`) says which.
            let same = match (&def.schema_name, &shape.ty) {
                (None, crate::ir::Ty::Named(first)) => docs::attrs(&[
                    String::new(),
                    format!("The same schema as `{first}`, written out again here."),
                ]),
                _ => TokenStream::new(),
            };
            quote!(#doc #same pub type #name = #ty;)
        }
    })
}

fn struct_items(
    cx: &CheckContext<'_>,
    def: &TypeDef,
    s: &StructDef,
    doc: &TokenStream,
    json_walks: bool,
) -> TokenStream {
    let name = format_ident!("{}", def.name);
    let strict = def.in_request;
    let fields = s.fields.iter().map(|f| field_tokens(cx, f, strict));
    let additional = match &s.additional {
        Additional::Map(value) => {
            let ty = cx.types.shape(value);
            quote! {
                /// Properties beyond the ones above.
                #[serde(flatten)]
                pub additional_properties: std::collections::BTreeMap<String, #ty>,
            }
        }
        _ => TokenStream::new(),
    };
    let deny =
        matches!(s.additional, Additional::Deny).then(|| quote!(#[serde(deny_unknown_fields)]));
    let all_optional = s.fields.iter().all(|f| !f.required);
    let default = all_optional.then(|| quote!(Default,));
    let validate = validate_impl(cx, &name, struct_validate(cx, s));
    let validate_json = json_walks
        .then(|| validate_json_impl(&cx.runtime, &name, struct_validate_json(cx, s, strict)));
    let constructors = constructors(cx, def, s);
    quote! {
        #doc
        #[derive(Debug, Clone, PartialEq, #default serde::Serialize, serde::Deserialize)]
        #deny
        #[non_exhaustive]
        pub struct #name {
            #(#fields)*
            #additional
        }

        #constructors

        #validate

        #validate_json
    }
}

/// More arguments than this make clippy's `too_many_arguments` speak.
const CLIPPY_MAX_ARGUMENTS: usize = 7;

/// `new` with the required fields and a `with_<field>` setter per optional
/// one: code built this way still compiles when the schema gains an
/// optional property (the struct is `#[non_exhaustive]`, so no literal can
/// be written outside the crate).
fn constructors(cx: &CheckContext<'_>, def: &TypeDef, s: &StructDef) -> TokenStream {
    let name = &def.name;
    let name_ident = format_ident!("{}", def.name);
    let mut params = Vec::new();
    let mut inits = Vec::new();
    let mut setters = Vec::new();
    for field in &s.fields {
        let ident = format_ident!("{}", field.name);
        let (arg_ty, convert) = input_type(cx, field);
        if field.required {
            params.push(quote!(#ident: #arg_ty));
            inits.push(match &convert {
                Some(convert) => quote!(#ident: #convert),
                None => quote!(#ident),
            });
            continue;
        }
        let convert = convert.unwrap_or_else(|| quote!(#ident));
        inits.push(quote!(#ident: None));
        let setter = format_ident!("with_{}", field.name.trim_start_matches("r#"));
        let doc = format!(
            " Sets `{}` (the `{}` property).",
            field.name.trim_start_matches("r#"),
            field.wire
        );
        setters.push(quote! {
            #[doc = #doc]
            #[must_use]
            pub fn #setter(mut self, #ident: #arg_ty) -> Self {
                self.#ident = Some(#convert);
                self
            }
        });
    }
    if matches!(s.additional, Additional::Map(_)) {
        inits.push(quote!(additional_properties: std::collections::BTreeMap::new()));
    }
    let doc = if params.is_empty() {
        format!(" The `{name}` with every property unset.")
    } else {
        format!(
            " The `{name}` with these required properties; the optional ones are unset (see the `with_*` methods)."
        )
    };
    let allow = (params.len() > CLIPPY_MAX_ARGUMENTS).then(|| {
        quote!(#[allow(clippy::too_many_arguments, reason = "one argument per required property of the schema")])
    });
    quote! {
        impl #name_ident {
            #[doc = #doc]
            #allow
            pub fn new(#(#params),*) -> Self {
                Self { #(#inits),* }
            }

            #(#setters)*
        }
    }
}

/// The type a constructor or setter takes for `field` (the inner type of an
/// optional field, `impl Into<String>` for strings) and the expression that
/// makes the field's value of the argument (`Option` excluded), when it is
/// not the argument itself.
fn input_type(cx: &CheckContext<'_>, field: &Field) -> (TokenStream, Option<TokenStream>) {
    let ident = format_ident!("{}", field.name);
    let inner = cx.types.ty(&field.shape.ty);
    let is_string = field.shape.ty == Ty::Primitive(crate::ir::Primitive::String);
    // A required nullable field is an `Option` the caller gives.
    if field.required && field.shape.nullable {
        let inner = if field.boxed {
            quote!(Box<#inner>)
        } else {
            inner
        };
        return (quote!(Option<#inner>), None);
    }
    match (is_string, field.boxed) {
        (true, _) => (quote!(impl Into<String>), Some(quote!(#ident.into()))),
        (false, true) => (inner, Some(quote!(Box::new(#ident)))),
        (false, false) => (inner, None),
    }
}

/// `impl Validate for name { body }`, or the trait's empty default when
/// there is nothing to check.
fn validate_impl(
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

/// The Rust type of a field, `Option` and `Box` included.
fn field_type(cx: &CheckContext<'_>, field: &Field) -> TokenStream {
    let inner = cx.types.ty(&field.shape.ty);
    let inner = if field.boxed {
        quote!(Box<#inner>)
    } else {
        inner
    };
    if field.required && !field.shape.nullable {
        inner
    } else {
        quote!(Option<#inner>)
    }
}

fn field_tokens(cx: &CheckContext<'_>, field: &Field, strict: bool) -> TokenStream {
    let ident = format_ident!("{}", field.name);
    let ty = field_type(cx, field);
    let mut doc_lines = Vec::new();
    let fallback = format!("The `{}` property.", field.wire);
    let mut docs = field.docs.clone();
    if docs.description.is_none() && docs.title.is_none() {
        docs.description = Some(fallback);
    }
    let default = field
        .default
        .as_ref()
        .map(|default| format!("Defaults to `{default}` when absent."));
    let access = match field.access {
        Access::ReadWrite => None,
        Access::ReadOnly => Some("Read-only: set by the API; a request need not send it."),
        Access::WriteOnly => Some("Write-only: sent in requests; an answer need not carry it."),
    };
    for extra in default.into_iter().chain(access.map(str::to_owned)) {
        docs.description = Some(match docs.description {
            Some(text) if !text.trim().is_empty() => format!("{text}\n\n{extra}"),
            _ => extra,
        });
    }
    doc_lines.push(docs::doc_attrs(&docs, ""));
    let mut serde_args = Vec::new();
    if field.name != field.wire {
        let wire = &field.wire;
        serde_args.push(quote!(rename = #wire));
    }
    match (field.required, field.shape.nullable) {
        (true, false) => {}
        (true, true) => {
            if strict {
                serde_args.push(quote!(
                    deserialize_with = "validation::deserialize_nullable"
                ));
            }
        }
        (false, nullable) => {
            serde_args.push(quote!(default));
            serde_args.push(quote!(skip_serializing_if = "Option::is_none"));
            if strict && !nullable {
                serde_args.push(quote!(deserialize_with = "validation::deserialize_some"));
            }
        }
    }
    let serde_attr = (!serde_args.is_empty()).then(|| quote!(#[serde(#(#serde_args),*)]));
    quote! {
        #(#doc_lines)*
        #serde_attr
        pub #ident: #ty,
    }
}

fn struct_validate(cx: &CheckContext<'_>, s: &StructDef) -> TokenStream {
    let mut out = TokenStream::new();
    let value = format_ident!("value");
    for field in &s.fields {
        let ident = format_ident!("{}", field.name);
        let wire = &field.wire;
        let optional = !field.required || field.shape.nullable;
        let shape = Shape {
            nullable: optional,
            ..field.shape.clone()
        };
        let checks = cx.typed(&shape, &value);
        if !checks.is_empty() {
            out.extend(quote! {
                path.push_key(#wire);
                let value = &self.#ident;
                #checks
                path.pop();
            });
        }
    }
    if let Additional::Map(value_shape) = &s.additional {
        let checks = cx.typed(value_shape, &format_ident!("item"));
        if !checks.is_empty() {
            out.extend(quote! {
                for (key, item) in &self.additional_properties {
                    path.push_key(key);
                    #checks
                    path.pop();
                }
            });
        }
    }
    let (min, max) = s.property_count;
    if min.is_some() || max.is_some() {
        let runtime = &cx.runtime;
        let (min, max) = (quote_opt(min), quote_opt(max));
        // Fields always present count once; the others when they are there.
        let always = s
            .fields
            .iter()
            .filter(|f| f.required && !f.shape.nullable)
            .count();
        let mut terms: Vec<TokenStream> = Vec::new();
        if always > 0 {
            terms.push(Literal::usize_unsuffixed(always).into_token_stream());
        }
        terms.extend(
            s.fields
                .iter()
                .filter(|f| !f.required || f.shape.nullable)
                .map(|f| {
                    let ident = format_ident!("{}", f.name);
                    quote!(usize::from(self.#ident.is_some()))
                }),
        );
        if let Additional::Map(_) = &s.additional {
            terms.push(quote!(self.additional_properties.len()));
        }
        if terms.is_empty() {
            terms.push(quote!(0));
        }
        out.extend(quote! {
            let count: usize = #(#terms)+*;
            #runtime::check_property_count(count, #min, #max, path, report);
        });
    }
    out
}

fn struct_validate_json(cx: &CheckContext<'_>, s: &StructDef, strict: bool) -> TokenStream {
    let runtime = &cx.runtime;
    // An object without properties, bounds or rules on the others (`{}`)
    // is only checked to be an object.
    let reads_object = !s.fields.is_empty()
        || !matches!(s.additional, Additional::Ignore)
        || s.property_count != (None, None);
    if !reads_object {
        return quote! {
            let _ = #runtime::expect_object(value, path, report);
        };
    }
    let mut out = quote! {
        let Some(object) = #runtime::expect_object(value, path, report) else {
            return;
        };
    };
    let required: Vec<&str> = s
        .fields
        .iter()
        .filter(|f| f.required)
        .map(|f| f.wire.as_str())
        .collect();
    if !required.is_empty() {
        out.extend(
            quote!(#runtime::check_required_properties(object, &[#(#required),*], path, report);),
        );
    }
    let known: Vec<&str> = s.fields.iter().map(|f| f.wire.as_str()).collect();
    if matches!(s.additional, Additional::Deny) {
        out.extend(
            quote!(#runtime::check_unknown_properties(object, &[#(#known),*], path, report);),
        );
    }
    if s.property_count != (None, None) {
        let (min, max) = (quote_opt(s.property_count.0), quote_opt(s.property_count.1));
        out.extend(quote!(#runtime::check_property_count(object.len(), #min, #max, path, report);));
    }
    for field in &s.fields {
        let wire = &field.wire;
        let null_allowed = field.shape.nullable
            || field.shape.ty == Ty::Primitive(crate::ir::Primitive::Null)
            || (!field.required && !strict);
        let null = if null_allowed {
            quote!(Null::Allowed)
        } else {
            quote!(Null::Refused)
        };
        let inner = Shape {
            nullable: false,
            ..field.shape.clone()
        };
        if !inner.has_own_checks() {
            let ty = cx.types.ty(&inner.ty);
            out.extend(quote!(#runtime::property::<#ty>(object, #wire, #null, path, report);));
            continue;
        }
        let checks = cx.json(&inner, &quote!(value));
        let body = if null_allowed {
            quote!(if !value.is_null() { #checks })
        } else {
            quote!(if value.is_null() { #runtime::report_null(path, report); } else { #checks })
        };
        out.extend(quote! {
            if let Some(value) = object.get(#wire) {
                path.push_key(#wire);
                #body
                path.pop();
            }
        });
    }
    if let Additional::Map(value_shape) = &s.additional {
        let checks = cx.json(value_shape, &quote!(value));
        out.extend(quote! {
            for (key, value) in object {
                if ![#(#known),*].contains(&key.as_str()) {
                    path.push_key(key);
                    #checks
                    path.pop();
                }
            }
        });
    }
    out
}

fn quote_opt(value: Option<usize>) -> TokenStream {
    match value {
        Some(n) => {
            let n = Literal::usize_unsuffixed(n);
            quote!(Some(#n))
        }
        None => quote!(None),
    }
}

fn enum_items(
    e: &EnumDef,
    name: &proc_macro2::Ident,
    doc: &TokenStream,
    json_walks: bool,
) -> TokenStream {
    let variants = e.variants.iter().map(|v| {
        let ident = format_ident!("{}", v.name);
        let doc = docs::variant_attrs(v);
        quote!(#doc #ident,)
    });
    let idents: Vec<_> = e
        .variants
        .iter()
        .map(|v| format_ident!("{}", v.name))
        .collect();
    let wires: Vec<&str> = e.variants.iter().map(|v| v.wire.as_str()).collect();
    let count = Literal::usize_unsuffixed(e.variants.len());
    let known = quote! {
        match value {
            #(#wires => Some(Self::#idents),)*
            _ => None,
        }
    };
    let from_str = quote! {
        impl std::str::FromStr for #name {
            type Err = validation::UnknownEnumValue;

            fn from_str(value: &str) -> Result<Self, Self::Err> {
                Self::known(value).ok_or_else(|| validation::UnknownEnumValue { value: value.to_owned(), expected: Self::VALUES })
            }
        }
    };
    let display = quote! {
        impl std::fmt::Display for #name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
    let validate_json = json_walks.then(|| {
        validate_json_impl(
            &quote!(validation),
            name,
            quote!(validation::check_enum_value(value, Self::VALUES, path, report);),
        )
    });
    if !e.open {
        let variants = e.variants.iter().map(|v| {
            let ident = format_ident!("{}", v.name);
            let wire = &v.wire;
            let doc = docs::variant_attrs(v);
            let rename = (v.name != v.wire).then(|| quote!(#[serde(rename = #wire)]));
            quote!(#doc #rename #ident,)
        });
        return quote! {
            #doc
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
            #[non_exhaustive]
            pub enum #name {
                #(#variants)*
            }

            impl #name {
                /// Every value, in the document's order.
                pub const ALL: [Self; #count] = [#(Self::#idents),*];

                /// Every value as it is written on the wire, in the document's order.
                pub const VALUES: &'static [&'static str] = &[#(#wires),*];

                /// The value as it is written on the wire.
                pub fn as_str(self) -> &'static str {
                    match self {
                        #(Self::#idents => #wires,)*
                    }
                }

                /// The variant written `value` on the wire, if there is one.
                fn known(value: &str) -> Option<Self> {
                    #known
                }
            }

            #display

            #from_str

            impl validation::Validate for #name {}

            #validate_json
        };
    }
    let unknown = unknown_variant(e);
    let open_doc = format!(
        " The API may send values this version does not list: they decode into \
         [`{unknown}`](Self::{unknown}), which keeps them and writes them back as they \
         came. A request carrying one is refused as the API refuses it: its \
         `Validate` reports the value."
    );
    quote! {
        #doc
        #[doc = ""]
        #[doc = #open_doc]
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum #name {
            #(#variants)*
            /// A value this version of the crate does not know, as it was sent.
            #unknown(String),
        }

        impl #name {
            /// Every known value, in the document's order.
            pub const ALL: [Self; #count] = [#(Self::#idents),*];

            /// Every known value as it is written on the wire, in the document's order.
            pub const VALUES: &'static [&'static str] = &[#(#wires),*];

            /// The value as it is written on the wire.
            pub fn as_str(&self) -> &str {
                match self {
                    #(Self::#idents => #wires,)*
                    Self::#unknown(value) => value,
                }
            }

            /// Whether the value is one the document lists.
            pub fn is_known(&self) -> bool {
                !matches!(self, Self::#unknown(_))
            }

            /// The variant written `value` on the wire, if there is one.
            fn known(value: &str) -> Option<Self> {
                #known
            }
        }

        #display

        #from_str

        impl serde::Serialize for #name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for #name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                validation::deserialize_open_enum(deserializer, Self::known, Self::#unknown)
            }
        }

        impl validation::Validate for #name {
            fn validate<'s>(&'s self, path: &mut Path<'s>, report: &mut Report) {
                if !self.is_known() {
                    report.push(path, format!("must be one of: {}", Self::VALUES.join(", ")), "InvalidEnumValue");
                }
            }
        }

        #validate_json
    }
}

/// The name of an open enum's variant for values it does not know:
/// `Unknown`, unless the document has a value of that name.
fn unknown_variant(e: &EnumDef) -> proc_macro2::Ident {
    let taken = |name: &str| e.variants.iter().any(|v| v.name == name);
    let name = ["Unknown", "UnknownValue", "Unlisted"]
        .into_iter()
        .find(|name| !taken(name))
        .map_or_else(|| format!("Unknown{}", e.variants.len()), str::to_owned);
    format_ident!("{}", name)
}

fn union_items(
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
        v.name.len() > enum_name.len()
            && (v.name.starts_with(&enum_name) || v.name.ends_with(&enum_name))
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

fn newtype_items(
    cx: &CheckContext<'_>,
    shape: &Shape,
    name: &proc_macro2::Ident,
    doc: &TokenStream,
    json_walks: bool,
) -> TokenStream {
    let inner = cx.types.shape(shape);
    let checks = cx.typed(shape, &format_ident!("value"));
    let body = if checks.is_empty() {
        checks
    } else {
        quote!(let value = &self.0; #checks)
    };
    let validate = validate_impl(cx, name, body);
    let validate_json =
        json_walks.then(|| validate_json_impl(&cx.runtime, name, cx.json(shape, &quote!(value))));
    quote! {
        #doc
        #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(transparent)]
        pub struct #name(pub #inner);

        impl #name {
            /// The wrapped value.
            pub fn into_inner(self) -> #inner {
                self.0
            }
        }

        impl From<#inner> for #name {
            fn from(value: #inner) -> Self {
                Self(value)
            }
        }

        impl std::ops::Deref for #name {
            type Target = #inner;

            fn deref(&self) -> &Self::Target {
                &self.0
            }
        }

        #validate

        #validate_json
    }
}
