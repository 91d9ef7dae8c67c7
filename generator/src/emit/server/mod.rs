//! The server-stubs crate: one trait for the API, an axum router over it, and
//! the runtime the router's handlers share.
//!
//! Generated modules (built here with `quote`):
//! - `api`: the trait, the request context, one request struct per operation;
//! - `responses`: one response enum per operation, and its encoding;
//! - `routes`: `router`/`router_with` and one handler per operation;
//! - `security`: the schemes, the credentials, the authentication checks
//!   (only when some operation has security).
//!
//! The modules every router shares (`error`, `negotiation`, `params`,
//! `body`, `respond`, `request_id`, `settings`) are those of the
//! `openapi-runtime` crate's `server` feature, re-exported.

mod api;
mod dynamic_query;
mod error_format;
mod forms;
mod params;
mod paths;
mod responses;
mod routes;
mod security;

use std::collections::BTreeSet;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::templates::{CargoToml, Dependency, OperationRow, ServerReadme};
use super::{Context, Files, RustTypes, docs};
use crate::error::{Error, Result};
use crate::ir::{BodyKind, Operation, Parameter, Response, Ty};
use crate::names::{Namespace, type_name};
use crate::parse::Pointer;

/// The modules of the runtime's server feature, re-exported by name so that
/// the generated modules and dependants say `crate::params`, `crate::error`.
const RUNTIME: &[&str] = &[
    "body",
    "error",
    "negotiation",
    "params",
    "request_id",
    "respond",
    "settings",
];

/// Writes the server-stubs crate, when the target asks for one.
pub fn emit_server(cx: &Context<'_>) -> Result<Files> {
    let Some(krate) = &cx.target.server else {
        return Ok(Files::default());
    };
    let named = |name: &str| {
        let ident = format_ident!("{}", name);
        quote!(models::#ident)
    };
    let types = RustTypes {
        named: &named,
        deps: quote!(models::),
    };
    let server = Server::new(cx, &types)?;
    let root = &krate.path;
    let mut files = Files::default();

    let mut generated: Vec<(&str, TokenStream)> = vec![
        ("api", api::tokens(&server)?),
        ("responses", responses::tokens(&server)?),
        ("routes", routes::tokens(&server)?),
    ];
    if server.has_security {
        generated.push(("security", security::tokens(&server)?));
    }
    for (module, tokens) in generated {
        let path = root.join("src").join(format!("{module}.rs"));
        files.insert(&path, cx.rust_file(&path, tokens)?);
    }

    let lib_path = root.join("src/lib.rs");
    files.insert(&lib_path, cx.rust_file(&lib_path, lib_tokens(&server)?)?);

    let mut dependencies = vec![
        Dependency::new(
            &cx.target.models.package,
            &[crate::emit::models::JSON_WALKS_FEATURE],
        ),
        Dependency::new("openapi-runtime", &["server"]),
        Dependency::new("axum", &[]),
        Dependency::new("futures-util", &[]),
        Dependency::new("http", &[]),
    ];
    if server.param_patterns {
        dependencies.push(Dependency::new("regex-lite", &[]));
    }
    let description = format!(
        "Server stubs of the {} API: an axum router over one trait, generated from its OpenAPI document.",
        cx.api.title
    );
    files.insert(
        root.join("Cargo.toml"),
        CargoToml::render(cx, &krate.package, &description, &dependencies)?,
    );
    files.insert(root.join("README.md"), readme(&server, &krate.package)?);
    Ok(files)
}

/// What the server emitters share: the API read once for the server's needs.
pub(crate) struct Server<'a> {
    pub cx: &'a Context<'a>,
    pub types: &'a RustTypes<'a>,
    /// The trait's name.
    pub trait_name: Ident,
    /// Whether some operation has security: then the trait has an
    /// authentication hook and a `Principal`.
    pub has_security: bool,
    /// The operations, with what the server makes of them.
    pub ops: Vec<Op<'a>>,
    /// The headers every operation takes, in the request context.
    pub common: Vec<CommonHeader<'a>>,
    /// Whether some parameter has a `pattern` (the checks need `regex-lite`).
    pub param_patterns: bool,
}

/// A header every operation takes, lifted into the request context.
pub(crate) struct CommonHeader<'a> {
    pub param: &'a Parameter,
    /// Its field in the context (and its local variable in handlers).
    pub field: String,
}

/// How an operation is authenticated.
#[derive(Clone, PartialEq, Eq)]
pub(crate) enum Auth {
    /// No security: the context's principal is `()`.
    None,
    /// A credential is required: the principal is the API's `Principal`.
    Required(Vec<Vec<String>>),
    /// A credential is optional: the principal is `Option<Principal>`.
    Optional(Vec<Vec<String>>),
}

/// One operation, as the server sees it.
pub(crate) struct Op<'a> {
    pub op: &'a Operation,
    /// The name of the function that reads its request and calls the
    /// implementation (`handle_list`).
    pub handle: String,
    /// Its parameters other than the common headers.
    pub params: Vec<&'a Parameter>,
    /// The responses its method answers with (all but the error responses
    /// when the target names the error schema).
    pub variants: Vec<&'a Response>,
    /// The media types of those responses, in the document's order, without
    /// repeats: what `Accept` is negotiated among.
    pub offered: Vec<String>,
    pub auth: Auth,
}

impl<'a> Server<'a> {
    fn new(cx: &'a Context<'a>, types: &'a RustTypes<'a>) -> Result<Self> {
        let api = cx.api;
        let error_type = match &cx.target.error_schema {
            Some(schema) => Some(
                api.types
                    .iter()
                    .find(|t| t.schema_name.as_deref() == Some(schema.as_str()))
                    .map(|t| t.name.clone())
                    .ok_or_else(|| {
                        Error::invalid(
                            &api.source,
                            &Pointer::root().push("components").push("schemas"),
                            format!("the codegen settings name `{schema}` as the error schema, but the document has no such schema"),
                        )
                    })?,
            ),
            None => None,
        };
        let is_error = |response: &Response| match (&error_type, &response.body) {
            (Some(error), Some(BodyKind::Json(shape))) => {
                matches!(&shape.ty, Ty::Named(name) if name == error)
            }
            _ => false,
        };
        let has_security = api.operations.iter().any(|op| {
            op.security
                .iter()
                .any(|requirement| !requirement.schemes.is_empty())
        });
        let mut fields = crate::names::Namespace::with_reserved(&[
            "request_id",
            "operation_id",
            "principal",
            "headers",
            "extensions",
        ]);
        let common: Vec<CommonHeader<'a>> = api
            .common_headers
            .iter()
            .map(|param| CommonHeader {
                param,
                field: fields.claim(param.field.clone()),
            })
            .collect();
        // An operation whose method and path another one has already (the
        // paths differing in parameter names only: a document mistake, noted
        // by `lower`) could never be reached: the server stubs serve the first.
        let repeats = crate::ir::repeats_a_route(&api.operations);
        // Each route's function is the operation's name; the function that
        // reads its request gets `handle_` before it, unless another
        // operation is named that (`list` beside `handleList`).
        let route_fns: Vec<&str> = api
            .operations
            .iter()
            .map(|op| op.fn_name.as_str())
            .collect();
        let mut fns = Namespace::with_reserved(&route_fns);
        let ops = api
            .operations
            .iter()
            .zip(repeats)
            .filter_map(|(op, repeats)| (!repeats).then_some(op))
            .map(|op| {
                let variants: Vec<&Response> =
                    op.responses.iter().filter(|r| !is_error(r)).collect();
                let mut offered: Vec<String> = Vec::new();
                for response in &variants {
                    if response.body.is_some() {
                        for media_type in &response.media_types {
                            if !offered.contains(media_type) {
                                offered.push(media_type.clone());
                            }
                        }
                    }
                }
                let alternatives: Vec<Vec<String>> = op
                    .security
                    .iter()
                    .filter(|r| !r.schemes.is_empty())
                    .map(|r| r.schemes.clone())
                    .collect();
                let auth = if alternatives.is_empty() {
                    Auth::None
                } else if op.is_authenticated() {
                    Auth::Required(alternatives)
                } else {
                    Auth::Optional(alternatives)
                };
                Op {
                    op,
                    handle: fns.claim(format!("handle_{}", op.fn_name)),
                    params: op
                        .params
                        .iter()
                        .filter(|p| !api.is_common_header(p))
                        .collect(),
                    variants,
                    offered,
                    auth,
                }
            })
            .collect();
        let param_patterns = api
            .operations
            .iter()
            .flat_map(|op| &op.params)
            .any(|p| has_pattern(&p.shape));
        let trait_name = match &cx.target.trait_name {
            Some(name) => name.clone(),
            None => {
                let base = type_name(&api.title);
                let base = base.strip_suffix("Api").unwrap_or(&base);
                format!("{base}Api")
            }
        };
        if syn::parse_str::<Ident>(&trait_name).is_err() {
            return Err(Error::Config {
                file: "codegen settings".to_owned(),
                message: format!("`{trait_name}` cannot name a Rust trait"),
            });
        }
        Ok(Server {
            cx,
            types,
            trait_name: format_ident!("{}", trait_name),
            has_security,
            ops,
            common,
            param_patterns,
        })
    }

    /// The document, as messages name it.
    pub fn source(&self) -> &str {
        &self.cx.api.source
    }

    /// `models` when `tokens` use the models crate: the `use` that brings it in.
    pub fn models_import(tokens: &TokenStream) -> TokenStream {
        if uses_ident(tokens.clone(), "models") {
            quote!(
                use crate::models;
            )
        } else {
            TokenStream::new()
        }
    }
}

impl Op<'_> {
    /// The principal type of the operation's context, spelled in the trait.
    pub fn principal(&self, server: &Server<'_>) -> TokenStream {
        if !server.has_security {
            return TokenStream::new();
        }
        match self.auth {
            Auth::None => quote!(<()>),
            Auth::Required(_) => quote!(<Self::Principal>),
            Auth::Optional(_) => quote!(<Option<Self::Principal>>),
        }
    }

    /// `POST /path (operationId)`, for documentation.
    pub fn signature_line(&self) -> String {
        format!(
            "`{} {}` (`{}`)",
            self.op.method.as_str(),
            self.op.path_key(),
            self.op.id
        )
    }

    pub fn request_type(&self) -> Ident {
        format_ident!("{}Request", self.op.type_prefix)
    }

    pub fn response_type(&self) -> Ident {
        format_ident!("{}Response", self.op.type_prefix)
    }

    pub fn fn_name(&self) -> Ident {
        format_ident!("{}", self.op.fn_name)
    }

    /// The trait method checking the body's `x-rules`.
    pub fn rules_fn_name(&self) -> Ident {
        format_ident!("{}", self.op.rules_method_name())
    }
}

fn has_pattern(shape: &crate::ir::Shape) -> bool {
    shape.checks.pattern.is_some()
        || matches!(&shape.ty, Ty::Array(item) | Ty::Map(item) if has_pattern(item))
}

/// Whether the identifier `name` occurs in `tokens`.
fn uses_ident(tokens: TokenStream, name: &str) -> bool {
    tokens.into_iter().any(|tree| match tree {
        proc_macro2::TokenTree::Ident(ident) => ident == name,
        proc_macro2::TokenTree::Group(group) => uses_ident(group.stream(), name),
        _ => false,
    })
}

/// A header name as `HeaderName::from_static` takes it (lower-case), or
/// `None` when it is not a valid HTTP header name.
pub(crate) fn header_name(wire: &str) -> Option<String> {
    crate::ir::is_header_name(wire).then(|| wire.to_ascii_lowercase())
}

/// The concrete media type to send a body of `kind` with, when the document
/// only gives a wildcard.
pub(crate) fn concrete_media_type(kind: &BodyKind) -> &'static str {
    match kind {
        BodyKind::Json(_) => "application/json",
        BodyKind::Text => "text/plain",
        BodyKind::Binary => "application/octet-stream",
        BodyKind::Form(_) => "application/x-www-form-urlencoded",
        BodyKind::Multipart(_) => "multipart/form-data",
    }
}

fn lib_tokens(server: &Server<'_>) -> Result<TokenStream> {
    let cx = server.cx;
    let api = cx.api;
    let trait_name = &server.trait_name;
    let trait_text = trait_name.to_string();
    let mut lines = vec![
        format!(
            "Server stubs of the {} API (version {}): an axum router over the [`{trait_text}`] trait.",
            api.title, api.version
        ),
        String::new(),
        format!(
            "Generated from `{}`. Implement [`{trait_text}`], one method per operation{}, \
             and serve [`router`]`(api)`: an `axum::Router` with every path and method of the \
             document. Before a method is called, the router has authenticated the request, \
             negotiated the response's media type, and parsed and checked its parameters and \
             body, so that a method sees only valid input; it answers with its operation's \
             response enum or an [`ApiError`]. Every error, the router's own included, is \
             rendered in one format, [`ErrorBodyFormat`], and every response carries the \
             request's `X-Request-Id`.",
            api.source,
            if server.has_security {
                format!(" plus [`{trait_text}::authenticate`]")
            } else {
                String::new()
            }
        ),
        String::new(),
        "Policies (rate limits, tracing, time-outs, CORS) are tower layers around the \
         router; the only one built in is the request-body limit of [`Settings`]."
            .to_owned(),
        String::new(),
        "| module | what it holds |".to_owned(),
        "|---|---|".to_owned(),
        format!(
            "| [`api`] | the trait [`{trait_text}`], [`RequestContext`], one request struct per operation |"
        ),
        "| [`responses`] | one response enum per operation |".to_owned(),
        "| [`routes`] | [`router`], [`router_with`]: one handler per operation |".to_owned(),
    ];
    if server.has_security {
        lines.push(
            "| [`security`] | the security schemes and the [`Credentials`] a request presents |"
                .to_owned(),
        );
    }
    lines.extend(
        [
            "| [`error`] | [`ApiError`] and the formats of error responses ([`ErrorBodyFormat`] is this API's) |",
            "| [`negotiation`] | `Accept` and `Content-Type` against the operations' media types |",
            "| [`params`] | path, query, header and cookie parameters, typed |",
            "| [`body`] | request bodies: read up to the limit, decoded, validated |",
            "| [`respond`] | response bodies and headers, the 404 and 405 fallbacks |",
            "| [`request_id`] | [`RequestId`], taken from `X-Request-Id` or generated |",
            "| [`settings`] | [`Settings`] of the router |",
        ]
        .map(str::to_owned),
    );
    let doc = docs::inner_attrs(&lines);
    let mut modules: BTreeSet<&str> = ["api", "responses", "routes"].into_iter().collect();
    if server.has_security {
        modules.insert("security");
    }
    let modules = modules.into_iter().map(|m| format_ident!("{}", m));
    let runtime = RUNTIME.iter().map(|m| format_ident!("{}", m));
    let security = server.has_security.then(|| {
        quote!(
            pub use security::{Credential, Credentials, Scheme};
        )
    });
    let responses = (!server.ops.is_empty()).then(|| {
        quote!(
            pub use responses::*;
        )
    });
    // The runtime's modules of bodies and parameters spread over several
    // parts or pairs, for the APIs that have them.
    let spread: Vec<Ident> = [
        (
            "multipart",
            server.ops.iter().any(|op| {
                matches!(
                    op.op.body.as_ref().map(|b| &b.kind),
                    Some(BodyKind::Multipart(_))
                )
            }),
        ),
        (
            "object_params",
            server
                .ops
                .iter()
                .any(|op| op.params.iter().any(|p| p.object)),
        ),
    ]
    .into_iter()
    .filter(|(_, used)| *used)
    .map(|(module, _)| format_ident!("{}", module))
    .collect();
    let spread = (!spread.is_empty()).then(|| {
        quote!(
            /// The runtime's modules of multipart bodies and object parameters.
            pub use openapi_runtime::server::{#(#spread),*};
        )
    });
    let models_crate = format_ident!("{}", cx.target.models.lib_name());
    let models_doc = format!(
        " The models crate (`{}`): the types of bodies and parameters, and their validation.",
        cx.target.models.package
    );
    let error_format = error_format::tokens(server)?;
    Ok(quote! {
        #doc

        #(#[rustfmt::skip] pub mod #modules;)*

        /// The runtime's modules every router shares.
        pub use openapi_runtime::server::{#(#runtime),*};
        #spread

        pub use api::*;
        pub use error::ApiError;
        pub use request_id::RequestId;
        #responses
        pub use routes::{router, router_with};
        #security
        pub use settings::Settings;

        /// The `axum` crate the router is built with, so that dependants name the same version.
        pub use axum;
        #[doc = #models_doc]
        pub use #models_crate as models;

        #error_format
    })
}

fn readme(server: &Server<'_>, package: &str) -> Result<String> {
    let rows = server
        .ops
        .iter()
        .map(|op| OperationRow {
            method: op.op.method.as_str().to_owned(),
            path: op.op.path_key(),
            function: op.op.fn_name.clone(),
            request: op.request_type().to_string(),
            response: op.response_type().to_string(),
        })
        .collect::<Vec<_>>();
    let example = server.ops.first();
    let principal = if server.has_security {
        match example.map(|op| &op.auth) {
            Some(Auth::Required(_)) => "Self::Principal",
            Some(Auth::Optional(_)) => "Option<Self::Principal>",
            _ => "()",
        }
    } else {
        ""
    };
    ServerReadme::render(
        server.cx,
        package,
        &server.trait_name.to_string(),
        server.has_security,
        principal,
        rows,
        error_format::readme_text(server)?,
    )
}
