//! The `security` module: the schemes, the credentials a request presents,
//! and one check per distinct set of security requirements.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::context::{Auth, Server, header_name};
use crate::emit::docs;
use crate::error::{Error, Result};
use crate::ir::{Api, ParamLocation, SecurityScheme, SecuritySchemeKind};
use crate::names::{Namespace, field_name, suffixed};
use crate::parse::Pointer;

/// The name of the check for `alternatives` (each a set of schemes that must
/// all be present), e.g. `authenticate_static_token`. Schemes are named by
/// their Rust names, which are unique where the document's are not quite
/// (Telnyx's `BearerAuth` and `bearerAuth`).
pub(crate) fn check_name(api: &Api, alternatives: &[Vec<String>], optional: bool) -> String {
    let rust_name = |name: &str| {
        api.security_schemes
            .iter()
            .find(|scheme| scheme.name == name)
            .map_or_else(|| field_name(name), |scheme| field_name(&scheme.rust_name))
    };
    let alternatives = alternatives
        .iter()
        .map(|schemes| {
            schemes
                .iter()
                .map(|s| rust_name(s))
                .collect::<Vec<_>>()
                .join("_and_")
        })
        .collect::<Vec<_>>()
        .join("_or_");
    if optional {
        format!("authenticate_optional_{alternatives}")
    } else {
        format!("authenticate_{alternatives}")
    }
}

pub(crate) fn tokens(server: &Server<'_>) -> Result<TokenStream> {
    let api = server.cx.api;
    let root = server.root.clone();
    let trait_name = &server.trait_name;
    let schemes = &api.security_schemes;

    let (used, checks) = schemes_in_use(server);
    let scheme_named = |name: &str| -> Result<&SecurityScheme> {
        schemes.iter().find(|s| s.name == name).ok_or_else(|| {
            Error::invalid(
                server.source(),
                &Pointer::root().push("components").push("securitySchemes"),
                format!("security scheme `{name}` is not declared"),
            )
        })
    };
    // The headers that carry credentials of the schemes operations use.
    let mut credential_headers: Vec<String> = Vec::new();
    for name in &used {
        let header = match &scheme_named(name)?.kind {
            SecuritySchemeKind::ApiKey {
                location: ParamLocation::Header,
                name,
            } => header_name(name),
            SecuritySchemeKind::ApiKey { .. } => None,
            SecuritySchemeKind::Http { .. } | SecuritySchemeKind::OAuth2 => {
                Some("authorization".to_owned())
            }
        };
        if let Some(header) = header.filter(|h| !credential_headers.contains(h)) {
            credential_headers.push(header);
        }
    }
    let presence = used
        .iter()
        .map(|name| {
            let scheme = scheme_named(name)?;
            let ident = format_ident!("{}", suffixed(&field_name(&scheme.rust_name), "credential"));
            let read = read_credential(server, scheme)?;
            let doc = format!(
                " The `{}` credential of a request: {}.",
                scheme.name,
                describe(scheme)
            );
            Ok(quote! {
                #[doc = #doc]
                fn #ident(parts: &Parts) -> Option<Cow<'_, str>> {
                    #read
                }
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let check_fns = checks
        .iter()
        .map(|(alternatives, optional)| {
            check_tokens(server, alternatives, *optional, &scheme_named)
        })
        .collect::<Result<Vec<_>>>()?;

    let doc = docs::inner_attrs(&[format!(
        "Authentication: the document's security schemes, the [`Credentials`] a request \
         presents, and the checks that call [`{trait_name}::authenticate`] before a \
         request's parameters and body are read."
    )]);
    let types = scheme_types(server);
    let redacted = redacted_tokens(&credential_headers);
    Ok(quote! {
        #doc

        use std::borrow::Cow;

        use http::HeaderMap;
        use http::request::Parts;

        use #root::api::#trait_name;
        use #root::error::ApiError;
        use #root::params;
        use #root::request_id::RequestId;

        #types

        /// `headers` with the headers that carry credentials marked sensitive, so that
        /// their `Debug` (the request context's too) does not show them.
        #redacted

        #(#presence)*

        #(#check_fns)*
    })
}

/// An operation's security alternatives, each a set of scheme names, and
/// whether the operation may also be called without a credential.
type Requirement = (Vec<Vec<String>>, bool);

/// The schemes the operations use, in order of first use, and the distinct
/// requirement sets (with whether each is optional): one check function each.
fn schemes_in_use<'a>(server: &'a Server<'_>) -> (Vec<&'a str>, Vec<Requirement>) {
    let mut used: Vec<&str> = Vec::new();
    let mut checks: Vec<Requirement> = Vec::new();
    for op in &server.ops {
        let (alternatives, optional) = match &op.auth {
            Auth::None => continue,
            Auth::Required(a) => (a, false),
            Auth::Optional(a) => (a, true),
        };
        for scheme in alternatives.iter().flatten() {
            if !used.contains(&scheme.as_str()) {
                used.push(scheme);
            }
        }
        if !checks
            .iter()
            .any(|(a, o)| a == alternatives && *o == optional)
        {
            checks.push((alternatives.clone(), optional));
        }
    }
    (used, checks)
}

/// `redacted`: the request's headers with those that carry credentials
/// marked sensitive.
fn redacted_tokens(credential_headers: &[String]) -> TokenStream {
    // Schemes in the query or cookies only: no header carries a credential.
    if credential_headers.is_empty() {
        quote! {
            pub(crate) fn redacted(headers: HeaderMap) -> HeaderMap {
                headers
            }
        }
    } else {
        quote! {
            pub(crate) fn redacted(mut headers: HeaderMap) -> HeaderMap {
                for name in [#(#credential_headers),*] {
                    if let http::header::Entry::Occupied(mut entry) = headers.entry(name) {
                        for value in entry.iter_mut() {
                            value.set_sensitive(true);
                        }
                    }
                }
                headers
            }
        }
    }
}

/// The types of the module: `Scheme`, `Credential` and `Credentials`.
fn scheme_types(server: &Server<'_>) -> TokenStream {
    let trait_name = &server.trait_name;
    let schemes = &server.cx.api.security_schemes;
    let variants = schemes.iter().map(|scheme| {
        let ident = format_ident!("{}", scheme.rust_name);
        let mut text = format!("`{}`: {}.", scheme.name, describe(scheme));
        if let Some(description) = &scheme.description {
            text.push_str("\n\n");
            text.push_str(description);
        }
        let doc = docs::attrs(&docs::markdown_lines(&text));
        quote!(#doc #ident,)
    });
    let names = schemes.iter().map(|scheme| {
        let ident = format_ident!("{}", scheme.rust_name);
        let name = &scheme.name;
        quote!(Self::#ident => #name,)
    });

    let credentials_doc = format!(" What [`{trait_name}::authenticate`] is asked to check.");
    quote! {
    /// The document's security schemes (`components.securitySchemes`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum Scheme {
        #(#variants)*
    }

    impl Scheme {
        /// The scheme's name in the document.
        pub fn name(self) -> &'static str {
            match self {
                #(#names)*
            }
        }
    }

    /// One credential a request presents. Its `Debug` does not show the value.
    #[derive(Clone, Copy, PartialEq, Eq)]
    pub struct Credential<'a> {
        /// The scheme it is for.
        pub scheme: Scheme,
        /// The value: an API key as sent, or what follows the scheme's name in the
        /// `Authorization` header (a bearer token, the Base64 of `user:password` for
        /// `basic`).
        pub value: &'a str,
    }

    #[doc = #credentials_doc]
    ///
    /// Its `Debug` shows neither the credentials' values nor the headers.
    #[derive(Clone, Copy)]
    pub struct Credentials<'a> {
        /// The `operationId` of the operation called.
        pub operation_id: &'static str,
        /// The credentials presented: every scheme of the first of the operation's
        /// security requirements that the request meets.
        pub presented: &'a [Credential<'a>],
        /// The request's headers (for rules on other headers, applied before the body
        /// is read).
        pub headers: &'a HeaderMap,
        /// The request's id.
        pub request_id: &'a RequestId,
    }

    impl<'a> Credentials<'a> {
        /// The value of the first credential presented (the only one, for a
        /// requirement of one scheme).
        pub fn value(&self) -> &'a str {
            self.presented.first().map_or("", |credential| credential.value)
        }

        /// The value presented for `scheme`, if any.
        pub fn get(&self, scheme: Scheme) -> Option<&'a str> {
            self.presented
                .iter()
                .find(|credential| credential.scheme == scheme)
                .map(|credential| credential.value)
        }
    }

    impl std::fmt::Debug for Credential<'_> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("Credential")
                .field("scheme", &self.scheme)
                .field("value", &"<redacted>")
                .finish()
        }
    }

    impl std::fmt::Debug for Credentials<'_> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("Credentials")
                .field("operation_id", &self.operation_id)
                .field("presented", &self.presented)
                .field("request_id", &self.request_id)
                .finish_non_exhaustive()
        }
    }
    }
}

/// What a scheme is, for documentation and messages.
fn describe(scheme: &SecurityScheme) -> String {
    match &scheme.kind {
        SecuritySchemeKind::ApiKey { location, name } => match location {
            ParamLocation::Header => format!("an API key in the `{name}` header"),
            ParamLocation::Query | ParamLocation::QueryString => {
                format!("an API key in the `{name}` query parameter")
            }
            ParamLocation::Cookie => format!("an API key in the `{name}` cookie"),
            ParamLocation::Path => format!("an API key in the `{name}` path parameter"),
        },
        SecuritySchemeKind::Http { scheme } => {
            format!("HTTP `{scheme}` authentication in the `Authorization` header")
        }
        SecuritySchemeKind::OAuth2 => "a bearer token in the `Authorization` header".to_owned(),
    }
}

/// The expression reading a scheme's credential from `parts`.
fn read_credential(server: &Server<'_>, scheme: &SecurityScheme) -> Result<TokenStream> {
    Ok(match &scheme.kind {
        SecuritySchemeKind::ApiKey { location, name } => match location {
            ParamLocation::Header => {
                let lower = header_name(name).ok_or_else(|| {
                    Error::unsupported(
                        server.source(),
                        &Pointer::root()
                            .push("components")
                            .push("securitySchemes")
                            .push(&scheme.name),
                        "the API key's header name is not a valid HTTP header name",
                    )
                })?;
                quote!(params::header_credential(&parts.headers, #lower))
            }
            ParamLocation::Query | ParamLocation::QueryString => {
                quote!(params::query_credential(parts.uri.query(), #name))
            }
            ParamLocation::Cookie | ParamLocation::Path => {
                quote!(params::cookie_credential(&parts.headers, #name))
            }
        },
        SecuritySchemeKind::Http { scheme } => {
            quote!(params::authorization(&parts.headers, #scheme))
        }
        SecuritySchemeKind::OAuth2 => quote!(params::authorization(&parts.headers, "bearer")),
    })
}

/// Where a scheme's credential goes, and the 401 message when none is there.
fn missing(scheme: &SecurityScheme) -> (String, String) {
    match &scheme.kind {
        SecuritySchemeKind::ApiKey { location, name } => match location {
            ParamLocation::Header => (name.clone(), format!("The {name} header is missing.")),
            ParamLocation::Query => (
                name.clone(),
                format!("The {name} query parameter is missing."),
            ),
            _ => (name.clone(), format!("The {name} cookie is missing.")),
        },
        SecuritySchemeKind::Http { scheme } => {
            let mut label = scheme.clone();
            if let Some(first) = label.get_mut(..1) {
                first.make_ascii_uppercase();
            }
            (
                "Authorization".to_owned(),
                format!("The Authorization header is missing or is not a {label} credential."),
            )
        }
        SecuritySchemeKind::OAuth2 => (
            "Authorization".to_owned(),
            "The Authorization header is missing or is not a Bearer token.".to_owned(),
        ),
    }
}

fn check_tokens<'s>(
    server: &Server<'_>,
    alternatives: &[Vec<String>],
    optional: bool,
    scheme_named: &dyn Fn(&str) -> Result<&'s SecurityScheme>,
) -> Result<TokenStream> {
    let trait_name = &server.trait_name;
    let name = format_ident!("{}", check_name(server.cx.api, alternatives, optional));
    let mut branches = Vec::new();
    for schemes in alternatives {
        let mut locals =
            Namespace::with_reserved(&["api", "parts", "operation_id", "request_id", "presented"]);
        let mut reads = Vec::new();
        let mut bindings = Vec::new();
        let mut presented = Vec::new();
        for scheme_name in schemes {
            let scheme = scheme_named(scheme_name)?;
            let read = format_ident!("{}", suffixed(&field_name(&scheme.rust_name), "credential"));
            let local = format_ident!("{}", locals.claim(field_name(&scheme.rust_name)));
            let variant = format_ident!("{}", scheme.rust_name);
            reads.push(quote!(#read(parts)));
            bindings.push(quote!(Some(#local)));
            presented.push(quote!(Credential { scheme: Scheme::#variant, value: &#local }));
        }
        let (pattern, scrutinee) =
            if let ([binding], [read]) = (bindings.as_slice(), reads.as_slice()) {
                (binding.clone(), read.clone())
            } else {
                (quote!((#(#bindings),*)), quote!((#(#reads),*)))
            };
        let call = quote! {
            api.authenticate(Credentials {
                operation_id,
                presented: &presented,
                headers: &parts.headers,
                request_id,
            })
            .await
        };
        let call = if optional {
            quote!(#call.map(Some))
        } else {
            call
        };
        branches.push(quote! {
            if let #pattern = #scrutinee {
                let presented = [#(#presented),*];
                return #call;
            }
        });
    }
    let first = alternatives
        .first()
        .and_then(|schemes| schemes.first())
        .map(|name| scheme_named(name))
        .transpose()?;
    let (property, message) = match (first, alternatives.len()) {
        (Some(scheme), 1) => missing(scheme),
        (Some(scheme), _) => {
            let (property, _) = missing(scheme);
            let described = alternatives
                .iter()
                .filter_map(|schemes| schemes.first())
                .filter_map(|name| scheme_named(name).ok())
                .map(describe)
                .collect::<Vec<_>>()
                .join(", or ");
            (
                property,
                format!("The request has no credential; send {described}.").replace('`', ""),
            )
        }
        (None, _) => (
            "Authorization".to_owned(),
            "The request has no credential.".to_owned(),
        ),
    };
    let (output, end) = if optional {
        (quote!(Option<A::Principal>), quote!(Ok(None)))
    } else {
        (
            quote!(A::Principal),
            quote!(Err(ApiError::missing_credential(#property, #message))),
        )
    };
    let doc = if optional {
        " Authenticates a request that may present a credential: `None` when it presents none."
    } else {
        " Authenticates a request that must present a credential: 401 `InvalidCredential` when it presents none, without calling the hook."
    };
    Ok(quote! {
        #[doc = #doc]
        pub(crate) async fn #name<A: #trait_name>(
            api: &A,
            parts: &Parts,
            operation_id: &'static str,
            request_id: &RequestId,
        ) -> Result<#output, ApiError> {
            #(#branches)*
            #end
        }
    })
}
