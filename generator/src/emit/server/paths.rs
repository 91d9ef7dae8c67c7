//! The document's path templates as axum routes.
//!
//! axum's router takes a parameter only as the whole of a segment or at its
//! end (`/files/{name}`, `/v{version}`), and refuses two routes that differ
//! only in their parameters' names. A template with fixed text after a
//! parameter (`/files/{name}.json`), or with several parameters in one
//! segment (`/{name}-{version}.zip`), is routed as if one parameter filled
//! the rest of that segment; templates that come to the same route share
//! it, and each method's handler checks which of them the request's path
//! fits (`params::path_fits`), the one with the most fixed text first.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ir::{FixedPair, ParamLocation, template_shape};

/// The route axum is given for `template`, and whether the route matches
/// paths the template does not describe, which the handler must then turn
/// away.
pub(crate) fn axum_route(template: &str) -> (String, bool) {
    let mut narrower = false;
    let segments: Vec<String> = template
        .split('/')
        .map(|segment| {
            let Some(close) = segment.find('{').and_then(|_| segment.find('}')) else {
                return segment.to_owned();
            };
            if close + 1 == segment.len() {
                // One parameter, at the end: axum takes it as it is.
                return segment.to_owned();
            }
            // The fixed text before the first parameter, and that parameter.
            narrower = true;
            segment[..=close].to_owned()
        })
        .collect();
    (segments.join("/"), narrower)
}

/// How much fixed text `template` has: of the templates a path fits, the
/// one with the most is the one meant (`/files/{name}.json` before
/// `/files/{id}`).
pub(crate) fn fixed_len(template: &str) -> usize {
    template_shape(template)
        .chars()
        .filter(|c| !matches!(c, '{' | '}'))
        .count()
}

/// An operation a method's handler on a shared route may hand a request to.
pub(crate) struct Candidate<'a> {
    /// Its path template.
    pub template: &'a str,
    /// Whether the route matches paths the template does not describe.
    pub narrower: bool,
    /// The fixed pairs of its path's key, which the request must carry.
    pub pairs: &'a [FixedPair],
    /// Its handler.
    pub handler: TokenStream,
}

/// The body of a method's handler on a route several templates share, or
/// that is wider than its one template, or whose operations are told apart
/// by the fixed pairs of their keys: each candidate's handler in turn, for
/// the first whose template the path fits and whose pairs the request
/// carries; 404 when there is none. `candidates` are the most specific
/// first. `root` names the server stubs' root (`crate`).
pub(crate) fn dispatch(candidates: &[Candidate<'_>], root: &TokenStream) -> TokenStream {
    let mut arms = TokenStream::new();
    for candidate in candidates {
        let handler = &candidate.handler;
        let template = candidate.template;
        let mut checks: Vec<TokenStream> = Vec::new();
        if candidate.narrower {
            checks.push(quote!(params::path_fits(request.uri().path(), #template)));
        }
        for pair in candidate.pairs {
            let name = &pair.name;
            let value = match &pair.value {
                Some(value) => quote!(Some(#value)),
                None => quote!(None),
            };
            checks.push(if pair.declared == Some(ParamLocation::Header) {
                let name = name.to_ascii_lowercase();
                quote!(params::header_carries(request.headers(), #name, #value))
            } else {
                quote!(params::query_carries(request.uri().query(), #name, #value))
            });
        }
        if checks.is_empty() {
            // It takes every request the route matches: nothing after it is reached.
            arms.extend(quote!(#handler(state, request).await));
            return arms;
        }
        arms.extend(quote! {
            if #(#checks)&&* {
                return #handler(state, request).await;
            }
        });
    }
    arms.extend(quote!(
        respond::route_not_found::<#root::ErrorBodyFormat>(request).await
    ));
    arms
}

#[cfg(test)]
mod tests {
    use super::{axum_route, fixed_len};
    use crate::ir::template_shape as shape;

    #[test]
    fn a_segment_with_text_after_its_parameter_is_routed_as_the_parameter() {
        let route = |template| axum_route(template);
        assert_eq!(route("/files/{id}"), ("/files/{id}".to_owned(), false));
        assert_eq!(route("/v{version}/a"), ("/v{version}/a".to_owned(), false));
        assert_eq!(
            route("/files/{name}.json"),
            ("/files/{name}".to_owned(), true)
        );
        assert_eq!(
            route("/p/{name}-{version}.zip"),
            ("/p/{name}".to_owned(), true)
        );
        assert_eq!(
            route("/c/v{base}...{head}/x"),
            ("/c/v{base}/x".to_owned(), true)
        );
        assert_eq!(route("/a/b"), ("/a/b".to_owned(), false));
    }

    #[test]
    fn routes_differing_in_parameter_names_have_one_shape() {
        assert_eq!(shape("/c/{base}"), shape("/c/{basehead}"));
        assert_ne!(shape("/c/{base}"), shape("/c/v{base}"));
        assert_eq!(fixed_len("/c/{base}...{head}"), 6);
        assert_eq!(fixed_len("/c/{basehead}"), 3);
    }
}
