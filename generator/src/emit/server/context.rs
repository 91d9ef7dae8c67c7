//! What every module of the server emitter reads: the API read once for the
//! server ([`Server`]), each operation as the server sees it ([`Op`]), how it
//! is authenticated ([`Auth`]), and the header and media-type spellings they
//! share.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::emit::{Context, RustTypes};
use crate::error::{Error, Result};
use crate::ir::{BodyKind, Operation, Parameter, Response, Ty};
use crate::names::{Namespace, type_name};
use crate::parse::Pointer;

/// The modules of the runtime's server feature, re-exported by name so that
/// the generated modules and dependants say `crate::params`, `crate::error`.
pub(super) const RUNTIME: &[&str] = &[
    "body",
    "error",
    "negotiation",
    "params",
    "request_id",
    "respond",
    "settings",
];

/// What the server emitters share: the API read once for the server's needs.
pub(crate) struct Server<'a> {
    pub cx: &'a Context<'a>,
    pub types: &'a RustTypes<'a>,
    /// The trait's name.
    pub trait_name: Ident,
    /// Whether some operation has security: then the trait has an
    /// authentication hook and a `Principal`.
    pub has_security: bool,
    /// The operations, with what the server makes of them.
    pub ops: Vec<Op<'a>>,
    /// The headers every operation takes, in the request context.
    pub common: Vec<CommonHeader<'a>>,
    /// How the generated modules name the root of theirs (their siblings,
    /// the runtime's modules, `ErrorBodyFormat`): [`Context::server_root`],
    /// or a module of hooks under it.
    pub root: TokenStream,
    /// [`Server::root`] as documentation links write it.
    pub root_text: String,
    /// For the server of hooks, what they are (`webhooks`).
    pub hooks: Option<&'static str>,
}

/// A header every operation takes, lifted into the request context.
pub(crate) struct CommonHeader<'a> {
    pub param: &'a Parameter,
    /// Its field in the context (and its local variable in handlers).
    pub field: String,
}

/// How an operation is authenticated.
#[derive(Clone, PartialEq, Eq)]
pub(crate) enum Auth {
    /// No security: the context's principal is `()`.
    None,
    /// A credential is required: the principal is the API's `Principal`.
    Required(Vec<Vec<String>>),
    /// A credential is optional: the principal is `Option<Principal>`.
    Optional(Vec<Vec<String>>),
}

/// One operation, as the server sees it.
pub(crate) struct Op<'a> {
    pub op: &'a Operation,
    /// The name of the function that reads its request and calls the
    /// implementation (`handle_list`).
    pub handle: String,
    /// Its parameters other than the common headers.
    pub params: Vec<&'a Parameter>,
    /// The responses its method answers with (all but the error responses
    /// when the target names the error schema).
    pub variants: Vec<&'a Response>,
    /// The media types of those responses, in the document's order, without
    /// repeats: what `Accept` is negotiated among.
    pub offered: Vec<String>,
    pub auth: Auth,
}

impl<'a> Server<'a> {
    pub(super) fn new(cx: &'a Context<'a>, types: &'a RustTypes<'a>) -> Result<Self> {
        let api = cx.api;
        let error_type = match &cx.target.error_schema {
            Some(schema) => Some(
                api.types
                    .iter()
                    .find(|t| t.schema_name.as_deref() == Some(schema.as_str()))
                    .map(|t| t.name.clone())
                    .ok_or_else(|| {
                        Error::invalid(
                            &api.source,
                            &Pointer::root().push("components").push("schemas"),
                            format!("the codegen settings name `{schema}` as the error schema, but the document has no such schema"),
                        )
                    })?,
            ),
            None => None,
        };
        let is_error = |response: &Response| match (&error_type, &response.body) {
            (Some(error), Some(BodyKind::Json(shape))) => {
                matches!(&shape.ty, Ty::Named(name) if name == error)
            }
            _ => false,
        };
        let has_security = api.operations.iter().any(|op| {
            op.security
                .iter()
                .any(|requirement| !requirement.schemes.is_empty())
        });
        let mut fields = crate::names::Namespace::with_reserved(&[
            "request_id",
            "operation_id",
            "principal",
            "headers",
            "extensions",
        ]);
        let common: Vec<CommonHeader<'a>> = api
            .common_headers
            .iter()
            .map(|param| CommonHeader {
                param,
                field: fields.claim(param.field.clone()),
            })
            .collect();
        // An operation whose method and path another one has already (the
        // paths differing in parameter names only: a document mistake, noted
        // by `lower`) could never be reached: the server stubs serve the first.
        let repeats = crate::ir::repeats_a_route(&api.operations);
        // Each route's function is the operation's name; the function that
        // reads its request gets `handle_` before it, unless another
        // operation is named that (`list` beside `handleList`).
        let route_fns: Vec<&str> = api
            .operations
            .iter()
            .map(|op| op.fn_name.as_str())
            .collect();
        let mut fns = Namespace::with_reserved(&route_fns);
        let ops = api
            .operations
            .iter()
            .zip(repeats)
            .filter_map(|(op, repeats)| (!repeats).then_some(op))
            .map(|op| {
                let variants: Vec<&Response> =
                    op.responses.iter().filter(|r| !is_error(r)).collect();
                let mut offered: Vec<String> = Vec::new();
                for response in &variants {
                    if response.body.is_some() {
                        for media_type in &response.media_types {
                            if !offered.contains(media_type) {
                                offered.push(media_type.clone());
                            }
                        }
                    }
                }
                let alternatives: Vec<Vec<String>> = op
                    .security
                    .iter()
                    .filter(|r| !r.schemes.is_empty())
                    .map(|r| r.schemes.clone())
                    .collect();
                let auth = if alternatives.is_empty() {
                    Auth::None
                } else if op.is_authenticated() {
                    Auth::Required(alternatives)
                } else {
                    Auth::Optional(alternatives)
                };
                Op {
                    op,
                    handle: fns.claim(format!("handle_{}", op.fn_name)),
                    params: op
                        .params
                        .iter()
                        .filter(|p| !api.is_common_header(p))
                        .collect(),
                    variants,
                    offered,
                    auth,
                }
            })
            .collect();
        let trait_name = match &cx.target.trait_name {
            Some(name) => name.clone(),
            None => {
                let base = type_name(&api.title);
                let base = base.strip_suffix("Api").unwrap_or(&base);
                format!("{base}Api")
            }
        };
        if syn::parse_str::<Ident>(&trait_name).is_err() {
            return Err(Error::Config {
                file: "codegen settings".to_owned(),
                message: format!("`{trait_name}` cannot name a Rust trait"),
            });
        }
        Ok(Server {
            cx,
            types,
            trait_name: format_ident!("{}", trait_name),
            has_security,
            ops,
            common,
            root: cx.server_root(),
            root_text: cx.server_root_text().to_owned(),
            hooks: None,
        })
    }

    /// The server of hooks (webhooks or callbacks): `cx` reads an API whose
    /// operations are the hooks; the trait is named after the API's trait
    /// with `suffix` (`ShopWebhooks`), and the modules are under `module`
    /// of the crate's root.
    pub(super) fn hooks(
        cx: &'a Context<'a>,
        types: &'a RustTypes<'a>,
        suffix: &str,
        module: &'static str,
    ) -> Result<Self> {
        let mut server = Server::new(cx, types)?;
        let api_trait = server.trait_name.to_string();
        let base = api_trait.strip_suffix("Api").unwrap_or(&api_trait);
        server.trait_name = format_ident!("{base}{suffix}");
        let module_ident = format_ident!("{module}");
        let root = &server.root;
        server.root = quote!(#root::#module_ident);
        server.root_text = format!("{}::{module}", server.root_text);
        server.hooks = Some(module);
        Ok(server)
    }

    /// The document, as messages name it.
    pub fn source(&self) -> &str {
        &self.cx.api.source
    }

    /// `models` when `tokens` use the models crate: the `use` that brings it in.
    pub fn models_import(tokens: &TokenStream) -> TokenStream {
        if uses_ident(tokens.clone(), "models") {
            quote!(
                use crate::models;
            )
        } else {
            TokenStream::new()
        }
    }
}

impl Op<'_> {
    /// The principal type of the operation's context, spelled in the trait.
    pub fn principal(&self, server: &Server<'_>) -> TokenStream {
        if !server.has_security {
            return TokenStream::new();
        }
        match self.auth {
            Auth::None => quote!(<()>),
            Auth::Required(_) => quote!(<Self::Principal>),
            Auth::Optional(_) => quote!(<Option<Self::Principal>>),
        }
    }

    /// `POST /path (operationId)`, for documentation.
    pub fn signature_line(&self) -> String {
        format!(
            "`{} {}` (`{}`)",
            self.op.method.as_str(),
            self.op.path_key(),
            self.op.id
        )
    }

    pub fn request_type(&self) -> Ident {
        format_ident!("{}Request", self.op.type_prefix)
    }

    pub fn response_type(&self) -> Ident {
        format_ident!("{}Response", self.op.type_prefix)
    }

    pub fn fn_name(&self) -> Ident {
        format_ident!("{}", self.op.fn_name)
    }

    /// The trait method checking the body's `x-rules`.
    pub fn rules_fn_name(&self) -> Ident {
        format_ident!("{}", self.op.rules_method_name())
    }
}

/// Whether the identifier `name` occurs in `tokens`.
pub(super) fn uses_ident(tokens: TokenStream, name: &str) -> bool {
    tokens.into_iter().any(|tree| match tree {
        proc_macro2::TokenTree::Ident(ident) => ident == name,
        proc_macro2::TokenTree::Group(group) => uses_ident(group.stream(), name),
        _ => false,
    })
}

/// A header name as `HeaderName::from_static` takes it (lower-case), or
/// `None` when it is not a valid HTTP header name.
pub(crate) fn header_name(wire: &str) -> Option<String> {
    crate::ir::is_header_name(wire).then(|| wire.to_ascii_lowercase())
}

/// The concrete media type to send a body of `kind` with, when the document
/// only gives a wildcard.
pub(crate) fn concrete_media_type(kind: &BodyKind) -> &'static str {
    match kind {
        BodyKind::Json(_) => "application/json",
        BodyKind::Text => "text/plain",
        BodyKind::Binary => "application/octet-stream",
        BodyKind::Form(_) => "application/x-www-form-urlencoded",
        BodyKind::Multipart(_) => "multipart/form-data",
        BodyKind::Sequence(_) => "application/jsonl",
    }
}

/// The runtime's modules of bodies and parameters spread over several parts
/// or pairs, re-exported for the APIs that have them.
pub(super) fn spread_modules(server: &Server<'_>) -> Option<TokenStream> {
    let spread: Vec<Ident> = [
        (
            "multipart",
            server.ops.iter().any(|op| {
                matches!(
                    op.op.body.as_ref().map(|b| &b.kind),
                    Some(BodyKind::Multipart(_))
                )
            }),
        ),
        (
            "object_params",
            server
                .ops
                .iter()
                .any(|op| op.params.iter().any(|p| p.object)),
        ),
    ]
    .into_iter()
    .filter(|(_, used)| *used)
    .map(|(module, _)| format_ident!("{}", module))
    .collect();
    (!spread.is_empty()).then(|| {
        quote!(
            /// The runtime's modules of multipart bodies and object parameters.
            pub use openapi_runtime::server::{#(#spread),*};
        )
    })
}
