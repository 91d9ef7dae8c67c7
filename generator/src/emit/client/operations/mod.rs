//! The operations: one async method of `Client` per operation, the types of
//! their optional inputs (`{Prefix}Params`) and of their answers when they
//! have several (`{Prefix}Response`), and the stream helpers of paged
//! listings.
//!
//! [`planning`] decides, once per operation, what the method takes and
//! returns (its [`Plan`]); the code and the README are both made from the plans.
//!
//! - [`plan`]: what a plan holds;
//! - [`planning`]: making the plans, and each input's place and type;
//! - [`answers`]: the statuses that are results and how their bodies are read;
//! - [`method`]: the method of one plan, request and answer;
//! - [`method_docs`]: that method's documentation;
//! - [`types`]: the params, form, response and headers types of an operation;
//! - [`stream`]: the stream helper of a paged listing.

mod answers;
mod method;
mod method_docs;
mod plan;
mod planning;
mod stream;
mod types;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::emit::{Context, docs};

use method::method;
pub(super) use method_docs::{first_sentence, summary};
pub(super) use plan::{Owner, Plan, result_type, rust_types};
pub(super) use planning::{plan, plan_for};
pub(super) use stream::stream_args;
use stream::stream_method;
use types::types_of;

/// The `operations` module.
pub(super) fn module(cx: &Context<'_>, plans: &[Plan<'_>]) -> TokenStream {
    let doc = docs::inner_attrs(&[
        "The operations: one method of [`Client`] each, with the types of their optional inputs"
            .to_owned(),
        "(`…Params`) and of their answers when they have several (`…Response`).".to_owned(),
    ]);
    let (body, imports) = methods_and_types(cx, plans, Owner::CLIENT);
    quote! {
        #doc
        #imports

        use crate::Client;

        #body
    }
}

/// The methods of `plans` (an `impl` of `owner`) and their types, and the
/// imports of the runtime's items they name.
pub(super) fn methods_and_types(
    cx: &Context<'_>,
    plans: &[Plan<'_>],
    owner: Owner,
) -> (TokenStream, TokenStream) {
    let methods = plans.iter().map(|plan| method(cx, plan));
    let streams = plans.iter().filter_map(|plan| stream_method(plan));
    let types = plans.iter().map(types_of);
    let owner = format_ident!("{}", owner.name);
    let body = quote! {
        impl #owner {
            #(#methods)*
            #(#streams)*
        }

        #(#types)*
    };
    // The runtime's items the methods name, in rustfmt's order.
    let named = crate::emit::idents(&body);
    let runtime: Vec<Ident> = [
        "Call",
        "Envelope",
        "EventData",
        "Events",
        "JsonText",
        "Multipart",
        "PathStyle",
        "Response",
        "Scheme",
        "Style",
        "paging",
        "read_header",
    ]
    .into_iter()
    .filter(|name| named.contains(*name))
    .map(|name| format_ident!("{name}"))
    .collect();
    let runtime = match runtime.as_slice() {
        [] => TokenStream::new(),
        [one] => quote!(use openapi_runtime::client::#one;),
        many => quote!(use openapi_runtime::client::{#(#many),*};),
    };
    // Multipart bodies' files are the runtime's, re-exported at the crate's root.
    let file = named.contains("File").then(|| {
        quote! {
            /// A file of a multipart body.
            pub use openapi_runtime::client::File;
        }
    });
    let parts = named.contains("Parts").then(|| {
        quote! {
            /// The parts of a multipart body whose document does not list them.
            pub use openapi_runtime::client::{Part, Parts};
        }
    });
    (
        body,
        quote! {
            #runtime
            #file
            #parts
        },
    )
}

#[cfg(test)]
mod tests {
    use crate::emit::idents;
    use quote::quote;

    /// The runtime items a module names on their own are imported; a name
    /// after `::` is another module's (a schema named `Style`), and an
    /// import of it would be unused.
    #[test]
    fn only_names_outside_a_path_count_as_used() {
        let tokens = quote! {
            fn f(style: Style, body: &crate::models::Envelope) -> Result<Response<crate::models::Events>, E> {
                __call.query("q", &q, Style::Comma, true);
            }
        };
        let found = idents(&tokens);
        for used in ["Style", "Response", "Result"] {
            assert!(found.contains(used), "{used} not found");
        }
        for pathed in ["Envelope", "Events"] {
            assert!(!found.contains(pathed), "{pathed} taken for the runtime's");
        }
    }
}
