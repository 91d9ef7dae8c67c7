//! What differs between APIs in setting a client up: the environments (the
//! document's servers), the credentials its security schemes take, and the
//! headers every operation sends (`Api::common_headers`).

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::operations::{rust_types, summary};
use crate::emit::{Context, docs};
use crate::error::{Error, Result};
use crate::ir::{Api, ParamLocation, Parameter, Primitive, SecurityScheme, SecuritySchemeKind, Ty};
use crate::names::Namespace;

/// The builder's own methods, which API-specific setters never take.
const BUILDER_METHODS: &[&str] = &[
    "new",
    "default",
    "environment",
    "base_url",
    "server_variable",
    "timeout",
    "user_agent",
    "retry_policy",
    "http_client",
    "build",
    "clone",
    "fmt",
];

/// What the config module sets up, as the README describes it.
pub(super) struct Setup {
    /// The environments: variant, URL template, description.
    pub environments: Vec<EnvironmentRow>,
    /// The builder's token setter and what it sends, when the API takes tokens.
    pub token: Option<(Ident, Vec<String>)>,
    /// The builder's user-and-password setter, when the API takes them.
    pub basic: Option<Ident>,
    /// The common headers: builder setter, `Client::with_*`, header name.
    pub headers: Vec<(Ident, Ident, String)>,
}

/// One environment.
pub(super) struct EnvironmentRow {
    pub variant: Ident,
    pub url: String,
    pub description: String,
}

/// Names and rows of what the module sets up; `methods` holds the names
/// `Client` already has.
pub(super) fn setup(cx: &Context<'_>, methods: &mut Namespace) -> Result<Setup> {
    let api = cx.api;
    check_bearer_api_keys(cx)?;
    let mut variants = Namespace::with_reserved(&["Custom"]);
    let environments = api
        .servers
        .iter()
        .map(|server| {
            let defaults = server.variables.iter().fold(server.url.clone(), |url, v| {
                url.replace(&format!("{{{}}}", v.name), &v.default)
            });
            EnvironmentRow {
                variant: format_ident!("{}", variants.claim(server.name.clone())),
                url: defaults,
                description: summary(server.description.as_deref().unwrap_or("")),
            }
        })
        .collect();
    let mut setters = Namespace::with_reserved(BUILDER_METHODS);
    let token_schemes: Vec<&SecurityScheme> = api
        .security_schemes
        .iter()
        .filter(|s| !matches!(&s.kind, SecuritySchemeKind::Http { scheme } if scheme == "basic"))
        .collect();
    let token = (!token_schemes.is_empty()).then(|| {
        let sent = token_schemes.iter().map(|s| how_sent(cx, s)).collect();
        (format_ident!("{}", setters.claim("token".to_owned())), sent)
    });
    let basic = api
        .security_schemes
        .iter()
        .any(|s| matches!(&s.kind, SecuritySchemeKind::Http { scheme } if scheme == "basic"))
        .then(|| format_ident!("{}", setters.claim("basic_auth".to_owned())));
    let headers = api
        .common_headers
        .iter()
        .map(|header| {
            let base = header_method_name(header);
            (
                format_ident!("{}", setters.claim(base.clone())),
                format_ident!("{}", methods.claim(format!("with_{base}"))),
                header.wire.clone(),
            )
        })
        .collect();
    Ok(Setup {
        environments,
        token,
        basic,
        headers,
    })
}

/// Whether the client sends the API key of `scheme` after `Bearer `: only
/// where the codegen settings ask (`bearer-api-keys`).
pub(super) fn sends_bearer_api_key(cx: &Context<'_>, scheme: &SecurityScheme) -> bool {
    matches!(
        &scheme.kind,
        SecuritySchemeKind::ApiKey {
            location: ParamLocation::Header,
            ..
        }
    ) && cx.target.bearer_api_keys.contains(&scheme.name)
}

/// `bearer` → `Bearer`, as the `Authorization` header spells schemes.
pub(super) fn http_scheme_name(scheme: &str) -> String {
    let mut chars = scheme.chars();
    match chars.next() {
        Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

/// Every name of `bearer-api-keys` is an API key sent in a header.
fn check_bearer_api_keys(cx: &Context<'_>) -> Result<()> {
    for name in &cx.target.bearer_api_keys {
        let is_header_key = cx.api.security_schemes.iter().any(|s| {
            &s.name == name
                && matches!(
                    &s.kind,
                    SecuritySchemeKind::ApiKey {
                        location: ParamLocation::Header,
                        ..
                    }
                )
        });
        if !is_header_key {
            return Err(Error::Config {
                file: "codegen settings".to_owned(),
                message: format!(
                    "`bearer-api-keys` names `{name}`, which is not an API key sent in a header in {}'s components.securitySchemes",
                    cx.api.source
                ),
            });
        }
    }
    Ok(())
}

/// `X-Tenant-Id` → `tenant_id`: the field name without the `x_` of custom headers.
fn header_method_name(header: &Parameter) -> String {
    match header.field.strip_prefix("x_") {
        Some(rest) if !rest.is_empty() && !rest.starts_with(|c: char| c.is_ascii_digit()) => {
            rest.to_owned()
        }
        _ => header.field.clone(),
    }
}

/// How a token reaches the API under `scheme`, for the docs.
fn how_sent(cx: &Context<'_>, scheme: &SecurityScheme) -> String {
    let what = match &scheme.kind {
        SecuritySchemeKind::ApiKey { location, name } => match location {
            ParamLocation::Query => format!("as the query parameter `{name}`"),
            ParamLocation::Cookie => format!("as the cookie `{name}`"),
            _ if sends_bearer_api_key(cx, scheme) => {
                format!("in the `{name}` header as `Bearer <token>`")
            }
            _ => format!("in the `{name}` header"),
        },
        SecuritySchemeKind::Http { scheme } => format!(
            "in the `Authorization` header as `{} <token>`",
            http_scheme_name(scheme)
        ),
        SecuritySchemeKind::OAuth2 => {
            "in the `Authorization` header as `Bearer <token>`".to_owned()
        }
    };
    format!("`{}`: {what}", scheme.name)
}

/// The `config` module.
pub(super) fn module(cx: &Context<'_>, setup: &Setup) -> TokenStream {
    let api = cx.api;
    let environment = environment_tokens(api, setup);
    let token = setup.token.as_ref().map(|(ident, sent)| {
        let mut lines = vec![
            "The token the API's security schemes take, sent with every operation that needs it:"
                .to_owned(),
            String::new(),
        ];
        lines.extend(sent.iter().map(|s| format!("- {s}")));
        lines.push(String::new());
        lines.push(
            "A token that already names its scheme (`Bearer …`, `Token …`) is sent as it is. The token never appears in `Debug` output or logs."
                .to_owned(),
        );
        let doc = docs::attrs(&lines);
        quote! {
            #doc
            pub fn #ident(mut self, token: impl Into<String>) -> Self {
                self.settings.token(token.into());
                self
            }
        }
    });
    let basic = setup.basic.as_ref().map(|ident| {
        let doc = docs::attrs(&[
            "The user name and password of HTTP basic authentication (`Authorization: Basic …`)."
                .to_owned(),
            "The password never appears in `Debug` output or logs.".to_owned(),
        ]);
        quote! {
            #doc
            pub fn #ident(mut self, user: impl Into<String>, password: impl Into<String>) -> Self {
                self.settings.basic_auth(user.into(), password.into());
                self
            }
        }
    });
    let types = rust_types();
    let mut setters = Vec::new();
    let mut withs = Vec::new();
    for (header, (setter, with, wire)) in api.common_headers.iter().zip(&setup.headers) {
        let what = summary(header.docs.description.as_deref().unwrap_or(""));
        let (ty, text) = match &header.shape.ty {
            Ty::Primitive(Primitive::String) => (quote!(impl Into<String>), quote!(value.into())),
            ty => {
                let ty = types.ty(ty);
                (
                    quote!(#ty),
                    quote!(openapi_runtime::client::param_text(&value)),
                )
            }
        };
        let doc = docs::attrs(&[
            format!("Sends `{wire}` with every request. {what}"),
            String::new(),
            format!(
                "Not sent unless set; [`Client::{with}`](crate::Client::{with}) changes it for one client."
            ),
        ]);
        let operator = crate::emit::operator_name_allow(&setter.to_string());
        setters.push(quote! {
            #doc
            #operator
            pub fn #setter(mut self, value: #ty) -> Self {
                self.settings.header(#wire, #text);
                self
            }
        });
        let doc = docs::attrs(&[format!(
            "A client like this one (sharing its connections) that sends `{wire}` with every request. {what}"
        )]);
        withs.push(quote! {
            #doc
            pub fn #with(&self, value: #ty) -> crate::Client {
                crate::Client { transport: self.transport.with_header(#wire, #text) }
            }
        });
    }
    let builder = (token.is_some() || basic.is_some() || !setters.is_empty()).then(|| {
        quote! {
            impl crate::ClientBuilder {
                #token
                #basic
                #(#setters)*
            }
        }
    });
    let client = (!withs.is_empty()).then(|| {
        quote! {
            impl crate::Client {
                #(#withs)*
            }
        }
    });
    let doc = docs::inner_attrs(&[
        "Setting a client up for this API: its environments, the credentials its security schemes"
            .to_owned(),
        "take, and the headers every operation sends.".to_owned(),
    ]);
    quote! {
        #doc
        #environment
        #builder
        #client
    }
}

fn environment_tokens(api: &Api, setup: &Setup) -> TokenStream {
    let variants =
        api.servers
            .iter()
            .zip(&setup.environments)
            .enumerate()
            .map(|(index, (server, row))| {
                let mut lines = match &server.description {
                    Some(description) => docs::markdown_lines(description),
                    None => vec![format!("The server `{}`.", server.url)],
                };
                lines.push(String::new());
                lines.push(format!("URL template `{}`.", server.url));
                for v in &server.variables {
                    let mut line = format!("- `{}` (default `{}`", v.name, v.default);
                    if !v.allowed.is_empty() {
                        let allowed: Vec<String> =
                            v.allowed.iter().map(|a| format!("`{a}`")).collect();
                        line.push_str(&format!("; one of {}", allowed.join(", ")));
                    }
                    line.push(')');
                    if let Some(description) = &v.description {
                        line.push_str(&format!(": {}", summary(description)));
                    }
                    lines.push(line);
                }
                let doc = docs::attrs(&lines);
                // The first server is the default.
                let default = (index == 0).then(|| quote!(#[default]));
                let variant = &row.variant;
                quote!(#doc #default #variant,)
            });
    let first = setup.environments.first().map(|row| &row.variant);
    let derive_default = first.map(|_| quote!(Default,));
    let manual_default = first.is_none().then(|| {
        quote! {
            impl Default for Environment {
                fn default() -> Self {
                    Environment::Custom(String::new())
                }
            }
        }
    });
    let arms = api.servers.iter().zip(&setup.environments).map(|(server, row)| {
        let variant = &row.variant;
        let name = variant.to_string();
        let url = &server.url;
        let variables = server.variables.iter().map(|v| {
            let (name, default) = (&v.name, &v.default);
            let allowed = &v.allowed;
            quote! {
                openapi_runtime::client::ServerVariable { name: #name, default: #default, allowed: &[#(#allowed),*] }
            }
        });
        quote! {
            Environment::#variant => openapi_runtime::client::fill_template(#name, #url, &[#(#variables),*], overrides),
        }
    });
    let default_doc = match first {
        Some(first) => {
            format!("The default is [`Environment::{first}`], the document's first server.")
        }
        None => "The document names no server: give the base URL with [`Environment::Custom`]."
            .to_owned(),
    };
    let doc = docs::attrs(&[
        "Where the API is: one of the servers its document names, or any base URL.".to_owned(),
        String::new(),
        default_doc,
        "Server variables take their defaults unless".to_owned(),
        "[`ClientBuilder::server_variable`](crate::ClientBuilder::server_variable) sets them."
            .to_owned(),
    ]);
    quote! {
        #doc
        #[derive(Debug, Clone, PartialEq, Eq, #derive_default)]
        pub enum Environment {
            #(#variants)*
            /// Any base URL, such as `http://127.0.0.1:8080` for a local server.
            Custom(String),
        }

        #manual_default

        impl Environment {
            /// The base URL, with the server variables at their defaults.
            pub fn url(&self) -> String {
                self.resolve(&[]).unwrap_or_default()
            }

            /// The base URL, with `overrides` for server variables.
            pub(crate) fn resolve(&self, overrides: &[(String, String)]) -> Result<String, openapi_runtime::client::Failure> {
                match self {
                    #(#arms)*
                    Environment::Custom(url) => openapi_runtime::client::fill_template("Custom", url, &[], overrides),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::check_bearer_api_keys;
    use crate::config::Target;

    /// What the settings' `bearer-api-keys` naming `keys` make of a
    /// document with an API key in a header and one in the query.
    fn checked(keys: &[&str]) -> Result<(), String> {
        let api = crate::testing::api(
            "paths: {}
components:
  securitySchemes:
    header: {type: apiKey, in: header, name: Authorization}
    query: {type: apiKey, in: query, name: key}
",
        );
        let mut target = Target::standalone("t.yaml".into(), "t");
        target.bearer_api_keys = keys.iter().map(|key| (*key).to_owned()).collect();
        let cx = crate::testing::context(&api, &target);
        check_bearer_api_keys(&cx).map_err(|error| error.to_string())
    }

    #[test]
    fn bearer_api_keys_name_api_keys_sent_in_a_header() {
        assert_eq!(checked(&["header"]), Ok(()));
        for name in ["query", "nothing"] {
            let error = checked(&["header", name]).unwrap_err();
            let expected = format!(
                "`bearer-api-keys` names `{name}`, which is not an API key sent in a header"
            );
            assert!(error.contains(&expected), "{error}");
        }
    }
}
