//! Parameters with an `x-dynamic-query` extension: the handler reads and
//! checks their text like any string parameter, then parses it into the
//! models crate's query type (`ReturnsQuery`, …). The implementation
//! receives the query typed; a text that does not parse is a 400
//! `InvalidDynamicQuery` naming the parameter, listed with the request's
//! other problems, before the method is called.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::context::Server;
use crate::emit::docs;
use crate::ir::Parameter;

/// The Rust type of the request field of `param`, when it carries a query.
pub(crate) fn field_type(server: &Server<'_>, param: &Parameter) -> Option<TokenStream> {
    let ty = query_type(server, param)?;
    Some(if param.required {
        ty
    } else {
        quote!(Option<#ty>)
    })
}

/// What the request field's documentation adds: the field is parsed.
pub(crate) fn field_doc(param: &Parameter) -> TokenStream {
    let Some(query) = &param.dynamic_query else {
        return TokenStream::new();
    };
    docs::attrs(&[
        String::new(),
        format!(
            "Parsed into [`{}`](crate::models::{}) before the method is called: a text that \
             does not parse is a 400 `InvalidDynamicQuery` naming `{}`.",
            query.name, query.name, param.wire
        ),
    ])
}

/// `let local: Option<Query> = …;` parsing the parameter's text in `local`
/// (an `Option<String>` whose checks have run), adding a problem to
/// `report` when it does not parse. Nothing for other parameters.
pub(crate) fn parse(server: &Server<'_>, param: &Parameter, local: &Ident) -> TokenStream {
    let Some(ty) = query_type(server, param) else {
        return TokenStream::new();
    };
    let wire = &param.wire;
    quote! {
        let #local: Option<#ty> = params::dynamic_query(#local, #wire, &mut report);
    }
}

fn query_type(server: &Server<'_>, param: &Parameter) -> Option<TokenStream> {
    let query = param.dynamic_query.as_ref()?;
    Some((server.types.named)(&query.name))
}
