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
//!
//! The emitter's own parts:
//! - [`context`]: the API read once for the server, each operation as it sees it;
//! - [`api`], [`responses`], [`routes`], [`security`]: one generated module each;
//! - [`error_format`]: how every error the stubs answer is written;
//! - [`params`], [`forms`], [`dynamic_query`]: how handlers read parameters,
//!   values spread over pairs or parts, and dynamic queries;
//! - [`paths`]: the document's path templates as axum routes;
//! - [`hooks`]: the `webhooks` and `callbacks` modules, receivers made by
//!   the modules above from the hooks' operations.

mod api;
mod context;
mod dynamic_query;
mod error_format;
mod forms;
mod hooks;
mod params;
mod paths;
mod responses;
mod routes;
mod security;

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::templates::{CargoToml, Dependency, OperationRow, ServerReadme};
use super::{Context, Files, RustTypes, docs};
use crate::error::Result;
use crate::ir::BodyKind;
use context::{Auth, RUNTIME, Server, spread_modules};

/// How the server stubs name the models crate's types: `models::X`.
fn models_type(name: &str) -> TokenStream {
    let ident = format_ident!("{}", name);
    quote!(models::#ident)
}

/// The types of the server-stubs crate, which spell models as `models::X`.
pub(super) fn rust_types() -> RustTypes<'static> {
    RustTypes {
        named: &models_type,
        deps: quote!(models::),
    }
}

/// Writes the server-stubs crate, when the target asks for one.
pub fn emit_server(cx: &Context<'_>) -> Result<Files> {
    let Some(krate) = &cx.target.server else {
        return Ok(Files::default());
    };
    let types = rust_types();
    let server = Server::new(cx, &types)?;
    let src = cx.server_src(krate);
    let mut files = Files::default();

    let mut generated: Vec<(String, TokenStream)> = vec![
        ("api".to_owned(), api::tokens(&server)?),
        ("responses".to_owned(), responses::tokens(&server)?),
        ("routes".to_owned(), routes::tokens(&server)?),
    ];
    if server.has_security {
        generated.push(("security".to_owned(), security::tokens(&server)?));
    }
    let hook_groups = [
        (&hooks::WEBHOOKS, cx.api.webhooks.clone()),
        (&hooks::CALLBACKS, cx.api.callback_operations()),
    ];
    let mut groups = Vec::new();
    for (group, operations) in hook_groups {
        if !operations.is_empty() {
            let hooks_api = cx.api.with_operations(operations);
            generated.extend(hooks::modules(cx, &types, &hooks_api, group)?);
            groups.push(group);
        }
    }
    generated.push(("lib".to_owned(), lib_tokens(&server, &groups)?));
    // The crates the code calls beyond those every server stubs crate
    // depends on, read off the code itself rather than off the document.
    let calls_regex = generated
        .iter()
        .any(|(_, tokens)| context::uses_ident(tokens.clone(), "regex_lite"));
    for (module, tokens) in generated {
        let module = module.as_str();
        let path = if module == "lib" {
            cx.server_root_file(krate)
        } else {
            src.join(format!("{module}.rs"))
        };
        files.insert(&path, cx.rust_file(&path, tokens)?);
    }
    if cx.server_inline() {
        // A module of the client crate, whose manifest has its dependencies.
        return Ok(files);
    }

    let mut dependencies = vec![
        Dependency::new(
            &cx.target.models.package,
            &[crate::emit::checks::JSON_WALKS_FEATURE],
        ),
        Dependency::new("openapi-runtime", &["server"]),
        Dependency::new("axum", &[]),
        Dependency::new("futures-util", &[]),
        Dependency::new("http", &[]),
    ];
    if calls_regex {
        dependencies.push(Dependency::new("regex-lite", &[]));
    }
    let description = format!(
        "Server stubs of the {} API: an axum router over one trait, generated from its OpenAPI document.",
        cx.api.title
    );
    let root = &krate.path;
    files.insert(
        root.join("Cargo.toml"),
        CargoToml::render(cx, &krate.package, &description, &dependencies)?,
    );
    files.insert(root.join("README.md"), readme(&server, &krate.package)?);
    Ok(files)
}

fn lib_tokens(server: &Server<'_>, groups: &[&hooks::Group]) -> Result<TokenStream> {
    let cx = server.cx;
    let doc = crate_docs(server, groups);
    let mut modules: BTreeSet<&str> = ["api", "responses", "routes"].into_iter().collect();
    if server.has_security {
        modules.insert("security");
    }
    modules.extend(groups.iter().map(|group| group.module));
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
    let spread = spread_modules(server);
    let streams = server.ops.iter().any(|op| {
        op.op
            .responses
            .iter()
            .any(|r| matches!(r.body, Some(BodyKind::Sequence(_))))
    });
    let items = streams.then(|| {
        quote! {
            /// The items of a sequential answer (JSON Lines, JSON text sequences), written as they come.
            pub use openapi_runtime::server::Items;
        }
    });
    let streams_in = server.ops.iter().any(|op| {
        op.op
            .body
            .as_ref()
            .is_some_and(|b| matches!(b.kind, BodyKind::Sequence(_)))
    });
    let request_items = streams_in.then(|| {
        quote! {
            /// The items of a sequential request (JSON Lines, JSON text sequences), checked as they arrive.
            pub use openapi_runtime::server::RequestItems;
        }
    });
    let encoded = (!cx.target.encoded_answers.is_empty()).then(|| {
        quote! {
            /// An answer's JSON body encoded before (`encoded-answers`), sent as it is.
            pub use openapi_runtime::server::Encoded;
        }
    });
    // In the client crate, the models are its `models` module already.
    let models = (!cx.server_inline()).then(|| {
        let models_crate = format_ident!("{}", cx.target.models.lib_name());
        let models_doc = format!(
            " The models crate (`{}`): the types of bodies and parameters, and their validation.",
            cx.target.models.package
        );
        quote! {
            #[doc = #models_doc]
            pub use #models_crate as models;
        }
    });
    let error_format = error_format::tokens(server)?;
    Ok(quote! {
        #doc

        #(#[rustfmt::skip] pub mod #modules;)*

        #encoded
        /// The runtime's modules every router shares.
        pub use openapi_runtime::server::{#(#runtime),*};
        #spread
        #items
        #request_items

        pub use api::*;
        pub use error::ApiError;
        pub use request_id::RequestId;
        #responses
        pub use routes::{router, router_with};
        #security
        pub use settings::Settings;

        /// The `axum` crate the router is built with, so that dependants name the same version.
        pub use axum;
        #models

        #error_format
    })
}

/// The crate's documentation: what it is, how it is used, and its modules.
fn crate_docs(server: &Server<'_>, groups: &[&hooks::Group]) -> TokenStream {
    let api = server.cx.api;
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
    for group in groups {
        lines.push(match group.module {
            "webhooks" => "| [`webhooks`] | the receiver of the webhooks: a trait and its router |",
            _ => "| [`callbacks`] | the receiver of the callbacks (a trait and its router), and their URLs |",
        }.to_owned());
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
    docs::inner_attrs(&lines)
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
