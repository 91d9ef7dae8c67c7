//! Making the plans: each operation's inputs placed as arguments or params
//! fields with the types the method takes them by, its answers and helpers,
//! and names for all of them that collide with nothing.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::emit::{Context, RustTypes};
use crate::error::Result;
use crate::ir::{Api, BodyKind, ParamLocation, Parameter, Primitive, Shape, Ty, TypeKind};
use crate::names::{Namespace, suffixed};

use super::answers::{accept, successes};
use super::plan::{
    Arg, EventsPlan, FormStruct, HeaderField, Input, ItemsPlan, Owner, ParamsField, ParamsStruct,
    Plan, RESERVED_TYPES, Success, rust_types, rust_types_named,
};
use super::stream::stream_plan;

/// The plans of every operation, in document order.
pub(in crate::emit::client) fn plan<'a>(cx: &Context<'a>) -> Result<Vec<Plan<'a>>> {
    plan_for(cx, Owner::CLIENT)
}

/// [`plan`], for methods of `owner`.
pub(in crate::emit::client) fn plan_for<'a>(
    cx: &Context<'a>,
    owner: Owner,
) -> Result<Vec<Plan<'a>>> {
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
        let inputs = op.params.iter().filter(|p| !api.is_common_header(p));
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
                    copy: !by_ref && is_copy(api, &param.shape.ty),
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
                resumes: op.resumes_events_with().map(|p| p.wire.clone()),
            });
        let items = successes.iter().find_map(|s| {
            let Some(BodyKind::Sequence(sequence)) = &s.response.body else {
                return None;
            };
            let framing = format_ident!("{}", sequence.framing.runtime_name());
            Some(ItemsPlan {
                fn_ident: format_ident!("{}", methods.claim(suffixed(&op.fn_name, "items"))),
                ty: types.shape(sequence.item()),
                framing: quote!(openapi_runtime::sequence::Framing::#framing),
                media_type: s.response.media_types.first().cloned().unwrap_or_default(),
            })
        });
        let mut plan = Plan {
            op,
            owner,
            fn_ident: format_ident!("{}", op.fn_name),
            args,
            params,
            successes,
            response_enum,
            accept,
            stream: None,
            events,
            items,
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
pub(super) fn declared_headers<'a>(
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

/// Whether values of `ty` are `Copy`: numbers, booleans, UUIDs, dates and
/// the models' closed string enums, or an alias of one. (Aliases do not
/// chain: a use of a `$ref` alias is its target's.)
pub(super) fn is_copy(api: &Api, ty: &Ty) -> bool {
    match ty {
        Ty::Primitive(p) => !matches!(p, Primitive::String | Primitive::Binary),
        Ty::Named(name) => match api.type_named(name).map(|t| &t.kind) {
            Some(TypeKind::Enum(e)) => !e.open,
            Some(TypeKind::Alias(shape)) => !shape.nullable && is_copy(api, &shape.ty),
            _ => false,
        },
        _ => false,
    }
}

/// How a method takes a parameter: text and arrays by reference, the rest by value.
pub(super) fn arg_type(types: &RustTypes<'_>, shape: &Shape) -> (TokenStream, bool) {
    match &shape.ty {
        Ty::Primitive(Primitive::String) => (quote!(&str), true),
        Ty::Array(item) => {
            let item = types.shape(item);
            (quote!(&[#item]), true)
        }
        ty => (types.ty(ty), false),
    }
}

pub(super) fn body_arg_type(types: &RustTypes<'_>, kind: &BodyKind) -> (TokenStream, bool) {
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
        BodyKind::Sequence(sequence) => {
            let item = types.shape(sequence.item());
            (quote!(&[#item]), true)
        }
        BodyKind::Text => (quote!(impl Into<String>), false),
        BodyKind::Binary => (quote!(impl Into<bytes::Bytes>), false),
        // Only a body that lists no parts gets here (the others are forms).
        BodyKind::Multipart(_) => (quote!(&Parts), true),
    }
}

pub(super) fn body_owned_type(types: &RustTypes<'_>, kind: &BodyKind) -> TokenStream {
    match kind {
        BodyKind::Json(shape) | BodyKind::Form(shape) => types.shape(shape),
        BodyKind::Sequence(sequence) => types.shape(&sequence.shape),
        BodyKind::Text => quote!(String),
        BodyKind::Binary => quote!(bytes::Bytes),
        BodyKind::Multipart(_) => quote!(Parts),
    }
}
