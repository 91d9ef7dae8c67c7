//! The `api` module: the trait, the request context, the request structs.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::context::{Auth, Op, Server, uses_ident};
use super::{dynamic_query, params};
use crate::emit::docs;
use crate::error::Result;
use crate::ir::{BodyKind, Docs, ParamLocation, Parameter, Primitive, RequestBody, Shape, Ty};

pub(crate) fn tokens(server: &Server<'_>) -> Result<TokenStream> {
    let api = server.cx.api;
    let root = server.root.clone();
    let root_text = &server.root_text;
    let trait_name = &server.trait_name;
    let context = context_tokens(server)?;
    let methods = server
        .ops
        .iter()
        .map(|op| method_tokens(server, op))
        .collect::<Vec<_>>();
    let requests = server
        .ops
        .iter()
        .map(|op| {
            let request = request_tokens(server, op)?;
            let form = super::forms::form_struct(server, op)?;
            Ok(quote!(#request #form))
        })
        .collect::<Result<Vec<_>>>()?;

    let mut trait_doc = vec![match server.hooks {
        Some(hooks) => format!(
            "The {hooks} of the {} API (version {}), received: one method per operation.",
            api.title, api.version
        ),
        None => format!(
            "The {} API (version {}): one method per operation.",
            api.title, api.version
        ),
    }];
    if let Some(description) = &api.description {
        let first = description.split("\n\n").next().unwrap_or_default();
        trait_doc.push(String::new());
        trait_doc.extend(docs::markdown_lines(first));
    }
    // `ApiError` is in scope unless the trait has no method at all.
    let api_error = if server.ops.is_empty() && !server.has_security {
        format!("[`ApiError`]({root_text}::error::ApiError)")
    } else {
        "[`ApiError`]".to_owned()
    };
    trait_doc.extend([
        String::new(),
        format!(
            "Serve an implementation with [`router`]({root_text}::routes::router). Before a method is \
             called, the router has authenticated the request, negotiated the response's media \
             type, and parsed and checked the operation's parameters and body: a method sees \
             only valid input. It answers with its operation's response enum, or with an \
             {api_error}, which the router renders in the document's error format."
        ),
        String::new(),
        "No method has a default: when the document gains an operation, an implementation \
         that lacks it no longer compiles."
            .to_owned(),
    ]);
    let trait_doc = docs::attrs(&trait_doc);
    let auth = server.has_security.then(|| {
        quote! {
            /// Who made a request: what [`authenticate`](Self::authenticate) makes of its
            /// credentials. Operations that require authentication receive it in their
            /// context's `principal`; operations where it is optional receive an `Option`.
            type Principal: Send + Sync + 'static;

            /// Checks the credentials of a request to an operation with security, before
            /// its parameters and body are read, and returns who made it (or an
            /// [`ApiError`], typically [`ApiError::unauthorized`] or
            /// [`ApiError::forbidden`]). `credentials` holds the operation's id, the
            /// value of each scheme presented, and the request's headers.
            ///
            /// It is not called when a request presents no credential: the router answers
            /// that with 401 `InvalidCredential` itself (or, where authentication is
            /// optional, calls the operation without a principal).
            fn authenticate(
                &self,
                credentials: Credentials<'_>,
            ) -> impl std::future::Future<Output = Result<Self::Principal, ApiError>> + Send;
        }
    });
    let security_import = server.has_security.then(|| {
        quote!(
            use #root::security::Credentials;
        )
    });
    let body = quote! {
        #context

        #trait_doc
        pub trait #trait_name: Send + Sync + 'static {
            #auth
            #(#methods)*
        }

        #(#requests)*
    };
    let models = Server::models_import(&body);
    let multipart_import = uses_ident(body.clone(), "multipart").then(|| {
        quote!(
            use #root::multipart;
        )
    });
    let module_doc = docs::inner_attrs(&[format!(
        "The API as a trait, [`{trait_name}`]: its request context and one request struct per operation."
    )]);
    let has_methods = !server.ops.is_empty() || server.has_security;
    let error_import = has_methods.then(|| {
        quote!(
            use #root::error::ApiError;
        )
    });
    let responses_import = (!server.ops.is_empty()).then(|| {
        quote!(
            use #root::responses;
        )
    });
    Ok(quote! {
        #module_doc

        #error_import
        #models
        #multipart_import
        use #root::request_id::RequestId;
        #responses_import
        #security_import

        #body
    })
}

fn context_tokens(server: &Server<'_>) -> Result<TokenStream> {
    let trait_name = &server.trait_name;
    let fields = server
        .common
        .iter()
        .map(|common| {
            let ident = format_ident!("{}", common.field);
            let ty = params::field_type(server, common.param)?;
            let doc = param_doc(common.param);
            Ok(quote!(#doc pub #ident: #ty,))
        })
        .collect::<Result<Vec<_>>>()?;
    let (generics, principal, principal_doc) = if server.has_security {
        let doc = format!(
            " Who made the request: what [`{trait_name}::authenticate`] returned for operations \
             that require authentication (`P` is the trait's `Principal`), `Option` of it where \
             authentication is optional, `()` for operations without security."
        );
        (
            quote!(<P = ()>),
            quote! {
                #[doc = #doc]
                pub principal: P,
            },
            " `P` is the principal, see [`principal`](Self::principal).",
        )
    } else {
        (TokenStream::new(), TokenStream::new(), "")
    };
    let mut doc_lines = vec![
        "What a method is told about a request besides its parameters and body: its id, the \
         operation, who made it, the headers every operation takes, and the rest of the \
         request's headers and extensions."
            .to_owned(),
    ];
    if !principal_doc.is_empty() {
        doc_lines.push(String::new());
        doc_lines.push(principal_doc.trim().to_owned());
    }
    let doc = docs::attrs(&doc_lines);
    let request_id_doc = docs::attrs(&[
        "The request's id: its `X-Request-Id` when that is sane, a new one otherwise.".to_owned(),
        match super::error_format::request_id_place(server)? {
            Some(place) => {
                format!("The response carries it in `X-Request-Id`, and error bodies in {place}.")
            }
            None => "The response carries it in `X-Request-Id`.".to_owned(),
        },
    ]);
    Ok(quote! {
        #doc
        #[derive(Debug)]
        pub struct RequestContext #generics {
            #request_id_doc
            pub request_id: RequestId,
            /// The `operationId` of the operation called.
            pub operation_id: &'static str,
            #principal
            #(#fields)*
            /// The request's headers.
            pub headers: http::HeaderMap,
            /// The request's extensions: what tower layers around the router attached to it.
            pub extensions: http::Extensions,
        }
    })
}

fn method_tokens(server: &Server<'_>, op: &Op<'_>) -> TokenStream {
    let fallback = format!("The `{}` operation.", op.op.id);
    let mut doc = docs::doc_attrs(&op.op.docs, &fallback);
    let mut lines = vec![String::new(), op.signature_line()];
    match &op.auth {
        Auth::None if server.has_security => {
            lines.push(String::new());
            lines.push("No authentication: the context's principal is `()`.".to_owned());
        }
        Auth::Optional(_) => {
            lines.push(String::new());
            lines.push(
                "Authentication is optional: the context's principal is `None` when the \
                 request presents no credential."
                    .to_owned(),
            );
        }
        _ => {}
    }
    doc.extend(docs::attrs(&lines));
    let name = op.fn_name();
    let request = op.request_type();
    let response = op.response_type();
    let principal = op.principal(server);
    let rules = op
        .op
        .body
        .as_ref()
        .and_then(|body| rules_method_tokens(server, op, body));
    let conversion = crate::emit::conversion_name_allow(&name.to_string());
    quote! {
        #doc
        #conversion
        fn #name(
            &self,
            context: RequestContext #principal,
            request: #request,
        ) -> impl std::future::Future<Output = Result<responses::#response, ApiError>> + Send;

        #rules
    }
}

/// The method checking the rules a body's schemas cannot state (`x-rules`),
/// when it has any: the document names them, the implementer writes them.
fn rules_method_tokens(
    server: &Server<'_>,
    op: &Op<'_>,
    body: &RequestBody,
) -> Option<TokenStream> {
    if body.rules.is_empty() {
        return None;
    }
    let mut lines = vec![
        format!("Checks the body of {}", op.signature_line()),
        "against the rules its schemas cannot state, as the document's `x-rules` lists them:"
            .to_owned(),
        String::new(),
    ];
    lines.extend(
        body.rules
            .iter()
            .map(|rule| format!("- `{}`: {}", rule.code, rule.description)),
    );
    let operation = &op.op.fn_name;
    lines.extend([
        String::new(),
        "The router calls it with every body that decodes, even one that breaks its schemas,"
            .to_owned(),
        "and answers 400 with the problems of both in one list;".to_owned(),
        format!("[`{operation}`](Self::{operation}) is called only when there are none."),
        "Return every problem found, with its error code and the path of the offending value"
            .to_owned(),
        "(such as `[3].lineItems[0].sku`), or none.".to_owned(),
    ]);
    let doc = docs::attrs(&lines);
    let name = op.rules_fn_name();
    let ty = lent_body_type(server, op, body);
    Some(quote! {
        #doc
        fn #name(&self, body: &#ty) -> Vec<models::validation::Problem>;
    })
}

fn request_tokens(server: &Server<'_>, op: &Op<'_>) -> Result<TokenStream> {
    let name = op.request_type();
    let mut fields = Vec::new();
    let mut all_optional = true;
    for param in &op.params {
        let ident = format_ident!("{}", param.field);
        let ty = match dynamic_query::field_type(server, param) {
            Some(query) => query,
            None => params::field_type(server, param)?,
        };
        let mut doc = param_doc(param);
        doc.extend(dynamic_query::field_doc(param));
        all_optional &= !param.required;
        fields.push(quote!(#doc pub #ident: #ty,));
    }
    if let Some(body) = &op.op.body {
        let ty = body_type(server, op, body);
        let ty = if body.required {
            all_optional = false;
            ty
        } else {
            quote!(Option<#ty>)
        };
        let doc = body_doc(body);
        fields.push(quote!(#doc pub body: #ty,));
    }
    let trait_name = &server.trait_name;
    let fn_name = &op.op.fn_name;
    let doc = docs::attrs(&[
        format!(
            "The parameters and body of [`{trait_name}::{fn_name}`]: {}.",
            op.signature_line()
        ),
        String::new(),
        "A struct, so that a new optional parameter does not change the method's signature."
            .to_owned(),
    ]);
    let default = all_optional.then(|| quote!(Default,));
    // A stream of items is neither cloned nor compared.
    let streams = op
        .op
        .body
        .as_ref()
        .is_some_and(|body| matches!(body.kind, BodyKind::Sequence(_)));
    let compare = (!streams).then(|| quote!(Clone, PartialEq,));
    Ok(quote! {
        #doc
        #[derive(Debug, #compare #default)]
        pub struct #name {
            #(#fields)*
        }
    })
}

/// The Rust type of a request body.
pub(crate) fn body_type(server: &Server<'_>, op: &Op<'_>, body: &RequestBody) -> TokenStream {
    match &body.kind {
        BodyKind::Json(shape) | BodyKind::Form(shape) => server.types.shape(shape),
        // Handed over as they arrive, each checked as it comes (D62).
        BodyKind::Sequence(sequence) => {
            let item = server.types.shape(sequence.item());
            quote!(openapi_runtime::server::RequestItems<#item>)
        }
        BodyKind::Multipart(multipart) => super::forms::form_body_type(server, op, multipart),
        BodyKind::Text => quote!(String),
        BodyKind::Binary => quote!(axum::body::Bytes),
    }
}

/// The type the rules method borrows a body as: a list as a slice and a
/// string as `str`, which is what `&Vec<T>` and `&String` lend and what
/// clippy asks of an argument (`ptr_arg`); other bodies as [`body_type`].
fn lent_body_type(server: &Server<'_>, op: &Op<'_>, body: &RequestBody) -> TokenStream {
    match &body.kind {
        BodyKind::Json(shape) if lent_as_slice(shape) => match &shape.ty {
            Ty::Array(item) => {
                let item = server.types.shape(item);
                quote!([#item])
            }
            _ => quote!(str),
        },
        _ => body_type(server, op, body),
    }
}

/// Whether the rules method borrows a JSON body of `shape` as a slice or
/// `str` rather than as its own type.
pub(crate) fn lent_as_slice(shape: &Shape) -> bool {
    !shape.nullable && matches!(shape.ty, Ty::Array(_) | Ty::Primitive(Primitive::String))
}

fn body_doc(body: &RequestBody) -> TokenStream {
    let fallback = "The request body.";
    let mut doc = docs::doc_attrs(&body.docs, fallback);
    let media = body
        .media_types
        .iter()
        .map(|m| format!("`{m}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut lines = if body.docs.description.is_some() {
        vec![String::new(), format!("The request body, sent as {media}.")]
    } else {
        vec![String::new(), format!("Sent as {media}.")]
    };
    if matches!(body.kind, BodyKind::Sequence(_)) {
        lines.push(String::new());
        lines.push(
            "Its items as they arrive, each checked as it comes: an item refused is an error that `?` answers with its 400. `into_vec().await?` takes them all, or refuses the request as a body read whole would be."
                .to_owned(),
        );
    }
    doc.extend(docs::attrs(&lines));
    doc
}

/// A parameter's documentation: the document's, then where it is.
pub(crate) fn param_doc(param: &Parameter) -> TokenStream {
    let location = match param.location {
        ParamLocation::Path => "path parameter",
        ParamLocation::Query => "query parameter",
        ParamLocation::Header => "header",
        ParamLocation::Cookie => "cookie",
        ParamLocation::QueryString => "query string",
    };
    let fallback = format!("The `{}` {location}.", param.wire);
    let docs = Docs {
        example: None,
        ..param.docs.clone()
    };
    let mut doc = docs::doc_attrs(&docs, &fallback);
    if docs.description.is_some() || docs.title.is_some() {
        let required = if param.required { ", required" } else { "" };
        doc.extend(docs::attrs(&[
            String::new(),
            format!("The `{}` {location}{required}.", param.wire),
        ]));
    }
    if param.location == ParamLocation::QueryString {
        let what = if param.json {
            "its JSON value, decoded and checked as the document's `content` says"
        } else {
            "its text, percent-decoded"
        };
        doc.extend(docs::attrs(&[
            String::new(),
            format!("The whole query string: {what}."),
        ]));
    } else if param.json {
        doc.extend(docs::attrs(&[
            String::new(),
            "Its JSON text, as the document's `content` says it is sent: parse it with \
             `serde_json`."
                .to_owned(),
        ]));
    }
    doc
}
