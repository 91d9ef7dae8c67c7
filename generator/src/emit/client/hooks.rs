//! The senders of webhooks and callbacks: `WebhookSender` (module
//! `webhooks`) and `CallbackSender` (module `callbacks`), one method per
//! hook, made by the same code as the `Client`'s methods (credentials,
//! retries, errors, answers) from an API whose operations are the hooks.
//!
//! A sender is built for one URL, and every method sends there: the
//! document gives a webhook no URL, and a callback's is known only once the
//! request that names it has come (the server stubs' `callbacks::urls`
//! builds it).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::operations::{self, Owner};
use crate::emit::{Context, docs};
use crate::error::Result;
use crate::ir::Operation;

/// The senders' modules, by their file under `src/` (`webhooks`,
/// `callbacks`), for the hooks `cx`'s API has.
pub(super) fn modules(cx: &Context<'_>) -> Result<Vec<(&'static str, TokenStream)>> {
    let groups = [
        (
            "webhooks",
            Owner {
                name: "WebhookSender",
                path: "crate::webhooks::WebhookSender",
            },
            cx.api.webhooks.clone(),
            "the document's webhooks, to a user of the API that subscribed to them",
        ),
        (
            "callbacks",
            Owner {
                name: "CallbackSender",
                path: "crate::callbacks::CallbackSender",
            },
            cx.api.callback_operations(),
            "the operations' callbacks, to the URL a request to the API named",
        ),
    ];
    let mut out = Vec::new();
    for (module, owner, mut hooks, what) in groups {
        if hooks.is_empty() {
            continue;
        }
        // A sender sends to the URL it is built with, as it is.
        for op in &mut hooks {
            op.path = String::new();
        }
        let hooks_api = cx.api.with_operations(hooks);
        let hooks_cx = Context {
            api: &hooks_api,
            target: cx.target,
            command: cx.command,
            client_example: None,
        };
        let plans = operations::plan_for(&hooks_cx, owner)?;
        let (body, imports) = operations::methods_and_types(&hooks_cx, &plans, owner);
        out.push((
            module,
            sender_tokens(owner, what, &hooks_api.operations, body, imports),
        ));
    }
    Ok(out)
}

fn sender_tokens(
    owner: Owner,
    what: &str,
    hooks: &[Operation],
    body: TokenStream,
    imports: TokenStream,
) -> TokenStream {
    let name = format_ident!("{}", owner.name);
    let module_doc = docs::inner_attrs(&[format!(
        "The sender of {what}: [`{}`], one method per operation ({}).",
        owner.name,
        hooks
            .iter()
            .map(|op| format!("`{}`", op.id))
            .collect::<Vec<_>>()
            .join(", ")
    )]);
    let doc = docs::attrs(&[
        format!(
            "Sends {what}: one async method per operation, each sending its request to the URL the sender was built with, exactly."
        ),
        String::new(),
        "Cheap to clone: clones share the connection pool and the settings. `Debug` shows the \
         settings, never a credential."
            .to_owned(),
    ]);
    quote! {
        #module_doc

        use std::fmt;

        #imports
        use openapi_runtime::client::Transport;

        use crate::ClientBuilder;

        #doc
        #[derive(Clone)]
        pub struct #name {
            transport: Transport,
        }

        impl #name {
            /// A sender to `url` (every method sends its request there), with the settings of
            /// `builder`: its credentials, time-out, retries, `User-Agent` and HTTP client; not
            /// its environment, which `url` replaces.
            ///
            /// # Errors
            ///
            /// [`Error::InvalidInput`](crate::Error::InvalidInput) when `url` is not an `http` or
            /// `https` URL, or a credential cannot be sent in a header;
            /// [`Error::Transport`](crate::Error::Transport) when the HTTP client cannot be
            /// created.
            pub fn new(url: &str, mut builder: ClientBuilder) -> Result<Self, crate::Error> {
                let user_agent = concat!(env!("CARGO_PKG_NAME"), "/", env!("CARGO_PKG_VERSION"));
                builder.settings.error_fields(crate::ERROR_FIELDS);
                Ok(#name {
                    transport: builder.settings.build(url, user_agent)?,
                })
            }

            /// The URL the sender sends to, without a trailing `/`.
            pub fn base_url(&self) -> &str {
                self.transport.base_url()
            }
        }

        impl fmt::Debug for #name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.transport.fmt(f)
            }
        }

        #body
    }
}
