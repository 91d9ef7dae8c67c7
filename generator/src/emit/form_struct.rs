//! The struct of a multipart body's parts, which the client builds to send
//! and the server stubs build from what they read. Both build it the way
//! models are built: `new` with the required parts, a `with_<part>` setter
//! per optional one, and `#[non_exhaustive]`, so that a part the document
//! adds later is a new setter rather than a field every struct literal and
//! pattern would have to name.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::docs;
use crate::ir::{Files, FormPart};

/// One part, as a field of the struct.
pub(crate) struct PartField {
    pub ident: Ident,
    /// The field's doc attributes.
    pub doc: TokenStream,
    /// The type of one value: what `new` and the setter take `impl Into` of.
    pub inner: TokenStream,
    /// The part may be left out (or is nullable).
    pub optional: bool,
    /// The part repeats, once per file: the field is a `Vec`, empty when
    /// left out, and `inner` is that `Vec`.
    pub many: bool,
}

impl PartField {
    /// The field of `part`: a file as `file`, files that repeat as a `Vec`
    /// of them, any other part as `value` (the models' type of its schema).
    /// Never boxed, even where the schema's own struct boxes the field:
    /// the form struct holds models, never itself.
    pub(crate) fn of(part: &FormPart<'_>, file: TokenStream, value: TokenStream) -> Self {
        let field = part.field;
        let (inner, fallback) = match part.files {
            Some(Files::One) => (file, format!("The file of the `{}` part.", field.wire)),
            Some(Files::Many) => (
                quote!(Vec<#file>),
                format!("The files of the `{}` part, a part per file.", field.wire),
            ),
            None => (value, format!("The `{}` part.", field.wire)),
        };
        PartField {
            ident: format_ident!("{}", field.name),
            doc: docs::doc_attrs(&field.docs, &fallback),
            inner,
            optional: !field.required || field.shape.nullable,
            many: part.files == Some(Files::Many),
        }
    }
}

/// The struct `ty` with `doc` and `derives` (to which `Default` is added
/// when every part is optional), its `new` and its setters.
pub(crate) fn tokens(
    ty: &Ident,
    doc: TokenStream,
    derives: TokenStream,
    parts: &[PartField],
) -> TokenStream {
    let mut fields = Vec::new();
    let mut required = Vec::new();
    let mut initial = Vec::new();
    let mut setters = Vec::new();
    for part in parts {
        let PartField {
            ident,
            doc,
            inner,
            optional,
            many,
        } = part;
        let field_ty = if *optional && !many {
            quote!(Option<#inner>)
        } else {
            inner.clone()
        };
        fields.push(quote!(#doc pub #ident: #field_ty,));
        if *optional {
            let (empty, value) = if *many {
                (quote!(Vec::new()), quote!(value.into()))
            } else {
                (quote!(None), quote!(Some(value.into())))
            };
            initial.push(quote!(#ident: #empty));
            let setter = format_ident!("with_{}", ident);
            let doc = docs::attrs(&[format!("Sets `{ident}`.")]);
            setters.push(quote! {
                #doc
                #[must_use]
                pub fn #setter(mut self, value: impl Into<#inner>) -> Self {
                    self.#ident = #value;
                    self
                }
            });
        } else {
            required.push(quote!(#ident: impl Into<#inner>));
            initial.push(quote!(#ident: #ident.into()));
        }
    }
    let new_doc =
        docs::attrs(&["A body with the required parts; the others are left out.".to_owned()]);
    let allow = crate::emit::too_many_arguments(required.len())
        .then(|| quote!(#[allow(clippy::too_many_arguments)]));
    // Every part optional: the empty body is the default.
    let default = required.is_empty().then(|| quote!(, Default));
    quote! {
        #doc
        #[derive(#derives #default)]
        #[non_exhaustive]
        pub struct #ty {
            #(#fields)*
        }

        impl #ty {
            #new_doc
            #allow
            pub fn new(#(#required),*) -> Self {
                #ty { #(#initial),* }
            }

            #(#setters)*
        }
    }
}
