//! Values spread over several pairs or parts, in the server stubs: form
//! bodies, object query parameters (`deepObject` and exploded `form`) and
//! `multipart/form-data` bodies. Each is typed field by field (so that
//! `count=3` becomes a number), then checked as a JSON value of its schema
//! would be, so that one 400 lists every problem.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::context::{Op, Server};
use crate::emit::docs;
use crate::emit::form_struct::{self, PartField};
use crate::error::{Error, Result};
use crate::ir::{
    Files, Multipart, ParamStyle, Parameter, Primitive, Shape, Ty, TypeKind, is_object, struct_of,
};

/// How each field of an object of `shape` is typed from its text, or
/// `None` when the shape is not an object (a struct, or a map: `*`).
pub(crate) fn field_kinds(server: &Server<'_>, shape: &Shape) -> Option<Vec<TokenStream>> {
    fields_of(server, shape, &|name, shape| {
        field_kind(server, name, shape)
    })
}

/// How many objects deep, the parameter's own counted, properties are read
/// in brackets: 4 reads `filter[a][b][c][d]=…`. Deeper objects, and an
/// object of a type already above it (a type that contains itself), are
/// read as JSON text, so that the fields written stay few.
const MAX_NESTING: usize = 4;

/// [`field_kinds`] of an object query parameter: a property that is itself
/// an object is an `Object` of its own fields (`filter[near][lat]=…`);
/// `above` are the shapes of the objects it is in.
fn parameter_field_kinds(
    server: &Server<'_>,
    shape: &Shape,
    above: &[&Shape],
) -> Option<Vec<TokenStream>> {
    fields_of(server, shape, &|name, shape| {
        let nested = object_alternative(server, shape)
            .filter(|object| above.len() < MAX_NESTING && !above.contains(object))
            .and_then(|object| {
                let above = [above, &[object]].concat();
                parameter_field_kinds(server, object, &above)
            });
        match nested {
            Some(fields) => quote! {
                body::FormField {
                    name: #name,
                    kind: body::FormKind::Object(&[#(#fields),*]),
                    list: false,
                }
            },
            None => field_kind(server, name, shape),
        }
    })
}

/// The object a value of `shape` is, or may be: a struct or a map, or the
/// one alternative of a union that is one (Stripe's `created`: a range
/// object or a timestamp).
fn object_alternative<'s>(server: &'s Server<'_>, shape: &'s Shape) -> Option<&'s Shape> {
    let api = server.cx.api;
    let is_object = |shape: &Shape| is_object(&api.types, shape);
    if is_object(shape) {
        return Some(shape);
    }
    let Ty::Named(name) = &shape.ty else {
        return None;
    };
    let TypeKind::Union(union) = &api.type_named(name)?.kind else {
        return None;
    };
    let mut objects = union.variants.iter().filter(|v| is_object(&v.shape));
    match (objects.next(), objects.next()) {
        (Some(only), None) => Some(&only.shape),
        _ => None,
    }
}

/// Each field of an object of `shape`, written by `field`; `None` when the
/// shape is not an object.
fn fields_of(
    server: &Server<'_>,
    shape: &Shape,
    field: &dyn Fn(&str, &Shape) -> TokenStream,
) -> Option<Vec<TokenStream>> {
    let api = server.cx.api;
    match &shape.ty {
        Ty::Map(value) => Some(vec![field("*", value)]),
        Ty::Any => Some(Vec::new()),
        Ty::Named(name) => match &api.type_named(name)?.kind {
            TypeKind::Alias(inner) | TypeKind::Newtype(inner)
                if matches!(inner.ty, Ty::Map(_) | Ty::Named(_)) =>
            {
                fields_of(server, inner, field)
            }
            // A union of objects (OAuth's token request, one struct per
            // `grant_type`): the fields of every alternative, the first
            // alternative's typing a name they share; serde then picks the
            // alternative.
            TypeKind::Union(union) => {
                let mut fields: Vec<(&str, TokenStream)> = Vec::new();
                for variant in &union.variants {
                    for f in &struct_of(&api.types, &variant.shape)?.fields {
                        if !fields.iter().any(|(wire, _)| *wire == f.wire) {
                            fields.push((&f.wire, field(&f.wire, &f.shape)));
                        }
                    }
                }
                Some(fields.into_iter().map(|(_, kind)| kind).collect())
            }
            _ => {
                let object = struct_of(&api.types, shape)?;
                Some(
                    object
                        .fields
                        .iter()
                        .map(|f| field(&f.wire, &f.shape))
                        .collect(),
                )
            }
        },
        _ => None,
    }
}

/// The `FormField` of the field `name` of `shape`: an array of values
/// that are text is a list (repeated pairs or parts), any other array one
/// JSON value.
fn field_kind(server: &Server<'_>, name: &str, shape: &Shape) -> TokenStream {
    let (kind, list) = match &shape.ty {
        Ty::Array(item) if kind_of(server, item, 0) != "Json" => (kind_of(server, item, 0), true),
        _ => (kind_of(server, shape, 0), false),
    };
    let kind = format_ident!("{}", kind);
    quote!(body::FormField { name: #name, kind: body::FormKind::#kind, list: #list })
}

/// The `FormKind` of a value of `shape`: how its text becomes JSON.
fn kind_of(server: &Server<'_>, shape: &Shape, depth: usize) -> &'static str {
    match &shape.ty {
        Ty::Primitive(p) if p.is_integer() => "Integer",
        Ty::Primitive(p) if p.is_number() => "Number",
        Ty::Primitive(Primitive::Bool) => "Boolean",
        Ty::Primitive(_) => "Text",
        Ty::Named(name) if depth < 16 => match server.cx.api.type_named(name).map(|d| &d.kind) {
            Some(TypeKind::Enum(_)) | None => "Text",
            Some(TypeKind::Newtype(inner) | TypeKind::Alias(inner)) => {
                kind_of(server, inner, depth + 1)
            }
            Some(TypeKind::Struct(_) | TypeKind::Union(_)) => "Json",
        },
        Ty::Named(_) => "Text",
        Ty::Array(_) | Ty::Map(_) | Ty::Any => "Json",
    }
}

// ---- object query parameters ---------------------------------------------------------

/// The Rust type of an object parameter's value.
pub(crate) fn object_type(server: &Server<'_>, param: &Parameter) -> TokenStream {
    server.types.ty(&param.shape.ty)
}

/// `let local: Option<T> = object_params::object(…);` reading an object
/// query parameter; `others` are the wire names of the operation's other
/// query parameters (which an exploded `form` map leaves alone).
pub(crate) fn read_object(
    server: &Server<'_>,
    param: &Parameter,
    local: &Ident,
    others: &[&str],
) -> Result<TokenStream> {
    let fields = parameter_field_kinds(server, &param.shape, &[&param.shape]).ok_or_else(|| {
        Error::unsupported(
            server.source(),
            &param.origin,
            "internal: an object parameter whose schema is not an object",
        )
    })?;
    let ty = object_type(server, param);
    let wire = &param.wire;
    let required = param.required;
    let spread = if param.style == ParamStyle::DeepObject {
        quote!(object_params::Spread::Deep)
    } else {
        quote!(object_params::Spread::Form { others: &[#(#others),*] })
    };
    Ok(quote! {
        let #local: Option<#ty> = object_params::object(
            parts.uri.query(),
            #wire,
            #spread,
            &[#(#fields),*],
            #required,
            &mut report,
        );
    })
}

// ---- multipart bodies ----------------------------------------------------------------

/// The name of the struct of an operation's multipart body.
pub(crate) fn form_type(op: &Op<'_>) -> Ident {
    format_ident!("{}Form", op.op.type_prefix)
}

/// The type of an operation's multipart body in the `api` module: its
/// struct, or the runtime's `Parts` when its schema lists no parts.
pub(crate) fn form_body_type(server: &Server<'_>, op: &Op<'_>, body: &Multipart) -> TokenStream {
    if server.cx.api.form_parts(body).is_some() {
        let name = form_type(op);
        quote!(#name)
    } else {
        quote!(multipart::Parts)
    }
}

/// The struct of an operation's multipart body, for the `api` module.
pub(crate) fn form_struct(server: &Server<'_>, op: &Op<'_>) -> Result<TokenStream> {
    let Some(body) = op.op.body.as_ref() else {
        return Ok(TokenStream::new());
    };
    let crate::ir::BodyKind::Multipart(multipart) = &body.kind else {
        return Ok(TokenStream::new());
    };
    // A body whose schema lists no parts is the runtime's `Parts`.
    let Some(parts) = server.cx.api.form_parts(multipart) else {
        return Ok(TokenStream::new());
    };
    let parts: Vec<PartField> = parts
        .iter()
        .map(|part| {
            let value = server.types.ty(&part.field.shape.ty);
            PartField::of(part, quote!(multipart::File), value)
        })
        .collect();
    let doc = docs::attrs(&[format!(
        "The `{}` body of {}: a field per part; files with \
         their file name and media type.",
        body.multipart_media_type(),
        op.signature_line()
    )]);
    Ok(form_struct::tokens(
        &form_type(op),
        doc,
        quote!(Debug, Clone, PartialEq),
        &parts,
    ))
}

/// The expression decoding `bytes` into an operation's multipart body:
/// the parts that are not files checked by the models' type of the schema,
/// then moved, with the files, into the body's struct.
pub(crate) fn decode_multipart(
    server: &Server<'_>,
    op: &Op<'_>,
    multipart: &Multipart,
) -> Result<TokenStream> {
    let Some(parts) = server.cx.api.form_parts(multipart) else {
        return Ok(quote!(multipart::parts(bytes, &parts.headers)?));
    };
    let model = server.types.ty(&multipart.shape.ty);
    let file_names: Vec<&str> = parts
        .iter()
        .filter(|p| p.files.is_some())
        .map(|p| p.field.wire.as_str())
        .collect();
    // Files are set aside before their text would be typed.
    let kinds: Vec<TokenStream> = struct_of(&server.cx.api.types, &multipart.shape)
        .map(|object| {
            object
                .fields
                .iter()
                .filter(|f| !file_names.contains(&f.wire.as_str()))
                .map(|f| field_kind(server, &f.wire, &f.shape))
                .collect()
        })
        .unwrap_or_default();
    let file_parts = parts.iter().filter_map(|part| {
        let many = part.files? == Files::Many;
        let name = &part.field.wire;
        Some(quote!(multipart::FilePart { name: #name, many: #many }))
    });
    let name = form_type(op);
    let fields = parts.iter().map(|part| {
        let ident = format_ident!("{}", part.field.name);
        let wire = &part.field.wire;
        let optional = !part.field.required || part.field.shape.nullable;
        let value = match (part.files, optional) {
            (Some(Files::One), false) => quote!(files.required(#wire)?),
            (Some(Files::One), true) => quote!(files.optional(#wire)),
            (Some(Files::Many), _) => quote!(files.many(#wire)),
            (None, _) => quote!(fields.#ident),
        };
        quote!(#ident: #value)
    });
    let has_files = parts.iter().any(|p| p.files.is_some());
    let has_fields = parts.iter().any(|p| p.files.is_none());
    let files_binding = if has_files {
        quote!(mut files)
    } else {
        quote!(_)
    };
    let fields_binding = if has_fields {
        quote!(fields)
    } else {
        quote!(_)
    };
    Ok(quote! {
        {
            let (#fields_binding, #files_binding) = multipart::decode::<#model>(
                bytes,
                &parts.headers,
                &[#(#kinds),*],
                &[#(#file_parts),*],
                shared.settings.part_limit,
            )?;
            api::#name { #(#fields),* }
        }
    })
}
