//! The models crate: one module per API area (the tag of the operations that
//! use a type; `common` for types several areas share), each type with its
//! validators, and the validation runtime.
//!
//! - [`items`]: one named type, its definition, helpers and validators;
//! - [`unions`]: a union's enum and how it is read, written and checked;
//! - [`scalar_enums`]: enums of integers, numbers and booleans;
//! - [`queries`]: the typed query languages of `x-dynamic-query` parameters;
//! - [`params`]: `FromParam` for the types parameters read from text.

mod items;
mod params;
mod queries;
mod scalar_enums;
mod unions;

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::templates::{CargoToml, Dependency, Feature, ModelsReadme};
use super::{Context, Files, RustTypes, docs};
use crate::emit::checks::{CheckContext, JSON_WALKS_FEATURE, report_ident};
use crate::error::Result;
use crate::ir::{Api, BodyKind, Primitive, Shape, Ty, TypeDef, TypeKind};
use crate::names::{Namespace, field_name};

/// The module holding types several areas share.
const COMMON: &str = "common";

/// Writes the models: a crate of their own, or the client crate's `models`
/// module ([`Context::models_inline`]), whose dependencies the client's
/// manifest then takes from [`dependencies`].
pub fn emit_models(cx: &Context<'_>) -> Result<Files> {
    let api = cx.api;
    let src = cx.models_src();
    let root = cx.models_root();
    let modules = modules(api, cx.models_inline());
    let mut files = Files::default();
    let used = UsedDeps::of(api);

    let mut module_names = Vec::new();
    for (module, types) in &modules {
        let ident = format_ident!("{}", module);
        module_names.push(ident);
        let path = src.join(format!("{module}.rs"));
        let tokens = module_tokens(cx, module, types, &modules)?;
        files.insert(&path, cx.rust_file(&path, tokens)?);
    }

    let has_queries = !queries::dynamic_queries(api).is_empty();
    if has_queries {
        let path = src.join("queries.rs");
        let tokens = queries::queries_module(api, &root, &cx.models_path_text());
        files.insert(&path, cx.rust_file(&path, tokens)?);
    }
    let named = |name: &str| {
        let ident = format_ident!("{}", name);
        quote!(#root::#ident)
    };
    let types = RustTypes {
        named: &named,
        deps: TokenStream::new(),
    };
    let from_param = params::from_param_impls(cx, &types);
    let has_params = !from_param.is_empty();
    if has_params {
        let path = src.join("params.rs");
        let doc = docs::inner_attrs(&[
            "How the models' own types parse from a parameter's text, for the server stubs."
                .to_owned(),
        ]);
        let tokens = quote! {
            #doc
            use std::borrow::Cow;

            use openapi_runtime::models::param::{FromParam, ParamError};

            #from_param
        };
        files.insert(&path, cx.rust_file(&path, tokens)?);
    }

    let lib_path = cx.models_root_file();
    files.insert(
        &lib_path,
        cx.rust_file(
            &lib_path,
            lib_tokens(cx, &module_names, &used, has_queries, has_params),
        )?,
    );
    if cx.models_inline() {
        return Ok(files);
    }

    let root = &cx.target.models.path;
    let description = format!(
        "Models of the {} API, generated from its OpenAPI document.",
        api.title
    );
    files.insert(
        root.join("Cargo.toml"),
        CargoToml::render_with(
            cx,
            &cx.target.models.package,
            &description,
            &dependencies(&used),
            &[],
            &FEATURES,
        )?,
    );
    files.insert(root.join("README.md"), ModelsReadme::render(cx, &modules)?);
    Ok(files)
}

/// The features of a models crate of its own: the raw-JSON checks are on
/// unless a crate asks for none (the client does).
const FEATURES: [Feature; 2] = [
    Feature {
        name: "default",
        enables: &[JSON_WALKS_FEATURE],
        comment: &[],
    },
    Feature {
        name: JSON_WALKS_FEATURE,
        enables: &[],
        comment: &[
            "`ValidateJson`, the checks of a body as raw JSON that server stubs run",
            "before decoding it. The client depends on this crate without it.",
        ],
    },
];

/// What the models need: the runtime with the features of the formats they
/// use, serde, and the crates of those formats.
pub(crate) fn dependencies(used: &UsedDeps) -> Vec<Dependency> {
    let mut runtime_features = vec!["models"];
    if used.uuid {
        runtime_features.push("uuid");
    }
    if used.chrono {
        runtime_features.push("chrono");
    }
    if used.regex {
        runtime_features.push("regex");
    }
    let mut dependencies = vec![
        Dependency::new("openapi-runtime", &runtime_features),
        Dependency::new("serde", &["derive"]),
        Dependency::new("serde_json", &[]),
    ];
    if used.uuid {
        dependencies.push(Dependency::new("uuid", &[]));
    }
    if used.chrono {
        dependencies.push(Dependency::new("chrono", &[]));
    }
    if used.regex {
        dependencies.push(Dependency::new("regex-lite", &[]));
    }
    dependencies
}

/// Which optional dependencies the API's types need.
pub(crate) struct UsedDeps {
    pub uuid: bool,
    pub chrono: bool,
    pub regex: bool,
}

impl UsedDeps {
    pub(crate) fn of(api: &Api) -> Self {
        let mut used = UsedDeps {
            uuid: false,
            chrono: false,
            regex: false,
        };
        let mut visit = |shape: &Shape| used.visit(shape);
        for def in &api.types {
            match &def.kind {
                TypeKind::Struct(s) => {
                    s.fields.iter().for_each(|f| visit(&f.shape));
                    if let crate::ir::Additional::Map { value, .. } = &s.additional {
                        visit(value);
                    }
                }
                TypeKind::Union(u) => u.variants.iter().for_each(|v| visit(&v.shape)),
                TypeKind::Newtype(shape) | TypeKind::Alias(shape) => visit(shape),
                TypeKind::Enum(_) => {}
            }
        }
        for op in api.operations.iter().chain(api.hook_operations()) {
            for param in &op.params {
                visit(&param.shape);
                for property in param.dynamic_query.iter().flat_map(|q| &q.properties) {
                    let ty = match property.kind {
                        crate::ir::QueryValueKind::DateTime => Ty::Primitive(Primitive::DateTime),
                        crate::ir::QueryValueKind::Uuid => Ty::Primitive(Primitive::Uuid),
                        _ => continue,
                    };
                    visit(&Shape::of(ty));
                }
            }
            if let Some(shape) = op.body.as_ref().and_then(|b| b.kind.json_shape()) {
                visit(shape);
            }
            for response in &op.responses {
                for header in &response.headers {
                    visit(&header.shape);
                }
                if let Some(shape) = response.body.as_ref().and_then(BodyKind::json_shape) {
                    visit(shape);
                }
            }
        }
        used
    }

    fn visit(&mut self, shape: &Shape) {
        self.regex |= shape.checks.pattern.is_some();
        match &shape.ty {
            Ty::Primitive(Primitive::Uuid) => self.uuid = true,
            Ty::Primitive(Primitive::DateTime | Primitive::Date) => self.chrono = true,
            Ty::Array(item) | Ty::Map(item) => self.visit(item),
            _ => {}
        }
    }
}

/// Types grouped into modules, by module name.
///
/// When the models are the client's `models` module (`inline`), no area is
/// `models` too: `models::models` is module inception, which clippy refuses.
/// The three-crate layout keeps such an area's name.
pub(crate) fn modules(api: &Api, inline: bool) -> BTreeMap<String, Vec<&TypeDef>> {
    // `main` and `lib` name crate roots: a module of either name is
    // refused (`special_module_name`). The tools' attribute namespaces
    // (`#[diagnostic::…]`, `#[rustfmt::skip]`) make a re-export of a module
    // of their name ambiguous (Azure's `Diagnostic` tag).
    let reserved = [
        "validation",
        "main",
        "lib",
        "diagnostic",
        "rustfmt",
        "clippy",
        "miri",
        "rust_analyzer",
        "dynamic_query",
        "queries",
        "params",
        "models",
    ];
    let mut names = Namespace::with_reserved(&reserved[..reserved.len() - usize::from(!inline)]);
    let mut tag_modules: BTreeMap<String, String> = BTreeMap::new();
    let mut out: BTreeMap<String, Vec<&TypeDef>> = BTreeMap::new();
    for def in &api.types {
        let module = match def.tags.iter().collect::<Vec<_>>().as_slice() {
            [tag] if !tag.is_empty() => tag_modules
                .entry((*tag).clone())
                .or_insert_with(|| names.claim(field_name(tag)))
                .clone(),
            _ => COMMON.to_owned(),
        };
        out.entry(module).or_default().push(def);
    }
    out
}

/// The module a type is in.
pub(crate) fn module_of<'a>(
    modules: &'a BTreeMap<String, Vec<&TypeDef>>,
    name: &str,
) -> Option<&'a str> {
    modules
        .iter()
        .find(|(_, types)| types.iter().any(|t| t.name == name))
        .map(|(m, _)| m.as_str())
}

fn module_tokens(
    cx: &Context<'_>,
    module: &str,
    types: &[&TypeDef],
    modules: &BTreeMap<String, Vec<&TypeDef>>,
) -> Result<TokenStream> {
    let root = cx.models_root();
    let named = |name: &str| {
        let ident = format_ident!("{}", name);
        match module_of(modules, name) {
            Some(m) if m == module => quote!(#ident),
            _ => quote!(#root::#ident),
        }
    };
    let rust_types = RustTypes {
        named: &named,
        deps: TokenStream::new(),
    };
    let check_cx = CheckContext {
        api: cx.api,
        runtime: quote!(validation),
        types: &rust_types,
        report: report_ident(),
    };
    // A client's own models are never checked as raw JSON: that is for the
    // server stubs, which share a models crate of their own, or are a
    // module of the client's crate too.
    let json_walks = cx.json_walks();
    let items = types
        .iter()
        .map(|def| items::type_items(&check_cx, def, json_walks))
        .collect::<Result<Vec<_>>>()?;
    let doc = module_doc(module, types);
    let needs_runtime = types.iter().any(|t| !matches!(t.kind, TypeKind::Alias(_)));
    // `Path` and `Report` are reserved type names, so a use is the runtime's;
    // a module whose types check nothing names neither. What only the JSON
    // walks name is imported with their feature.
    let mut items = quote!(#(#items)*);
    if json_walks && !cx.json_walks_gated() {
        items = ungated(items);
    }
    let named = super::idents(&items);
    let named_without_walks = super::idents(&without_json_walks(&items));
    let imports = if needs_runtime {
        let (mut always, mut walks) = (Vec::new(), Vec::new());
        let used = [
            ("Null", json_walks && uses_null(types)),
            ("Path", named.contains("Path")),
            ("Report", named.contains("Report")),
        ];
        for (name, used) in used {
            if !used {
                continue;
            }
            let ident = format_ident!("{name}");
            if named_without_walks.contains(name) {
                always.push(ident);
            } else {
                walks.push(ident);
            }
        }
        let always = if always.is_empty() {
            quote!(use #root::validation;)
        } else {
            quote!(use #root::validation::{self, #(#always),*};)
        };
        let walks = match walks.as_slice() {
            [] => TokenStream::new(),
            [one] => quote!(#[cfg(feature = #JSON_WALKS_FEATURE)] use #root::validation::#one;),
            many => {
                quote!(#[cfg(feature = #JSON_WALKS_FEATURE)] use #root::validation::{#(#many),*};)
            }
        };
        quote!(#always #walks)
    } else {
        TokenStream::new()
    };
    Ok(quote! {
        #doc
        #imports
        #items
    })
}

/// `items` without the `ValidateJson` impls, which are the items under
/// `#[cfg(feature = "validate-json")]`: what a module names without the
/// feature.
fn without_json_walks(items: &TokenStream) -> TokenStream {
    use proc_macro2::{Delimiter, TokenTree};
    let mut out = TokenStream::new();
    let mut trees = items.clone().into_iter().peekable();
    while let Some(tree) = trees.next() {
        let pound = matches!(&tree, TokenTree::Punct(p) if p.as_char() == '#');
        if pound && trees.peek().is_some_and(is_walk_cfg) {
            // Skip the attribute and its item, which ends with its body.
            let body = |t: &TokenTree| matches!(t, TokenTree::Group(g) if g.delimiter() == Delimiter::Brace);
            trees.by_ref().find(body);
            continue;
        }
        out.extend([tree]);
    }
    out
}

/// `items` with the `ValidateJson` impls out from under
/// `#[cfg(feature = "validate-json")]`: for models in one crate with the
/// server stubs, where the feature would be the user's crate's.
fn ungated(items: TokenStream) -> TokenStream {
    use proc_macro2::TokenTree;
    let mut out = TokenStream::new();
    let mut trees = items.into_iter().peekable();
    while let Some(tree) = trees.next() {
        let pound = matches!(&tree, TokenTree::Punct(p) if p.as_char() == '#');
        if pound && trees.peek().is_some_and(is_walk_cfg) {
            trees.next();
            continue;
        }
        out.extend([tree]);
    }
    out
}

/// Whether `tree` is `[cfg(feature = "validate-json")]`, the group of the
/// attribute that gates the JSON walks.
fn is_walk_cfg(tree: &proc_macro2::TokenTree) -> bool {
    let proc_macro2::TokenTree::Group(group) = tree else {
        return false;
    };
    // Most attributes are documentation: told apart without printing them.
    let first = group.stream().into_iter().next();
    if !matches!(first, Some(proc_macro2::TokenTree::Ident(ident)) if ident == "cfg") {
        return false;
    }
    let walk_cfg = format!("[cfg(feature=\"{JSON_WALKS_FEATURE}\")]");
    group.to_string().split_whitespace().collect::<String>() == walk_cfg
}

/// Whether a module's JSON walk names `Null`: fields without constraints of
/// their own use the one-line property walk, which takes it.
fn uses_null(types: &[&TypeDef]) -> bool {
    types.iter().any(|t| match &t.kind {
        TypeKind::Struct(s) => s.fields.iter().any(|f| !f.shape.has_own_checks()),
        _ => false,
    })
}

fn module_doc(module: &str, types: &[&TypeDef]) -> TokenStream {
    let tag = types
        .first()
        .and_then(|t| t.tags.iter().next())
        .filter(|_| module != COMMON);
    let line = match tag {
        Some(tag) => format!("Types of the `{tag}` operations, also exported at the crate root."),
        None => {
            "Types that several parts of the API share, also exported at the crate root.".to_owned()
        }
    };
    docs::inner_attrs(&[line])
}

fn lib_tokens(
    cx: &Context<'_>,
    modules: &[proc_macro2::Ident],
    used: &UsedDeps,
    has_queries: bool,
    has_params: bool,
) -> TokenStream {
    let api = cx.api;
    let mut lines = vec![
        format!("Models of the {} API (version {}).", api.title, api.version),
        String::new(),
        format!(
            "Generated from `{}`: one module per API area, every type re-exported here. \
             Each type (de)serialises with the document's wire names and checks its \
             constraints with [`validation`].",
            api.source
        ),
    ];
    if let Some(description) = &api.description {
        let first = description.split("\n\n").next().unwrap_or_default();
        lines.push(String::new());
        lines.extend(docs::markdown_lines(first));
    }
    let doc = docs::inner_attrs(&lines);
    // In rustfmt's order.
    let mut reexported = Vec::new();
    if used.chrono {
        reexported.push(format_ident!("chrono"));
    }
    reexported.push(format_ident!("serde_json"));
    if used.uuid {
        reexported.push(format_ident!("uuid"));
    }
    let reexports = reexported.iter().map(|krate| {
        let doc = format!(
            " The `{krate}` crate the models use, so that dependants name the same version."
        );
        quote!(#[doc = #doc] pub use #krate;)
    });
    // Sorted, as rustfmt would.
    let mut declared: Vec<String> = modules.iter().map(ToString::to_string).collect();
    let mut globbed = declared.clone();
    if has_queries {
        declared.push("queries".to_owned());
        globbed.push("queries".to_owned());
    }
    if has_params {
        declared.push("params".to_owned());
    }
    declared.sort();
    globbed.sort();
    let declared = declared.iter().map(|m| format_ident!("{m}"));
    let globbed = globbed.iter().map(|m| format_ident!("{m}"));
    let dynamic_query = has_queries.then(|| {
        quote! {
            /// The `dqb` grammar the query types of [`queries`] are built on.
            pub use openapi_runtime::models::dynamic_query;
        }
    });
    quote! {
        #doc

        #(#[rustfmt::skip] pub mod #declared;)*

        #dynamic_query
        /// Validation: the checks every type implements, the report of problems, decoding.
        pub use openapi_runtime::models::validation;

        #(pub use #globbed::*;)*

        #(#reexports)*
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The JSON walks are the items under the models' feature: left out
    /// (what a module names without them), or kept without the gate (one
    /// crate with the server); other attributes and items stay as they are.
    #[test]
    fn json_walks_are_told_apart_by_their_feature_gate() {
        let items = quote! {
            #[derive(Debug)]
            pub struct A { path: Path }
            #[cfg(feature = "validate-json")]
            impl ValidateJson for A { fn walk() { Null } }
            #[cfg(test)]
            impl B for A {}
        };
        assert_eq!(
            without_json_walks(&items).to_string(),
            quote! {
                #[derive(Debug)]
                pub struct A { path: Path }
                #[cfg(test)]
                impl B for A {}
            }
            .to_string()
        );
        assert_eq!(
            ungated(items).to_string(),
            quote! {
                #[derive(Debug)]
                pub struct A { path: Path }
                impl ValidateJson for A { fn walk() { Null } }
                #[cfg(test)]
                impl B for A {}
            }
            .to_string()
        );
    }

    /// The OpenAI document's `Models` tag: an area of that name.
    #[test]
    fn an_area_named_models_is_renamed_only_inside_the_clients_models_module() {
        let api = crate::testing::api(
            "paths:\n  /models:\n    get:\n      tags: [Models]\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {$ref: '#/components/schemas/Model'}\ncomponents:\n  schemas:\n    Model: {type: object, properties: {id: {type: string}}}\n",
        );
        let names = |inline| modules(&api, inline).into_keys().collect::<Vec<_>>();
        assert_eq!(names(false), ["models"], "the models crate's area");
        assert_eq!(names(true), ["models2"], "the client's models::models2");
    }
}
