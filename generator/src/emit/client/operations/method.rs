//! The method of `Client` for one plan: its arguments turned into the request
//! (path, query, headers, body, security) and the answer into its result.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::emit::{Context, docs};
use crate::ir::{
    Api, BodyKind, Files, Operation, ParamLocation, ParamStyle, Parameter, Primitive, RequestBody,
    SecuritySchemeKind, Ty, TypeKind,
};

use super::answers::content_type;
use super::method_docs::method_docs;
use super::plan::{FormStruct, Input, Plan, result_type};
use crate::emit::client::config::{http_scheme_name, sends_bearer_api_key};

pub(super) fn method(cx: &Context<'_>, plan: &Plan<'_>) -> TokenStream {
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
    let path = &op.path;
    let call = if op.method.is_standard() {
        let method = format_ident!("{}", op.method.as_str());
        quote!(Call::new(#id, reqwest::Method::#method, #path, SECURITY))
    } else {
        let method = op.method.as_str();
        quote!(Call::with_method_named(#id, #method, #path, SECURITY))
    };
    let security = security_tokens(cx, op);
    let (statements, bodies) = inputs(plan);
    let accept = plan.accept.as_ref().map(|a| quote!(__call.accept(#a);));
    let headers_ty = &plan.headers_ty;
    let (arms, unit_arm) = success_arms(plan);
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
    let owner = plan.owner.name;
    let response_doc = docs::attrs(&[
        format!(
            "[`{owner}::{fn_ident}`], answering with the status and the headers of the answer as well as its body."
        ),
        String::new(),
        format!(
            "The headers the document declares are read into [`{headers_ty}`] ([`Response::declared`]); the arguments, answers and errors are those of [`{owner}::{fn_ident}`]."
        ),
    ]);
    // `self`, the required inputs and the optional ones: the document's
    // operation decides how many there are.
    let arg_count = 1 + plan.args.len() + usize::from(plan.params.is_some());
    let many = crate::emit::too_many_arguments(arg_count)
        .then(|| quote!(#[allow(clippy::too_many_arguments)]));
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
        let doc = events_doc(cx, plan, ty, events.resumes.as_deref());
        let send = if events.resumes.is_some() {
            quote!(send_resumable_events)
        } else {
            quote!(send_events)
        };
        quote! {
            #doc
            #many
            pub async fn #events_fn(&self, #(#args,)* #params_arg) -> Result<Events<#ty, crate::ErrorBody>, crate::Error> {
                const SECURITY: &[&[Scheme]] = #security;
                let mut __call = #call;
                #(#statements)*
                __call.accept(#event_stream);
                #(#bodies)*
                self.transport.#send(__call, #data).await
            }
        }
    });
    let items = plan.items.as_ref().map(|items| {
        let items_fn = &items.fn_ident;
        let (ty, framing, media_type) = (&items.ty, &items.framing, &items.media_type);
        let doc = docs::attrs(&[
            format!(
                "[`Client::{fn_ident}`], answering with the items of its `{media_type}` answer as they come: a [`Stream`](futures_util::Stream) of them, each decoded as soon as it is whole."
            ),
            String::new(),
            "The client's time-out bounds the wait for the answer and for each chunk, not the whole stream; an item that does not decode is an error in its place, and the stream goes on.".to_owned(),
            format!(
                "The arguments and errors are those of [`Client::{fn_ident}`]; an error answer is the error, as there."
            ),
        ]);
        quote! {
            #doc
            #many
            pub async fn #items_fn(&self, #(#args,)* #params_arg) -> Result<openapi_runtime::client::Items<#ty, crate::ErrorBody>, crate::Error> {
                const SECURITY: &[&[Scheme]] = #security;
                let mut __call = #call;
                #(#statements)*
                __call.accept(#media_type);
                #(#bodies)*
                self.transport.send_items(__call, #framing).await
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
            let #mutability __call = #call;
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
        #items
    }
}

/// The statements that put the method's inputs into the call: the path
/// key's fixed query pairs, the parameters, and then the bodies.
fn inputs(plan: &Plan<'_>) -> (Vec<TokenStream>, Vec<TokenStream>) {
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
    (statements, bodies)
}

/// The match arms of the documented successes, and the arm that takes any
/// 2xx when none is documented.
fn success_arms(plan: &Plan<'_>) -> (Vec<TokenStream>, Option<TokenStream>) {
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
    (arms.collect(), unit_arm)
}

/// The documentation of the method that streams an operation's events;
/// `resumes`: the header through which it resumes a lost stream.
fn events_doc(
    cx: &Context<'_>,
    plan: &Plan<'_>,
    ty: &TokenStream,
    resumes: Option<&str>,
) -> TokenStream {
    let fn_ident = &plan.fn_ident;
    let owner = plan.owner.name;
    let event_stream = crate::ir::EVENT_STREAM;
    let spelled = ty.to_string().replace(' ', "");
    let data_type = match spelled.rsplit_once("::") {
        Some((_, name)) if spelled.starts_with("crate::") => format!("[`{name}`]({spelled})"),
        _ => format!("`{spelled}`"),
    };
    let mut lines = vec![
        format!(
            "[`{owner}::{fn_ident}`], answering with the events of its `{event_stream}` answer as they come: a [`Stream`](futures_util::Stream) of [`Event`](openapi_runtime::client::Event)s, each with its data as {data_type}."
        ),
        String::new(),
    ];
    if let Some(field) = asks_to_stream(cx.api, plan.op) {
        lines.push(format!(
            "The API streams when the body asks it to: set its `{field}` to `true`."
        ));
        lines.push(String::new());
    }
    lines.push("The client's time-out bounds the wait for the answer and for each chunk of the stream, not the whole stream. An event whose data is `[DONE]` ends it.".to_owned());
    if let Some(header) = resumes {
        lines.push(String::new());
        lines.push(format!(
            "The operation takes `{header}`, so a lost stream is resumed: when the connection fails, stalls or ends before `[DONE]`, the same request is sent again after the stream's `retry:` time, with the last event id it gave, and the new answer's events follow (a 204 ends the stream). The client's retry policy bounds the attempts in a row without an event ([`Transport::send_resumable_events`](openapi_runtime::client::Transport::send_resumable_events))."
        ));
        lines.push(String::new());
    }
    lines.push(format!(
        "The arguments and errors are those of [`{owner}::{fn_ident}`]; an error answer is the error, as there."
    ));
    docs::attrs(&lines)
}

/// The body's boolean property that asks for a stream (OpenAI's
/// `stream`), when the JSON body has one: its Rust field name.
pub(super) fn asks_to_stream(api: &Api, op: &Operation) -> Option<String> {
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
pub(super) fn param_statement(
    param: &Parameter,
    value: &TokenStream,
    required: bool,
) -> TokenStream {
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
        ParamLocation::QueryString => quote!(__call.query_string(#value);),
    }
}

/// The statement that puts the body into `__call`; `value` is the argument
/// (a reference for JSON and forms) or the params field (an `Option`).
pub(super) fn body_statement(
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
        BodyKind::Sequence(sequence) => {
            let framing = format_ident!("{}", sequence.framing.runtime_name());
            quote!(__call.sequence_body(#content_type, #v.iter(), openapi_runtime::sequence::Framing::#framing);)
        }
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
        (
            false,
            BodyKind::Json(_) | BodyKind::Form(_) | BodyKind::Multipart(_) | BodyKind::Sequence(_),
        ) => {
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
pub(super) fn multipart_statements(form: &FormStruct<'_>, content_type: &str) -> TokenStream {
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
pub(super) fn send_multipart(content_type: &str) -> TokenStream {
    if content_type == "multipart/form-data" {
        quote!(__call.multipart_body(__parts);)
    } else {
        quote!(__call.multipart_body_as(#content_type, __parts);)
    }
}

/// The security alternatives of `op`, as `Scheme`s.
pub(super) fn security_tokens(cx: &Context<'_>, op: &Operation) -> TokenStream {
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
                        _ if sends_bearer_api_key(cx, scheme) => {
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
