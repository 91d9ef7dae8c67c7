//! The client crate: a typed async `reqwest` client, one method per
//! operation.
//!
//! Generated here: `lib.rs`, `config.rs` (the environments, credentials and
//! common headers of this API) and `operations.rs` (the methods, their
//! params and response types, the stream helpers of paged listings).
//! Copied from `runtime/client/`: the client and its builder, errors,
//! retries, the transport (requests, credentials, tracing, decoding) and the
//! page walker, which are the same for every API.

mod config;
mod operations;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::templates::{CargoToml, ClientReadme, Dependency, ReadmeEnvironment, ReadmeOperation};
use super::{Context, Files};
use crate::config::CrateTarget;
use crate::error::{Error, Result};
use crate::lower::names::Namespace;
use operations::Plan;

const CLIENT_RUNTIME: &str = include_str!("../../../runtime/client/client.rs");
const ERROR_RUNTIME: &str = include_str!("../../../runtime/client/error.rs");
const PAGING_RUNTIME: &str = include_str!("../../../runtime/client/paging.rs");
const RETRY_RUNTIME: &str = include_str!("../../../runtime/client/retry.rs");
const TRANSPORT_RUNTIME: &str = include_str!("../../../runtime/client/transport.rs");

/// Writes the client crate, when the target asks for one.
pub fn emit_client(cx: &Context<'_>) -> Result<Files> {
    let Some(krate) = &cx.target.client else {
        return Ok(Files::default());
    };
    let root = &krate.path;
    let plans = operations::plan(cx)?;
    let mut methods = Namespace::with_reserved(&["builder", "base_url"]);
    for plan in &plans {
        methods.claim(plan.op.fn_name.clone());
        if let Some(stream) = &plan.stream {
            methods.claim(stream.fn_ident.to_string());
        }
    }
    let setup = config::setup(cx.api, &mut methods);
    let error_body = error_body(cx)?;
    let has_streams = plans.iter().any(|p| p.stream.is_some());

    let mut files = Files::default();
    let regions: &[&str] = if cx.target.client_accepts_data_envelope {
        &["envelope"]
    } else {
        &[]
    };
    for (name, source) in [
        ("client", CLIENT_RUNTIME),
        ("error", ERROR_RUNTIME),
        ("retry", RETRY_RUNTIME),
        ("transport", TRANSPORT_RUNTIME),
    ] {
        files.insert(
            root.join(format!("src/{name}.rs")),
            cx.runtime_file(source, regions),
        );
    }
    if has_streams {
        files.insert(
            root.join("src/paging.rs"),
            cx.runtime_file(PAGING_RUNTIME, regions),
        );
    }
    let path = root.join("src/config.rs");
    files.insert(&path, cx.rust_file(&path, config::module(cx, &setup))?);
    let path = root.join("src/operations.rs");
    files.insert(&path, cx.rust_file(&path, operations::module(cx, &plans))?);
    let has_types = plans
        .iter()
        .any(|p| p.params.is_some() || p.response_enum.is_some());
    let path = root.join("src/lib.rs");
    files.insert(
        &path,
        cx.rust_file(
            &path,
            lib_tokens(cx, &error_body, has_streams, has_types, plans.is_empty()),
        )?,
    );

    let dependencies = [
        Dependency::new(&cx.target.models.package, &[]),
        Dependency::new("reqwest", &[]),
        Dependency::new("serde", &["derive"]),
        Dependency::new("serde_json", &[]),
        Dependency::new("bytes", &[]),
        Dependency::new("futures-util", &[]),
        Dependency::new("fastrand", &[]),
        Dependency::new("httpdate", &[]),
        Dependency::new("tokio", &["time"]),
        Dependency::new("tracing", &[]),
    ];
    // The README's example is a doctest.
    let dev_dependencies = [Dependency::new("tokio", &["macros", "rt-multi-thread"])];
    let description = format!(
        "A typed async client of the {} API, generated from its OpenAPI document.",
        cx.api.title
    );
    files.insert(
        root.join("Cargo.toml"),
        CargoToml::render_with_dev(
            cx,
            &krate.package,
            &description,
            &dependencies,
            &dev_dependencies,
        )?,
    );
    files.insert(
        root.join("README.md"),
        readme(cx, krate, &plans, &setup, &error_body)?,
    );
    Ok(files)
}

/// The type of the API's error bodies: the `error-schema` of the target, or
/// any JSON value.
struct ErrorBodyType {
    tokens: TokenStream,
    /// How the docs name it.
    text: String,
}

fn error_body(cx: &Context<'_>) -> Result<ErrorBodyType> {
    let Some(schema) = &cx.target.error_schema else {
        return Ok(ErrorBodyType {
            tokens: quote!(serde_json::Value),
            text: "serde_json::Value".to_owned(),
        });
    };
    let def = cx
        .api
        .types
        .iter()
        .find(|t| t.schema_name.as_deref() == Some(schema.as_str()))
        .ok_or_else(|| Error::Config {
            file: cx.api.source.clone(),
            message: format!(
                "error-schema `{schema}` is not a schema of components.schemas in this document"
            ),
        })?;
    let ident = format_ident!("{}", def.name);
    Ok(ErrorBodyType {
        tokens: quote!(models::#ident),
        text: format!("models::{}", def.name),
    })
}

fn lib_tokens(
    cx: &Context<'_>,
    error_body: &ErrorBodyType,
    has_streams: bool,
    has_types: bool,
    no_operations: bool,
) -> TokenStream {
    let models = format_ident!("{}", cx.target.models.lib_name());
    let mut modules = vec![
        "client",
        "config",
        "error",
        "operations",
        "retry",
        "transport",
    ];
    if has_streams {
        modules.push("paging");
    }
    modules.sort_unstable();
    let modules = modules.iter().map(|m| {
        let ident = format_ident!("{m}");
        if *m == "operations" {
            quote!(#[rustfmt::skip] pub mod #ident;)
        } else if no_operations && matches!(*m, "retry" | "transport") {
            quote! {
                #[rustfmt::skip]
                #[allow(dead_code, reason = "the document has no operations: nothing is sent")]
                mod #ident;
            }
        } else {
            quote!(#[rustfmt::skip] mod #ident;)
        }
    });
    let error_doc = match &cx.target.error_schema {
        Some(schema) => format!(
            " The body of the API's error answers: the `{schema}` schema (see [`ApiError::body`])."
        ),
        None => " The body of the API's error answers, as JSON: the document names no one error schema (see [`ApiError::body`]).".to_owned(),
    };
    let error_tokens = &error_body.tokens;
    let operation_types = has_types.then(|| {
        quote!(
            pub use operations::*;
        )
    });
    quote! {
        #![doc = include_str!("../README.md")]

        #(#modules)*

        pub use client::{Client, ClientBuilder};
        pub use config::Environment;
        pub use error::{ApiError, Error, FieldProblem};
        #operation_types
        pub use retry::RetryPolicy;

        /// The `futures-util` crate the stream helpers use, for its `StreamExt` and `TryStreamExt`.
        pub use futures_util;
        /// The models crate: the types of the API's bodies and queries.
        pub use #models as models;
        /// The `reqwest` crate the client sends requests with, for [`ClientBuilder::http_client`].
        pub use reqwest;

        #[doc = #error_doc]
        pub type ErrorBody = #error_tokens;
    }
}

/// `tokens` written as a person would: `&[models::Pet]`, `Option<String>`.
fn type_text(tokens: &TokenStream) -> String {
    let mut text = tokens.to_string();
    for (from, to) in [
        (" :: ", "::"),
        (":: ", "::"),
        (" ::", "::"),
        ("< ", "<"),
        (" <", "<"),
        (" >", ">"),
        ("& ", "&"),
        (" ,", ","),
        ("[ ", "["),
        (" ]", "]"),
        ("crate::models::", "models::"),
        ("crate::", ""),
    ] {
        text = text.replace(from, to);
    }
    text
}

fn signature(plan: &Plan<'_>) -> String {
    let mut args: Vec<String> = plan
        .args
        .iter()
        .map(|a| format!("{}: {}", a.ident, type_text(&a.ty)))
        .collect();
    if let Some(params) = &plan.params {
        args.push(format!("{}: {}", params.arg, params.ty));
    }
    format!("{}({})", plan.fn_ident, args.join(", "))
}

fn readme(
    cx: &Context<'_>,
    krate: &CrateTarget,
    plans: &[Plan<'_>],
    setup: &config::Setup,
    error_body: &ErrorBodyType,
) -> Result<String> {
    let cell = |text: &str| text.replace('|', "\\|");
    let operations = plans
        .iter()
        .map(|plan| ReadmeOperation {
            signature: signature(plan),
            request: format!("{} {}", plan.op.method.as_str(), plan.op.path),
            result: type_text(&operations::result_type(plan)),
            summary: cell(&operations::first_sentence(
                plan.op
                    .docs
                    .title
                    .as_deref()
                    .or(plan.op.docs.description.as_deref())
                    .unwrap_or(""),
            )),
        })
        .collect();
    let streams = plans
        .iter()
        .filter_map(|plan| {
            let stream = plan.stream.as_ref()?;
            Some(ReadmeOperation {
                signature: format!(
                    "{}({})",
                    stream.fn_ident,
                    operations::stream_args(plan, stream)
                        .iter()
                        .map(|(ident, ty)| format!("{ident}: {}", type_text(ty)))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                request: plan.fn_ident.to_string(),
                result: type_text(&stream.item_ty),
                summary: String::new(),
            })
        })
        .collect();
    let environments = setup
        .environments
        .iter()
        .map(|row| ReadmeEnvironment {
            variant: row.variant.to_string(),
            url: row.url.clone(),
            description: cell(&row.description),
        })
        .collect();
    let lib_name = krate.lib_name();
    let example = match cx.client_example {
        Some(example) => example.trim_end().to_owned(),
        None => generic_example(krate, &lib_name, plans, setup),
    };
    let headers = setup
        .headers
        .iter()
        .map(|(setter, with, wire)| (setter.to_string(), with.to_string(), wire.clone()))
        .collect();
    ClientReadme::render(
        cx,
        krate,
        operations,
        streams,
        environments,
        setup
            .token
            .as_ref()
            .map(|(ident, sent)| (ident.to_string(), sent.clone())),
        setup.basic.as_ref().map(Ident::to_string),
        headers,
        error_body.text.clone(),
        example,
    )
}

/// An example for an API without one of its own: a client from environment
/// variables, and the first operation that needs no arguments.
fn generic_example(
    krate: &CrateTarget,
    lib_name: &str,
    plans: &[Plan<'_>],
    setup: &config::Setup,
) -> String {
    let prefix = krate.package.to_ascii_uppercase().replace('-', "_");
    let mut out = format!(
        "use {lib_name}::Client;\n\n#[tokio::main]\nasync fn main() -> Result<(), Box<dyn std::error::Error>> {{\n    let client = Client::builder()\n        .base_url(std::env::var(\"{prefix}_BASE_URL\")?)\n"
    );
    if let Some((token, _)) = &setup.token {
        out.push_str(&format!(
            "        .{token}(std::env::var(\"{prefix}_TOKEN\")?)\n"
        ));
    }
    out.push_str("        .build()?;\n");
    let call = plans
        .iter()
        .find(|p| p.args.is_empty() && p.op.method == crate::ir::Method::Get);
    if let Some(plan) = call {
        let args = if plan.params.is_some() {
            "Default::default()"
        } else {
            ""
        };
        out.push_str(&format!(
            "    let answer = client.{}({args}).await?;\n    println!(\"{{answer:?}}\");\n",
            plan.fn_ident
        ));
    } else {
        out.push_str("    println!(\"{client:?}\");\n");
    }
    out.push_str("    Ok(())\n}");
    out
}
