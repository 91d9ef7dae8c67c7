//! The types an operation adds to the `operations` module: its params struct,
//! its form, the enum of its results and the struct of its headers.

use proc_macro2::TokenStream;
use quote::quote;

use crate::emit::docs;
use crate::emit::form_struct::{self, PartField};

use super::method_docs::{field_doc, status_text, summary};
use super::plan::{FormStruct, Plan, rust_types};

/// The params struct and the response enum of an operation.
pub(super) fn types_of(plan: &Plan<'_>) -> TokenStream {
    let fn_name = &plan.fn_ident;
    let (owner, owner_path) = (plan.owner.name, plan.owner.path);
    let form = plan.form.as_ref().map(|form| form_struct(plan, form));
    let params = plan.params.as_ref().map(|params| {
        let ty = &params.ty;
        let doc = docs::attrs(&[
            format!(
                "The optional inputs of [`{owner}::{fn_name}`]({owner_path}::{fn_name}): none by default."
            ),
            String::new(),
            format!(
                "Set them with the methods of the same names, as in `{ty}::default().{}(…)`.",
                params.fields[0].ident
            ),
        ]);
        let fields = params.fields.iter().map(|f| {
            let (ident, ty) = (&f.ident, &f.ty);
            let doc = docs::attrs(&field_doc(&f.ident, f.input));
            quote!(#doc pub #ident: Option<#ty>,)
        });
        let setters = params.fields.iter().map(|f| {
            let (ident, ty) = (&f.ident, &f.ty);
            let doc = docs::attrs(&[format!("Sets `{ident}`.")]);
            let operator = crate::emit::operator_name_allow(&ident.to_string());
            quote! {
                #doc
                #operator
                pub fn #ident(mut self, value: impl Into<#ty>) -> Self {
                    self.#ident = Some(value.into());
                    self
                }
            }
        });
        quote! {
            #doc
            #[derive(Debug, Clone, Default)]
            #[non_exhaustive]
            pub struct #ty {
                #(#fields)*
            }

            impl #ty {
                #(#setters)*
            }
        }
    });
    let response = plan.response_enum.as_ref().map(|name| {
        let doc = docs::attrs(&[format!(
            "What [`{owner}::{fn_name}`]({owner_path}::{fn_name}) answers with: one variant per documented success status."
        )]);
        let variants = plan.successes.iter().map(|s| {
            let variant = &s.variant;
            let what = summary(s.response.docs.description.as_deref().unwrap_or(""));
            let doc = docs::attrs(&[format!(
                "{}: {what}",
                status_text(s.response.status, false)
            )]);
            match &s.payload {
                Some((ty, _)) => quote!(#doc #variant(#ty),),
                None => quote!(#doc #variant,),
            }
        });
        // A large body beside an empty status is what the document says;
        // callers match on it rather than on a box.
        let allow_large = plan
            .successes
            .iter()
            .any(|s| s.payload.is_some())
            .then(|| quote!(#[allow(clippy::large_enum_variant)]));
        quote! {
            #doc
            #[derive(Debug, Clone, PartialEq)]
            #allow_large
            pub enum #name {
                #(#variants)*
            }
        }
    });
    let headers = headers_type(plan);
    quote!(#form #params #response #headers)
}

/// The `{Prefix}Form` struct of a multipart body: public fields (files as
/// [`File`]s, the other parts of the models' types), `new` with the
/// required ones and a `with_*` setter per optional one.
pub(super) fn form_struct(plan: &Plan<'_>, form: &FormStruct<'_>) -> TokenStream {
    let (owner, owner_path) = (plan.owner.name, plan.owner.path);
    let types = rust_types();
    let fn_name = &plan.fn_ident;
    let parts: Vec<PartField> = form
        .parts
        .iter()
        .map(|part| PartField::of(part, quote!(File), types.ty(&part.field.shape.ty)))
        .collect();
    let media_type = plan.op.body.as_ref().map_or_else(
        || "multipart/form-data".to_owned(),
        |body| body.multipart_media_type(),
    );
    let doc = docs::attrs(&[format!(
        "The `{media_type}` body of [`{owner}::{fn_name}`]({owner_path}::{fn_name}): \
         a field per part. Files are sent with their file name and media type."
    )]);
    form_struct::tokens(&form.ty, doc, quote!(Debug, Clone), &parts)
}

/// The `{Prefix}Headers` type: a struct of the headers the successes
/// declare, each `None` when the answer lacks it or it does not parse as its
/// type; an alias of the runtime's `NoHeaders` when they declare none, so
/// that an operation without headers costs no struct (and its derives) of
/// its own, and the name is there for the struct a later header makes.
pub(super) fn headers_type(plan: &Plan<'_>) -> TokenStream {
    let fn_name = &plan.fn_ident;
    let (owner, owner_path) = (plan.owner.name, plan.owner.path);
    let response_fn = &plan.response_fn;
    let ty = &plan.headers_ty;
    let reader = format!(
        "The headers the answers of [`{owner}::{fn_name}`]({owner_path}::{fn_name}) declare, as [`{owner}::{response_fn}`]({owner_path}::{response_fn}) reads them"
    );
    if plan.headers.is_empty() {
        let doc = docs::attrs(&[format!(
            "{reader}: none yet. When the document declares one, this becomes a struct with a field per header."
        )]);
        return quote! {
            #doc
            pub type #ty = crate::NoHeaders;
        };
    }
    let doc = docs::attrs(&[format!(
        "{reader}: each `None` when the answer lacks it or it is not of its type."
    )]);
    let fields = plan.headers.iter().map(|h| {
        let (ident, ty) = (&h.ident, &h.ty);
        let description = h
            .header
            .docs
            .description
            .as_deref()
            .map(summary)
            .unwrap_or_default();
        let doc = docs::attrs(&[format!(
            "`{}`{}{description}",
            h.header.wire,
            if description.is_empty() { "." } else { ": " }
        )]);
        quote!(#doc pub #ident: Option<#ty>,)
    });
    let reads = plan.headers.iter().map(|h| {
        let (ident, wire) = (&h.ident, &h.header.wire);
        quote!(#ident: read_header(headers, #wire),)
    });
    quote! {
        #doc
        #[derive(Debug, Clone, Default, PartialEq)]
        #[non_exhaustive]
        pub struct #ty {
            #(#fields)*
        }

        impl #ty {
            fn read(headers: &reqwest::header::HeaderMap) -> Self {
                Self { #(#reads)* }
            }
        }
    }
}
