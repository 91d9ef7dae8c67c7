//! The typed query languages of `x-dynamic-query` parameters: one property
//! enum and one query type per declaration, over the `dynamic_query` runtime.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::emit::docs;
use crate::ir::{Api, DynamicQuery, QueryValueKind};

/// Every dynamic query of the API, once each, in operation order, with the
/// operations that take it.
pub fn dynamic_queries(api: &Api) -> Vec<(&DynamicQuery, Vec<&str>)> {
    let mut out: Vec<(&DynamicQuery, Vec<&str>)> = Vec::new();
    for op in api.operations.iter().chain(api.hook_operations()) {
        for param in &op.params {
            if let Some(query) = &param.dynamic_query {
                match out.iter_mut().find(|(q, _)| q.name == query.name) {
                    Some((_, ops)) => ops.push(&op.id),
                    None => out.push((query, vec![&op.id])),
                }
            }
        }
    }
    out
}

/// The `queries` module.
/// `root` is how the models' code names the models (`crate`), `lib_name`
/// how the examples do (`shop_models`).
pub fn queries_module(api: &Api, root: &TokenStream, lib_name: &str) -> TokenStream {
    let items = dynamic_queries(api)
        .into_iter()
        .map(|(query, ops)| query_items(api, query, &ops, lib_name));
    let doc = docs::inner_attrs(&[
        "The query languages of the API's list operations (`x-dynamic-query`), typed:".to_owned(),
        "build a query for a client, or parse one on a server.".to_owned(),
    ]);
    quote! {
        #doc
        use #root::dynamic_query::{DynamicQuery, Property, ValueKind};
        #(#items)*
    }
}

#[allow(
    clippy::expect_used,
    reason = "lowering refuses a default sort that names no property"
)]
fn query_items(api: &Api, query: &DynamicQuery, ops: &[&str], lib_name: &str) -> TokenStream {
    let property_type = format_ident!("{}", query.property_type);
    let query_type = format_ident!("{}", query.name);
    let param = api
        .operations
        .iter()
        .flat_map(|op| &op.params)
        .find(|p| {
            p.dynamic_query
                .as_ref()
                .is_some_and(|q| q.name == query.name)
        })
        .map_or("dqb", |p| p.wire.as_str());
    let used_by = ops
        .iter()
        .map(|op| format!("`{op}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let variants = query.properties.iter().map(|p| {
        let ident = format_ident!("{}", p.name);
        let line = format!(" `{}` ({})", p.wire, kind_text(p.kind));
        quote!(#[doc = #line] #ident,)
    });
    let idents: Vec<_> = query
        .properties
        .iter()
        .map(|p| format_ident!("{}", p.name))
        .collect();
    let wires: Vec<&str> = query.properties.iter().map(|p| p.wire.as_str()).collect();
    let kinds = query.properties.iter().map(|p| {
        let kind = format_ident!("{}", kind_variant(p.kind));
        quote!(ValueKind::#kind)
    });
    let default_sort = query.default_sort.iter().map(|wire| {
        let property = query
            .properties
            .iter()
            .find(|p| &p.wire == wire)
            .expect("checked when lowered");
        format_ident!("{}", property.name)
    });
    let (max, default) = (
        Literal::u32_unsuffixed(query.max_count),
        Literal::u32_unsuffixed(query.default_count),
    );
    let property_doc = docs::attrs(&[format!(
        "The properties the `{param}` parameter of {used_by} can filter and sort on."
    )]);
    let example_property = query
        .properties
        .first()
        .map(|p| p.name.clone())
        .unwrap_or_default();
    let query_doc = docs::attrs(&[
        format!("A query for the `{param}` parameter of {used_by}."),
        String::new(),
        format!(
            "Pages hold 1 to {} results ({} when not asked for); results are finally sorted by {}.",
            query.max_count,
            query.default_count,
            if query.default_sort.is_empty() {
                "nothing".to_owned()
            } else {
                query
                    .default_sort
                    .iter()
                    .map(|s| format!("`{s}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        ),
        String::new(),
        "```".to_owned(),
        format!("use {lib_name}::dynamic_query::{{Direction, Op}};"),
        format!(
            "use {lib_name}::{{{}, {}}};",
            query.name, query.property_type
        ),
        String::new(),
        format!("let query = {}::new()", query.name),
        format!(
            "    .filter({}::{example_property}, Op::Equals, \"x\")",
            query.property_type
        ),
        format!(
            "    .sort({}::{example_property}, Direction::Descending)",
            query.property_type
        ),
        "    .count(50);".to_owned(),
        "assert!(query.to_query_string().starts_with(\"o=Equals&p=\"));".to_owned(),
        "```".to_owned(),
    ]);
    quote! {
        #property_doc
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum #property_type {
            #(#variants)*
        }

        impl Property for #property_type {
            const ALL: &'static [Self] = &[#(Self::#idents),*];
            const MAX_COUNT: u32 = #max;
            const DEFAULT_COUNT: u32 = #default;
            const DEFAULT_SORT: &'static [Self] = &[#(Self::#default_sort),*];

            fn name(self) -> &'static str {
                match self {
                    #(Self::#idents => #wires,)*
                }
            }

            fn kind(self) -> ValueKind {
                match self {
                    #(Self::#idents => #kinds,)*
                }
            }
        }

        #query_doc
        pub type #query_type = DynamicQuery<#property_type>;
    }
}

fn kind_text(kind: QueryValueKind) -> &'static str {
    match kind {
        QueryValueKind::String => "text",
        QueryValueKind::DateTime => "date-time",
        QueryValueKind::Integer => "integer",
        QueryValueKind::Number => "number",
        QueryValueKind::Boolean => "boolean",
        QueryValueKind::Uuid => "UUID",
    }
}

fn kind_variant(kind: QueryValueKind) -> &'static str {
    match kind {
        QueryValueKind::String => "String",
        QueryValueKind::DateTime => "DateTime",
        QueryValueKind::Integer => "Integer",
        QueryValueKind::Number => "Number",
        QueryValueKind::Boolean => "Boolean",
        QueryValueKind::Uuid => "Uuid",
    }
}
