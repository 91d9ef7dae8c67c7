//! The `responses` module: one enum per operation, with its encoding.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::context::{Op, Server, concrete_media_type, header_name};
use crate::emit::docs;
use crate::error::{Error, Result};
use crate::ir::{BodyKind, Primitive, Response, ResponseHeader, Shape, Status, Ty, TypeKind};
use crate::names::Namespace;

pub(crate) fn tokens(server: &Server<'_>) -> Result<TokenStream> {
    for id in &server.cx.target.encoded_answers {
        if !server.ops.iter().any(|op| &op.op.id == id) {
            return Err(Error::Config {
                file: "codegen settings".to_owned(),
                message: format!(
                    "`encoded-answers` names `{id}`, which is no operationId of {}",
                    server.source()
                ),
            });
        }
    }
    let root = server.root.clone();
    let root_text = &server.root_text;
    let items = server
        .ops
        .iter()
        .map(|op| enum_tokens(server, op))
        .collect::<Result<Vec<_>>>()?;
    let body = quote!(#(#items)*);
    let models = Server::models_import(&body);
    let uses_negotiation = server.ops.iter().any(|op| !op.offered.is_empty());
    let negotiation = uses_negotiation.then(|| {
        quote!(
            use #root::negotiation;
        )
    });
    let imports = if server.ops.is_empty() {
        TokenStream::new()
    } else {
        quote! {
            use #root::error::ApiError;
            #models
            #negotiation
            use #root::respond;
        }
    };
    let trait_name = &server.trait_name;
    let doc = docs::inner_attrs(&[
        format!(
            "One enum per operation of [`{trait_name}`]({root_text}::api::{trait_name}): the \
             responses its method answers with, each with its typed body and headers."
        ),
        String::new(),
        if server.cx.target.error_schema.is_some() {
            format!(
                "Responses whose body is the error schema are not variants: errors are \
                 [`{root_text}::error::ApiError`]s, rendered in that schema's shape."
            )
        } else {
            "Every documented response is a variant; an `ApiError` is answered in the \
             stubs' own error format."
                .to_owned()
        },
    ]);
    Ok(quote! {
        #doc

        #imports

        #body
    })
}

/// The fields of one variant: body, status (for ranges and `default`), headers.
struct Variant<'a> {
    response: &'a Response,
    ident: proc_macro2::Ident,
    has_status: bool,
    headers: Vec<(&'a ResponseHeader, proc_macro2::Ident)>,
    /// The twin of a JSON answer whose body comes encoded (`encoded-answers`).
    encoded: bool,
}

impl Variant<'_> {
    fn is_unit(&self) -> bool {
        self.response.body.is_none() && !self.has_status && self.headers.is_empty()
    }
}

fn enum_tokens(server: &Server<'_>, op: &Op<'_>) -> Result<TokenStream> {
    let name = op.response_type();
    let mut variants: Vec<Variant<'_>> = op
        .variants
        .iter()
        .map(|response| {
            let has_status = !matches!(response.status, Status::Code(_));
            let mut names = Namespace::with_reserved(&["body", "status"]);
            Variant {
                response,
                ident: format_ident!("{}", response.name),
                has_status,
                headers: response
                    .headers
                    .iter()
                    .map(|h| (h, format_ident!("{}", names.claim(h.field.clone()))))
                    .collect(),
                encoded: false,
            }
        })
        .collect();
    if server.cx.target.encoded_answers.contains(&op.op.id) {
        variants = with_encoded_twins(server, op, variants)?;
    }

    let definitions = variants
        .iter()
        .map(|v| variant_definition(server, v))
        .collect::<Vec<_>>();
    let statuses = variants.iter().map(|v| {
        let ident = &v.ident;
        let pattern = if v.is_unit() {
            quote!(Self::#ident)
        } else if v.has_status {
            quote!(Self::#ident { status, .. })
        } else {
            quote!(Self::#ident { .. })
        };
        let status = status_expr(v);
        quote!(#pattern => #status,)
    });
    let encodings = variants
        .iter()
        .map(|v| variant_encoding(server, op, v))
        .collect::<Result<Vec<_>>>()?;

    let trait_name = &server.trait_name;
    let fn_name = &op.op.fn_name;
    let doc = docs::attrs(&[format!(
        "The responses of [`{trait_name}::{fn_name}`]({}::api::{trait_name}::{fn_name}): {}.",
        server.root_text,
        op.signature_line()
    )]);
    let media_param = if op.offered.is_empty() {
        TokenStream::new()
    } else {
        quote!(, media_type: &'static str)
    };
    let (status_fn, into_http) = if variants.is_empty() {
        (
            quote! {
                /// The response's HTTP status.
                pub fn status(&self) -> http::StatusCode {
                    match *self {}
                }
            },
            quote! {
                pub(crate) fn into_http(self #media_param) -> Result<axum::response::Response, ApiError> {
                    match self {}
                }
            },
        )
    } else {
        (
            quote! {
                /// The response's HTTP status.
                pub fn status(&self) -> http::StatusCode {
                    match self {
                        #(#statuses)*
                    }
                }
            },
            quote! {
                /// The HTTP response: the body in the negotiated media type (when the
                /// response offers it), the headers, the status.
                pub(crate) fn into_http(self #media_param) -> Result<axum::response::Response, ApiError> {
                    match self {
                        #(#encodings)*
                    }
                }
            },
        )
    };
    let allow_large = may_have_large_variant(server, &variants)
        .then(|| quote!(#[allow(clippy::large_enum_variant)]));
    // A stream of items is neither cloned nor compared.
    let streams = variants
        .iter()
        .any(|v| matches!(v.response.body, Some(BodyKind::Sequence(_))));
    let derive = if streams {
        quote!(#[derive(Debug)])
    } else {
        quote!(#[derive(Debug, Clone, PartialEq)])
    };
    Ok(quote! {
        #doc
        #derive
        #allow_large
        pub enum #name {
            #(#definitions)*
        }

        impl #name {
            #status_fn

            #into_http
        }
    })
}

/// `variants`, each JSON answer followed by its twin whose body comes
/// encoded; an error when there is none, or a twin's name is taken.
fn with_encoded_twins<'a>(
    server: &Server<'_>,
    op: &Op<'_>,
    variants: Vec<Variant<'a>>,
) -> Result<Vec<Variant<'a>>> {
    let config_error = |message: String| Error::Config {
        file: "codegen settings".to_owned(),
        message: format!("`encoded-answers` names `{}`: {message}", op.op.id),
    };
    let names: Vec<String> = variants.iter().map(|v| v.ident.to_string()).collect();
    let mut out = Vec::with_capacity(variants.len() * 2);
    for variant in variants {
        let twin = matches!(variant.response.body, Some(BodyKind::Json(_))).then(|| Variant {
            response: variant.response,
            ident: format_ident!("{}Encoded", variant.ident),
            has_status: variant.has_status,
            headers: variant.headers.clone(),
            encoded: true,
        });
        out.push(variant);
        if let Some(twin) = twin {
            if names.contains(&twin.ident.to_string()) {
                return Err(config_error(format!(
                    "its answers already have a variant named `{}`",
                    twin.ident
                )));
            }
            out.push(twin);
        }
    }
    if !out.iter().any(|v| v.encoded) {
        return Err(config_error(format!(
            "none of the answers of {} has a JSON body",
            server.source()
        )));
    }
    Ok(out)
}

/// Whether clippy's `large_enum_variant` may fire on the enum of `variants`:
/// it needs two variants whose sizes differ by more than 200 bytes. The
/// emitter does not work out the size of the API's own types, so a variant
/// holding one counts as large; variants of identical fields are the same size.
fn may_have_large_variant(server: &Server<'_>, variants: &[Variant<'_>]) -> bool {
    let fields = |v: &Variant<'_>| {
        let mut out = vec![v.has_status.to_string()];
        out.extend(variant_body_type(server, v).map(|ty| ty.to_string()));
        out.extend(
            v.headers
                .iter()
                .map(|(h, _)| format!("{} {}", h.required, server.types.shape(&h.shape))),
        );
        out
    };
    let first = match variants {
        [first, _, ..] => fields(first),
        _ => return false,
    };
    if variants.iter().all(|v| fields(v) == first) {
        return false;
    }
    variants.iter().any(|v| may_be_large(variant_size_bound(v)))
}

/// Whether a variant of at most `bound` bytes (`None`: not known) may be
/// more than 200 bytes larger than another, as `large_enum_variant` needs.
fn may_be_large(bound: Option<usize>) -> bool {
    bound.is_none_or(|bytes| bytes > 200)
}

/// An upper bound of a variant's size in bytes; `None` when it holds a type
/// of the API.
fn variant_size_bound(v: &Variant<'_>) -> Option<usize> {
    // Every field counted as an `Option` with padding: 8 bytes more.
    fn shape_bound(shape: &Shape) -> Option<usize> {
        let bytes = match &shape.ty {
            Ty::Named(_) => return None,
            // `String` and the largest primitive: 24 bytes.
            Ty::Primitive(_) | Ty::Array(_) => 24,
            // A map or JSON value (an `IndexMap` with `preserve_order`).
            Ty::Map(_) | Ty::Any => 80,
        };
        Some(bytes + 8)
    }
    let mut total = if v.has_status { 8 } else { 0 };
    total += match &v.response.body {
        None => 0,
        // `Encoded`: its `Bytes`.
        Some(BodyKind::Json(_)) if v.encoded => 40,
        Some(BodyKind::Json(shape) | BodyKind::Form(shape)) => shape_bound(shape)?,
        Some(BodyKind::Text) => 32,
        // `Items`: a boxed stream, two words.
        Some(BodyKind::Sequence(_)) => 16,
        // `Bytes`: 32 bytes. (Multipart answers are lowered as bytes.)
        Some(BodyKind::Binary | BodyKind::Multipart(_)) => 40,
    };
    for (header, _) in &v.headers {
        total += shape_bound(&header.shape)?;
    }
    Some(total)
}

fn status_expr(v: &Variant<'_>) -> TokenStream {
    match v.response.status {
        Status::Code(code) => {
            let code = Literal::u16_unsuffixed(code);
            quote!(respond::status(#code))
        }
        _ => quote!(*status),
    }
}

fn variant_definition(server: &Server<'_>, v: &Variant<'_>) -> TokenStream {
    let response = v.response;
    let status = match response.status {
        Status::Code(code) => code.to_string(),
        Status::Range(range) => format!("{range}XX"),
        Status::Default => "Any other status".to_owned(),
    };
    let description = response.docs.description.as_deref().unwrap_or_default();
    let doc = if v.encoded {
        // Our own words, a link kept as one (the document's are escaped).
        docs::attrs(&[format!(
            "{status}: the answer of [`Self::{}`], its body encoded before and sent as it is.",
            v.ident
                .to_string()
                .strip_suffix("Encoded")
                .unwrap_or_default()
        )])
    } else if description.trim().is_empty() {
        docs::attrs(&docs::markdown_lines(&format!("{status}.")))
    } else {
        docs::attrs(&docs::markdown_lines(&format!(
            "{status}: {}",
            description.trim()
        )))
    };
    let ident = &v.ident;
    if v.is_unit() {
        return quote!(#doc #ident,);
    }
    let mut fields = Vec::new();
    if v.has_status {
        fields.push(quote! {
            /// The status to answer with.
            status: http::StatusCode,
        });
    }
    if let (Some(kind), Some(ty)) = (&response.body, variant_body_type(server, v)) {
        let media = response
            .media_types
            .iter()
            .map(|m| format!("`{m}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let doc = if response.media_types.iter().any(|m| m.contains('*')) {
            format!(
                " The body, sent as `{}` (the document allows {media}).",
                concrete_media_type(kind)
            )
        } else {
            format!(" The body, sent as {media}.")
        };
        fields.push(quote!(#[doc = #doc] body: #ty,));
    }
    for (header, field) in &v.headers {
        let ty = server.types.shape(&header.shape);
        // A nullable shape is an `Option` already.
        let ty = if header.required || header.shape.nullable {
            ty
        } else {
            quote!(Option<#ty>)
        };
        let mut text = format!("The `{}` header", header.wire);
        match &header.docs.description {
            Some(description) => text.push_str(&format!(": {}", description.trim())),
            None => text.push('.'),
        }
        let doc = docs::attrs(&docs::markdown_lines(&text));
        fields.push(quote!(#doc #field: #ty,));
    }
    quote! {
        #doc
        #ident {
            #(#fields)*
        },
    }
}

/// The type of `v`'s body field, if it has one.
fn variant_body_type(server: &Server<'_>, v: &Variant<'_>) -> Option<TokenStream> {
    let ty = body_type(server, v.response.body.as_ref()?);
    Some(if v.encoded {
        quote!(openapi_runtime::server::Encoded<#ty>)
    } else {
        ty
    })
}

fn body_type(server: &Server<'_>, kind: &BodyKind) -> TokenStream {
    match kind {
        BodyKind::Json(shape) | BodyKind::Form(shape) => server.types.shape(shape),
        BodyKind::Sequence(sequence) => {
            let item = server.types.shape(sequence.item());
            quote!(openapi_runtime::server::Items<#item>)
        }
        BodyKind::Text => quote!(String),
        BodyKind::Binary | BodyKind::Multipart(_) => quote!(axum::body::Bytes),
    }
}

fn variant_encoding(server: &Server<'_>, op: &Op<'_>, v: &Variant<'_>) -> Result<TokenStream> {
    let response = v.response;
    let ident = &v.ident;
    let status = status_expr(v);
    let mut bindings = Vec::new();
    if v.has_status {
        bindings.push(quote!(status));
    }
    if response.body.is_some() {
        bindings.push(quote!(body));
    }
    bindings.extend(v.headers.iter().map(|(_, field)| quote!(#field)));
    let pattern = if v.is_unit() {
        quote!(Self::#ident)
    } else {
        quote!(Self::#ident { #(#bindings),* })
    };
    let status = if v.has_status { quote!(status) } else { status };
    // The response, and whether building it can fail.
    let (build, fallible) = match &response.body {
        None => (quote!(respond::empty(#status)), false),
        Some(kind) => {
            let own: Vec<&str> = response.media_types.iter().map(String::as_str).collect();
            let concrete = concrete_media_type(kind);
            let negotiated = if op.offered.is_empty() {
                quote!("")
            } else {
                quote!(media_type)
            };
            let content_type =
                quote!(negotiation::response_type(#negotiated, &[#(#own),*], #concrete));
            match kind {
                BodyKind::Json(_) if v.encoded => (
                    quote!(respond::encoded(#status, body, #content_type)),
                    false,
                ),
                BodyKind::Json(_) => (quote!(respond::json(#status, &body, #content_type)), true),
                BodyKind::Form(_) => (quote!(respond::form(#status, &body, #content_type)), true),
                BodyKind::Text => (quote!(respond::text(#status, body, #content_type)), false),
                BodyKind::Sequence(sequence) => {
                    let framing = format_ident!("{}", sequence.framing.runtime_name());
                    let framing = quote!(openapi_runtime::sequence::Framing::#framing);
                    (
                        quote!(respond::items(#status, body, #content_type, #framing)),
                        false,
                    )
                }
                BodyKind::Binary | BodyKind::Multipart(_) => {
                    (quote!(respond::bytes(#status, body, #content_type)), false)
                }
            }
        }
    };
    if v.headers.is_empty() {
        return Ok(if fallible {
            quote!(#pattern => #build,)
        } else {
            quote!(#pattern => Ok(#build),)
        });
    }
    let build = if fallible { quote!(#build?) } else { build };
    let mut inserts = Vec::new();
    for (header, field) in &v.headers {
        let name = header_name(&header.wire).ok_or_else(|| {
            Error::unsupported(
                server.source(),
                &op.op.origin,
                format!(
                    "the response header `{}` is not a valid HTTP header name",
                    header.wire
                ),
            )
        })?;
        let wire = &header.wire;
        let optional = !header.required || header.shape.nullable;
        inserts.push(if optional {
            let encode = header_value(server, &header.shape, wire, &format_ident!("value"));
            quote! {
                if let Some(value) = #field {
                    headers.insert(#name, #encode?);
                }
            }
        } else {
            let encode = header_value(server, &header.shape, wire, field);
            quote!(headers.insert(#name, #encode?);)
        });
    }
    Ok(quote! {
        #pattern => {
            let mut response = #build;
            let headers = response.headers_mut();
            #(#inserts)*
            Ok(response)
        }
    })
}

/// An expression encoding the header value in `value` (owned) of `shape`.
fn header_value(
    server: &Server<'_>,
    shape: &Shape,
    wire: &str,
    value: &proc_macro2::Ident,
) -> TokenStream {
    let models = &server.types.deps;
    match &shape.ty {
        Ty::Primitive(Primitive::String | Primitive::Binary) => {
            quote!(respond::header_text(#wire, #value))
        }
        Ty::Primitive(Primitive::DateTime) => quote!(respond::header_text(
            #wire,
            #value.to_rfc3339_opts(#models chrono::SecondsFormat::AutoSi, true)
        )),
        Ty::Primitive(_) => quote!(respond::header_display(#wire, &#value)),
        Ty::Named(name) => match server.cx.api.type_named(name).map(|d| &d.kind) {
            Some(TypeKind::Enum(_)) => quote!(respond::header_display(#wire, #value.as_str())),
            Some(TypeKind::Newtype(inner)) => {
                let inner_value = format_ident!("inner");
                let encode = header_value(server, inner, wire, &inner_value);
                quote!({ let inner = #value.0; #encode })
            }
            Some(TypeKind::Alias(inner)) => header_value(server, inner, wire, value),
            _ => quote!(respond::header_json(#wire, &#value)),
        },
        Ty::Array(item) if is_display(server, item) => {
            quote!(respond::header_list(#wire, &#value))
        }
        Ty::Array(_) | Ty::Map(_) | Ty::Any => quote!(respond::header_json(#wire, &#value)),
    }
}

/// Whether values of `shape` display as their header text.
fn is_display(server: &Server<'_>, shape: &Shape) -> bool {
    match &shape.ty {
        Ty::Primitive(Primitive::DateTime) => false,
        Ty::Primitive(_) => !shape.nullable,
        Ty::Named(name) => {
            matches!(
                server.cx.api.type_named(name).map(|d| &d.kind),
                Some(TypeKind::Enum(_))
            ) && !shape.nullable
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use quote::format_ident;

    use super::{Variant, may_be_large, tokens, variant_size_bound};
    use crate::config::Target;
    use crate::emit::server::{Server, rust_types};
    use crate::ir::{BodyKind, Docs, Primitive, Response, ResponseHeader, Shape, Status, Ty};

    /// Clippy's `large_enum_variant` needs a difference of more than 200
    /// bytes: a variant of at most 200 cannot make one.
    #[test]
    fn a_variant_may_be_large_past_200_bytes_or_when_its_size_is_unknown() {
        assert!(!may_be_large(Some(200)));
        assert!(may_be_large(Some(201)));
        assert!(may_be_large(None));
    }

    #[test]
    fn encoded_answers_name_operations_of_the_document() {
        let api = crate::testing::api(
            "paths:
  /a:
    get:
      operationId: getA
      responses:
        '200': {description: A., content: {application/json: {schema: {type: object}}}}
",
        );
        let answers = |ids: &[&str]| {
            let mut target = Target::standalone("t.yaml".into(), "t");
            target.encoded_answers = ids.iter().map(|id| (*id).to_owned()).collect();
            let cx = crate::testing::context(&api, &target);
            let types = rust_types();
            let server = Server::new(&cx, &types).unwrap();
            tokens(&server)
                .map(|_| ())
                .map_err(|error| error.to_string())
        };
        assert_eq!(answers(&["getA"]), Ok(()));
        let error = answers(&["getA", "getB"]).unwrap_err();
        assert!(
            error.contains("`encoded-answers` names `getB`, which is no operationId of t.yaml"),
            "{error}"
        );
    }

    fn response(body: Option<BodyKind>, headers: &[Ty]) -> Response {
        Response {
            status: Status::Code(200),
            name: "Ok".to_owned(),
            docs: Docs::default(),
            headers: headers
                .iter()
                .enumerate()
                .map(|(i, ty)| ResponseHeader {
                    wire: format!("X-{i}"),
                    field: format!("x_{i}"),
                    required: true,
                    shape: Shape::of(ty.clone()),
                    docs: Docs::default(),
                })
                .collect(),
            media_types: Vec::new(),
            body,
            events: None,
            component: None,
        }
    }

    fn bound(response: &Response, has_status: bool, encoded: bool) -> Option<usize> {
        variant_size_bound(&Variant {
            response,
            ident: format_ident!("Ok"),
            has_status,
            headers: response
                .headers
                .iter()
                .map(|h| (h, format_ident!("h")))
                .collect(),
            encoded,
        })
    }

    /// Each field at most its size and an `Option`'s eight bytes; a type
    /// of the API has no bound the emitter knows.
    #[test]
    fn a_variant_is_bounded_by_its_fields() {
        let text = Ty::Primitive(Primitive::String);
        assert_eq!(bound(&response(None, &[]), false, false), Some(0));
        assert_eq!(bound(&response(None, &[]), true, false), Some(8));
        assert_eq!(
            bound(&response(Some(BodyKind::Text), &[]), false, false),
            Some(32)
        );
        let json = |ty: Ty| Some(BodyKind::Json(Shape::of(ty)));
        assert_eq!(
            bound(&response(json(text.clone()), &[]), false, false),
            Some(32)
        );
        assert_eq!(bound(&response(json(Ty::Any), &[]), false, false), Some(88));
        let named = || json(Ty::Named("Order".to_owned()));
        assert_eq!(bound(&response(named(), &[]), false, false), None);
        // Encoded, the answer is its bytes.
        assert_eq!(bound(&response(named(), &[]), false, true), Some(40));
        let headers = [text.clone(), Ty::Map(Box::new(Shape::of(text)))];
        assert_eq!(
            bound(&response(Some(BodyKind::Binary), &headers), true, false),
            Some(8 + 40 + 32 + 88)
        );
        assert_eq!(
            bound(
                &response(None, &[Ty::Named("Code".to_owned())]),
                false,
                false
            ),
            None
        );
    }
}
