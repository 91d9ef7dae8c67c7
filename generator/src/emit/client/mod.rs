//! The client crate: a typed async `reqwest` client, one method per
//! operation.
//!
//! Generated here: `lib.rs` (re-exports, the error types over this API's
//! error body), `client.rs` (`Client` and `ClientBuilder`, thin types over
//! the runtime's transport and settings), `config.rs` (the environments,
//! credentials and common headers of this API) and `operations.rs` (the
//! methods, their params and response types, the stream helpers of paged
//! listings). What is the same for every API (the transport: requests,
//! credentials, retries, tracing, decoding; errors; the page walker) is the
//! `openapi-runtime` crate's `client` feature.

mod config;
mod hooks;
mod operations;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::templates::{
    CargoToml, ClientReadme, Dependency, Feature, ReadmeEnvironment, ReadmeOperation,
};
use super::{Context, Files};
use crate::config::CrateTarget;
use crate::error::Result;
use crate::names::Namespace;
use operations::Plan;

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
    let setup = config::setup(cx, &mut methods)?;
    let error_body = error_body(cx)?;
    let has_streams = plans.iter().any(|p| p.stream.is_some());

    let mut files = Files::default();
    let path = root.join("src/client.rs");
    files.insert(&path, cx.rust_file(&path, client_tokens())?);
    let path = root.join("src/config.rs");
    files.insert(&path, cx.rust_file(&path, config::module(cx, &setup))?);
    let path = root.join("src/operations.rs");
    files.insert(&path, cx.rust_file(&path, operations::module(cx, &plans))?);
    let hook_modules = hooks::modules(cx)?;
    for (module, tokens) in &hook_modules {
        let path = root.join(format!("src/{module}.rs"));
        files.insert(&path, cx.rust_file(&path, tokens.clone())?);
    }
    let hook_modules: Vec<&str> = hook_modules.iter().map(|(module, _)| *module).collect();
    let has_types = plans
        .iter()
        .any(|p| p.params.is_some() || p.response_enum.is_some());
    let path = root.join("src/lib.rs");
    files.insert(
        &path,
        cx.rust_file(
            &path,
            lib_tokens(cx, &error_body, has_streams, has_types, &hook_modules),
        )?,
    );

    let mut dependencies = if cx.models_inline() {
        // The models' dependencies, with the runtime's `client` feature.
        let mut models = super::models::dependencies(&super::models::UsedDeps::of(cx.api));
        for dependency in &mut models {
            if dependency.name == "openapi-runtime" {
                dependency.features.push("client".to_owned());
                if cx.server_inline() {
                    dependency.features.push("server".to_owned());
                }
            }
        }
        models
    } else {
        vec![
            Dependency::new(&cx.target.models.package, &[]),
            Dependency::new("openapi-runtime", &["client"]),
        ]
    };
    dependencies.push(Dependency::new("reqwest", &[]));
    if uses_bytes(cx) {
        dependencies.push(Dependency::new("bytes", &[]));
    }
    dependencies.push(Dependency::new("futures-util", &[]));
    if cx.server_inline() {
        // What the server stubs' module adds (their crate's dependencies).
        dependencies.extend([Dependency::new("axum", &[]), Dependency::new("http", &[])]);
    }
    // The README's example is a doctest.
    let dev_dependencies = [Dependency::new("tokio", &["macros", "rt-multi-thread"])];
    let description = format!(
        "A typed async client of the {} API, generated from its OpenAPI document.",
        cx.api.title
    );
    files.insert(
        root.join("Cargo.toml"),
        CargoToml::render_with(
            cx,
            &krate.package,
            &description,
            &dependencies,
            &dev_dependencies,
            &tls_features(),
        )?,
    );
    files.insert(
        root.join("README.md"),
        readme(cx, krate, &plans, &setup, &error_body)?,
    );
    Ok(files)
}

/// TLS as a default feature, so that the client reaches `https` servers as
/// generated, and a user who brings TLS of their own (`reqwest/native-tls`,
/// or a client given to `http_client`) or reaches only `http` servers can
/// leave rustls and ring out of the build (D47).
fn tls_features() -> [Feature; 2] {
    [
        Feature {
            name: "default",
            enables: &["rustls"],
            comment: &[],
        },
        Feature {
            name: "rustls",
            enables: &["openapi-runtime/rustls"],
            comment: &[
                "TLS for `https` servers: rustls, with Mozilla's root certificates bundled.",
                "Without it, requests reach `http` servers only, unless reqwest gets TLS",
                "elsewhere: a `reqwest` feature of your own (`native-tls`), or a client of",
                "your own given to `ClientBuilder::http_client`.",
            ],
        },
    ]
}

/// The type of the API's error bodies: the `error-schema` of the target, or
/// any JSON value.
struct ErrorBodyType {
    tokens: TokenStream,
    /// How the docs name it.
    text: String,
    /// Where it carries the parts of an error: the error schema's table as
    /// the runtime's fields, when there is one.
    fields: Option<TokenStream>,
}

fn error_body(cx: &Context<'_>) -> Result<ErrorBodyType> {
    let Some(schema) = &cx.target.error_schema else {
        return Ok(ErrorBodyType {
            tokens: quote!(models::serde_json::Value),
            text: "serde_json::Value".to_owned(),
            fields: None,
        });
    };
    let def = cx.api.error_schema_type(schema)?;
    // A schema the server stubs could not write (not an object, or with a
    // required property that matches no part of an error) is refused by
    // them; a client alone still takes it as its error body, read by the
    // common names.
    let fields = cx
        .api
        .error_table(schema)
        .ok()
        .map(|table| super::error_table::fields_tokens(&table.fields));
    let ident = format_ident!("{}", def.name);
    Ok(ErrorBodyType {
        tokens: quote!(models::#ident),
        text: format!("models::{}", def.name),
        fields,
    })
}

/// Whether some operation (a hook's too) sends or answers raw bytes
/// (`bytes::Bytes`).
fn uses_bytes(cx: &Context<'_>) -> bool {
    let mut operations = cx.api.operations.iter().chain(cx.api.hook_operations());
    operations.any(|op| {
        // A text body is sent as bytes too (bridgedb's `text/html` one).
        op.body.as_ref().is_some_and(|b| {
            matches!(
                b.kind,
                crate::ir::BodyKind::Binary | crate::ir::BodyKind::Text
            )
        }) || op
            .responses
            .iter()
            .any(|r| matches!(r.body, Some(crate::ir::BodyKind::Binary)))
    })
}

/// `client.rs`: `Client` and `ClientBuilder`, the same for every API but
/// for the `Environment` they name; the operations and the API's own
/// setters are added to them by `operations.rs` and `config.rs`.
fn client_tokens() -> TokenStream {
    quote! {
        //! The client and its builder. What depends on the document (its environments, the
        //! credentials its security schemes take, the headers every operation sends) is in
        //! `config.rs`; the operations are in `operations.rs`.

        use std::fmt;
        use std::time::Duration;

        use openapi_runtime::client::{Settings, Transport};

        use crate::{Environment, Error, RetryPolicy};

        /// A client of the API: one async method per operation.
        ///
        /// Cheap to clone: clones share the connection pool and the settings.
        /// `Debug` shows the settings, never a credential.
        #[derive(Clone)]
        pub struct Client {
            pub(crate) transport: Transport,
        }

        impl Client {
            /// A builder to choose the environment, credentials, time-out, retries and the rest.
            pub fn builder() -> ClientBuilder {
                ClientBuilder::new()
            }

            /// The base URL the client sends requests to, without a trailing `/`.
            pub fn base_url(&self) -> &str {
                self.transport.base_url()
            }
        }

        impl fmt::Debug for Client {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.transport.fmt(f)
            }
        }

        /// Builds a [`Client`].
        ///
        /// By default: the first environment the document names, with its server variables at
        /// their defaults; no credentials; a time-out of 30 s per attempt; the default
        /// [`RetryPolicy`]; a `User-Agent` of `<package>/<version>`; a new HTTP client (with
        /// rustls when the crate's `rustls` feature is on, as it is by default).
        #[derive(Debug, Clone, Default)]
        pub struct ClientBuilder {
            environment: Environment,
            pub(crate) settings: Settings,
        }

        impl ClientBuilder {
            /// A builder with the defaults.
            pub fn new() -> Self {
                ClientBuilder::default()
            }

            /// Which of the API's environments to talk to, or [`Environment::Custom`] for any
            /// base URL.
            pub fn environment(mut self, environment: Environment) -> Self {
                self.environment = environment;
                self
            }

            /// Talks to `url` (such as `http://127.0.0.1:8080`): the same as
            /// `environment(Environment::Custom(url))`.
            pub fn base_url(self, url: impl Into<String>) -> Self {
                self.environment(Environment::Custom(url.into()))
            }

            /// Sets a variable of the environment's URL template instead of its default (see
            /// [`Environment`] for each environment's variables).
            pub fn server_variable(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
                self.settings.server_variable(name.into(), value.into());
                self
            }

            /// How long one attempt may take, from sending the request to reading the whole
            /// answer (default 30 s).
            pub fn timeout(mut self, timeout: Duration) -> Self {
                self.settings.timeout(timeout);
                self
            }

            /// The `User-Agent` header (default `<package>/<version>`).
            pub fn user_agent(mut self, user_agent: impl Into<String>) -> Self {
                self.settings.user_agent(user_agent.into());
                self
            }

            /// How failed attempts are retried (default [`RetryPolicy::default`]).
            pub fn retry_policy(mut self, policy: RetryPolicy) -> Self {
                self.settings.retry_policy(policy);
                self
            }

            /// Sends requests with `client` instead of a new one: to share its connection pool,
            /// proxy or TLS settings. The builder's time-out still applies to every attempt;
            /// its `User-Agent` only when set explicitly.
            pub fn http_client(mut self, client: reqwest::Client) -> Self {
                self.settings.http_client(client);
                self
            }

            /// The client.
            ///
            /// # Errors
            ///
            /// [`Error::InvalidInput`] when the base URL is not an `http` or `https` URL, a
            /// server variable is unknown or not one of its allowed values, or a credential or
            /// header value cannot be sent in a header; [`Error::Transport`] when the HTTP
            /// client cannot be created.
            pub fn build(mut self) -> Result<Client, Error> {
                let base_url = self.environment.resolve(self.settings.variables())?;
                let user_agent = concat!(env!("CARGO_PKG_NAME"), "/", env!("CARGO_PKG_VERSION"));
                self.settings.error_fields(crate::ERROR_FIELDS);
                Ok(Client {
                    transport: self.settings.build(&base_url, user_agent)?,
                })
            }
        }
    }
}

fn lib_tokens(
    cx: &Context<'_>,
    error_body: &ErrorBodyType,
    has_streams: bool,
    has_types: bool,
    hook_modules: &[&str],
) -> TokenStream {
    let models = format_ident!("{}", cx.target.models.lib_name());
    let inline = cx.models_inline();
    let modules = ["client", "config"].map(|m| format_ident!("{m}"));
    let error_doc = match &cx.target.error_schema {
        Some(schema) => format!(
            " The body of the API's error answers: the `{schema}` schema (see [`ApiError::body`])."
        ),
        None => " The body of the API's error answers, as JSON: the document names no one error schema (see [`ApiError::body`]).".to_owned(),
    };
    let error_tokens = &error_body.tokens;
    let fields = error_body.fields.clone().unwrap_or_else(|| quote!([]));
    let fields_doc = match (&cx.target.error_schema, &error_body.fields) {
        (Some(schema), Some(_)) => format!(
            " Where [`ErrorBody`] carries each part of an error, as the `{schema}` schema has \
             them: [`ApiError::message`], [`ApiError::problems`] and [`ApiError::request_id`] \
             are read from there, or by their common names (`message`, `errors`, `requestId`, \
             …) where an answer's body has them elsewhere."
        ),
        (Some(schema), None) => format!(
            " Where an error body carries each part of an error: the `{schema}` schema does \
             not say by its names, so [`ApiError::message`], [`ApiError::problems`] and \
             [`ApiError::request_id`] are read by their common names (`message`, `detail`, \
             `errors`, `requestId`, …)."
        ),
        (None, _) => " Where an error body carries each part of an error: the document names no \
                      error schema, so [`ApiError::message`], [`ApiError::problems`] and \
                      [`ApiError::request_id`] are read by their common names (`message`, \
                      `detail`, `errors`, `requestId`, …)."
            .to_owned(),
    };
    let operation_types = has_types.then(|| {
        quote!(
            pub use operations::*;
        )
    });
    let futures_doc = if has_streams {
        " The `futures-util` crate the stream helpers use, for its `StreamExt` and `TryStreamExt`."
    } else {
        " The `futures-util` crate, for its `StreamExt` and `TryStreamExt`."
    };
    // The documented re-exports, in rustfmt's order (by path).
    let mut documented = vec![(
        "futures_util".to_owned(),
        quote!(#[doc = #futures_doc] pub use futures_util;),
    )];
    if !inline {
        documented.push((
            models.to_string(),
            quote! {
                /// The models crate: the types of the API's bodies and queries.
                pub use #models as models;
            },
        ));
    }
    documented.extend([
        (
            "openapi_runtime".to_owned(),
            quote! {
                /// The runtime's types the client's methods and errors name.
                pub use openapi_runtime::client::{FieldProblem, NoHeaders, Response, RetryPolicy};
            },
        ),
        (
            "reqwest".to_owned(),
            quote! {
                /// The `reqwest` crate the client sends requests with, for [`ClientBuilder::http_client`].
                pub use reqwest;
            },
        ),
    ]);
    documented.sort_by(|a, b| a.0.cmp(&b.0));
    let documented = documented.into_iter().map(|(_, tokens)| tokens);
    // The models as a module of this crate, in rustfmt's order of the modules.
    let models_module = inline.then(|| {
        quote! {
            #[rustfmt::skip]
            pub mod models;
        }
    });
    // The server stubs as a module of this crate too (`Target::one_crate`).
    let server_module = cx.server_inline().then(|| {
        quote! {
            #[rustfmt::skip]
            pub mod server;
        }
    });
    // The senders of webhooks and callbacks, in rustfmt's order of the modules.
    let (before, after): (Vec<&str>, Vec<&str>) =
        hook_modules.iter().partition(|m| **m < "operations");
    let before = before.into_iter().map(|m| format_ident!("{m}"));
    let after = after.into_iter().map(|m| format_ident!("{m}"));
    // The crate's own re-exports, in rustfmt's order (by module).
    let mut reexports = vec![
        (
            "client",
            quote!(
                pub use client::{Client, ClientBuilder};
            ),
        ),
        (
            "config",
            quote!(
                pub use config::Environment;
            ),
        ),
    ];
    if let Some(types) = operation_types {
        reexports.push(("operations", types));
    }
    for module in hook_modules {
        let sender = match *module {
            "webhooks" => "WebhookSender",
            _ => "CallbackSender",
        };
        let (module_ident, sender) = (format_ident!("{module}"), format_ident!("{sender}"));
        reexports.push((module, quote!(pub use #module_ident::#sender;)));
    }
    reexports.sort_by_key(|(module, _)| *module);
    let reexports = reexports.into_iter().map(|(_, tokens)| tokens);
    quote! {
        #![doc = include_str!("../README.md")]

        #(#[rustfmt::skip] mod #modules;)*
        #(#[rustfmt::skip] pub mod #before;)*
        #models_module
        #[rustfmt::skip]
        pub mod operations;
        #(#[rustfmt::skip] pub mod #after;)*
        #server_module

        #(#reexports)*

        #(#documented)*

        #[doc = #error_doc]
        pub type ErrorBody = #error_tokens;

        /// Why a call failed: see [`openapi_runtime::client::Error`], here with this API's
        /// [`ErrorBody`].
        pub type Error = openapi_runtime::client::Error<ErrorBody>;

        /// An error answer of the API, with its [`ErrorBody`].
        pub type ApiError = openapi_runtime::client::ApiError<ErrorBody>;

        #[doc = #fields_doc]
        // As the generator lays it out: rustfmt would nest it otherwise.
        #[rustfmt::skip]
        pub const ERROR_FIELDS: &[openapi_runtime::error_fields::Field] = &#fields;
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
            request: format!("{} {}", plan.op.method.as_str(), plan.op.path_key()),
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

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::emit_client;
    use crate::config::Target;

    /// The `openapi-runtime` line of the client's manifest for a target.
    fn runtime_dependency(make: fn(PathBuf, &str) -> Target) -> String {
        let api = crate::testing::api(
            "paths: {}
components:
  schemas:
    Pet: {type: object, properties: {name: {type: string}}}
",
        );
        let target = make(PathBuf::from("t.yaml"), "t");
        let cx = crate::testing::context(&api, &target);
        let files = emit_client(&cx).unwrap();
        let manifest = files.get("client/Cargo.toml").unwrap();
        manifest
            .lines()
            .find(|line| line.starts_with("openapi-runtime"))
            .unwrap_or_else(|| panic!("{manifest}"))
            .to_owned()
    }

    /// An error schema the server stubs refuse (a required property that
    /// matches no part of an error) is still a client's error body, read by
    /// the common names.
    #[test]
    fn a_client_alone_takes_an_error_schema_the_stubs_refuse() {
        let api = crate::testing::api(
            "paths: {}
components:
  schemas:
    Fault: {type: object, required: [hint], properties: {hint: {type: string}}}
",
        );
        let mut target = Target::client_only(PathBuf::from("t.yaml"), "t");
        target.error_schema = Some("Fault".to_owned());
        let cx = crate::testing::context(&api, &target);
        let files = emit_client(&cx).unwrap();
        let lib = files.get("client/src/lib.rs").unwrap();
        assert!(lib.contains("pub type ErrorBody = models::Fault;"), "{lib}");
        assert!(
            lib.contains("ERROR_FIELDS: &[openapi_runtime::error_fields::Field] = &[];"),
            "{lib}"
        );
    }

    /// A client that holds the models takes the runtime as they do, with
    /// the features of the modules it holds.
    #[test]
    fn the_client_takes_the_runtime_features_of_what_it_holds() {
        let separate = runtime_dependency(Target::standalone);
        assert!(separate.contains(r#"features = ["client"]"#), "{separate}");
        let client_only = runtime_dependency(Target::client_only);
        assert!(
            client_only.contains(r#"features = ["models", "client"]"#),
            "{client_only}"
        );
        let one_crate = runtime_dependency(Target::one_crate);
        assert!(
            one_crate.contains(r#"features = ["models", "client", "server"]"#),
            "{one_crate}"
        );
    }
}
