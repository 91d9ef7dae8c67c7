//! The operations: one async method of `Client` per operation, the types of
//! their optional inputs (`{Prefix}Params`) and of their answers when they
//! have several (`{Prefix}Response`), and the stream helpers of paged
//! listings.
//!
//! [`plan`] decides, once per operation, what the method takes and returns;
//! the code and the README are both made from the plans.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use crate::emit::form_struct::{self, PartField};
use crate::emit::{Context, RustTypes, docs};
use crate::error::Result;
use crate::ir::{
    Additional, Api, BodyKind, Files, FormPart, MediaKind, Operation, ParamLocation, ParamStyle,
    Parameter, Primitive, RequestBody, Response, ResponseHeader, SecuritySchemeKind, Shape, Status,
    Tagging, Ty, TypeKind, media_essence,
};

use crate::names::{Namespace, suffixed};

/// Names the client's own types take; an operation's types never do.
pub(super) const RESERVED_TYPES: &[&str] = &[
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

/// What one operation's method takes and returns.
pub(super) struct Plan<'a> {
    pub op: &'a Operation,
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
pub(super) struct HeaderField<'a> {
    pub ident: Ident,
    pub header: &'a ResponseHeader,
    /// Its type: the schema's when it parses from text, else `String`.
    pub ty: TokenStream,
}

/// A positional argument.
pub(super) struct Arg<'a> {
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
pub(super) enum Input<'a> {
    Param(&'a Parameter),
    Body(&'a RequestBody),
}

/// The `{Prefix}Form` struct of a multipart body: a field per part.
pub(super) struct FormStruct<'a> {
    pub ty: Ident,
    pub parts: Vec<FormPart<'a>>,
}

/// The `{Prefix}Params` struct.
pub(super) struct ParamsStruct<'a> {
    pub ty: Ident,
    /// The argument's name.
    pub arg: Ident,
    pub fields: Vec<ParamsField<'a>>,
}

/// A field of a `{Prefix}Params` struct: `Option<ty>`.
pub(super) struct ParamsField<'a> {
    pub ident: Ident,
    pub ty: TokenStream,
    pub input: Input<'a>,
}

/// A documented answer that is a result.
pub(super) struct Success<'a> {
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
pub(super) struct EventsPlan {
    pub fn_ident: Ident,
    /// The type of each event's data.
    pub ty: TokenStream,
    /// Whether the data is read as text rather than JSON.
    pub text: bool,
}

/// The stream helper of a paged listing.
pub(super) struct StreamPlan {
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
pub(super) fn rust_types_named(name: &str) -> TokenStream {
    let ident = format_ident!("{}", name);
    quote!(crate::models::#ident)
}

/// The types of the client crate, which spell models as `crate::models::X`.
pub(super) fn rust_types() -> RustTypes<'static> {
    RustTypes {
        named: &rust_types_named,
        deps: quote!(crate::models::),
    }
}

/// The plans of every operation, in document order.
pub(super) fn plan<'a>(cx: &Context<'a>) -> Result<Vec<Plan<'a>>> {
    let api = cx.api;
    let types = rust_types();
    let mut type_names = Namespace::with_reserved(RESERVED_TYPES);
    // Stream helpers and `with_*` methods share `Client` with the operations.
    let mut methods = Namespace::with_reserved(&["builder", "base_url"]);
    for op in &api.operations {
        methods.claim(op.fn_name.clone());
    }
    let mut plans = Vec::new();
    for op in &api.operations {
        let mut locals = Namespace::default();
        let mut args = Vec::new();
        let mut fields = Vec::new();
        let inputs = op
            .params
            .iter()
            .filter(|p| !is_common_header(api, p) && !is_ignored_header(p));
        // Path parameters first, in the path's order: they are what the call
        // is about.
        let (mut path, other): (Vec<&Parameter>, Vec<&Parameter>) =
            inputs.partition(|p| p.location == ParamLocation::Path);
        path.sort_by_key(|p| op.path.find(&format!("{{{}}}", p.wire)));
        for param in path.into_iter().chain(other) {
            let query_ty = param
                .dynamic_query
                .as_ref()
                .map(|q| rust_types_named(&q.name));
            if param.required || param.location == ParamLocation::Path {
                let ident = format_ident!("{}", locals.claim(param.field.clone()));
                let (ty, by_ref) = match &query_ty {
                    Some(q) => (quote!(&#q), true),
                    None => arg_type(&types, &param.shape),
                };
                args.push(Arg {
                    ident,
                    ty,
                    by_ref,
                    copy: !by_ref && is_copy(api, &param.shape.ty, 0),
                    input: Input::Param(param),
                });
            } else {
                let ty = query_ty.unwrap_or_else(|| types.ty(&param.shape.ty));
                fields.push((param.field.clone(), ty, Input::Param(param)));
            }
        }
        let form = match op.body.as_ref().map(|b| &b.kind) {
            // A body whose schema lists no parts is the runtime's `Parts`.
            Some(BodyKind::Multipart(multipart)) => {
                api.form_parts(multipart).map(|parts| FormStruct {
                    ty: format_ident!("{}", type_names.claim(format!("{}Form", op.type_prefix))),
                    parts,
                })
            }
            _ => None,
        };
        let form_ty = form.as_ref().map(|f| &f.ty);
        if let Some(body) = &op.body {
            if body.required {
                let ident = format_ident!("{}", locals.claim("body".to_owned()));
                let (ty, by_ref) = match form_ty {
                    Some(form) => (quote!(&#form), true),
                    None => body_arg_type(&types, &body.kind),
                };
                args.push(Arg {
                    ident,
                    ty,
                    by_ref,
                    copy: false,
                    input: Input::Body(body),
                });
            } else {
                let mut names = Namespace::default();
                for (name, _, _) in &fields {
                    names.claim(name.clone());
                }
                let name = names.claim("body".to_owned());
                let ty = match form_ty {
                    Some(form) => quote!(#form),
                    None => body_owned_type(&types, &body.kind),
                };
                fields.push((name, ty, Input::Body(body)));
            }
        }
        let params = if fields.is_empty() {
            None
        } else {
            Some(ParamsStruct {
                ty: format_ident!("{}", type_names.claim(format!("{}Params", op.type_prefix))),
                arg: format_ident!("{}", locals.claim("params".to_owned())),
                fields: fields
                    .into_iter()
                    .map(|(name, ty, input)| ParamsField {
                        ident: format_ident!("{}", name),
                        ty,
                        input,
                    })
                    .collect(),
            })
        };
        let successes = successes(cx, op)?;
        let response_enum = (successes.len() > 1).then(|| {
            format_ident!(
                "{}",
                type_names.claim(format!("{}Response", op.type_prefix))
            )
        });
        let accept = accept(op);
        let response_fn =
            format_ident!("{}", methods.claim(suffixed(&op.fn_name, "with_response")));
        let headers_ty =
            format_ident!("{}", type_names.claim(format!("{}Headers", op.type_prefix)));
        let headers = declared_headers(api, &types, &successes);
        let events = successes
            .iter()
            .find_map(|s| s.response.events.as_ref())
            .map(|shape| EventsPlan {
                fn_ident: format_ident!("{}", methods.claim(suffixed(&op.fn_name, "events"))),
                ty: types.shape(shape),
                text: shape.ty == Ty::Primitive(Primitive::String) && !shape.nullable,
            });
        let mut plan = Plan {
            op,
            fn_ident: format_ident!("{}", op.fn_name),
            args,
            params,
            successes,
            response_enum,
            accept,
            stream: None,
            events,
            response_fn,
            headers_ty,
            headers,
            form,
        };
        plan.stream = stream_plan(api, &plan, &mut methods, &mut locals);
        plans.push(plan);
    }
    Ok(plans)
}

/// Every header the success answers declare, once (by name, ignoring case),
/// in the order they first appear.
fn declared_headers<'a>(
    api: &Api,
    types: &RustTypes<'_>,
    successes: &[Success<'a>],
) -> Vec<HeaderField<'a>> {
    let mut names = Namespace::default();
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for header in successes.iter().flat_map(|s| &s.response.headers) {
        let wire = header.wire.to_ascii_lowercase();
        if seen.contains(&wire) {
            continue;
        }
        seen.push(wire);
        let parses = match &header.shape.ty {
            Ty::Primitive(p) => !matches!(p, Primitive::Binary | Primitive::Null),
            Ty::Named(name) => matches!(
                api.type_named(name).map(|t| &t.kind),
                Some(TypeKind::Enum(_))
            ),
            _ => false,
        };
        let ty = if parses {
            types.ty(&header.shape.ty)
        } else {
            quote!(String)
        };
        out.push(HeaderField {
            ident: format_ident!("{}", names.claim(header.field.clone())),
            header,
            ty,
        });
    }
    out
}

/// Whether `param` is one of the headers the client sends with every request.
pub(super) fn is_common_header(api: &Api, param: &Parameter) -> bool {
    param.location == ParamLocation::Header
        && api.common_headers.iter().any(|c| {
            c.location == param.location
                && c.component == param.component
                && c.wire.eq_ignore_ascii_case(&param.wire)
        })
}

/// OpenAPI says header parameters named `Accept`, `Content-Type` or
/// `Authorization` are ignored: the media types and security say them.
fn is_ignored_header(param: &Parameter) -> bool {
    param.location == ParamLocation::Header
        && ["accept", "content-type", "authorization"]
            .iter()
            .any(|name| param.wire.eq_ignore_ascii_case(name))
}

/// Whether values of `ty` are `Copy`: numbers, booleans, UUIDs, dates and
/// the models' string enums.
fn is_copy(api: &Api, ty: &Ty, depth: usize) -> bool {
    match ty {
        Ty::Primitive(p) => !matches!(p, Primitive::String | Primitive::Binary),
        Ty::Named(name) if depth < 16 => match api.type_named(name).map(|t| &t.kind) {
            Some(TypeKind::Enum(e)) => !e.open,
            Some(TypeKind::Alias(shape)) => !shape.nullable && is_copy(api, &shape.ty, depth + 1),
            _ => false,
        },
        _ => false,
    }
}

/// How a method takes a parameter: text and arrays by reference, the rest by value.
fn arg_type(types: &RustTypes<'_>, shape: &Shape) -> (TokenStream, bool) {
    match &shape.ty {
        Ty::Primitive(Primitive::String) => (quote!(&str), true),
        Ty::Array(item) => {
            let item = types.shape(item);
            (quote!(&[#item]), true)
        }
        ty => (types.ty(ty), false),
    }
}

fn body_arg_type(types: &RustTypes<'_>, kind: &BodyKind) -> (TokenStream, bool) {
    match kind {
        BodyKind::Json(shape) | BodyKind::Form(shape) => match &shape.ty {
            Ty::Primitive(Primitive::String) if !shape.nullable => (quote!(&str), true),
            Ty::Array(item) if !shape.nullable => {
                let item = types.shape(item);
                (quote!(&[#item]), true)
            }
            _ => {
                let ty = types.shape(shape);
                (quote!(&#ty), true)
            }
        },
        BodyKind::Text => (quote!(impl Into<String>), false),
        BodyKind::Binary => (quote!(impl Into<bytes::Bytes>), false),
        // Only a body that lists no parts gets here (the others are forms).
        BodyKind::Multipart(_) => (quote!(&Parts), true),
    }
}

fn body_owned_type(types: &RustTypes<'_>, kind: &BodyKind) -> TokenStream {
    match kind {
        BodyKind::Json(shape) | BodyKind::Form(shape) => types.shape(shape),
        BodyKind::Text => quote!(String),
        BodyKind::Binary => quote!(bytes::Bytes),
        BodyKind::Multipart(_) => quote!(Parts),
    }
}

/// The answers that are results: the documented success statuses, or, when
/// there are none, `default` for any 2xx (or nothing, for `()`).
fn successes<'a>(cx: &Context<'_>, op: &'a Operation) -> Result<Vec<Success<'a>>> {
    let mut documented: Vec<&Response> = op.success_responses().collect();
    // Exact statuses before ranges, so that a match tries the specific first.
    documented.sort_by_key(|r| match r.status {
        Status::Code(code) => (0, code),
        Status::Range(range) => (1, range),
        Status::Default => (2, 0),
    });
    let any_2xx = quote!(200..=299);
    let chosen: Vec<(&Response, TokenStream)> = if documented.is_empty() {
        op.responses
            .iter()
            .find(|r| r.status == Status::Default)
            .map(|r| (r, any_2xx.clone()))
            .into_iter()
            .collect()
    } else {
        let codes: Vec<u16> = documented
            .iter()
            .filter_map(|r| match r.status {
                Status::Code(code) => Some(code),
                _ => None,
            })
            .collect();
        documented
            .into_iter()
            .map(|r| {
                let pattern = match r.status {
                    Status::Code(code) => {
                        let code = Literal::u16_unsuffixed(code);
                        quote!(#code)
                    }
                    Status::Range(range) => range_pattern(range, &codes),
                    Status::Default => any_2xx.clone(),
                };
                (r, pattern)
            })
            .collect()
    };
    let types = rust_types();
    Ok(chosen
        .into_iter()
        .map(|(response, pattern)| Success {
            response,
            pattern,
            variant: format_ident!("{}", response.name),
            payload: response.body.as_ref().map(|kind| payload(cx, &types, kind)),
        })
        .collect())
}

/// The statuses of the range `range` (`2` for `2XX`) but the `codes` the
/// document names on their own, whose arms come first: `201..=299` beside
/// `200`, so that no two arms of the match overlap.
fn range_pattern(range: u16, codes: &[u16]) -> TokenStream {
    let (low, high) = (range * 100, range * 100 + 99);
    let mut parts = Vec::new();
    let mut start = low;
    for code in (low..=high).filter(|code| codes.contains(code)) {
        if start < code {
            parts.push((start, code - 1));
        }
        start = code + 1;
    }
    if start <= high || parts.is_empty() {
        // (Every status of the range named alone leaves none: the range
        // whole, unreachable after them.)
        parts.push((start.min(high), high));
    }
    let parts = parts.into_iter().map(|(from, to)| {
        let (from, to) = (Literal::u16_unsuffixed(from), Literal::u16_unsuffixed(to));
        if from.to_string() == to.to_string() {
            quote!(#from)
        } else {
            quote!(#from..=#to)
        }
    });
    quote!(#(#parts)|*)
}

/// The type of a response body, and the expression that decodes it from
/// `__answer` (with `?` when decoding can fail).
fn payload(cx: &Context<'_>, types: &RustTypes<'_>, kind: &BodyKind) -> (TokenStream, TokenStream) {
    match kind {
        BodyKind::Json(shape) => {
            let ty = types.shape(shape);
            let mode = format_ident!(
                "{}",
                envelope_mode(cx.api, shape, cx.target.client_accepts_data_envelope)
            );
            let decode = quote!(__answer.json::<#ty>(Envelope::#mode)?);
            (ty, decode)
        }
        BodyKind::Text | BodyKind::Form(_) => (quote!(String), quote!(__answer.text()?)),
        // Multipart answers are lowered as bytes; requests only are parts.
        BodyKind::Binary | BodyKind::Multipart(_) => {
            (quote!(bytes::Bytes), quote!(__answer.bytes()))
        }
    }
}

/// How a success body of `shape` is decoded when the API may wrap it as
/// `{"data": …, "status": …}`: `Fallback` (bare first, the wrapper when that
/// fails) when a wrapper cannot decode as the bare type, `Probe` (look for a
/// top-level `data` key first) when it could, `Bare` for any JSON value or
/// map, which is never unwrapped.
pub(super) fn envelope_mode(api: &Api, shape: &Shape, enabled: bool) -> &'static str {
    fn mode(api: &Api, ty: &Ty, depth: usize) -> &'static str {
        match ty {
            Ty::Any | Ty::Map(_) => "Bare",
            Ty::Primitive(_) | Ty::Array(_) => "Fallback",
            Ty::Named(name) => match api.type_named(name).map(|t| &t.kind) {
                _ if depth > 16 => "Fallback",
                Some(TypeKind::Struct(s)) => {
                    let has_data = s.fields.iter().any(|f| f.wire == "data");
                    let needs_more = s.fields.iter().any(|f| f.required && f.wire != "status");
                    if has_data || needs_more || matches!(s.additional, Additional::Deny) {
                        "Fallback"
                    } else {
                        "Probe"
                    }
                }
                // A base with subtypes reads any untagged object as its
                // own struct: it is probed as that struct would be.
                Some(TypeKind::Union(u)) => match &u.tagging {
                    Tagging::Internal {
                        fallback: Some(base),
                        ..
                    } => mode(api, &u.variants[*base].shape.ty, depth + 1),
                    Tagging::Internal { .. } => "Fallback",
                    Tagging::Untagged => "Probe",
                },
                Some(TypeKind::Newtype(shape) | TypeKind::Alias(shape)) => {
                    mode(api, &shape.ty, depth + 1)
                }
                Some(TypeKind::Enum(_)) | None => "Fallback",
            },
        }
    }
    if enabled {
        mode(api, &shape.ty, 0)
    } else {
        "Bare"
    }
}

/// The `Accept` header: JSON when the results come as JSON among others,
/// else every media type they may come in.
fn accept(op: &Operation) -> Option<String> {
    let mut media: Vec<&str> = Vec::new();
    let results: Vec<&Response> = {
        let documented: Vec<&Response> = op.success_responses().collect();
        if documented.is_empty() {
            op.responses
                .iter()
                .filter(|r| r.status == Status::Default)
                .collect()
        } else {
            documented
        }
    };
    for response in results {
        for m in &response.media_types {
            if is_header_text(m) && !media.contains(&m.as_str()) {
                media.push(m);
            }
        }
    }
    if media.iter().any(|m| media_essence(m) == "application/json") {
        return Some("application/json".to_owned());
    }
    (!media.is_empty()).then(|| media.join(", "))
}

/// The content type a body is sent with: one the document lists (JSON
/// bodies prefer `application/json`), without wildcards.
fn content_type(body: &RequestBody) -> String {
    let concrete = |m: &&String| !m.contains('*') && is_header_text(m);
    let listed = || body.media_types.iter().find(concrete).cloned();
    match &body.kind {
        BodyKind::Json(_) => body
            .media_types
            .iter()
            .find(|m| media_essence(m) == "application/json")
            .cloned()
            .or_else(listed)
            .unwrap_or_else(|| "application/json".to_owned()),
        BodyKind::Text => listed().unwrap_or_else(|| "text/plain".to_owned()),
        BodyKind::Binary => listed().unwrap_or_else(|| "application/octet-stream".to_owned()),
        BodyKind::Form(_) => body
            .media_types
            .iter()
            .find(|m| matches!(MediaKind::of(m), MediaKind::Form) && m.contains('/'))
            .filter(|m| is_header_text(m))
            .cloned()
            .unwrap_or_else(|| "application/x-www-form-urlencoded".to_owned()),
        // The boundary is the body's own: the runtime adds it.
        BodyKind::Multipart(_) => body.multipart_media_type(),
    }
}

/// Whether `text` can be a header value as it is.
fn is_header_text(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b == b'\t' || (b' '..=b'~').contains(&b))
}

/// The stream helper of a paged listing: an operation with a dynamic query
/// parameter whose one result is an object with `items` (an array),
/// `offset`, `count` and `dataSetCount` (integers).
fn stream_plan(
    api: &Api,
    plan: &Plan<'_>,
    methods: &mut Namespace,
    locals: &mut Namespace,
) -> Option<StreamPlan> {
    let [success] = plan.successes.as_slice() else {
        return None;
    };
    let Some(BodyKind::Json(shape)) = &success.response.body else {
        return None;
    };
    let Ty::Named(name) = &shape.ty else {
        return None;
    };
    if shape.nullable {
        return None;
    }
    let TypeKind::Struct(page) = &api.type_named(name)?.kind else {
        return None;
    };
    let field = |wire: &str| {
        page.fields
            .iter()
            .find(|f| f.wire == wire && f.required && !f.shape.nullable && !f.boxed)
    };
    let integer = |wire: &str| {
        let f = field(wire)?;
        let Ty::Primitive(p) = f.shape.ty else {
            return None;
        };
        if !p.is_integer() {
            return None;
        }
        let ident = format_ident!("{}", f.name);
        Some(match p {
            Primitive::I64 => quote!(__page.#ident),
            Primitive::U64 => quote!(i64::try_from(__page.#ident).unwrap_or(i64::MAX)),
            _ => quote!(i64::from(__page.#ident)),
        })
    };
    let items = field("items")?;
    let Ty::Array(item) = &items.shape.ty else {
        return None;
    };
    integer("count")?;
    let offset = integer("offset")?;
    let total = integer("dataSetCount")?;

    // Each page's call needs its own copy of the arguments: raw bodies
    // (`impl Into<…>`) are not worth the complication.
    let raw_body = plan.args.iter().any(|a| {
        matches!(a.input, Input::Body(b) if matches!(b.kind, BodyKind::Text | BodyKind::Binary))
    });
    if raw_body {
        return None;
    }
    let query_param = plan.op.params.iter().find(|p| p.dynamic_query.is_some())?;
    let query = query_param.dynamic_query.as_ref()?;
    let query_position = plan
        .args
        .iter()
        .position(|a| matches!(a.input, Input::Param(p) if std::ptr::eq(p, query_param)));
    let query_field = plan.params.as_ref().and_then(|params| {
        params
            .fields
            .iter()
            .find(|f| matches!(f.input, Input::Param(p) if std::ptr::eq(p, query_param)))
            .map(|f| f.ident.clone())
    });
    if query_position.is_none() && query_field.is_none() {
        return None;
    }
    Some(StreamPlan {
        fn_ident: format_ident!("{}", methods.claim(suffixed(&plan.op.fn_name, "stream"))),
        query_arg: format_ident!("{}", locals.claim("query".to_owned())),
        query_ty: rust_types_named(&query.name),
        item_ty: rust_types().shape(item),
        query_field,
        query_position,
        items: format_ident!("{}", items.name),
        offset,
        total,
    })
}

/// The result type of a plan's method.
pub(super) fn result_type(plan: &Plan<'_>) -> TokenStream {
    match (&plan.response_enum, plan.successes.as_slice()) {
        (Some(name), _) => quote!(#name),
        (None, [success]) => match &success.payload {
            Some((ty, _)) => ty.clone(),
            None => quote!(()),
        },
        (None, _) => quote!(()),
    }
}

/// The `operations` module.
pub(super) fn module(cx: &Context<'_>, plans: &[Plan<'_>]) -> TokenStream {
    let methods = plans.iter().map(|plan| method(cx, plan));
    let streams = plans.iter().filter_map(|plan| stream_method(plan));
    let types = plans.iter().map(types_of);
    let doc = docs::inner_attrs(&[
        "The operations: one method of [`Client`] each, with the types of their optional inputs"
            .to_owned(),
        "(`…Params`) and of their answers when they have several (`…Response`).".to_owned(),
    ]);
    let body = quote! {
        impl Client {
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
    quote! {
        #doc
        #runtime
        #file
        #parts

        use crate::Client;

        #body
    }
}

fn method(cx: &Context<'_>, plan: &Plan<'_>) -> TokenStream {
    let op = plan.op;
    let fn_ident = &plan.fn_ident;
    let doc = method_docs(cx, plan);
    let args = plan.args.iter().map(|a| {
        let (ident, ty) = (&a.ident, &a.ty);
        quote!(#ident: #ty)
    });
    let params_arg = plan.params.as_ref().map(|p| {
        let (ident, ty) = (&p.arg, &p.ty);
        quote!(#ident: #ty)
    });
    let result = result_type(plan);
    let id = &op.id;
    let method = format_ident!("{}", op.method.as_str());
    let path = &op.path;
    let security = security_tokens(cx, op);
    // The fixed pairs of the path's key (`/rest?method=flickr.test.echo`)
    // that no parameter carries, first, as the key writes them.
    let mut statements: Vec<TokenStream> = plan
        .op
        .fixed_query
        .iter()
        .filter(|pair| pair.declared.is_none())
        .map(|pair| {
            let name = &pair.name;
            let value = pair.value.as_deref().unwrap_or_default();
            quote!(__call.query(#name, &#value, Style::Comma, true);)
        })
        .collect();
    let mut bodies = Vec::new();
    for arg in &plan.args {
        let ident = &arg.ident;
        let value = if arg.by_ref {
            quote!(#ident)
        } else {
            quote!(&#ident)
        };
        match arg.input {
            Input::Param(param) => statements.push(param_statement(param, &value, true)),
            Input::Body(body) => bodies.push(body_statement(plan, body, &quote!(#ident), true)),
        }
    }
    if let Some(params) = &plan.params {
        let arg = &params.arg;
        for field in &params.fields {
            let ident = &field.ident;
            match field.input {
                Input::Param(param) => {
                    statements.push(param_statement(param, &quote!(&#arg.#ident), false));
                }
                Input::Body(body) => {
                    bodies.push(body_statement(plan, body, &quote!(#arg.#ident), false));
                }
            }
        }
    }
    let accept = plan.accept.as_ref().map(|a| quote!(__call.accept(#a);));
    let headers_ty = &plan.headers_ty;
    let respond =
        |value: TokenStream| quote!(Ok(__answer.into_response(#value, #headers_ty::read)));
    let arms = plan.successes.iter().map(|s| {
        let pattern = &s.pattern;
        let value = match (&plan.response_enum, &s.payload) {
            // A body whose type is `()` (a schema with nothing to keep) is
            // still decoded, so that a wrong body is an error, but not bound.
            (None, Some((ty, decode))) if ty.to_string() == "()" => {
                let answer = respond(quote!(()));
                quote!({ #decode; #answer })
            }
            (None, Some((_, decode))) => {
                let answer = respond(quote!(__body));
                quote!({ let __body = #decode; #answer })
            }
            (None, None) => respond(quote!(())),
            (Some(name), Some((_, decode))) => {
                let variant = &s.variant;
                let answer = respond(quote!(#name::#variant(__body)));
                quote!({ let __body = #decode; #answer })
            }
            (Some(name), None) => {
                let variant = &s.variant;
                respond(quote!(#name::#variant))
            }
        };
        quote!(#pattern => #value,)
    });
    // Nothing documented as a result: any 2xx is success, without a body.
    let unit_arm = plan.successes.is_empty().then(|| {
        let answer = respond(quote!(()));
        quote!(200..=299 => #answer,)
    });
    let mutability = if statements.is_empty() && bodies.is_empty() && accept.is_none() {
        quote!()
    } else {
        quote!(mut)
    };
    let response_fn = &plan.response_fn;
    let forwarded = plan
        .args
        .iter()
        .map(|a| &a.ident)
        .chain(plan.params.as_ref().map(|p| &p.arg));
    let args: Vec<TokenStream> = args.collect();
    let response_doc = docs::attrs(&[
        format!(
            "[`Client::{fn_ident}`], answering with the status and the headers of the answer as well as its body."
        ),
        String::new(),
        format!(
            "The headers the document declares are read into [`{headers_ty}`] ([`Response::declared`]); the arguments, answers and errors are those of [`Client::{fn_ident}`]."
        ),
    ]);
    // `self`, the required inputs and the optional ones: the document's
    // operation decides how many there are.
    let arg_count = 1 + plan.args.len() + usize::from(plan.params.is_some());
    let many = (arg_count > 7).then(|| quote!(#[allow(clippy::too_many_arguments)]));
    let conversion = crate::emit::conversion_name_allow(&fn_ident.to_string());
    let events = plan.events.as_ref().map(|events| {
        let events_fn = &events.fn_ident;
        let ty = &events.ty;
        let data = if events.text {
            quote!(EventData::Text)
        } else {
            quote!(EventData::Json)
        };
        let event_stream = crate::ir::EVENT_STREAM;
        let spelled = ty.to_string().replace(' ', "");
        let data_type = match spelled.rsplit_once("::") {
            Some((_, name)) if spelled.starts_with("crate::") => format!("[`{name}`]({spelled})"),
            _ => format!("`{spelled}`"),
        };
        let mut lines = vec![
            format!(
                "[`Client::{fn_ident}`], answering with the events of its `{event_stream}` answer as they come: a [`Stream`](futures_util::Stream) of [`Event`](openapi_runtime::client::Event)s, each with its data as {data_type}."
            ),
            String::new(),
        ];
        if let Some(field) = asks_to_stream(cx.api, op) {
            lines.push(format!(
                "The API streams when the body asks it to: set its `{field}` to `true`."
            ));
            lines.push(String::new());
        }
        lines.push("The client's time-out bounds the wait for the answer and for each chunk of the stream, not the whole stream. An event whose data is `[DONE]` ends it.".to_owned());
        lines.push(format!(
            "The arguments and errors are those of [`Client::{fn_ident}`]; an error answer is the error, as there."
        ));
        let doc = docs::attrs(&lines);
        quote! {
            #doc
            #many
            pub async fn #events_fn(&self, #(#args,)* #params_arg) -> Result<Events<#ty, crate::ErrorBody>, crate::Error> {
                const SECURITY: &[&[Scheme]] = #security;
                let mut __call = Call::new(#id, reqwest::Method::#method, #path, SECURITY);
                #(#statements)*
                __call.accept(#event_stream);
                #(#bodies)*
                self.transport.send_events(__call, #data).await
            }
        }
    });
    quote! {
        #doc
        #many
        #conversion
        pub async fn #fn_ident(&self, #(#args,)* #params_arg) -> Result<#result, crate::Error> {
            self.#response_fn(#(#forwarded),*).await.map(Response::into_inner)
        }

        #response_doc
        #many
        #conversion
        pub async fn #response_fn(&self, #(#args,)* #params_arg) -> Result<Response<#result, #headers_ty>, crate::Error> {
            const SECURITY: &[&[Scheme]] = #security;
            let #mutability __call = Call::new(#id, reqwest::Method::#method, #path, SECURITY);
            #(#statements)*
            #accept
            #(#bodies)*
            let __answer = self.transport.send(__call).await?;
            match __answer.status() {
                #(#arms)*
                #unit_arm
                _ => Err(__answer.into_error()),
            }
        }

        #events
    }
}

/// The body's boolean property that asks for a stream (OpenAI's
/// `stream`), when the JSON body has one: its Rust field name.
fn asks_to_stream(api: &Api, op: &Operation) -> Option<String> {
    let Some(BodyKind::Json(shape)) = op.body.as_ref().map(|b| &b.kind) else {
        return None;
    };
    let Ty::Named(name) = &shape.ty else {
        return None;
    };
    let Some(TypeKind::Struct(def)) = api.type_named(name).map(|t| &t.kind) else {
        return None;
    };
    def.fields
        .iter()
        .find(|f| f.wire == "stream" && f.shape.ty == Ty::Primitive(Primitive::Bool))
        .map(|f| f.name.clone())
}

/// The statement that puts a parameter into `__call`; `value` is a reference
/// (to an `Option` when the parameter is optional).
fn param_statement(param: &Parameter, value: &TokenStream, required: bool) -> TokenStream {
    let wire = &param.wire;
    if param.dynamic_query.is_some() {
        return if required {
            quote!(__call.query_text(#wire, &#value.to_query_string());)
        } else {
            quote! {
                if let Some(__query) = #value {
                    __call.query_text(#wire, &__query.to_query_string());
                }
            }
        };
    }
    // A JSON parameter is one text, its value written as JSON.
    let value = if param.json {
        &quote!(&JsonText(#value))
    } else {
        value
    };
    match param.location {
        ParamLocation::Path => {
            let style = match param.style {
                ParamStyle::Label => quote!(PathStyle::Label),
                ParamStyle::Matrix => quote!(PathStyle::Matrix),
                _ => return quote!(__call.path_param(#wire, #value);),
            };
            let explode = param.explode;
            quote!(__call.path_param_styled(#wire, #value, #style, #explode);)
        }
        ParamLocation::Query => {
            let style = format_ident!(
                "{}",
                match param.style {
                    ParamStyle::SpaceDelimited => "Space",
                    ParamStyle::PipeDelimited => "Pipe",
                    _ => "Comma",
                }
            );
            let explode = param.explode;
            if param.object {
                let deep = param.style == ParamStyle::DeepObject;
                return quote!(__call.query_object(#wire, #value, #deep););
            }
            quote!(__call.query(#wire, #value, Style::#style, #explode);)
        }
        ParamLocation::Header => quote!(__call.header(#wire, #value);),
        ParamLocation::Cookie => quote!(__call.cookie(#wire, #value);),
    }
}

/// The statement that puts the body into `__call`; `value` is the argument
/// (a reference for JSON and forms) or the params field (an `Option`).
fn body_statement(
    plan: &Plan<'_>,
    body: &RequestBody,
    value: &TokenStream,
    required: bool,
) -> TokenStream {
    let content_type = content_type(body);
    if let Some(form) = &plan.form {
        let parts = multipart_statements(form, &content_type);
        return if required {
            quote! {
                let __form = #value;
                #parts
            }
        } else {
            quote! {
                if let Some(__form) = &#value {
                    #parts
                }
            }
        };
    }
    let put = |v: TokenStream| match &body.kind {
        BodyKind::Json(_) => quote!(__call.json_body(#content_type, #v);),
        BodyKind::Form(_) => quote!(__call.form_body(#content_type, #v);),
        BodyKind::Text => {
            quote!(__call.body(#content_type, bytes::Bytes::from(Into::<String>::into(#v)));)
        }
        BodyKind::Binary => {
            quote!(__call.body(#content_type, Into::<bytes::Bytes>::into(#v));)
        }
        BodyKind::Multipart(_) => {
            let send = send_multipart(&content_type);
            quote! {
                let mut __parts = Multipart::new();
                __parts.parts(#v);
                #send
            }
        }
    };
    match (required, &body.kind) {
        (true, _) => put(value.clone()),
        (false, BodyKind::Json(_) | BodyKind::Form(_) | BodyKind::Multipart(_)) => {
            let statement = put(quote!(__body));
            quote!(if let Some(__body) = &#value { #statement })
        }
        (false, BodyKind::Text) => quote! {
            if let Some(__body) = #value {
                __call.body(#content_type, bytes::Bytes::from(__body));
            }
        },
        (false, BodyKind::Binary) => quote! {
            if let Some(__body) = #value {
                __call.body(#content_type, __body);
            }
        },
    }
}

/// The statements writing the parts of `__form` (a reference to the
/// operation's `{Prefix}Form`) as the call's multipart body: files as
/// files, text values as text parts, the rest as JSON parts.
fn multipart_statements(form: &FormStruct<'_>, content_type: &str) -> TokenStream {
    let parts = form.parts.iter().map(|part| {
        let ident = format_ident!("{}", part.field.name);
        let wire = &part.field.wire;
        let content_type = match part.content_type {
            Some(c) => quote!(Some(#c)),
            None => quote!(None),
        };
        let optional = !part.field.required || part.field.shape.nullable;
        match part.files {
            Some(Files::One) if optional => quote! {
                if let Some(__file) = &__form.#ident {
                    __parts.file(#wire, __file, #content_type);
                }
            },
            Some(Files::One) => quote!(__parts.file(#wire, &__form.#ident, #content_type);),
            Some(Files::Many) => quote! {
                for __file in &__form.#ident {
                    __parts.file(#wire, __file, #content_type);
                }
            },
            None if part.text => quote!(__parts.text(#wire, &__form.#ident, #content_type);),
            None => quote!(__parts.json(#wire, &__form.#ident, #content_type);),
        }
    });
    let send = send_multipart(content_type);
    quote! {
        let mut __parts = Multipart::new();
        #(#parts)*
        #send
    }
}

/// The statement that sends `__parts` as the call's body, under
/// `content_type` (a `multipart/…` media type without parameters).
fn send_multipart(content_type: &str) -> TokenStream {
    if content_type == "multipart/form-data" {
        quote!(__call.multipart_body(__parts);)
    } else {
        quote!(__call.multipart_body_as(#content_type, __parts);)
    }
}

/// The security alternatives of `op`, as `Scheme`s.
fn security_tokens(cx: &Context<'_>, op: &Operation) -> TokenStream {
    let api = cx.api;
    let alternatives = op.security.iter().map(|requirement| {
        let schemes = requirement
            .schemes
            .iter()
            .filter_map(|name| api.security_schemes.iter().find(|s| &s.name == name))
            .map(|scheme| {
                let header = |name: &str, prefix: Option<String>| {
                    let prefix = match prefix {
                        Some(p) => quote!(Some(#p)),
                        None => quote!(None),
                    };
                    quote!(Scheme::Header { name: #name, prefix: #prefix })
                };
                match &scheme.kind {
                    SecuritySchemeKind::ApiKey { location, name } => match location {
                        ParamLocation::Query => {
                            quote!(Scheme::Query { name: #name })
                        }
                        ParamLocation::Cookie => {
                            quote!(Scheme::Cookie { name: #name })
                        }
                        // Only where the settings ask (`bearer-api-keys`).
                        _ if super::config::sends_bearer_api_key(cx, scheme) => {
                            header(name, Some("Bearer".to_owned()))
                        }
                        _ => header(name, None),
                    },
                    SecuritySchemeKind::Http { scheme } if scheme == "basic" => {
                        quote!(Scheme::Basic)
                    }
                    SecuritySchemeKind::Http { scheme } => {
                        header("Authorization", Some(http_scheme_name(scheme)))
                    }
                    SecuritySchemeKind::OAuth2 => {
                        header("Authorization", Some("Bearer".to_owned()))
                    }
                }
            });
        quote!(&[#(#schemes),*])
    });
    quote!(&[#(#alternatives),*])
}

/// `bearer` → `Bearer`, as the `Authorization` header spells schemes.
pub(super) fn http_scheme_name(scheme: &str) -> String {
    let mut chars = scheme.chars();
    match chars.next() {
        Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

fn method_docs(cx: &Context<'_>, plan: &Plan<'_>) -> TokenStream {
    let op = plan.op;
    let mut lines = Vec::new();
    let text = match (&op.docs.title, &op.docs.description) {
        (Some(title), Some(description)) if !description.starts_with(title.as_str()) => {
            format!("{title}\n\n{description}")
        }
        (_, Some(description)) => description.clone(),
        (Some(title), None) => title.clone(),
        (None, None) => format!("The `{}` operation.", op.id),
    };
    lines.extend(docs::markdown_lines(&text));
    lines.push(String::new());
    lines.push(format!(
        "`{} {}` (operation `{}`).",
        op.method.as_str(),
        op.path_key(),
        op.id
    ));
    if !plan.args.is_empty() || plan.params.is_some() {
        lines.push(String::new());
        lines.push("# Arguments".to_owned());
        lines.push(String::new());
        for arg in &plan.args {
            lines.push(format!("- `{}` {}", arg.ident, input_doc(arg.input)));
        }
        if let Some(params) = &plan.params {
            let names: Vec<String> = params
                .fields
                .iter()
                .map(|f| format!("`{}`", f.ident))
                .collect();
            lines.push(format!(
                "- `{}`: the optional inputs ({}), see [`{}`]; `Default::default()` for none.",
                params.arg,
                names.join(", "),
                params.ty
            ));
        }
    }
    lines.push(String::new());
    lines.push("# Answers".to_owned());
    lines.push(String::new());
    if plan.successes.is_empty() {
        lines.push("Any 2xx status, without a body.".to_owned());
    }
    for success in &plan.successes {
        let status = status_text(success.response.status, plan.successes.len() == 1);
        let what = summary(success.response.docs.description.as_deref().unwrap_or(""));
        let variant = plan
            .response_enum
            .as_ref()
            .map(|e| format!(" → `{e}::{}`", success.variant))
            .unwrap_or_default();
        lines.push(format!("- {status}: {what}{variant}"));
    }
    if let Some(body) = &op.body {
        if let Some(example) = &body.docs.example {
            push_example(
                &mut lines,
                "# Example request body",
                example,
                Some(&body.kind),
            );
        }
    }
    let success_example = plan.successes.iter().find_map(|s| {
        let example = s.response.docs.example.as_ref()?;
        Some((s.response, example))
    });
    if let Some((response, example)) = success_example {
        let heading = format!("# Example answer ({})", status_text(response.status, false));
        push_example(&mut lines, &heading, example, response.body.as_ref());
    }
    lines.push(String::new());
    lines.push("# Errors".to_owned());
    lines.push(String::new());
    let errors: Vec<String> = op
        .responses
        .iter()
        .filter(|r| {
            !r.status.is_success() && !plan.successes.iter().any(|s| std::ptr::eq(s.response, *r))
        })
        .map(|r| {
            format!(
                "- {}: {}",
                status_text(r.status, false),
                summary(r.docs.description.as_deref().unwrap_or(""))
            )
        })
        .collect();
    let error_body = match &cx.target.error_schema {
        Some(schema) => format!("its `{schema}` body"),
        None => "its body".to_owned(),
    };
    if errors.is_empty() {
        lines.push(format!(
            "[`Error::Api`](crate::Error::Api), with the status and {error_body}, when the API refuses the request."
        ));
    } else {
        lines.push(format!(
            "[`Error::Api`](crate::Error::Api), with the status and {error_body}, for the API's error answers:"
        ));
        lines.push(String::new());
        lines.extend(errors);
        lines.push(String::new());
    }
    lines.push(
        "The other variants of [`Error`](crate::Error) for an unexpected status, an undecodable body, a time-out or a failure to reach the API."
            .to_owned(),
    );
    if op.method.is_idempotent() {
        lines.push(String::new());
        lines.push(format!(
            "As a `{}`, the call is retried as the client's [`RetryPolicy`](crate::RetryPolicy) says.",
            op.method.as_str()
        ));
    } else {
        lines.push(String::new());
        lines.push(format!(
            "As a `{}`, the call is not retried unless the [`RetryPolicy`](crate::RetryPolicy) allows non-idempotent retries.",
            op.method.as_str()
        ));
    }
    if op.docs.deprecated {
        lines.push(String::new());
        lines.push("**Deprecated** by the API.".to_owned());
    }
    docs::attrs(&lines)
}

/// A status as the docs say it.
fn status_text(status: Status, only_success: bool) -> String {
    match status {
        Status::Code(code) => code.to_string(),
        Status::Range(range) => format!("{range}xx"),
        Status::Default if only_success => "any 2xx".to_owned(),
        Status::Default => "any other status".to_owned(),
    }
}

/// The first sentence of `text`, safe for rustdoc.
pub(super) fn first_sentence(text: &str) -> String {
    let line = summary(text);
    match line.find(". ") {
        Some(end) => line[..=end].to_owned(),
        None => line,
    }
}

/// An example from the document under `heading`: as JSON, or as the text
/// itself for a text body.
fn push_example(
    lines: &mut Vec<String>,
    heading: &str,
    example: &serde_json::Value,
    kind: Option<&BodyKind>,
) {
    let (fence, text) = match (kind, example) {
        (Some(BodyKind::Text), serde_json::Value::String(text)) => ("```text", text.clone()),
        _ => match serde_json::to_string_pretty(example) {
            Ok(json) => ("```json", json),
            Err(_) => return,
        },
    };
    lines.extend([String::new(), heading.to_owned(), String::new()]);
    lines.push(fence.to_owned());
    // A fence inside the example would end the block early.
    lines.extend(text.lines().map(|line| line.replace("```", "` ` `")));
    lines.push("```".to_owned());
}

/// The first paragraph of `text`, on one line, safe for rustdoc.
pub(super) fn summary(text: &str) -> String {
    let first = text.trim().split("\n\n").next().unwrap_or("");
    let line = first.split_whitespace().collect::<Vec<_>>().join(" ");
    docs::markdown_lines(&line)
        .into_iter()
        .next()
        .unwrap_or_default()
}

/// What an input is, for the docs: where it goes, then what it is.
fn input_doc(input: Input<'_>) -> String {
    let (place, description) = input_place(input);
    let what = summary(description.unwrap_or(""));
    if what.is_empty() {
        format!("({place}).")
    } else {
        format!("({place}): {what}")
    }
}

/// Where an input goes, and its description.
fn input_place(input: Input<'_>) -> (String, Option<&str>) {
    match input {
        Input::Param(param) => {
            let place = match param.location {
                ParamLocation::Path => "path parameter",
                ParamLocation::Query => "query parameter",
                ParamLocation::Header => "header",
                ParamLocation::Cookie => "cookie",
            };
            (
                format!("the `{}` {place}", param.wire),
                param.docs.description.as_deref(),
            )
        }
        Input::Body(body) => (
            format!("the request body, sent as `{}`", content_type(body)),
            body.docs.description.as_deref(),
        ),
    }
}

/// The doc of a params field. A description of more than one plain paragraph
/// (a list, say, such as a query grammar) keeps its layout below the field's
/// place instead of being folded into one line.
fn field_doc(ident: &Ident, input: Input<'_>) -> Vec<String> {
    let (place, description) = input_place(input);
    let description = description.unwrap_or("").trim();
    let is_list_line = |line: &str| {
        let line = line.trim_start();
        line.starts_with("- ") || line.starts_with("* ")
    };
    if !description.contains("\n\n") && !description.lines().any(is_list_line) {
        return vec![format!("`{ident}` {}", input_doc(input))];
    }
    let mut lines = vec![format!("`{ident}` ({place})."), String::new()];
    lines.extend(docs::markdown_lines(description));
    lines
}

/// The params struct and the response enum of an operation.
fn types_of(plan: &Plan<'_>) -> TokenStream {
    let fn_name = &plan.fn_ident;
    let form = plan.form.as_ref().map(|form| form_struct(plan, form));
    let params = plan.params.as_ref().map(|params| {
        let ty = &params.ty;
        let doc = docs::attrs(&[
            format!(
                "The optional inputs of [`Client::{fn_name}`](crate::Client::{fn_name}): none by default."
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
            "What [`Client::{fn_name}`](crate::Client::{fn_name}) answers with: one variant per documented success status."
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
fn form_struct(plan: &Plan<'_>, form: &FormStruct<'_>) -> TokenStream {
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
        "The `{media_type}` body of [`Client::{fn_name}`](crate::Client::{fn_name}): \
         a field per part. Files are sent with their file name and media type."
    )]);
    form_struct::tokens(&form.ty, doc, quote!(Debug, Clone), &parts)
}

/// The `{Prefix}Headers` type: a struct of the headers the successes
/// declare, each `None` when the answer lacks it or it does not parse as its
/// type; an alias of the runtime's `NoHeaders` when they declare none, so
/// that an operation without headers costs no struct (and its derives) of
/// its own, and the name is there for the struct a later header makes.
fn headers_type(plan: &Plan<'_>) -> TokenStream {
    let fn_name = &plan.fn_ident;
    let response_fn = &plan.response_fn;
    let ty = &plan.headers_ty;
    let reader = format!(
        "The headers the answers of [`Client::{fn_name}`](crate::Client::{fn_name}) declare, as [`Client::{response_fn}`](crate::Client::{response_fn}) reads them"
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

/// Whether the stream helper takes the params struct (it does unless the
/// dynamic query is its only field).
fn stream_takes_params(plan: &Plan<'_>, stream: &StreamPlan) -> bool {
    plan.params
        .as_ref()
        .is_some_and(|p| !(stream.query_field.is_some() && p.fields.len() == 1))
}

/// The stream helper's arguments after `&self`: name and type.
pub(super) fn stream_args(plan: &Plan<'_>, stream: &StreamPlan) -> Vec<(Ident, TokenStream)> {
    let mut args: Vec<(Ident, TokenStream)> = plan
        .args
        .iter()
        .enumerate()
        .filter(|(i, _)| Some(*i) != stream.query_position)
        .map(|(_, a)| (a.ident.clone(), a.ty.clone()))
        .collect();
    args.push((stream.query_arg.clone(), stream.query_ty.clone()));
    if let Some(params) = plan
        .params
        .as_ref()
        .filter(|_| stream_takes_params(plan, stream))
    {
        let ty = &params.ty;
        args.push((params.arg.clone(), quote!(#ty)));
    }
    args
}

/// `{fn_name}_stream`: every item of every page.
fn stream_method(plan: &Plan<'_>) -> Option<TokenStream> {
    let stream = plan.stream.as_ref()?;
    let op_fn = &plan.fn_ident;
    let fn_ident = &stream.fn_ident;
    let query = &stream.query_arg;
    let item_ty = &stream.item_ty;
    let mut owned = Vec::new();
    let mut per_page = Vec::new();
    let mut call_args = Vec::new();
    for (i, arg) in plan.args.iter().enumerate() {
        if Some(i) == stream.query_position {
            call_args.push(quote!(&__query));
            continue;
        }
        let ident = &arg.ident;
        if arg.by_ref {
            // Owned once, borrowed by each page's call.
            owned.push(quote!(let #ident = #ident.to_owned();));
            per_page.push(quote!(let #ident = #ident.clone();));
            call_args.push(quote!(&#ident));
        } else if arg.copy {
            call_args.push(quote!(#ident));
        } else {
            per_page.push(quote!(let #ident = #ident.clone();));
            call_args.push(quote!(#ident));
        }
    }
    let params_doc;
    if let Some(params) = &plan.params {
        let (ident, ty) = (&params.arg, &params.ty);
        match &stream.query_field {
            Some(field) if params.fields.len() == 1 => {
                per_page.push(quote!(let __params = #ty::default().#field(__query);));
                call_args.push(quote!(__params));
                params_doc = None;
            }
            Some(field) => {
                per_page.push(quote!(let __params = #ident.clone().#field(__query);));
                call_args.push(quote!(__params));
                params_doc = Some(format!(
                    "- `{ident}`: the other optional inputs, as for [`Client::{op_fn}`]; its `{field}` is replaced by each page's query."
                ));
            }
            None => {
                per_page.push(quote!(let #ident = #ident.clone();));
                call_args.push(quote!(#ident));
                params_doc = Some(format!(
                    "- `{ident}`: the optional inputs, as for [`Client::{op_fn}`]."
                ));
            }
        }
    } else {
        params_doc = None;
    }
    let (items, offset, total) = (&stream.items, &stream.offset, &stream.total);
    let mut lines = vec![
        format!(
            "Every item of every page of [`Client::{op_fn}`], fetched page by page as the stream is read."
        ),
        String::new(),
        format!(
            "The walk starts at the query's offset (0 when it has none) and asks for pages of its `count` (the API's default when it has none); it ends after the last page (offset plus items reaching the total the API reports), after an empty page, or after the first error, which it yields. It never asks for the same offset twice."
        ),
        String::new(),
        "# Arguments".to_owned(),
        String::new(),
        format!(
            "- `{query}`: the filters, sorting and page size; its offset is where the walk starts."
        ),
    ];
    lines.extend(params_doc);
    let doc = docs::attrs(&lines);
    let signature = stream_args(plan, stream)
        .into_iter()
        .map(|(ident, ty)| quote!(#ident: #ty));
    let conversion = crate::emit::conversion_name_allow(&fn_ident.to_string());
    Some(quote! {
        #doc
        #conversion
        pub fn #fn_ident(&self, #(#signature),*)
            -> impl futures_util::Stream<Item = Result<#item_ty, crate::Error>> + Send + 'static
        {
            let __client = self.clone();
            let __first = #query.requested_offset().unwrap_or(0);
            #(#owned)*
            paging::walk(__first, move |__offset| {
                let __client = __client.clone();
                let __query = #query.clone().offset(__offset);
                #(#per_page)*
                async move {
                    let __page = __client.#op_fn(#(#call_args),*).await?;
                    Ok(paging::Page {
                        offset: #offset,
                        total: #total,
                        items: __page.#items,
                    })
                }
            })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::range_pattern;

    /// A base with subtypes reads an object without a tag as its own
    /// struct, so the `{"data": …}` wrapper is probed for as that struct's
    /// would be: first when nothing the base requires would refuse it.
    #[test]
    fn a_base_with_subtypes_is_probed_for_a_wrapper_as_its_own_struct() {
        let mode = |required: &str| {
            let api = crate::lower::testing::api(&format!(
                "paths: {{}}\ncomponents:\n  schemas:\n\
                 \x20   Pet: {{type: object, required: [{required}], properties: {{kind: {{type: string}}, name: {{type: string}}}}, discriminator: {{propertyName: kind}}}}\n\
                 \x20   Cat: {{allOf: [{{$ref: '#/components/schemas/Pet'}}]}}\n"
            ));
            let pet = crate::ir::Shape::of(crate::ir::Ty::Named("Pet".to_owned()));
            super::envelope_mode(&api, &pet, true)
        };
        assert_eq!(mode("kind"), "Fallback");
        assert_eq!(mode(""), "Probe");
    }

    #[test]
    fn a_range_leaves_out_the_statuses_named_alone() {
        let pattern = |range, codes: &[u16]| range_pattern(range, codes).to_string();
        assert_eq!(pattern(2, &[]), "200 ..= 299");
        assert_eq!(pattern(2, &[200]), "201 ..= 299");
        assert_eq!(pattern(2, &[200, 202, 299]), "201 | 203 ..= 298");
        assert_eq!(pattern(4, &[200, 404]), "400 ..= 403 | 405 ..= 499");
    }

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
