//! An error schema's table ([`ErrorTable`](crate::ir::ErrorTable)) as the
//! runtime's `error_fields::Field`s: the server stubs write their errors by
//! it, the client reads the error bodies it gets by it.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ir::{ErrorPart, ProblemPart};

/// The table as the runtime's `&[Field]` expression.
pub(super) fn fields_tokens(fields: &[(String, ErrorPart)]) -> TokenStream {
    let entries = fields.iter().map(|(name, part)| {
        let part = part_tokens(part);
        quote!((#name, #part))
    });
    quote!([#(#entries),*])
}

fn part_tokens(part: &ErrorPart) -> TokenStream {
    let runtime = quote!(openapi_runtime::error_fields);
    match part {
        ErrorPart::Status => quote!(#runtime::Part::Status),
        ErrorPart::Title => quote!(#runtime::Part::Title),
        ErrorPart::Message => quote!(#runtime::Part::Message),
        ErrorPart::Code => quote!(#runtime::Part::Code),
        ErrorPart::RequestId => quote!(#runtime::Part::RequestId),
        ErrorPart::Instance => quote!(#runtime::Part::Instance),
        ErrorPart::Timestamp => quote!(#runtime::Part::Timestamp),
        ErrorPart::Text(text) => quote!(#runtime::Part::Text(#text)),
        ErrorPart::Problems(fields) => {
            let entries = fields.iter().map(|(name, part)| {
                let part = match part {
                    ProblemPart::Property => quote!(Property),
                    ProblemPart::Message => quote!(Message),
                    ProblemPart::ErrorCode => quote!(ErrorCode),
                };
                quote!((#name, #runtime::ProblemPart::#part))
            });
            quote!(#runtime::Part::Problems(&[#(#entries),*]))
        }
        ErrorPart::Object(fields) => {
            let table = fields_tokens(fields);
            quote!(#runtime::Part::Object(&#table))
        }
    }
}
