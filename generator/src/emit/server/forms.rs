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
use crate::ir::{Files, FormField, FormKind, Multipart, ParamStyle, Parameter, Shape};

/// How each field of an object of `shape` is typed from its text, or
/// `None` when the shape is not an object (a struct, or a map: `*`).
pub(crate) fn field_kinds(server: &Server<'_>, shape: &Shape) -> Option<Vec<TokenStream>> {
    let fields = server.cx.api.form_fields(shape)?;
    Some(fields.iter().map(field_tokens).collect())
}

/// A field of the IR's table as the runtime's `FormField`.
fn field_tokens(field: &FormField) -> TokenStream {
    let name = &field.name;
    match &field.kind {
        FormKind::Object(fields) => {
            let fields = fields.iter().map(field_tokens);
            quote! {
                body::FormField {
                    name: #name,
                    kind: body::FormKind::Object(&[#(#fields),*]),
                    list: false,
                }
            }
        }
        kind => {
            let kind = format_ident!("{}", kind.variant());
            let list = field.list;
            quote!(body::FormField { name: #name, kind: body::FormKind::#kind, list: #list })
        }
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
    let fields = server
        .cx
        .api
        .object_param_fields(&param.shape)
        .ok_or_else(|| {
            Error::unsupported(
                server.source(),
                &param.origin,
                "internal: an object parameter whose schema is not an object",
            )
        })?;
    let fields: Vec<TokenStream> = fields.iter().map(field_tokens).collect();
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
    // Files are set aside before their text would be typed.
    let kinds: Vec<TokenStream> = server
        .cx
        .api
        .part_fields(multipart)
        .iter()
        .map(field_tokens)
        .collect();
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
