//! The stream helper of a paged listing: which operations are one, and the
//! method that walks their pages.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::emit::docs;
use crate::ir::{Api, BodyKind, Primitive, Ty, TypeKind};
use crate::names::{Namespace, suffixed};

use super::plan::{Input, Plan, StreamPlan, rust_types, rust_types_named};

/// The stream helper of a paged listing: an operation with a dynamic query
/// parameter whose one result is an object with `items` (an array),
/// `offset`, `count` and `dataSetCount` (integers).
pub(super) fn stream_plan(
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

/// Whether the stream helper takes the params struct (it does unless the
/// dynamic query is its only field).
pub(super) fn stream_takes_params(plan: &Plan<'_>, stream: &StreamPlan) -> bool {
    plan.params
        .as_ref()
        .is_some_and(|p| !(stream.query_field.is_some() && p.fields.len() == 1))
}

/// The stream helper's arguments after `&self`: name and type.
pub(in crate::emit::client) fn stream_args(
    plan: &Plan<'_>,
    stream: &StreamPlan,
) -> Vec<(Ident, TokenStream)> {
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
pub(super) fn stream_method(plan: &Plan<'_>) -> Option<TokenStream> {
    let stream = plan.stream.as_ref()?;
    let op_fn = &plan.fn_ident;
    let owner = plan.owner.name;
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
                    "- `{ident}`: the other optional inputs, as for [`{owner}::{op_fn}`]; its `{field}` is replaced by each page's query."
                ));
            }
            None => {
                per_page.push(quote!(let #ident = #ident.clone();));
                call_args.push(quote!(#ident));
                params_doc = Some(format!(
                    "- `{ident}`: the optional inputs, as for [`{owner}::{op_fn}`]."
                ));
            }
        }
    } else {
        params_doc = None;
    }
    let (items, offset, total) = (&stream.items, &stream.offset, &stream.total);
    let mut lines = vec![
        format!(
            "Every item of every page of [`{owner}::{op_fn}`], fetched page by page as the stream is read."
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
