//! Parameters in the generated handlers: their Rust types, the code that
//! reads them by location and style, the constraint checks, and the
//! `FromParam` impls of the models' own types.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::context::{Server, header_name};
use crate::emit::checks::{CheckContext, own_constraints};
use crate::error::{Error, Result};
use crate::ir::{EnumRepr, ParamLocation, ParamStyle, Parameter, Primitive, Shape, Ty, TypeKind};

/// How a parameter's text becomes its value.
pub(crate) enum Kind {
    /// One value of a type with a `FromParam` impl.
    Scalar(TokenStream),
    /// A list of such values, wrapped into a newtype when the document names one.
    List {
        item: TokenStream,
        wrap: Option<TokenStream>,
    },
}

impl Kind {
    /// The Rust type of the value (not counting `Option` for optional parameters).
    pub fn ty(&self) -> TokenStream {
        match self {
            Kind::Scalar(ty) => ty.clone(),
            Kind::List {
                wrap: Some(wrap), ..
            } => wrap.clone(),
            Kind::List { item, wrap: None } => quote!(Vec<#item>),
        }
    }
}

fn unsupported(server: &Server<'_>, param: &Parameter, message: &str) -> Error {
    Error::unsupported(server.source(), &param.origin, message)
}

/// How `param` is read. Scalars, string enums and arrays of them are
/// parsed; a parameter of any other type (a union, an object, any value),
/// or sent as JSON (`content`), reaches the implementation as its text: every value of an exploded query
/// parameter, the one value otherwise.
pub(crate) fn kind(server: &Server<'_>, param: &Parameter) -> Result<Kind> {
    if param.json {
        return Ok(Kind::Scalar(quote!(String)));
    }
    Ok(resolve(server, &param.shape).unwrap_or_else(|| {
        let text = quote!(String);
        if param.location == ParamLocation::Query && param.explode {
            Kind::List {
                item: text,
                wrap: None,
            }
        } else {
            Kind::Scalar(text)
        }
    }))
}

/// Whether `param` is the whole query string as a JSON value, which the
/// server stubs decode and check as a JSON body, into its type.
fn json_query_string(param: &Parameter) -> bool {
    param.location == ParamLocation::QueryString && param.json
}

/// The Rust type of the field that holds `param`.
pub(crate) fn field_type(server: &Server<'_>, param: &Parameter) -> Result<TokenStream> {
    let ty = if param.object {
        super::forms::object_type(server, param)
    } else if json_query_string(param) {
        server.types.shape(&param.shape)
    } else {
        kind(server, param)?.ty()
    };
    Ok(if param.required {
        ty
    } else {
        quote!(Option<#ty>)
    })
}

fn resolve(server: &Server<'_>, shape: &Shape) -> Option<Kind> {
    match &shape.ty {
        Ty::Primitive(Primitive::Null) => None,
        Ty::Primitive(p) => Some(Kind::Scalar(server.types.primitive(*p))),
        Ty::Named(name) => {
            let def = server.cx.api.type_named(name)?;
            let spelled = (server.types.named)(name);
            match &def.kind {
                TypeKind::Enum(_) => Some(Kind::Scalar(spelled)),
                TypeKind::Newtype(inner) => match resolve(server, inner)? {
                    Kind::Scalar(_) => Some(Kind::Scalar(spelled)),
                    Kind::List { item, wrap: None } => Some(Kind::List {
                        item,
                        wrap: Some(spelled),
                    }),
                    Kind::List { .. } => None,
                },
                TypeKind::Alias(inner) => match resolve(server, inner)? {
                    Kind::Scalar(_) => Some(Kind::Scalar(spelled)),
                    list => Some(list),
                },
                TypeKind::Struct(_) | TypeKind::Union(_) => None,
            }
        }
        Ty::Array(item) => match resolve(server, item)? {
            Kind::Scalar(item) => Some(Kind::List { item, wrap: None }),
            Kind::List { .. } => None,
        },
        Ty::Map(_) | Ty::Any => None,
    }
}

/// `let local = …;` reading a path, header or cookie parameter, or the
/// whole query string, into an `Option` (`None`, with a problem in
/// `report`, when it is missing or invalid). Query parameters are read by
/// [`query_loop`] and [`query_value`].
pub(crate) fn read(
    server: &Server<'_>,
    param: &Parameter,
    local: &Ident,
    path_template: &str,
    op_params: &[Parameter],
) -> Result<TokenStream> {
    let kind = kind(server, param)?;
    let wire = &param.wire;
    let required = param.required;
    if json_query_string(param) {
        let ty = server.types.shape(&param.shape);
        return Ok(quote! {
            let #local: Option<#ty> =
                params::query_string_json(parts.uri.query(), #wire, #required, &mut report);
        });
    }
    let wrap = wrap(&kind);
    let value = match (&param.location, &kind) {
        (ParamLocation::Path, kind) => {
            let values_of = |name: &str| string_enum_values(server, op_params, name);
            let refused = || {
                unsupported(
                    server,
                    param,
                    "two path parameters with no fixed text between them (`{id}{format}`), \
                         neither an enum of strings, cannot be told apart by the server stubs; \
                         `generate --client-only` makes the client alone",
                )
            };
            let PathPosition {
                index,
                fixed,
                which,
                told_apart_by,
            } = path_position(path_template, wire, &values_of).ok_or_else(refused)?;
            let index = Literal::usize_unsuffixed(index);
            let which = Literal::usize_unsuffixed(which);
            let styled = match param.style {
                ParamStyle::Label => Some(quote!(params::PathStyle::Label)),
                ParamStyle::Matrix => Some(quote!(params::PathStyle::Matrix)),
                _ => None,
            };
            match (kind, fixed.as_slice(), told_apart_by) {
                (_, _, Some(_)) if styled.is_some() => {
                    return Err(unsupported(
                        server,
                        param,
                        "a path parameter in label or matrix style right beside another \
                         (`{id}{format}`) cannot be told apart from it by the server stubs, \
                         even by the other's values; `generate --client-only` makes the \
                         client alone",
                    ));
                }
                // `.a` and `;name=a`: the style's lead, then the value.
                (Kind::Scalar(_), fixed, None) if let Some(style) = &styled => quote! {
                    params::path_styled(
                        parts.uri.path(), #index, (&[#(#fixed),*], #which), #style, #wire, &mut report,
                    )
                },
                (Kind::List { .. }, fixed, None) if let Some(style) = &styled => {
                    let explode = param.explode;
                    quote! {
                        params::path_styled_list(
                            parts.uri.path(), #index, (&[#(#fixed),*], #which),
                            (#style, #explode), #wire, &mut report,
                        )
                    }
                }
                // `{id}{ext}`: split at whichever of `ext`'s values the
                // segment holds.
                (Kind::Scalar(_), fixed, Some((valued, values))) => {
                    let valued = Literal::usize_unsuffixed(valued);
                    quote! {
                        params::path_part_by_values(
                            parts.uri.path(), #index, &[#(#fixed),*], #which,
                            (#valued, &[#(#values),*]), #wire, &mut report,
                        )
                    }
                }
                (Kind::List { .. }, _, Some(_)) => return Err(refused()),
                (Kind::Scalar(_), [prefix, suffix], None) => quote! {
                    params::path(parts.uri.path(), #index, #prefix, #suffix, #wire, &mut report)
                },
                (Kind::List { .. }, [prefix, suffix], None) => quote! {
                    params::path_list(parts.uri.path(), #index, #prefix, #suffix, #wire, &mut report)
                },
                (Kind::Scalar(_), fixed, None) => quote! {
                    params::path_part(parts.uri.path(), #index, &[#(#fixed),*], #which, #wire, &mut report)
                },
                (Kind::List { .. }, fixed, None) => quote! {
                    params::path_part_list(parts.uri.path(), #index, &[#(#fixed),*], #which, #wire, &mut report)
                },
            }
        }
        (ParamLocation::Header, kind) => {
            let name = header_name(wire).ok_or_else(|| {
                unsupported(
                    server,
                    param,
                    "the header name is not a valid HTTP header name",
                )
            })?;
            match kind {
                Kind::Scalar(_) => quote! {
                    params::header(&parts.headers, #name, #wire, #required, &mut report)
                },
                Kind::List { .. } => quote! {
                    params::header_list(&parts.headers, #name, #wire, #required, &mut report)
                },
            }
        }
        (ParamLocation::Cookie, Kind::Scalar(_)) => quote! {
            params::cookie(&parts.headers, #wire, #required, &mut report)
        },
        (ParamLocation::Cookie, Kind::List { .. }) => quote! {
            params::cookie_list(&parts.headers, #wire, #required, &mut report)
        },
        // Text: the query string itself, percent-decoded.
        (ParamLocation::QueryString, Kind::Scalar(_)) => quote! {
            params::value(params::query_string(parts.uri.query()), #wire, #required, &mut report)
        },
        (ParamLocation::QueryString, Kind::List { .. }) => quote! {
            params::list(params::query_string(parts.uri.query()), ',', #wire, #required, &mut report)
        },
        (ParamLocation::Query, _) => {
            return Err(unsupported(
                server,
                param,
                "internal: query parameters are read in one pass",
            ));
        }
    };
    let ty = kind.ty();
    Ok(quote!(let #local: Option<#ty> = #value #wrap;))
}

/// `.map(Newtype)` when a list is wrapped.
fn wrap(kind: &Kind) -> TokenStream {
    match kind {
        Kind::List {
            wrap: Some(wrap), ..
        } => quote!(.map(#wrap)),
        _ => TokenStream::new(),
    }
}

/// Whether a query parameter is given as repeated `name=value` pairs.
fn exploded(param: &Parameter, kind: &Kind) -> bool {
    matches!(kind, Kind::List { .. }) && param.explode
}

/// The one pass over the query string that collects the raw text of every
/// query parameter: `let mut local = None;` (or `Vec::new()` for exploded
/// lists), then a loop over the pairs.
pub(crate) fn query_loop(
    server: &Server<'_>,
    params: &[(&Parameter, Ident)],
) -> Result<TokenStream> {
    if params.is_empty() {
        return Ok(TokenStream::new());
    }
    let mut declarations = Vec::new();
    let mut arms = Vec::new();
    for (param, local) in params {
        let kind = kind(server, param)?;
        let wire = &param.wire;
        if exploded(param, &kind) {
            declarations.push(quote!(let mut #local = Vec::new();));
            arms.push((wire, TokenStream::new(), quote!(#local.push(query_value))));
        } else {
            // The first occurrence wins.
            declarations.push(quote!(let mut #local = None;));
            arms.push((
                wire,
                quote!(#local.is_none()),
                quote!(#local = Some(query_value)),
            ));
        }
    }
    let body = if let [(wire, guard, action)] = arms.as_slice() {
        let condition = if guard.is_empty() {
            quote!(query_name == #wire)
        } else {
            quote!(query_name == #wire && #guard)
        };
        quote! {
            if #condition {
                #action;
            }
        }
    } else {
        let arms = arms.iter().map(|(wire, guard, action)| {
            if guard.is_empty() {
                quote!(#wire => #action,)
            } else {
                quote!(#wire if #guard => #action,)
            }
        });
        quote! {
            match query_name.as_ref() {
                #(#arms)*
                _ => {}
            }
        }
    };
    Ok(quote! {
        #(#declarations)*
        for (query_name, query_value) in params::query_pairs(parts.uri.query()) {
            #body
        }
    })
}

/// `let local = …;` turning a query parameter's collected text into its value.
pub(crate) fn query_value(
    server: &Server<'_>,
    param: &Parameter,
    local: &Ident,
) -> Result<TokenStream> {
    let kind = kind(server, param)?;
    let wire = &param.wire;
    let required = param.required;
    let wrap = wrap(&kind);
    let value = match &kind {
        Kind::Scalar(_) => quote!(params::value(#local, #wire, #required, &mut report)),
        Kind::List { .. } if exploded(param, &kind) => {
            quote!(params::exploded(#local, #wire, #required, &mut report))
        }
        Kind::List { .. } => {
            let delimiter = match param.style {
                ParamStyle::SpaceDelimited => ' ',
                ParamStyle::PipeDelimited => '|',
                _ => ',',
            };
            quote!(params::list(#local, #delimiter, #wire, #required, &mut report))
        }
    };
    let ty = kind.ty();
    Ok(quote!(let #local: Option<#ty> = #value #wrap;))
}

/// The checks of `param`'s constraints on its value in `local` (an
/// `Option`), adding problems to `report` under the parameter's name.
pub(crate) fn checks(server: &Server<'_>, param: &Parameter, local: &Ident) -> TokenStream {
    let shape = if json_query_string(param) {
        // Decoded as a JSON body is, which checked all but these.
        match own_constraints(&param.shape) {
            Some(shape) => shape,
            None => return TokenStream::new(),
        }
    } else if param.json || resolve(server, &param.shape).is_none() {
        // Read as text (JSON), or an object the stubs read with its raw
        // JSON checks (`object_params`; it resolves to no kind): the typed
        // checks do not apply.
        return TokenStream::new();
    } else {
        Shape {
            nullable: false,
            ..param.shape.clone()
        }
    };
    let check_cx = CheckContext {
        api: server.cx.api,
        runtime: quote!(models::validation),
        types: server.types,
        report: format_ident!("report"),
    };
    let value = format_ident!("value");
    let checks = check_cx.typed(&shape, &value);
    if checks.is_empty() {
        return TokenStream::new();
    }
    let wire = &param.wire;
    quote! {
        if let Some(value) = &#local {
            let report = &mut report;
            let path = &mut Path::new(#wire);
            path.push_key(#wire);
            #checks
        }
    }
}

/// Where a path parameter is in its template.
#[derive(Debug, PartialEq)]
struct PathPosition {
    /// The segment that holds it, counting the empty one before the first `/`.
    index: usize,
    /// The segment's fixed text: before its first parameter, between each
    /// two, after the last (`{name}-{version}.zip`: `["", "-", ".zip"]`).
    fixed: Vec<String>,
    /// Which of the segment's parameters it is.
    which: usize,
    /// When two of the segment's parameters have no text between them
    /// (`{id}{ext}`): which of them is an enum of strings, and its values,
    /// which tell them apart.
    told_apart_by: Option<(usize, Vec<String>)>,
}

/// Where `{wire}` is in `template`; `None` when it is not there, or when its
/// segment has two parameters with no fixed text between them of which
/// neither is an enum of strings (`values_of` gives a parameter's values),
/// which no server can tell apart.
fn path_position(
    template: &str,
    wire: &str,
    values_of: &dyn Fn(&str) -> Option<Vec<String>>,
) -> Option<PathPosition> {
    let marker = format!("{{{wire}}}");
    let (index, segment) = template
        .split('/')
        .enumerate()
        .find(|(_, segment)| segment.contains(&marker))?;
    let mut fixed = Vec::new();
    let mut names = Vec::new();
    let mut rest = segment;
    while let Some(open) = rest.find('{') {
        fixed.push(rest[..open].to_owned());
        let close = open + rest[open..].find('}')?;
        names.push(&rest[open + 1..close]);
        rest = &rest[close + 1..];
    }
    fixed.push(rest.to_owned());
    let which = names.iter().position(|name| *name == wire)?;
    // The parameters on either side of each empty text between two.
    let adjacent: Vec<(usize, usize)> = (1..fixed.len() - 1)
        .filter(|&i| fixed[i].is_empty())
        .map(|i| (i - 1, i))
        .collect();
    let told_apart_by = match adjacent.as_slice() {
        [] => None,
        _ => {
            // A parameter with values beside every empty text: the last
            // such (Twilio's `{Subresource}{mediaTypeExtension}` are both
            // enums; the extension splits them).
            let beside_all = |valued: usize| {
                adjacent
                    .iter()
                    .all(|&(left, right)| left == valued || right == valued)
            };
            let (valued, values) = names
                .iter()
                .enumerate()
                .rev()
                .filter(|&(i, _)| beside_all(i))
                .find_map(|(i, name)| Some((i, values_of(name)?)))?;
            if values.iter().any(String::is_empty) {
                return None;
            }
            Some((valued, values))
        }
    };
    Some(PathPosition {
        index,
        fixed,
        which,
        told_apart_by,
    })
}

/// The values of the operation's path parameter `name` when it is an enum
/// of strings.
fn string_enum_values(
    server: &Server<'_>,
    op_params: &[Parameter],
    name: &str,
) -> Option<Vec<String>> {
    let param = op_params
        .iter()
        .find(|p| p.location == ParamLocation::Path && p.wire == name)?;
    let Ty::Named(ty) = &param.shape.ty else {
        return None;
    };
    match &server.cx.api.type_named(ty)?.kind {
        TypeKind::Enum(def) if def.repr == EnumRepr::String => {
            Some(def.variants.iter().map(|v| v.wire.clone()).collect())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::PathPosition;

    /// No parameter has values: `{x}{y}` cannot be split.
    fn path_position(template: &str, wire: &str) -> Option<PathPosition> {
        super::path_position(template, wire, &|_| None)
    }

    #[test]
    fn finds_path_parameters_by_segment() {
        let position = |index, fixed: &[&str], which| {
            Some(PathPosition {
                index,
                fixed: fixed.iter().map(|text| text.to_string()).collect(),
                which,
                told_apart_by: None,
            })
        };
        assert_eq!(
            path_position("/openapi/v1/Customers/{customerNo}", "customerNo"),
            position(4, &["", ""], 0)
        );
        assert_eq!(
            path_position("/files/{name}.json", "name"),
            position(2, &["", ".json"], 0)
        );
        assert_eq!(
            path_position("/a/{x}-{y}.zip", "y"),
            position(2, &["", "-", ".zip"], 1)
        );
        assert_eq!(
            path_position("/v{major}.{minor}/{x}", "minor"),
            position(1, &["v", ".", ""], 1)
        );
        assert_eq!(path_position("/a/{x}{y}", "x"), None);
        assert_eq!(path_position("/a/{x}", "y"), None);
    }

    /// `{id}{ext}` with `ext` an enum of strings: its values split them.
    #[test]
    fn adjacent_parameters_are_told_apart_by_an_enum_beside_them() {
        let values_of = |name: &str| (name == "ext").then(|| vec![".json".to_owned()]);
        let found = super::path_position("/p/{id}{ext}", "id", &values_of).unwrap();
        assert_eq!((found.index, found.which), (2, 0));
        assert_eq!(found.fixed, ["", "", ""]);
        assert_eq!(found.told_apart_by, Some((1, vec![".json".to_owned()])));
        // Between two, it splits both sides.
        let middle = super::path_position("/p/{id}{ext}{v}", "v", &values_of).unwrap();
        assert_eq!(
            (middle.which, middle.told_apart_by.map(|t| t.0)),
            (2, Some(1))
        );
        // Not beside every empty text, or no values: refused.
        assert_eq!(
            super::path_position("/p/{id}{v}{ext}", "id", &values_of),
            None
        );
        assert_eq!(super::path_position("/p/{id}{v}", "id", &values_of), None);
    }
}
