//! The receivers of webhooks and callbacks: each group a module of the
//! crate (`webhooks`, `callbacks`) with a trait, its responses and its
//! router, made by the same code as the API's own (`api`, `responses`,
//! `routes`, `security`) from an API whose operations are the hooks; and
//! for callbacks, the functions that build each one's URL from the request
//! of the operation that declares it (`callbacks::urls`).

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::context::{RUNTIME, Server, spread_modules};
use super::{api, responses, routes, security};
use crate::emit::{Context, RustTypes, docs};
use crate::error::Result;
use crate::ir::{Api, BodyKind, Callback, UrlPart};

/// A group of hooks: its module and what its docs call it.
pub(super) struct Group {
    /// The module (`webhooks`).
    pub module: &'static str,
    /// The suffix of its trait's name (`Webhooks`).
    pub suffix: &'static str,
    /// What its module's docs say it is, after "The receiver of".
    pub what: &'static str,
}

/// The webhooks' group.
pub(super) const WEBHOOKS: Group = Group {
    module: "webhooks",
    suffix: "Webhooks",
    what: "the document's webhooks: requests the API's provider sends to its users. \
           Each webhook is mounted at `/<webhook name>`",
};

/// The callbacks' group.
pub(super) const CALLBACKS: Group = Group {
    module: "callbacks",
    suffix: "Callbacks",
    what: "the operations' callbacks: requests the API's server sends to the URL a request \
           to it named. Each callback is mounted at `/<callback name>`",
};

/// The modules of `group`, by their path under the crate's source folder
/// (`webhooks`, `webhooks/api`, …): `hooks_api` is the API with the hooks
/// as its operations.
pub(super) fn modules(
    cx: &Context<'_>,
    types: &RustTypes<'_>,
    hooks_api: &Api,
    group: &Group,
) -> Result<Vec<(String, TokenStream)>> {
    let hooks_cx = Context {
        api: hooks_api,
        target: cx.target,
        command: cx.command,
        client_example: None,
    };
    let server = Server::hooks(&hooks_cx, types, group.suffix, group.module)?;
    let module = group.module;
    let mut out = vec![
        (format!("{module}/api"), api::tokens(&server)?),
        (format!("{module}/responses"), responses::tokens(&server)?),
        (format!("{module}/routes"), routes::tokens(&server)?),
    ];
    if server.has_security {
        out.push((format!("{module}/security"), security::tokens(&server)?));
    }
    let urls = (group.module == CALLBACKS.module).then(|| urls_tokens(cx));
    let has_urls = urls.as_ref().is_some_and(|urls| !urls.is_empty());
    if let Some(urls) = urls.filter(|urls| !urls.is_empty()) {
        out.push((format!("{module}/urls"), urls));
    }
    out.push((
        module.to_owned(),
        module_tokens(cx, &server, group, has_urls),
    ));
    Ok(out)
}

/// The group's module: its modules, and the crate's that theirs name.
fn module_tokens(
    cx: &Context<'_>,
    server: &Server<'_>,
    group: &Group,
    has_urls: bool,
) -> TokenStream {
    let base = cx.server_root();
    let trait_name = &server.trait_name;
    let mut lines = vec![
        format!(
            "The receiver of {}: implement [`{trait_name}`], one method per operation, and \
             serve [`router`]`(api)`, nested where the URL given to the sender points.",
            group.what
        ),
        String::new(),
        "The router reads and checks each request as the API's own router does (parameters, \
         body, media types, credentials), and answers errors in [`ErrorBodyFormat`]."
            .to_owned(),
    ];
    if has_urls {
        lines.extend([
            String::new(),
            "[`urls`] builds each callback's URL from the request of the operation that \
             declares it, for the API's server to send the callback to."
                .to_owned(),
        ]);
    }
    let doc = docs::inner_attrs(&lines);
    let mut modules: Vec<Ident> = ["api", "responses", "routes"]
        .map(|m| format_ident!("{m}"))
        .to_vec();
    if server.has_security {
        modules.push(format_ident!("security"));
    }
    if has_urls {
        modules.push(format_ident!("urls"));
    }
    modules.sort();
    let runtime = RUNTIME.iter().map(|m| format_ident!("{}", m));
    let spread = spread_modules(server);
    let responses = (!server.ops.is_empty()).then(|| {
        quote!(
            pub use responses::*;
        )
    });
    let security = server.has_security.then(|| {
        quote!(
            pub use security::{Credential, Credentials, Scheme};
        )
    });
    let urls = has_urls.then(|| {
        quote!(
            pub use urls::*;
        )
    });
    quote! {
        #doc

        #(#[rustfmt::skip] pub mod #modules;)*

        /// The runtime's modules every router shares, named from here as from the crate's root.
        pub use #base::{#(#runtime),*};
        #spread

        /// The API's error format, which this router renders its errors in too.
        pub use #base::ErrorBodyFormat;

        pub use api::*;
        #responses
        pub use routes::{router, router_with};
        #security
        #urls
    }
}

/// The `urls` module: one function per callback whose URL expression the
/// request resolves. Empty when there is none.
fn urls_tokens(cx: &Context<'_>) -> TokenStream {
    let api = cx.api;
    let root = cx.server_root();
    let routed = crate::ir::repeats_a_route(&api.operations);
    let fns: Vec<TokenStream> = api
        .callbacks
        .iter()
        .filter(|callback| !routed.get(callback.owner).copied().unwrap_or(true))
        .filter_map(|callback| url_fn(api, &root, callback))
        .collect();
    if fns.is_empty() {
        return TokenStream::new();
    }
    let body = quote!(#(#fns)*);
    let json = super::context::uses_ident(body.clone(), "serde_json");
    let helper = json.then(|| {
        quote! {
            /// A value as it is written into a URL: text as it is, a number or a boolean as
            /// JSON writes it; `None` for anything else (`null`, an array, an object).
            fn text(value: &models::serde_json::Value) -> Option<String> {
                match value {
                    models::serde_json::Value::String(text) => Some(text.clone()),
                    models::serde_json::Value::Number(number) => Some(number.to_string()),
                    models::serde_json::Value::Bool(flag) => Some(flag.to_string()),
                    _ => None,
                }
            }
        }
    });
    let import = json.then(|| {
        quote!(
            use crate::models;
        )
    });
    let doc = docs::inner_attrs(&[
        "The URL of each callback, built from the request of the operation that declares it, \
         for the API's server to send the callback to."
            .to_owned(),
    ]);
    quote! {
        #doc

        #import

        #body

        #helper
    }
}

/// The function that builds `callback`'s URL, when its expression resolves.
fn url_fn(api: &Api, root: &TokenStream, callback: &Callback) -> Option<TokenStream> {
    let parts = callback.url.as_ref()?;
    let owner = api.operations.get(callback.owner)?;
    let request = format_ident!("{}Request", owner.type_prefix);
    let fn_name = format_ident!("{}", callback.url_fn);
    let has = |f: fn(&UrlPart) -> bool| parts.iter().any(f);
    let body_json = has(|p| matches!(p, UrlPart::Body(_)));
    let headers = has(|p| matches!(p, UrlPart::Header(_)));
    let reads_request = body_json || has(|p| matches!(p, UrlPart::Param(_)));
    let body = body_json.then(|| {
        quote!(
            let body = models::serde_json::to_value(&request.body).ok()?;
        )
    });
    let pushes = parts.iter().map(|part| match part {
        UrlPart::Literal(text) => quote!(url.push_str(#text);),
        UrlPart::Body(pointer) => quote!(url.push_str(&text(body.pointer(#pointer)?)?);),
        UrlPart::Param(field) => {
            let field = format_ident!("{field}");
            quote!(url.push_str(&text(&models::serde_json::to_value(&request.#field).ok()?)?);)
        }
        UrlPart::Header(name) => quote!(url.push_str(headers.get(#name)?.to_str().ok()?);),
    });
    let headers_arg = headers.then(|| quote!(, headers: &http::HeaderMap));
    let unused = (!reads_request).then(|| quote!(let _ = request;));
    let doc = docs::attrs(&[
        format!(
            "The URL to send the callback `{}` of `{}` to: `{}`, from `request`{}.",
            callback.name,
            owner.id,
            callback.expression,
            if headers {
                " and the request's `headers`"
            } else {
                ""
            }
        ),
        String::new(),
        "`None` when a value it names is absent, or is not text, a number or a boolean.".to_owned(),
    ]);
    let json_body = owner
        .body
        .as_ref()
        .is_some_and(|b| matches!(b.kind, BodyKind::Json(_) | BodyKind::Text));
    if body_json && !json_body {
        return None;
    }
    Some(quote! {
        #doc
        pub fn #fn_name(request: &#root::api::#request #headers_arg) -> Option<String> {
            #unused
            #body
            let mut url = String::new();
            #(#pushes)*
            Some(url)
        }
    })
}
