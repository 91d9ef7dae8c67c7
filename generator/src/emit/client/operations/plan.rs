//! The plan of an operation's method: what it takes (positional arguments, a
//! params struct, a form), what it returns (its successes, their enum, the
//! headers they declare) and its helpers (a stream, an events method). Made
//! once by [`planning`](super::planning); the code and the README read it.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::emit::RustTypes;
use crate::ir::{FormPart, Operation, Parameter, RequestBody, Response, ResponseHeader};

/// Names the client's own types take; an operation's types never do.
pub(in crate::emit::client) const RESERVED_TYPES: &[&str] = &[
    "Client",
    "ClientBuilder",
    "Environment",
    "Error",
    "ApiError",
    "FieldProblem",
    "NoHeaders",
    "RetryPolicy",
    "ErrorBody",
    "Response",
];

/// The type whose methods the operations are: the `Client`, or a sender
/// of hooks.
#[derive(Clone, Copy)]
pub(in crate::emit::client) struct Owner {
    /// Its name (`Client`).
    pub name: &'static str,
    /// Its path from the crate's root (`crate::Client`).
    pub path: &'static str,
}

impl Owner {
    /// The API's client.
    pub const CLIENT: Owner = Owner {
        name: "Client",
        path: "crate::Client",
    };
}

/// What one operation's method takes and returns.
pub(in crate::emit::client) struct Plan<'a> {
    pub op: &'a Operation,
    /// The type the method is of.
    pub owner: Owner,
    pub fn_ident: Ident,
    /// The arguments after `&self`, in order (path parameters, then the
    /// other required parameters, then a required body).
    pub args: Vec<Arg<'a>>,
    /// The struct of the optional inputs, when there are any.
    pub params: Option<ParamsStruct<'a>>,
    /// The documented answers that are results, in status order.
    pub successes: Vec<Success<'a>>,
    /// The enum of the results, when there are several.
    pub response_enum: Option<Ident>,
    /// The `Accept` header.
    pub accept: Option<String>,
    /// The stream helper, for a paged listing.
    pub stream: Option<StreamPlan>,
    /// The method reading a `text/event-stream` answer event by event.
    pub events: Option<EventsPlan>,
    pub items: Option<ItemsPlan>,
    /// The method that answers with the status and headers too
    /// (`{fn_name}_with_response`).
    pub response_fn: Ident,
    /// The struct of the headers the successes declare (`{Prefix}Headers`).
    pub headers_ty: Ident,
    /// The struct of a multipart body (`{Prefix}Form`).
    pub form: Option<FormStruct<'a>>,
    /// Its fields: every header a success answer declares, once.
    pub headers: Vec<HeaderField<'a>>,
}

/// A declared header of a success answer, read into `Option<ty>`.
pub(in crate::emit::client) struct HeaderField<'a> {
    pub ident: Ident,
    pub header: &'a ResponseHeader,
    /// Its type: the schema's when it parses from text, else `String`.
    pub ty: TokenStream,
}

/// A positional argument.
pub(in crate::emit::client) struct Arg<'a> {
    pub ident: Ident,
    /// Its type as the method takes it (`&str`, `&[T]`, `&Body`, `T`).
    pub ty: TokenStream,
    /// Whether `ident` is already a reference.
    pub by_ref: bool,
    /// Whether its type is `Copy` (when it is taken by value).
    pub copy: bool,
    pub input: Input<'a>,
}

/// Where an input goes.
#[derive(Clone, Copy)]
pub(in crate::emit::client) enum Input<'a> {
    Param(&'a Parameter),
    Body(&'a RequestBody),
}

/// The `{Prefix}Form` struct of a multipart body: a field per part.
pub(in crate::emit::client) struct FormStruct<'a> {
    pub ty: Ident,
    pub parts: Vec<FormPart<'a>>,
}

/// The `{Prefix}Params` struct.
pub(in crate::emit::client) struct ParamsStruct<'a> {
    pub ty: Ident,
    /// The argument's name.
    pub arg: Ident,
    pub fields: Vec<ParamsField<'a>>,
}

/// A field of a `{Prefix}Params` struct: `Option<ty>`.
pub(in crate::emit::client) struct ParamsField<'a> {
    pub ident: Ident,
    pub ty: TokenStream,
    pub input: Input<'a>,
}

/// A documented answer that is a result.
pub(in crate::emit::client) struct Success<'a> {
    pub response: &'a Response,
    /// The `match` pattern of its statuses.
    pub pattern: TokenStream,
    /// The enum variant, when there are several results.
    pub variant: Ident,
    /// The body's type and how to decode it (`None`: no body).
    pub payload: Option<(TokenStream, TokenStream)>,
}

/// The method of an operation whose success answer offers
/// `text/event-stream` (`{fn_name}_events`).
pub(in crate::emit::client) struct EventsPlan {
    pub fn_ident: Ident,
    /// The type of each event's data.
    pub ty: TokenStream,
    /// Whether the data is read as text rather than JSON.
    pub text: bool,
    /// The header through which a lost stream is resumed, as the document
    /// spells it (`Operation::resumes_events_with`).
    pub resumes: Option<String>,
}

/// The method of an operation whose success answer is a sequence of JSON
/// items (`{fn_name}_items`), which yields them as they come.
pub(in crate::emit::client) struct ItemsPlan {
    pub fn_ident: Ident,
    /// The type of each item.
    pub ty: TokenStream,
    /// `openapi_runtime::sequence::Framing::…`.
    pub framing: TokenStream,
    /// The media type asked for.
    pub media_type: String,
}

/// The stream helper of a paged listing.
pub(in crate::emit::client) struct StreamPlan {
    pub fn_ident: Ident,
    /// The query argument's name.
    pub query_arg: Ident,
    /// The dynamic query type.
    pub query_ty: TokenStream,
    /// The type of the listing's items.
    pub item_ty: TokenStream,
    /// The dynamic query parameter: `Some(field)` when it is a field of the
    /// params struct, `None` when it is positional.
    pub query_field: Option<Ident>,
    /// The positional argument it replaces, when it is positional.
    pub query_position: Option<usize>,
    /// The page's fields: items, offset, total, and how each becomes an `i64`.
    pub items: Ident,
    pub offset: TokenStream,
    pub total: TokenStream,
}

/// How a client names the models crate's types.
pub(in crate::emit::client) fn rust_types_named(name: &str) -> TokenStream {
    let ident = format_ident!("{}", name);
    quote!(crate::models::#ident)
}

/// The types of the client crate, which spell models as `crate::models::X`.
pub(in crate::emit::client) fn rust_types() -> RustTypes<'static> {
    RustTypes {
        named: &rust_types_named,
        deps: quote!(crate::models::),
    }
}

/// The result type of a plan's method.
pub(in crate::emit::client) fn result_type(plan: &Plan<'_>) -> TokenStream {
    match (&plan.response_enum, plan.successes.as_slice()) {
        (Some(name), _) => quote!(#name),
        (None, [success]) => match &success.payload {
            Some((ty, _)) => ty.clone(),
            None => quote!(()),
        },
        (None, _) => quote!(()),
    }
}
