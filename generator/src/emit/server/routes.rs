//! The `routes` module: `router`, `router_with`, and one handler per operation.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::context::{Auth, Op, Server};
use super::{api, dynamic_query, forms, params, paths, security};
use crate::emit::checks::{CheckContext, own_constraints};
use crate::emit::docs;
use crate::error::{Error, Result};
use crate::ir::{
    BodyKind, Method, ParamLocation, Parameter, RequestBody, Sequence, Shape, template_shape,
};
use crate::names::Namespace;

/// The handlers' own local variables, which parameters must not shadow
/// (the checks' `value` and `path` live in blocks of their own).
const LOCALS: &[&str] = &[
    "shared",
    "parts",
    "body",
    "bytes",
    "request_id",
    "principal",
    "media_type",
    "report",
    "context",
    "request",
    "response",
    "query_name",
    "query_value",
];

pub(crate) fn tokens(server: &Server<'_>) -> Result<TokenStream> {
    let root = server.root.clone();
    let trait_name = &server.trait_name;
    let routes = route_tokens(server);
    let handlers = server
        .ops
        .iter()
        .map(|op| handler_tokens(server, op))
        .collect::<Result<Vec<_>>>()?;
    let body = quote!(#(#handlers)*);
    let models = Server::models_import(&body);
    // The handlers and the routes' own handlers (of templates that share a
    // route), as text once: which runtime modules they name.
    let text = format!("{body} {routes}");
    let uses = |name: &str| names_path(&text, name);
    let mut runtime: Vec<Ident> = Vec::new();
    for module in [
        "body",
        "multipart",
        "negotiation",
        "object_params",
        "params",
        "respond",
        "security",
    ] {
        if module == "respond" || uses(module) {
            runtime.push(format_ident!("{}", module));
        }
    }
    let validation = match (uses("Path"), uses("Report")) {
        (true, _) => quote!(
            use crate::models::validation::{Path, Report};
        ),
        (false, true) => quote!(
            use crate::models::validation::Report;
        ),
        (false, false) => TokenStream::new(),
    };
    let api_import = if server.ops.is_empty() {
        quote!(use #root::api::#trait_name;)
    } else {
        quote!(use #root::api::{self, #trait_name, RequestContext};)
    };
    let arc = (!server.ops.is_empty()).then(|| {
        quote!(
            use std::sync::Arc;
        )
    });
    let axum_imports = (!server.ops.is_empty()).then(|| {
        quote! {
            use axum::extract::Request;
            use axum::response::Response;
        }
    });
    let handler_imports = (!server.ops.is_empty()).then(|| {
        quote! {
            use std::panic::AssertUnwindSafe;

            use axum::body::Body;
            use axum::extract::State;
            use futures_util::FutureExt as _;
            use http::request::Parts;
        }
    });
    let request_id = (!server.ops.is_empty()).then(|| {
        quote!(
            use #root::request_id::RequestId;
        )
    });
    let error = (!server.ops.is_empty()).then(|| {
        quote!(
            use #root::error::ApiError;
        )
    });
    let doc = docs::inner_attrs(&[
        format!(
            "The router: every path and method of the document, each handled by reading and \
             checking the request, then calling the operation's method of [`{trait_name}`]."
        ),
        String::new(),
        format!(
            "A handler, in order: takes the request id; authenticates (401 without a credential, \
             without calling the hook); negotiates the response's media type (406); reads the \
             parameters (400 listing every problem); checks the body's `Content-Type` (415), \
             reads it up to the limit (413), decodes and validates it (400); calls the method, \
             catching a panic (500); encodes the answer. Every error is rendered in \
             [`ErrorBodyFormat`]({}::ErrorBodyFormat).",
            server.root_text
        ),
    ]);
    let runtime = match runtime.as_slice() {
        [one] => quote!(use #root::#one;),
        many => quote!(use #root::{#(#many),*};),
    };
    Ok(quote! {
        #doc

        #arc
        #handler_imports

        use axum::Router;
        #axum_imports

        #api_import
        #error
        #models
        #validation
        #request_id
        use #root::settings::Settings;
        #runtime

        #routes

        #body
    })
}

/// Whether the token text `text` has `name ::` as a path's first segment,
/// not as the end of another name (a handler `get_security::<A>` names no
/// `security` module, `object_params::` no `params`).
fn names_path(text: &str, name: &str) -> bool {
    let needle = format!("{name} ::");
    text.match_indices(&needle).any(|(at, _)| {
        !text[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

fn route_tokens(server: &Server<'_>) -> TokenStream {
    let root = server.root.clone();
    let trait_name = &server.trait_name;
    // Routes in document order, each with its templates' operations.
    let mut routes: Vec<Route<'_>> = Vec::new();
    for op in &server.ops {
        let (path, _) = paths::axum_route(&op.op.path);
        let shape = template_shape(&path);
        match routes.iter_mut().find(|r| r.shape == shape) {
            Some(route) => route.ops.push(op),
            None => routes.push(Route {
                path,
                shape,
                ops: vec![op],
            }),
        }
    }
    let routes = routes.iter().map(|route| {
        let path = &route.path;
        let ops = &route.ops;
        let mut methods: Vec<Method> = ops.iter().map(|op| op.op.method.clone()).collect();
        if methods.contains(&Method::Get) && !methods.contains(&Method::Head) {
            methods.push(Method::Head);
        }
        methods.sort();
        methods.dedup();
        let allow = methods
            .iter()
            .map(|m| m.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        let handlers = route_handlers(ops, &root);
        let (standard, others): (Vec<_>, Vec<_>) = handlers
            .into_iter()
            .partition(|(method, _)| method.is_standard());
        let chain = method_chain(standard);
        let not_allowed =
            quote!(respond::method_not_allowed::<#root::ErrorBodyFormat>(&request, #allow));
        // axum routes the methods it names; any other (OpenAPI 3.2's QUERY,
        // COPY) comes to the fallback, which hands it on by its name.
        let fallback = if others.is_empty() {
            quote!(|request: Request| async move { #not_allowed })
        } else {
            let names = others.iter().map(|(method, _)| method.as_str());
            let handlers = others.iter().map(|(_, handler)| handler);
            quote! {
                |state: State<Arc<Shared<A>>>, request: Request| async move {
                    match request.method().as_str() {
                        #(#names => (#handlers)(state, request).await,)*
                        _ => #not_allowed,
                    }
                }
            }
        };
        quote! {
            .route(
                #path,
                #chain.fallback(#fallback),
            )
        }
    });
    let router_doc = docs::attrs(&[
        format!(
            "Serves `api`, an implementation of [`{trait_name}`], with the default [`Settings`]."
        ),
        String::new(),
        "The router has every path and method of the document. An unknown path is answered \
         with 404 `RouteNotFound`, a method the path does not have (`OPTIONS` and unknown \
         methods included) with 405 `MethodNotAllowed` and `Allow`; `HEAD` is answered where \
         `GET` is. Add policies (rate limits, tracing, time-outs) as tower layers around it."
            .to_owned(),
    ]);
    let has_body = server.ops.iter().any(|op| op.op.body.is_some());
    let (shared, shared_struct) = if server.ops.is_empty() {
        (
            quote! {
                // The document has no operations: every request is answered with 404.
                let _ = (api, settings);
            },
            TokenStream::new(),
        )
    } else if has_body {
        (
            quote!(let shared = Arc::new(Shared { api, settings });),
            quote! {
                /// What every handler shares: the implementation and the settings.
                struct Shared<A> {
                    api: A,
                    settings: Settings,
                }
            },
        )
    } else {
        (
            quote! {
                // No operation has a body: nothing for the settings to limit yet.
                let _ = settings;
                let shared = Arc::new(Shared { api });
            },
            quote! {
                /// What every handler shares: the implementation.
                struct Shared<A> {
                    api: A,
                }
            },
        )
    };
    let state = (!server.ops.is_empty()).then(|| quote!(.with_state(shared)));
    quote! {
        #router_doc
        pub fn router<A: #trait_name>(api: A) -> Router {
            router_with(api, Settings::default())
        }

        /// Serves `api` with `settings` (for example another body limit); see [`router`].
        pub fn router_with<A: #trait_name>(api: A, settings: Settings) -> Router {
            #shared
            Router::new()
                #(#routes)*
                .fallback(respond::route_not_found::<#root::ErrorBodyFormat>)
                #state
        }

        #shared_struct
    }
}

/// The operations axum serves on one route: those of one template, or of
/// several that come to the same route (see [`paths`]).
struct Route<'a> {
    /// The route as axum is given it: the first template's.
    path: String,
    /// The route without its parameters' names.
    shape: String,
    /// Its operations: of one template or several, or told apart by the
    /// fixed pairs of their keys.
    ops: Vec<&'a Op<'a>>,
}

/// `handler::<A>`, or `self::handler::<A>` when an operation is named as
/// one of `router_with`'s arguments or locals or its dispatch closures'
/// (Staging EcoTaco's `settings`), which would hide the function.
fn handler_path(handler: &Ident) -> TokenStream {
    const ROUTER_LOCALS: &[&str] = &["api", "settings", "shared", "state", "request"];
    if ROUTER_LOCALS.contains(&handler.to_string().as_str()) {
        quote!(self::#handler::<A>)
    } else {
        quote!(#handler::<A>)
    }
}

/// `axum::routing::get(…).post(…)…`: a handler per method, of those axum
/// names; `MethodRouter::new()` when there are none.
fn method_chain(handlers: impl IntoIterator<Item = (Method, TokenStream)>) -> TokenStream {
    let mut chain = quote!(axum::routing::MethodRouter::new());
    for (i, (method, handler)) in handlers.into_iter().enumerate() {
        let method = format_ident!("{}", method.as_str().to_ascii_lowercase());
        if i == 0 {
            chain = quote!(axum::routing::#method(#handler));
        } else {
            chain.extend(quote!(.#method(#handler)));
        }
    }
    chain
}

/// A handler per method of a route: the operation's own where one template
/// of that method fits every request of the route; else one that hands the
/// request to the operation whose template (and fixed pairs) it fits, when
/// several templates share the route or one matches fewer paths than it.
fn route_handlers(ops: &[&Op<'_>], root: &TokenStream) -> Vec<(Method, TokenStream)> {
    let mut methods: Vec<Method> = Vec::new();
    for op in ops {
        if !methods.contains(&op.op.method) {
            methods.push(op.op.method.clone());
        }
    }
    methods
        .into_iter()
        .map(|method| {
            let mut candidates: Vec<&Op<'_>> = ops
                .iter()
                .copied()
                .filter(|op| op.op.method == method)
                .collect();
            // The most fixed text first, then the most fixed pairs.
            candidates.sort_by_key(|op| {
                std::cmp::Reverse((paths::fixed_len(&op.op.path), op.op.fixed_query.len()))
            });
            let candidates: Vec<paths::Candidate<'_>> = candidates
                .iter()
                .map(|op| {
                    let handler = op.fn_name();
                    paths::Candidate {
                        template: &op.op.path,
                        narrower: paths::axum_route(&op.op.path).1,
                        pairs: &op.op.fixed_query,
                        handler: handler_path(&handler),
                    }
                })
                .collect();
            let handler = match candidates.as_slice() {
                // The method's one template fits every request of the route.
                [only] if !only.narrower && only.pairs.is_empty() => only.handler.clone(),
                _ => {
                    let body = paths::dispatch(&candidates, root);
                    quote! {
                        |state: State<Arc<Shared<A>>>, request: Request| async move { #body }
                    }
                }
            };
            (method, handler)
        })
        .collect()
}

fn handler_tokens(server: &Server<'_>, op: &Op<'_>) -> Result<TokenStream> {
    let root = server.root.clone();
    let trait_name = &server.trait_name;
    let name = op.fn_name();
    let handle = format_ident!("{}", op.handle);
    let id = &op.op.id;
    let mut steps: Vec<TokenStream> = auth_step(server, op).into_iter().collect();
    // The response's media type, before the implementation is called.
    if !op.offered.is_empty() {
        let offered = &op.offered;
        steps.push(quote! {
            let media_type = negotiation::negotiate(&parts.headers, &[#(#offered),*])?;
        });
    }

    let ParamSteps {
        steps: param_steps,
        common_fields,
        mut request_fields,
    } = param_steps(server, op)?;
    steps.extend(param_steps);
    if let Some(body) = body_step(server, op)? {
        steps.push(body);
        request_fields.push(quote!(body));
    }

    // The call.
    let request_type = op.request_type();
    let principal = match (&op.auth, server.has_security) {
        (_, false) => TokenStream::new(),
        (Auth::None, true) => quote!(principal: (),),
        (_, true) => quote!(principal,),
    };
    let headers = if server.has_security {
        quote!(security::redacted(parts.headers))
    } else {
        quote!(parts.headers)
    };
    let into_http = if op.offered.is_empty() {
        quote!(response.into_http())
    } else {
        quote!(response.into_http(media_type))
    };
    let body_param = if op.op.body.is_some() {
        quote!(body: Body,)
    } else {
        quote!(_: Body,)
    };
    let handler_doc = format!(" {}.", op.signature_line());
    let handle_doc = format!(
        " Reads and checks a request to `{id}`, calls [`{trait_name}::{}`], encodes its answer.",
        op.op.fn_name
    );
    Ok(quote! {
        #[doc = #handler_doc]
        async fn #name<A: #trait_name>(State(shared): State<Arc<Shared<A>>>, request: Request) -> Response {
            let (parts, body) = request.into_parts();
            let request_id = RequestId::from_headers(&parts.headers);
            let outcome = AssertUnwindSafe(#handle(&shared, parts, body, &request_id))
                .catch_unwind()
                .await;
            respond::finish::<#root::ErrorBodyFormat>(outcome, request_id, #id)
        }

        #[doc = #handle_doc]
        async fn #handle<A: #trait_name>(
            shared: &Shared<A>,
            parts: Parts,
            #body_param
            request_id: &RequestId,
        ) -> Result<Response, ApiError> {
            const OPERATION: &str = #id;
            #(#steps)*
            let context = RequestContext {
                request_id: request_id.clone(),
                operation_id: OPERATION,
                #principal
                #(#common_fields,)*
                headers: #headers,
                extensions: parts.extensions,
            };
            let request = api::#request_type { #(#request_fields),* };
            let response = shared.api.#name(context, request).await?;
            #into_http
        }
    })
}

/// Authentication, before anything is read: the check of the operation's
/// security alternatives, which settles `principal`.
fn auth_step(server: &Server<'_>, op: &Op<'_>) -> Option<TokenStream> {
    let (alternatives, optional) = match &op.auth {
        Auth::None => return None,
        Auth::Required(alternatives) => (alternatives, false),
        Auth::Optional(alternatives) => (alternatives, true),
    };
    let check = format_ident!(
        "{}",
        security::check_name(server.cx.api, alternatives, optional)
    );
    Some(quote! {
        let principal = security::#check(&shared.api, &parts, OPERATION, request_id).await?;
    })
}

/// The steps that read and check an operation's parameters, and the fields
/// they fill: of the request context (the common headers) and of the request.
struct ParamSteps {
    steps: Vec<TokenStream>,
    common_fields: Vec<TokenStream>,
    request_fields: Vec<TokenStream>,
}

/// Parameters: the common headers (into the context), then the operation's
/// own, every problem reported together before any is refused.
fn param_steps(server: &Server<'_>, op: &Op<'_>) -> Result<ParamSteps> {
    let mut locals = Namespace::with_reserved(LOCALS);
    let mut steps = Vec::new();
    let mut all: Vec<(&Parameter, Ident)> = Vec::new();
    let mut common_fields = Vec::new();
    for common in &server.common {
        let local = format_ident!("{}", locals.claim(common.field.clone()));
        let field = format_ident!("{}", common.field);
        common_fields.push(if field == local {
            quote!(#field)
        } else {
            quote!(#field: #local)
        });
        all.push((common.param, local));
    }
    let mut request_fields = Vec::new();
    for param in &op.params {
        let local = format_ident!("{}", locals.claim(param.field.clone()));
        let field = format_ident!("{}", param.field);
        request_fields.push(if field == local {
            quote!(#field)
        } else {
            quote!(#field: #local)
        });
        all.push((param, local));
    }
    if !all.is_empty() {
        steps.push(quote!(let mut report = Report::new();));
        // Object parameters are read apart: their pairs are not named after them.
        let query: Vec<(&Parameter, Ident)> = all
            .iter()
            .filter(|(p, _)| p.location == ParamLocation::Query && !p.object)
            .cloned()
            .collect();
        steps.push(params::query_loop(server, &query)?);
        for (param, local) in &all {
            steps.push(if param.object {
                // The names of the other query parameters, which a map spread
                // as exploded `form` pairs leaves alone.
                let others: Vec<&str> = all
                    .iter()
                    .filter(|(p, _)| p.location == ParamLocation::Query && p.wire != param.wire)
                    .map(|(p, _)| p.wire.as_str())
                    .collect();
                forms::read_object(server, param, local, &others)?
            } else if param.location == ParamLocation::Query {
                params::query_value(server, param, local)?
            } else {
                params::read(server, param, local, &op.op.path, &op.op.params)?
            });
            steps.push(params::checks(server, param, local));
            steps.push(dynamic_query::parse(server, param, local));
        }
        steps.push(quote! {
            if !report.is_empty() {
                return Err(ApiError::validation(report));
            }
        });
        let required: Vec<&Ident> = all
            .iter()
            .filter(|(p, _)| p.required)
            .map(|(_, local)| local)
            .collect();
        match required.as_slice() {
            [] => {}
            [one] => steps.push(quote! {
                let Some(#one) = #one else {
                    return Err(ApiError::validation(report));
                };
            }),
            many => steps.push(quote! {
                let (#(Some(#many)),*) = (#(#many),*) else {
                    return Err(ApiError::validation(report));
                };
            }),
        }
    }

    Ok(ParamSteps {
        steps,
        common_fields,
        request_fields,
    })
}

/// The body, after the parameters: read within the body limit, decoded and
/// checked, into `body`.
fn body_step(server: &Server<'_>, op: &Op<'_>) -> Result<Option<TokenStream>> {
    let Some(body) = &op.op.body else {
        return Ok(None);
    };
    let media = accepted_media_types(body);
    if let BodyKind::Sequence(sequence) = &body.kind {
        return Ok(Some(sequence_step(body, sequence, &media)));
    }
    let read =
        quote!(body::read(body, &parts.headers, &[#(#media),*], shared.settings.body_limit).await?);
    let decode = decode_body(server, op, &body.kind)?;
    let ty = match &body.kind {
        BodyKind::Multipart(multipart) if server.cx.api.form_parts(multipart).is_none() => {
            quote!(multipart::Parts)
        }
        BodyKind::Multipart(_) => {
            let name = forms::form_type(op);
            quote!(api::#name)
        }
        _ => super::api::body_type(server, op, body),
    };
    if body.required {
        return Ok(Some(quote! {
            let Some(bytes) = #read else {
                return Err(ApiError::body_required());
            };
            let body: #ty = #decode;
        }));
    }
    // Optional: the body may be missing.
    // A raw body is the bytes themselves; a decoded one may return early.
    let value = if decode.to_string() == "bytes" {
        read
    } else {
        quote! {
            match #read {
                Some(bytes) => Some(#decode),
                None => None,
            }
        }
    };
    Ok(Some(quote! {
        let body: Option<#ty> = #value;
    }))
}

/// The body step of a sequence: its headers checked and its first bytes
/// awaited, its items left to the method's stream, which checks each one.
fn sequence_step(body: &RequestBody, sequence: &Sequence, media: &[&str]) -> TokenStream {
    let framing = format_ident!("{}", sequence.framing.runtime_name());
    let read = quote! {
        body::items(
            body,
            &parts.headers,
            &[#(#media),*],
            shared.settings.body_limit,
            openapi_runtime::sequence::Framing::#framing,
        )
        .await?
    };
    if body.required {
        quote! {
            let Some(body) = #read else {
                return Err(ApiError::body_required());
            };
        }
    } else {
        quote!(let body = #read;)
    }
}

/// The expression decoding `bytes` into the body.
fn decode_body(server: &Server<'_>, op: &Op<'_>, kind: &BodyKind) -> Result<TokenStream> {
    Ok(match kind {
        BodyKind::Json(shape) => {
            let has_rules = op.op.body.as_ref().is_some_and(|b| !b.rules.is_empty());
            let rules = has_rules.then(|| {
                let rules = op.rules_fn_name();
                quote!(shared.api.#rules(body))
            });
            let own = own_checks(server, shape);
            let check = match (&own, rules) {
                (None, None) => return Ok(quote!(body::json(&bytes)?)),
                (None, Some(rules)) => quote!(|body| #rules),
                (Some(own), None) => quote!(|body| { #own report.into_problems() }),
                (Some(own), Some(rules)) => quote! {
                    |body| {
                        #own
                        let mut problems = report.into_problems();
                        problems.extend(#rules);
                        problems
                    }
                },
            };
            if own.is_some() || api::lent_as_slice(shape) {
                // The closure's argument is used before the body's type is
                // inferred (or lent to the rules method as a slice): named.
                let ty = server.types.shape(shape);
                quote!(body::json_with_rules::<#ty>(&bytes, #check)?)
            } else {
                quote!(body::json_with_rules(&bytes, #check)?)
            }
        }
        BodyKind::Text => quote!(body::text(bytes)?),
        // `body_step` streams a sequence instead (`sequence_step`); were
        // it asked here, an error says so rather than a panic.
        BodyKind::Sequence(_) => {
            return Err(Error::unsupported(
                server.source(),
                &op.op.origin.push("requestBody"),
                "a sequential body is handed over as a stream of items, not decoded whole",
            ));
        }
        BodyKind::Binary => quote!(bytes),
        BodyKind::Multipart(multipart) => forms::decode_multipart(server, op, multipart)?,
        BodyKind::Form(shape) => {
            let fields = forms::field_kinds(server, shape).ok_or_else(|| {
                Error::unsupported(
                    server.source(),
                    &op.op.origin.push("requestBody"),
                    "the server stubs decode form bodies of flat objects (or maps) only",
                )
            })?;
            quote!(body::form(&bytes, &[#(#fields),*])?)
        }
    })
}

/// The media types a body is accepted in: a name that is not
/// `type/subtype` (`form-data`) as the media type it stands for.
fn accepted_media_types(body: &RequestBody) -> Vec<&str> {
    let mut accepted: Vec<&str> = Vec::new();
    for media in &body.media_types {
        let media = match &body.kind {
            _ if media.contains('/') => media.as_str(),
            BodyKind::Multipart(_) => "multipart/form-data",
            BodyKind::Form(_) => "application/x-www-form-urlencoded",
            _ => media.as_str(),
        };
        if !accepted.contains(&media) {
            accepted.push(media);
        }
    }
    accepted
}

/// Checks of a JSON body's own top-level constraints that its type does
/// not check itself (an inline array's `maxItems`, say), into `report`, in
/// the closure that sees the decoded `body`: its problems join the type's
/// own in one 400. `None` when there are none; named types check themselves.
fn own_checks(server: &Server<'_>, shape: &Shape) -> Option<TokenStream> {
    let shallow = own_constraints(shape)?;
    let check_cx = CheckContext {
        api: server.cx.api,
        runtime: quote!(models::validation),
        types: server.types,
        report: format_ident!("report"),
    };
    let checks = check_cx.typed(&shallow, &format_ident!("body"));
    Some(quote! {
        let mut report = Report::new();
        {
            let report = &mut report;
            let path = &mut Path::new("body");
            #checks
        }
    })
}

#[cfg(test)]
mod tests {
    use super::names_path;

    /// A module is named by a path that starts with it, not by one that
    /// ends with its name (`object_params::`, `get_security::<A>`).
    #[test]
    fn a_module_is_named_by_a_path_that_starts_with_it() {
        assert!(names_path("params :: value (a)", "params"));
        assert!(names_path("let x = params :: value (a) ;", "params"));
        assert!(!names_path("object_params :: object (a)", "params"));
        assert!(!names_path("get_security :: < A >", "security"));
        assert!(!names_path("xparams :: y", "params"));
        assert!(!names_path("params . len ()", "params"));
    }
}
