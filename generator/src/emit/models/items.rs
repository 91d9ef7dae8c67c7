//! One named type: its definition, its helpers and its validators.

use proc_macro2::{Literal, TokenStream};
use quote::{ToTokens, format_ident, quote};

use super::unions::union_items;
use crate::emit::checks::{CheckContext, validate_impl, validate_json_impl};
use crate::emit::docs;
use crate::error::Result;
use crate::ir::{
    Access, Additional, EnumDef, EnumRepr, Field, Shape, StructDef, Ty, TypeDef, TypeKind,
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
        Additional::Map { field, value } => {
            let ty = cx.types.shape(value);
            let field = format_ident!("{field}");
            quote! {
                /// Properties beyond the ones above.
                #[serde(flatten)]
                pub #field: std::collections::BTreeMap<String, #ty>,
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
    if let Additional::Map { field, .. } = &s.additional {
        let field = format_ident!("{field}");
        inits.push(quote!(#field: std::collections::BTreeMap::new()));
    }
    let doc = if params.is_empty() {
        format!(" The `{name}` with every property unset.")
    } else {
        format!(
            " The `{name}` with these required properties; the optional ones are unset (see the `with_*` methods)."
        )
    };
    let allow = crate::emit::too_many_arguments(params.len()).then(|| {
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
            // Blank descriptions were dropped when lowered (`docs_of`).
            Some(text) => format!("{text}\n\n{extra}"),
            None => extra,
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
    if let Additional::Map {
        field,
        value: value_shape,
    } = &s.additional
    {
        let checks = cx.typed(value_shape, &format_ident!("item"));
        let field = format_ident!("{field}");
        if !checks.is_empty() {
            out.extend(quote! {
                for (key, item) in &self.#field {
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
        if let Additional::Map { field, .. } = &s.additional {
            let field = format_ident!("{field}");
            terms.push(quote!(self.#field.len()));
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
    // An object without properties or rules on the others (`{}`) is only
    // checked to be an object. One with a property count keeps the others
    // (`StructDef::property_count`), so it is read.
    let reads_object = !s.fields.is_empty() || !matches!(s.additional, Additional::Ignore);
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
    if let Additional::Map {
        value: value_shape, ..
    } = &s.additional
    {
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
    let shared = EnumShared::new(e, name, json_walks);
    if e.open {
        open_enum_items(e, name, doc, &shared)
    } else {
        closed_enum_items(e, name, doc, &shared)
    }
}

/// What both forms of a scalar enum write alike: the variants' idents and
/// wire values, the lookup of a wire value, `Display`, `FromStr` and the
/// raw-JSON check.
struct EnumShared<'a> {
    idents: Vec<proc_macro2::Ident>,
    wires: Vec<&'a str>,
    count: Literal,
    known: TokenStream,
    display: TokenStream,
    from_str: TokenStream,
    validate_json: Option<TokenStream>,
}

impl<'a> EnumShared<'a> {
    fn new(e: &'a EnumDef, name: &proc_macro2::Ident, json_walks: bool) -> Self {
        let idents: Vec<_> = e
            .variants
            .iter()
            .map(|v| format_ident!("{}", v.name))
            .collect();
        let wires: Vec<&str> = e.variants.iter().map(|v| v.wire.as_str()).collect();
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
        EnumShared {
            count: Literal::usize_unsuffixed(e.variants.len()),
            idents,
            wires,
            known,
            display,
            from_str,
            validate_json,
        }
    }
}

/// A closed enum: its values and nothing else, serde's own derive.
fn closed_enum_items(
    e: &EnumDef,
    name: &proc_macro2::Ident,
    doc: &TokenStream,
    shared: &EnumShared<'_>,
) -> TokenStream {
    let EnumShared {
        idents,
        wires,
        count,
        known,
        display,
        from_str,
        validate_json,
    } = shared;
    let variants = e.variants.iter().map(|v| {
        let ident = format_ident!("{}", v.name);
        let wire = &v.wire;
        let doc = docs::variant_attrs(v);
        let rename = (v.name != v.wire).then(|| quote!(#[serde(rename = #wire)]));
        quote!(#doc #rename #ident,)
    });
    quote! {
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
    }
}

/// An open enum: the document's values and a variant that keeps any other
/// value as it came, with serde written by hand.
fn open_enum_items(
    e: &EnumDef,
    name: &proc_macro2::Ident,
    doc: &TokenStream,
    shared: &EnumShared<'_>,
) -> TokenStream {
    let EnumShared {
        idents,
        wires,
        count,
        known,
        display,
        from_str,
        validate_json,
    } = shared;
    let variants = e.variants.iter().map(|v| {
        let ident = format_ident!("{}", v.name);
        let doc = docs::variant_attrs(v);
        quote!(#doc #ident,)
    });
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
