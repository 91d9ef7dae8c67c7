//! How the models' own types parse from a parameter's text: `impl FromParam`
//! for each type the IR marks ([`TypeDef::from_param`]), written in the models
//! crate (which owns the types) for the server stubs.
//!
//! [`TypeDef::from_param`]: crate::ir::TypeDef::from_param

use proc_macro2::TokenStream;
use quote::quote;

use crate::emit::{Context, RustTypes};
use crate::ir::TypeKind;

/// The `FromParam` impls of the types parameters read from text (none
/// without a server target, which alone reads parameters).
pub(super) fn from_param_impls(cx: &Context<'_>, types: &RustTypes<'_>) -> TokenStream {
    if cx.target.server.is_none() {
        return TokenStream::new();
    }
    let impls = cx
        .api
        .types
        .iter()
        .filter(|def| def.from_param)
        .filter_map(|def| {
            let name = &def.name;
            let ty = (types.named)(name);
            let body = match &def.kind {
                TypeKind::Enum(_) => quote!(raw.parse().map_err(ParamError::from_enum)),
                TypeKind::Newtype(inner) => {
                    let inner = types.ty(&inner.ty);
                    quote!(<#inner as FromParam>::from_param(raw).map(Self))
                }
                _ => return None,
            };
            let doc = format!(" `{name}` from a parameter's text.");
            Some(quote! {
                #[doc = #doc]
                impl FromParam for #ty {
                    fn from_param(raw: Cow<'_, str>) -> Result<Self, ParamError> {
                        #body
                    }
                }
            })
        });
    quote!(#(#impls)*)
}
