//! Paths and operations → [`Operation`]s.

use std::collections::HashMap;

use indexmap::IndexMap;
use openapiv3::{
    Parameter as OaParameter, ParameterData, ParameterSchemaOrContent, PathItem, ReferenceOr,
    StatusCode,
};

use super::lenient::Leniency;
use super::schemas::{SchemaRef, TypeTable};
use crate::error::Result;
use crate::ir::{
    BodyKind, BodyRule, Docs, DynamicQuery, FixedPair, MediaKind, Method, Multipart, Operation,
    ParamLocation, ParamStyle, Parameter, PartContentType, Primitive, QueryProperty,
    QueryValueKind, RequestBody, Response, ResponseHeader, SecurityRequirement, Shape, Status, Ty,
};
use crate::names::{Namespace, field_name, type_name};
use crate::parse::{Document, Pointer};

/// Function names the generated client and server use for themselves, and
/// the methods of the traits a `Client` implements (`Clone`, `Debug`, and
/// what every type has): an inherent `fn clone(&self, id)` would hide
/// `Clone::clone` from `client.clone()`.
const RESERVED_FNS: &[&str] = &[
    "new",
    "builder",
    "authenticate",
    "router",
    "router_with",
    "base_url",
    "config",
    "clone",
    "clone_from",
    "to_owned",
    "fmt",
    "into",
    "try_into",
    "type_id",
];

/// Things seen in the document that are deliberately not generated.
#[derive(Default)]
pub(crate) struct NotGenerated {
    pub callbacks: Vec<Pointer>,
    pub links: Vec<Pointer>,
}

pub(crate) fn lower_operations<'d>(
    doc: &'d Document,
    types: &mut TypeTable<'d>,
    skipped: &mut NotGenerated,
) -> Result<Vec<Operation>> {
    let mut operations = Vec::new();
    let mut fn_names = Namespace::with_reserved(RESERVED_FNS);
    let mut prefixes = Namespace::default();
    let mut ids = std::collections::HashSet::new();
    let paths_at = Pointer::root().push("paths");
    for (path, item) in &doc.api.paths.paths {
        let item_at = paths_at.push(path);
        let item = doc.resolve(item, &item_at)?;
        let item_at = item.pointer.clone();
        for (method, operation) in methods(&item.value) {
            let at = item_at.push(&method.as_str().to_ascii_lowercase());
            let lowered = OperationLowering {
                doc,
                types: &mut *types,
                at: &at,
                skipped: &mut *skipped,
            }
            .lower(
                path,
                method,
                operation,
                &item.value,
                &item_at,
                &mut fn_names,
                &mut prefixes,
            )?;
            // `operationId`s MUST be unique; a repeated one gets a name of
            // its own (`list_pets2`) from the namespaces above.
            let repeated = operation
                .operation_id
                .as_ref()
                .is_some_and(|id| !ids.insert(id.clone()));
            if repeated {
                types
                    .lenient
                    .record(Leniency::RepeatedOperationId, &at.push("operationId"));
            }
            operations.push(lowered);
        }
    }
    Ok(operations)
}

fn methods(item: &PathItem) -> Vec<(Method, &openapiv3::Operation)> {
    [
        (Method::Get, &item.get),
        (Method::Put, &item.put),
        (Method::Post, &item.post),
        (Method::Delete, &item.delete),
        (Method::Options, &item.options),
        (Method::Head, &item.head),
        (Method::Patch, &item.patch),
        (Method::Trace, &item.trace),
    ]
    .into_iter()
    .filter_map(|(method, op)| op.as_ref().map(|op| (method, op)))
    .collect()
}

struct OperationLowering<'a, 'd> {
    doc: &'d Document,
    types: &'a mut TypeTable<'d>,
    at: &'a Pointer,
    skipped: &'a mut NotGenerated,
}

impl<'d> OperationLowering<'_, 'd> {
    #[allow(clippy::too_many_arguments)]
    fn lower(
        mut self,
        path: &str,
        method: Method,
        op: &openapiv3::Operation,
        item: &PathItem,
        item_at: &Pointer,
        fn_names: &mut Namespace,
        prefixes: &mut Namespace,
    ) -> Result<Operation> {
        let id = op
            .operation_id
            .clone()
            .unwrap_or_else(|| synthesized_id(method, path));
        let fn_name = fn_names.claim(field_name(&id));
        let type_prefix = prefixes.claim(type_name(&id));
        if !op.callbacks.is_empty() {
            self.skipped.callbacks.push(self.at.push("callbacks"));
        }
        let (route, key_query) = split_path_key(path);
        if key_query.is_some() {
            self.types.lenient.record(Leniency::QueryInPathKey, item_at);
        }
        let mut params = self.params(op, item, item_at, &type_prefix, route)?;
        let fixed_query = match key_query {
            Some(query) => self.key_query(query, &mut params),
            None => Vec::new(),
        };
        let in_route = path_template_names(route);
        params.retain(|param| {
            let missing = param.location == ParamLocation::Path && !in_route.contains(&param.wire);
            if missing {
                self.types
                    .lenient
                    .record(Leniency::PathParamNotInPath, &param.origin);
            }
            !missing
        });
        let body = match &op.request_body {
            Some(body) => self.body(body, &type_prefix)?,
            None => None,
        };
        let responses = self.responses(op, &type_prefix)?;
        let security = self.security(op)?;
        Ok(Operation {
            id,
            fn_name,
            type_prefix,
            method,
            path: route.to_owned(),
            fixed_query,
            origin: self.at.clone(),
            docs: Docs {
                title: op.summary.clone(),
                description: op.description.clone(),
                example: None,
                deprecated: op.deprecated,
            },
            tags: op.tags.clone(),
            params,
            body,
            responses,
            security,
        })
    }

    fn params(
        &mut self,
        op: &openapiv3::Operation,
        item: &PathItem,
        item_at: &Pointer,
        prefix: &str,
        path: &str,
    ) -> Result<Vec<Parameter>> {
        // Path-level parameters first; an operation's own parameter with the
        // same name and location replaces it, in its place.
        let mut merged: IndexMap<(String, ParamLocation), (Parameter, bool)> = IndexMap::new();
        let mut names = Namespace::with_reserved(&["body"]);
        // Who took each field name: a parameter of another location with
        // the same name gets the location as a suffix (`type_query`), which
        // says more than a number.
        let mut holders: HashMap<String, ParamLocation> = HashMap::new();
        let sources = item
            .parameters
            .iter()
            .enumerate()
            .map(|(i, p)| (p, item_at.push("parameters").index(i), true))
            .chain(
                op.parameters
                    .iter()
                    .enumerate()
                    .map(|(i, p)| (p, self.at.push("parameters").index(i), false)),
            );
        for (param, at, from_path_item) in sources {
            let lowered = self.param(param, &at, prefix)?;
            // A parameter without a name (Notion's header, brainbi's query
            // parameter `name: ""`), or a header no request can carry, is
            // read past: nothing could send it, so nothing can need it.
            let unusable = lowered.wire.is_empty()
                || (lowered.location == ParamLocation::Header
                    && !crate::ir::is_header_name(&lowered.wire));
            if unusable {
                self.types
                    .lenient
                    .record(Leniency::ParamNameUnusable, &at.push("name"));
                continue;
            }
            // Header names are case-insensitive (RFC 9110); the names of
            // the other places are not: AWS's documents have `maxResults`
            // and `MaxResults` side by side in one query.
            let wire_key = if lowered.location == ParamLocation::Header {
                lowered.wire.to_ascii_lowercase()
            } else {
                lowered.wire.clone()
            };
            let key = (wire_key, lowered.location);
            match merged.get_mut(&key) {
                Some((existing, existing_from_path_item))
                    if *existing_from_path_item && !from_path_item =>
                {
                    let field = existing.field.clone();
                    *existing = Parameter { field, ..lowered };
                    *existing_from_path_item = false;
                }
                Some(_) => {
                    return Err(self.doc.invalid(
                        &at,
                        format!(
                            "parameter `{}` is declared twice in the same place",
                            lowered.wire
                        ),
                    ));
                }
                None => {
                    let plain = field_name(&lowered.wire);
                    let location = lowered.location;
                    let suffixed =
                        field_name(&format!("{} {}", lowered.wire, location_word(location)));
                    let held_elsewhere =
                        names.contains(&plain) && holders.get(&plain) != Some(&location);
                    let field = if held_elsewhere && !names.contains(&suffixed) {
                        names.claim(suffixed)
                    } else {
                        names.claim(plain)
                    };
                    holders.insert(field.clone(), location);
                    merged.insert(key, (Parameter { field, ..lowered }, from_path_item));
                }
            }
        }
        let params: Vec<Parameter> = merged.into_values().map(|(p, _)| p).collect();
        for template in path_template_names(path) {
            if !params
                .iter()
                .any(|p| p.location == ParamLocation::Path && p.wire == template)
            {
                return Err(self.doc.invalid(
                    self.at,
                    format!("the path has `{{{template}}}` but the operation declares no path parameter `{template}`"),
                ));
            }
        }
        Ok(params)
    }

    /// The pairs of the query string or fragment of a path's key: a
    /// `{name}` value is the parameter `name` (declared in the path, as
    /// ClickSend's are, it moves to the query under the pair's name);
    /// the others are fixed pairs, carried by the parameter of their name
    /// when there is one.
    fn key_query(&self, query: &str, params: &mut Vec<Parameter>) -> Vec<FixedPair> {
        let mut fixed = Vec::new();
        for pair in query.split(['&', '#']).filter(|pair| !pair.is_empty()) {
            let (name, value) = match pair.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (pair, None),
            };
            if let Some(template) = value.and_then(|v| v.strip_prefix('{')?.strip_suffix('}')) {
                let declared = params.iter_mut().find(|p| {
                    p.wire == template
                        && matches!(p.location, ParamLocation::Path | ParamLocation::Query)
                });
                let Some(param) = declared else {
                    // Not declared (icons8's `term`): a required text query
                    // parameter, as the key writes it.
                    let mut field = field_name(name);
                    while field == "body" || params.iter().any(|p| p.field == field) {
                        field.push_str("_query");
                    }
                    params.push(Parameter {
                        wire: name.to_owned(),
                        field,
                        location: ParamLocation::Query,
                        required: true,
                        shape: Shape::of(Ty::Primitive(Primitive::String)),
                        style: ParamStyle::Form,
                        explode: true,
                        object: false,
                        json: false,
                        docs: Docs::default(),
                        origin: self.at.clone(),
                        component: None,
                        dynamic_query: None,
                    });
                    continue;
                };
                if param.location == ParamLocation::Path {
                    // The query's defaults, as if it had been declared there.
                    param.location = ParamLocation::Query;
                    param.style = ParamStyle::Form;
                    param.explode = true;
                }
                param.wire = name.to_owned();
                continue;
            }
            let declared = params
                .iter()
                .find(|p| match p.location {
                    ParamLocation::Query => p.wire == name,
                    ParamLocation::Header => p.wire.eq_ignore_ascii_case(name),
                    ParamLocation::Path | ParamLocation::Cookie => false,
                })
                .map(|p| p.location);
            fixed.push(FixedPair {
                name: name.to_owned(),
                value: value.map(str::to_owned),
                declared,
            });
        }
        fixed
    }

    fn param(
        &mut self,
        param: &ReferenceOr<OaParameter>,
        at: &Pointer,
        prefix: &str,
    ) -> Result<Parameter> {
        let resolved = self.doc.resolve(param, at)?;
        let at = resolved.pointer.clone();
        let component = at.component_name("parameters");
        let (data, location, style, explode_default) = match resolved.value.as_ref() {
            OaParameter::Query {
                parameter_data,
                style,
                ..
            } => {
                let style = match style {
                    openapiv3::QueryStyle::Form => ParamStyle::Form,
                    openapiv3::QueryStyle::SpaceDelimited => ParamStyle::SpaceDelimited,
                    openapiv3::QueryStyle::PipeDelimited => ParamStyle::PipeDelimited,
                    openapiv3::QueryStyle::DeepObject => ParamStyle::DeepObject,
                };
                (
                    parameter_data,
                    ParamLocation::Query,
                    style,
                    matches!(style, ParamStyle::Form | ParamStyle::DeepObject),
                )
            }
            OaParameter::Header { parameter_data, .. } => (
                parameter_data,
                ParamLocation::Header,
                ParamStyle::Simple,
                false,
            ),
            OaParameter::Path {
                parameter_data,
                style,
            } => {
                let style = match style {
                    openapiv3::PathStyle::Simple => ParamStyle::Simple,
                    openapiv3::PathStyle::Label => ParamStyle::Label,
                    openapiv3::PathStyle::Matrix => ParamStyle::Matrix,
                };
                (parameter_data, ParamLocation::Path, style, false)
            }
            OaParameter::Cookie { parameter_data, .. } => (
                parameter_data,
                ParamLocation::Cookie,
                ParamStyle::Form,
                true,
            ),
        };
        // A path has its parameters: one not marked required is required.
        let required = data.required || location == ParamLocation::Path;
        if required != data.required {
            self.types
                .lenient
                .record(Leniency::PathParameterNotRequired, &at.push("required"));
        }
        let explode = data.explode.unwrap_or(explode_default);
        let (shape, json) = self.param_shape(data, &at, prefix)?;
        let (style, object, explode) = if json {
            // One JSON text, whatever its type: nothing to spread or split.
            (style, false, false)
        } else {
            let (style, object) = self.object_spread(&shape, &at, location, style, explode)?;
            (style, object, explode)
        };
        let dynamic_query = match data.extensions.get("x-dynamic-query") {
            Some(extension) => Some(self.dynamic_query(
                extension,
                &at,
                component.as_deref(),
                prefix,
                data,
                &shape,
            )?),
            None => None,
        };
        Ok(Parameter {
            wire: data.name.clone(),
            field: String::new(),
            location,
            required,
            shape,
            style,
            explode,
            object,
            json,
            docs: Docs {
                title: None,
                description: data.description.clone(),
                example: data.example.clone(),
                deprecated: data.deprecated.unwrap_or(false),
            },
            origin: at,
            component,
            dynamic_query,
        })
    }

    /// A parameter's shape, and whether its value is JSON text (`content`
    /// with a JSON media type: any shape, written as one JSON text).
    /// `content` with another media type (`text/plain`, `*/*`) is read as
    /// `schema` would be.
    fn param_shape(
        &mut self,
        data: &ParameterData,
        at: &Pointer,
        prefix: &str,
    ) -> Result<(Shape, bool)> {
        let hint = format!("{prefix}{}", type_name(&data.name));
        let (schema, schema_at) = match &data.format {
            ParameterSchemaOrContent::Schema(schema) => (schema, at.push("schema")),
            ParameterSchemaOrContent::Content(content) => {
                match self.content_schema(content, &at.push("content"))? {
                    ContentSchema {
                        schema: Some((schema, schema_at)),
                        json: true,
                    } => {
                        let shape = self
                            .types
                            .shape(SchemaRef::from(schema), &schema_at, &hint)?;
                        return Ok((shape, true));
                    }
                    ContentSchema { schema: None, json } => return Ok((Shape::of(Ty::Any), json)),
                    ContentSchema {
                        schema: Some(found),
                        json: false,
                    } => found,
                }
            }
        };
        let shape = self
            .types
            .shape(SchemaRef::from(schema), &schema_at, &hint)?;
        // Any value (`schema: {}`, `items: {}`, as published documents
        // have) is its text, as a union is. So is each item of an array of
        // arrays or of objects (EVE Online's `connections`, pairs of
        // systems; Mastodon's `timeline`): the client writes it as its
        // JSON text, and the server stubs hand the text over.
        Ok((shape, false))
    }

    /// The schema of a parameter's or header's `content` (at `at`), which
    /// must have one media type.
    fn content_schema<'c>(
        &self,
        content: &'c IndexMap<String, openapiv3::MediaType>,
        at: &Pointer,
    ) -> Result<ContentSchema<'c>> {
        let Some((media_type, media)) = content.first() else {
            return Err(self
                .doc
                .invalid(at, "`content` needs exactly one media type"));
        };
        let schema_at = at.push(media_type).push("schema");
        let json = matches!(MediaKind::of(media_type), MediaKind::Json);
        Ok(ContentSchema {
            schema: media.schema.as_ref().map(|schema| (schema, schema_at)),
            json,
        })
    }

    /// Whether a parameter's value is an object spread over the query
    /// string (`deepObject`: `name[key]=value`; exploded `form`:
    /// `key=value`), and its style: `deepObject` on a value that is not an
    /// object is read as exploded `form`, which writes it the same way.
    /// An object of other style or place is its text, as other
    /// parameters of a type that is not a scalar; a map there is refused.
    fn object_spread(
        &self,
        shape: &Shape,
        at: &Pointer,
        location: ParamLocation,
        style: ParamStyle,
        explode: bool,
    ) -> Result<(ParamStyle, bool)> {
        let spreads = location == ParamLocation::Query
            && (style == ParamStyle::DeepObject || (style == ParamStyle::Form && explode));
        let object = crate::ir::is_object(self.types.defs(), shape);
        match object {
            false if style == ParamStyle::DeepObject => Ok((ParamStyle::Form, false)),
            false => Ok((style, false)),
            // Objects in its properties too: `name[key][sub]=…`.
            true if spreads => Ok((style, true)),
            true if matches!(shape.ty, Ty::Map(_)) => Err(self.doc.unsupported(
                &at.push("schema"),
                "an object parameter is supported in the query, as `deepObject` or exploded `form` style",
            )),
            true => Ok((style, false)),
        }
    }

    fn dynamic_query(
        &mut self,
        extension: &serde_json::Value,
        at: &Pointer,
        component: Option<&str>,
        prefix: &str,
        data: &ParameterData,
        shape: &Shape,
    ) -> Result<DynamicQuery> {
        let at = at.push("x-dynamic-query");
        if shape.ty != Ty::Primitive(crate::ir::Primitive::String) {
            return Err(self
                .doc
                .invalid(&at, "`x-dynamic-query` belongs on a string parameter"));
        }
        let invalid = |what: &str| self.doc.invalid(&at, what.to_owned());
        let object = extension
            .as_object()
            .ok_or_else(|| invalid("must be an object"))?;
        let count = |key: &str, default: u32| -> Result<u32> {
            match object.get(key) {
                None => Ok(default),
                Some(v) => v
                    .as_u64()
                    .filter(|n| (1..=u64::from(u32::MAX)).contains(n))
                    .map(|n| n as u32)
                    .ok_or_else(|| invalid(&format!("`{key}` must be a positive integer"))),
            }
        };
        let max_count = count("maxCount", 100)?;
        let default_count = count("defaultCount", max_count)?.min(max_count);
        let properties_json = object
            .get("properties")
            .and_then(serde_json::Value::as_object)
            .ok_or_else(|| {
                invalid("`properties` (a map from property name to its schema) is required")
            })?;
        let mut names = Namespace::default();
        let mut properties = Vec::new();
        // Extensions reach us as unordered JSON; take the order from the document.
        let ordered: Vec<String> = match self.doc.node(&at.push("properties")) {
            Some(serde_yaml::Value::Mapping(map)) => map
                .keys()
                .filter_map(|k| k.as_str().map(str::to_owned))
                .collect(),
            _ => properties_json.keys().cloned().collect(),
        };
        for wire in &ordered {
            let Some(schema) = properties_json.get(wire) else {
                continue;
            };
            let typ = schema.get("type").and_then(serde_json::Value::as_str);
            let format = schema.get("format").and_then(serde_json::Value::as_str);
            let kind = match (typ, format) {
                (Some("string"), Some("date-time")) => QueryValueKind::DateTime,
                (Some("string"), Some("uuid")) => QueryValueKind::Uuid,
                (Some("string"), _) => QueryValueKind::String,
                (Some("integer"), _) => QueryValueKind::Integer,
                (Some("number"), _) => QueryValueKind::Number,
                (Some("boolean"), _) => QueryValueKind::Boolean,
                _ => {
                    return Err(self.doc.invalid(
                        &at.push("properties").push(wire),
                        "a dynamic query property needs a scalar `type` (string, integer, number or boolean)",
                    ));
                }
            };
            properties.push(QueryProperty {
                wire: wire.clone(),
                name: names.claim(type_name(wire)),
                kind,
            });
        }
        let default_sort: Vec<String> = match object.get("defaultSort") {
            None => Vec::new(),
            Some(serde_json::Value::Array(items)) => items
                .iter()
                .map(|item| {
                    item.as_str()
                        .map(str::to_owned)
                        .ok_or_else(|| invalid("`defaultSort` must list property names"))
                })
                .collect::<Result<_>>()?,
            Some(_) => return Err(invalid("`defaultSort` must list property names")),
        };
        for name in &default_sort {
            if !properties.iter().any(|p| &p.wire == name) {
                return Err(invalid(&format!(
                    "`defaultSort` names `{name}`, which is not among `properties`"
                )));
            }
        }
        let name = match component {
            Some(component) => type_name(component),
            None => format!("{prefix}{}Query", type_name(&data.name)),
        };
        // The query type and its property enum live beside the schemas' types.
        let name = self.types.claim_name(&at, name);
        let property_type = self
            .types
            .claim_name(&at.push("properties"), format!("{name}Property"));
        Ok(DynamicQuery {
            name,
            property_type,
            properties,
            max_count,
            default_count,
            default_sort,
        })
    }

    fn body(
        &mut self,
        body: &ReferenceOr<openapiv3::RequestBody>,
        prefix: &str,
    ) -> Result<Option<RequestBody>> {
        let resolved = self.doc.resolve(body, &self.at.push("requestBody"))?;
        let at = resolved.pointer.clone();
        let body = resolved.value;
        if body.content.is_empty() && !body.required {
            // An optional body of no media type (Just Eat's `{content: {}}`):
            // none is sent.
            self.types
                .lenient
                .record(Leniency::BodyWithoutContent, &at.push("content"));
            return Ok(None);
        }
        if body.content.is_empty() {
            return Err(self.doc.invalid(
                &at.push("content"),
                "a request body needs at least one media type",
            ));
        }
        let (kind, media_types) = self.body_kind(
            &body.content,
            &at.push("content"),
            &format!("{prefix}Body"),
            true,
        )?;
        let rules = match body.extensions.get("x-rules") {
            Some(rules) => self.body_rules(rules, &kind, &at.push("x-rules"))?,
            None => Vec::new(),
        };
        Ok(Some(RequestBody {
            required: body.required,
            media_types,
            kind,
            rules,
            docs: Docs {
                description: body.description.clone(),
                example: self.media_example(&body.content, &at.push("content"))?,
                ..Docs::default()
            },
            origin: at,
        }))
    }

    /// The `x-rules` extension of a request body: a list of `{code,
    /// description}`, each a rule across fields that a schema cannot state.
    fn body_rules(
        &self,
        rules: &serde_json::Value,
        kind: &BodyKind,
        at: &Pointer,
    ) -> Result<Vec<BodyRule>> {
        if !matches!(kind, BodyKind::Json(_)) {
            return Err(self
                .doc
                .unsupported(at, "`x-rules` is supported on JSON bodies only"));
        }
        let list = rules.as_array().ok_or_else(|| {
            self.doc
                .invalid(at, "`x-rules` must be a list of `{code, description}`")
        })?;
        let mut codes = std::collections::BTreeSet::new();
        list.iter()
            .enumerate()
            .map(|(i, rule)| {
                let at = at.push(&i.to_string());
                let text = |key: &str| {
                    rule.get(key)
                        .and_then(serde_json::Value::as_str)
                        .filter(|text| !text.trim().is_empty())
                        .map(str::to_owned)
                        .ok_or_else(|| {
                            self.doc.invalid(
                                &at.push(key),
                                format!("`{key}` must be a non-empty string"),
                            )
                        })
                };
                let rule = BodyRule {
                    code: text("code")?,
                    description: text("description")?,
                };
                if !codes.insert(rule.code.clone()) {
                    return Err(self.doc.invalid(
                        &at.push("code"),
                        format!("the code `{}` names two rules", rule.code),
                    ));
                }
                Ok(rule)
            })
            .collect()
    }

    /// The example a body's media types give, for the docs: the first media
    /// type's `example`, or else its first `examples` entry with a value.
    fn media_example(
        &self,
        content: &IndexMap<String, openapiv3::MediaType>,
        at: &Pointer,
    ) -> Result<Option<serde_json::Value>> {
        for (media_type, media) in content {
            if let Some(example) = &media.example {
                return Ok(Some(example.clone()));
            }
            let examples_at = at.push(media_type).push("examples");
            for (name, example) in &media.examples {
                let example = self.doc.resolve(example, &examples_at.push(name))?;
                if let Some(value) = &example.value.value {
                    return Ok(Some(value.clone()));
                }
            }
        }
        Ok(None)
    }

    /// The one encoding of a body offered under several media types, and
    /// the media types that carry it (a media type whose body differs from
    /// the first one's is left out, with a note). Multipart answers
    /// (`request` false) are bytes.
    fn body_kind(
        &mut self,
        content: &IndexMap<String, openapiv3::MediaType>,
        at: &Pointer,
        hint: &str,
        request: bool,
    ) -> Result<(BodyKind, Vec<String>)> {
        let mut chosen: Option<(BodyKind, &str)> = None;
        let mut media_types = Vec::new();
        for (media_type, media) in content {
            let media_at = at.push(media_type);
            if !media_type.contains('/') {
                self.types
                    .lenient
                    .record(Leniency::MediaTypeName, &media_at);
            }
            // A stream's schema describes each event (`events`), read apart.
            let stream = !request && is_event_stream(media_type);
            let shape = match &media.schema {
                Some(schema) if !stream => Some(self.types.shape(
                    SchemaRef::from(schema),
                    &media_at.push("schema"),
                    hint,
                )?),
                _ => None,
            };
            let is_text = |shape: &Option<Shape>| {
                shape
                    .as_ref()
                    .is_none_or(|s| s.ty == Ty::Primitive(crate::ir::Primitive::String))
            };
            let kind = match (MediaKind::of(media_type), shape) {
                // A stream of events as a whole is its text.
                _ if stream => BodyKind::Text,
                (_, Some(shape)) if shape.ty == Ty::Primitive(crate::ir::Primitive::Binary) => {
                    BodyKind::Binary
                }
                (MediaKind::Json, shape) => {
                    BodyKind::Json(shape.unwrap_or_else(|| Shape::of(Ty::Any)))
                }
                // A form whose schema is a string is its text as it is
                // (spoonacular's `text=…`).
                (MediaKind::Form, shape @ Some(_)) if is_text(&shape) => BodyKind::Text,
                (MediaKind::Form, Some(shape))
                    if crate::ir::is_form_object(self.types.defs(), &shape) =>
                {
                    BodyKind::Form(shape)
                }
                // Pairs carry an object's properties; for another schema
                // (PeerTube's array of tasks) no encoding is agreed on: the
                // body is its text as it is, noted.
                (MediaKind::Form, Some(_)) => {
                    self.types
                        .lenient
                        .record(Leniency::FormNotObject, &media_at.push("schema"));
                    BodyKind::Text
                }
                (MediaKind::Form, None) => {
                    return Err(self.doc.invalid(&media_at, "a form body needs a schema"));
                }
                // Text whose schema is structured is that structure, serialised
                // as JSON (as ASP.NET services describe their text/plain answers).
                (MediaKind::Text, shape) if is_text(&shape) => BodyKind::Text,
                (MediaKind::Text, shape) => {
                    BodyKind::Json(shape.unwrap_or_else(|| Shape::of(Ty::Any)))
                }
                // Bytes, whatever structure the schema describes (a file
                // format, a JSON-like description of a spreadsheet…).
                (MediaKind::Binary, _) => BodyKind::Binary,
                (MediaKind::Multipart, Some(shape)) if request => {
                    BodyKind::Multipart(self.multipart(shape, media, &media_at)?)
                }
                (MediaKind::Multipart, None) if request => {
                    return Err(self
                        .doc
                        .invalid(&media_at, "a multipart body needs a schema"));
                }
                (MediaKind::Multipart, _) => BodyKind::Binary,
            };
            match &chosen {
                None => chosen = Some((kind, media_type)),
                Some((first, _)) if *first == kind => {}
                Some(_) => {
                    self.types
                        .lenient
                        .record(Leniency::MediaTypeOtherBody, &media_at);
                    continue;
                }
            }
            media_types.push(media_type.clone());
        }
        let (kind, _) = chosen.expect("content is not empty");
        Ok((kind, media_types))
    }

    /// The type of the events of a `text/event-stream` answer, when
    /// `content` offers one: its schema's, or text.
    fn events(
        &mut self,
        content: &IndexMap<String, openapiv3::MediaType>,
        at: &Pointer,
        hint: &str,
    ) -> Result<Option<Shape>> {
        let Some((media_type, media)) = content.iter().find(|(m, _)| is_event_stream(m)) else {
            return Ok(None);
        };
        let shape = match &media.schema {
            Some(schema) => self.types.shape(
                SchemaRef::from(schema),
                &at.push(media_type).push("schema"),
                &format!("{hint}Event"),
            )?,
            None => Shape::of(Ty::Primitive(crate::ir::Primitive::String)),
        };
        Ok(Some(shape))
    }

    /// A `multipart/form-data` body: its schema's properties are its
    /// parts, and `encoding` gives some of them a media type. A schema that
    /// is not an object with properties lists no parts: the parts are
    /// handed over as they are (the runtime's `Parts`), noted.
    fn multipart(
        &mut self,
        shape: Shape,
        media: &openapiv3::MediaType,
        media_at: &Pointer,
    ) -> Result<Multipart> {
        let content_types = media
            .encoding
            .iter()
            .filter_map(|(part, encoding)| {
                let content_type = encoding.content_type.as_ref()?.trim();
                (!content_type.is_empty()).then(|| PartContentType {
                    part: part.clone(),
                    content_type: content_type.to_owned(),
                })
            })
            .collect();
        let body = Multipart {
            shape,
            content_types,
        };
        if crate::ir::form_parts(self.types.defs(), &body).is_none() {
            self.types
                .lenient
                .record(Leniency::MultipartPartsUnlisted, &media_at.push("schema"));
        }
        Ok(body)
    }

    fn responses(&mut self, op: &openapiv3::Operation, prefix: &str) -> Result<Vec<Response>> {
        let at = self.at.push("responses");
        let mut entries: Vec<(Status, &ReferenceOr<openapiv3::Response>, Pointer)> = op
            .responses
            .responses
            .iter()
            .map(|(code, response)| {
                let status = match code {
                    StatusCode::Code(n) => Status::Code(*n),
                    StatusCode::Range(n) => Status::Range(*n),
                };
                (status, response, at.push(&code.to_string()))
            })
            .collect();
        if let Some(default) = &op.responses.default {
            entries.push((Status::Default, default, at.push("default")));
        }
        if entries.is_empty() {
            // `responses: {}` documents nothing: any status, any media type
            // (`*/*`, so no `Accept` is narrowed), its body as bytes.
            return Ok(vec![Response {
                status: Status::Default,
                name: status_name(Status::Default),
                docs: Docs {
                    description: Some(
                        "Not documented (`responses: {}`): the body as bytes.".to_owned(),
                    ),
                    ..Docs::default()
                },
                headers: Vec::new(),
                media_types: vec!["*/*".to_owned()],
                body: Some(BodyKind::Binary),
                events: None,
                component: None,
            }]);
        }
        let successes = entries.iter().filter(|(s, _, _)| s.is_success()).count();
        let mut names = Namespace::default();
        let mut responses = Vec::with_capacity(entries.len());
        for (status, response, response_at) in entries {
            let resolved = self.doc.resolve(response, &response_at)?;
            let response_at = resolved.pointer.clone();
            let response = resolved.value;
            if !response.links.is_empty() {
                self.skipped.links.push(response_at.push("links"));
            }
            let name = names.claim(status_name(status));
            let hint = if status.is_success() && successes == 1 {
                format!("{prefix}Response")
            } else {
                format!("{prefix}{name}Response")
            };
            // Only a result streams: an error answer is read whole.
            let events = if status.is_success() {
                self.events(&response.content, &response_at.push("content"), &hint)?
            } else {
                None
            };
            // A stream beside other media types is read by its own method:
            // the body is the others'.
            let content: IndexMap<String, openapiv3::MediaType> = response
                .content
                .iter()
                .filter(|(media_type, _)| {
                    response.content.len() == 1 || !is_event_stream(media_type)
                })
                .map(|(media_type, media)| (media_type.clone(), media.clone()))
                .collect();
            let (body, media_types) = if content.is_empty() {
                (None, Vec::new())
            } else {
                let (kind, media_types) =
                    self.body_kind(&content, &response_at.push("content"), &hint, false)?;
                (Some(kind), media_types)
            };
            let mut header_names = Namespace::with_reserved(&["body"]);
            let mut headers = Vec::new();
            for (wire, header) in &response.headers {
                if wire.eq_ignore_ascii_case("content-type") {
                    continue; // OpenAPI says this header is ignored: the media type says it.
                }
                let header_at = response_at.push("headers").push(wire);
                let header = self.doc.resolve(header, &header_at)?;
                let mut description = header.value.description.clone();
                // A header whose `content` is JSON is its JSON text, as a
                // parameter's is; another media type's schema is read as
                // `schema` would be.
                let schema = match &header.value.format {
                    ParameterSchemaOrContent::Schema(schema) => {
                        Some((schema, header.pointer.push("schema")))
                    }
                    ParameterSchemaOrContent::Content(content) => {
                        match self.content_schema(content, &header.pointer.push("content"))? {
                            ContentSchema {
                                schema,
                                json: false,
                            } => schema,
                            ContentSchema { json: true, .. } => {
                                let note = "Its JSON text, as the document's `content` says.";
                                description = Some(match description {
                                    Some(text) => format!("{text}\n\n{note}"),
                                    None => note.to_owned(),
                                });
                                None
                            }
                        }
                    }
                };
                let shape = match schema {
                    Some((schema, at)) => self.types.shape(
                        SchemaRef::from(schema),
                        &at,
                        &format!("{prefix}{}", type_name(wire)),
                    )?,
                    None => Shape::of(Ty::Primitive(crate::ir::Primitive::String)),
                };
                headers.push(ResponseHeader {
                    wire: wire.clone(),
                    field: header_names.claim(field_name(wire)),
                    required: header.value.required,
                    shape,
                    docs: Docs {
                        description,
                        ..Docs::default()
                    },
                });
            }
            responses.push(Response {
                status,
                name,
                docs: Docs {
                    description: Some(response.description.clone()),
                    example: self.media_example(&response.content, &response_at.push("content"))?,
                    ..Docs::default()
                },
                headers,
                media_types,
                body,
                events,
                component: response_at.component_name("responses"),
            });
        }
        Ok(responses)
    }

    fn security(&mut self, op: &openapiv3::Operation) -> Result<Vec<SecurityRequirement>> {
        let (requirements, at) = match &op.security {
            Some(own) => (own, self.at.push("security")),
            None => match &self.doc.api.security {
                Some(global) => (global, Pointer::root().push("security")),
                None => return Ok(Vec::new()),
            },
        };
        let schemes = self
            .doc
            .api
            .components
            .as_ref()
            .map(|c| &c.security_schemes);
        requirements
            .iter()
            .enumerate()
            .map(|(i, requirement)| {
                let mut named = Vec::new();
                for name in requirement.keys() {
                    if self.doc.mutual_tls.contains(name) {
                        self.types.lenient.record(Leniency::MutualTlsByConnection, &at.index(i).push(name));
                    } else if schemes.is_some_and(|s| s.contains_key(name)) {
                        named.push(name.clone());
                    } else {
                        return Err(self.doc.invalid(
                            &at.index(i).push(name),
                            format!("security scheme `{name}` is not declared in components.securitySchemes"),
                        ));
                    }
                }
                Ok(SecurityRequirement { schemes: named })
            })
            .collect()
    }
}

/// Whether `media_type` is `text/event-stream` (server-sent events).
fn is_event_stream(media_type: &str) -> bool {
    crate::ir::media_essence(media_type) == crate::ir::EVENT_STREAM
}

/// How a parameter's location reads in a name.
fn location_word(location: ParamLocation) -> &'static str {
    match location {
        ParamLocation::Path => "path",
        ParamLocation::Query => "query",
        ParamLocation::Header => "header",
        ParamLocation::Cookie => "cookie",
    }
}

/// `GET /pets/{petId}` → `get_pets_pet_id`.
fn synthesized_id(method: Method, path: &str) -> String {
    format!(
        "{} {}",
        method.as_str().to_ascii_lowercase(),
        path.replace(['{', '}'], " ")
    )
}

/// A path's key split at a query string or fragment written into it
/// (`/search?q={q}`, `/#Action=X`): the path, and the pairs' text.
fn split_path_key(key: &str) -> (&str, Option<&str>) {
    match key.find(['?', '#']) {
        Some(at) => (&key[..at], Some(&key[at + 1..])),
        None => (key, None),
    }
}

fn path_template_names(path: &str) -> Vec<String> {
    path.split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}').map(|(name, _)| name.to_owned()))
        .collect()
}

/// `201` → `Created`: the variant names HTTP gives statuses.
fn status_name(status: Status) -> String {
    let code = match status {
        Status::Code(code) => code,
        Status::Range(range) => return format!("Status{range}xx"),
        Status::Default => return "Default".to_owned(),
    };
    match http_reason(code) {
        // A variant may be called `Ok`: it is never in scope unqualified.
        Some("Ok") => "Ok".to_owned(),
        Some(reason) => type_name(reason),
        None => format!("Status{code}"),
    }
}

fn http_reason(code: u16) -> Option<&'static str> {
    Some(match code {
        100 => "Continue",
        101 => "Switching Protocols",
        200 => "Ok",
        201 => "Created",
        202 => "Accepted",
        203 => "Non Authoritative Information",
        204 => "No Content",
        205 => "Reset Content",
        206 => "Partial Content",
        207 => "Multi Status",
        300 => "Multiple Choices",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        304 => "Not Modified",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        402 => "Payment Required",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        408 => "Request Timeout",
        409 => "Conflict",
        410 => "Gone",
        411 => "Length Required",
        412 => "Precondition Failed",
        413 => "Payload Too Large",
        414 => "Uri Too Long",
        415 => "Unsupported Media Type",
        416 => "Range Not Satisfiable",
        422 => "Unprocessable Entity",
        423 => "Locked",
        428 => "Precondition Required",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => return None,
    })
}

/// The schema of a parameter's or header's `content`, with where it is,
/// and whether its media type is JSON (the value is one JSON text).
struct ContentSchema<'c> {
    schema: Option<(&'c ReferenceOr<openapiv3::Schema>, Pointer)>,
    json: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lower::testing::{api, error};

    /// An operation's own parameter replaces the path item's of the same
    /// name and place; two in one list are a mistake, whichever list.
    /// Header names are compared without case, as HTTP does.
    #[test]
    fn a_parameter_declared_twice_in_one_list_is_refused() {
        let twice = "- {name: x-q, in: header, schema: {type: string}}\n        - {name: X-Q, in: header, schema: {type: integer}}";
        let in_the_operation = error(&format!(
            "paths:\n  /a:\n    get:\n      parameters:\n        {twice}\n      responses: {{'200': {{description: ok}}}}\n"
        ));
        assert!(
            in_the_operation.contains("parameter `X-Q` is declared twice in the same place"),
            "{in_the_operation}"
        );
        assert!(
            in_the_operation.contains("/paths/~1a/get/parameters/1"),
            "{in_the_operation}"
        );
        let in_the_path_item = error(&format!(
            "paths:\n  /a:\n    parameters:\n        {twice}\n    get:\n      responses: {{'200': {{description: ok}}}}\n"
        ));
        assert!(
            in_the_path_item.contains("parameter `X-Q` is declared twice in the same place"),
            "{in_the_path_item}"
        );
        // The operation's own replaces the path item's, keeping its place.
        let api = api(
            "paths:\n  /a:\n    parameters:\n      - {name: q, in: query, schema: {type: string}}\n      - {name: r, in: query, schema: {type: string}}\n    get:\n      parameters:\n        - {name: q, in: query, required: true, schema: {type: integer}}\n      responses: {'200': {description: ok}}\n",
        );
        let params: Vec<(&str, bool)> = api.operations[0]
            .params
            .iter()
            .map(|p| (p.field.as_str(), p.required))
            .collect();
        assert_eq!(params, [("q", true), ("r", false)]);
    }

    /// A path that differs from another in parameter names only is the
    /// same path: the later operation with the same method is noted.
    #[test]
    fn notes_an_operation_on_a_path_another_has_under_other_names() {
        let api = api(
            "paths:\n  /a/{id}:\n    get:\n      parameters: [{name: id, in: path, required: true, schema: {type: string}}]\n      responses: {'200': {description: ok}}\n  /a/{key}:\n    get:\n      parameters: [{name: key, in: path, required: true, schema: {type: string}}]\n      responses: {'200': {description: ok}}\n    delete:\n      parameters: [{name: key, in: path, required: true, schema: {type: string}}]\n      responses: {'200': {description: ok}}\n",
        );
        assert_eq!(api.operations.len(), 3);
        assert!(
            api.notes.iter().any(|note| note.contains(
                "operations whose method and path (but for parameter names) an earlier one has \
                 (1, the first at t.yaml#/paths/~1a~1{key}/get)"
            )),
            "{:?}",
            api.notes
        );
    }

    /// A parameter without a name, or a header whose name no HTTP request
    /// can carry (Notion's `name: ""`), is left out, noted.
    #[test]
    fn leaves_out_a_parameter_no_request_can_carry() {
        let api = api(
            "paths:\n  /a:\n    get:\n      parameters:\n        - {name: '', in: header, schema: {type: string}}\n        - {name: '', in: query, schema: {type: string}}\n        - {name: 'Bad Name', in: header, schema: {type: string}}\n        - {name: Notion-Version, in: header, schema: {type: string}}\n      responses: {'200': {description: ok}}\n",
        );
        let wires: Vec<&str> = api.operations[0]
            .params
            .iter()
            .map(|p| p.wire.as_str())
            .collect();
        assert_eq!(wires, ["Notion-Version"]);
        assert!(
            api.notes.iter().any(|note| note.contains(
                "parameters without a name, or headers whose name is not an HTTP header name \
                 (3, the first at t.yaml#/paths/~1a/get/parameters/0/name): left out"
            )),
            "{:?}",
            api.notes
        );
    }

    /// A form body is pairs of an object's properties; a schema that is
    /// not an object (PeerTube's array of tasks) is the body's text, noted.
    #[test]
    fn a_form_body_that_is_not_an_object_is_its_text() {
        let api = api(
            "paths:\n  /a:\n    post:\n      requestBody:\n        content:\n          application/x-www-form-urlencoded:\n            schema: {type: array, items: {type: object, properties: {name: {type: string}}}}\n      responses: {'200': {description: ok}}\n",
        );
        let body = api.operations[0].body.as_ref().expect("a body");
        assert!(matches!(body.kind, BodyKind::Text), "{:?}", body.kind);
        assert!(
            api.notes
                .iter()
                .any(|note| note.contains("form bodies whose schema is not an object (1, the first at t.yaml#/paths/~1a/post/requestBody/content/application~1x-www-form-urlencoded/schema)")),
            "{:?}",
            api.notes
        );
    }

    /// Query names keep their case: AWS's documents send `maxResults` (the
    /// API's own) and `MaxResults` (the paginator's) in one query. Both are
    /// parameters, with fields that differ.
    #[test]
    fn query_names_that_differ_in_case_are_two_parameters() {
        let api = api(
            "paths:\n  /a:\n    get:\n      parameters:\n        - {name: maxResults, in: query, schema: {type: integer}}\n        - {name: MaxResults, in: query, schema: {type: string}}\n      responses: {'200': {description: ok}}\n",
        );
        let params: Vec<(&str, &str)> = api.operations[0]
            .params
            .iter()
            .map(|p| (p.wire.as_str(), p.field.as_str()))
            .collect();
        assert_eq!(
            params,
            [
                ("maxResults", "max_results"),
                ("MaxResults", "max_results2")
            ]
        );
    }

    /// A query string or fragment in a path's key: the path is what comes
    /// before it, a `{name}` there a query parameter (declared `in: path`
    /// or `in: query`, else a required text one), the other pairs fixed,
    /// with the place of the parameter that carries them.
    #[test]
    fn a_query_in_a_path_key_is_read_into_the_path_and_its_pairs() {
        let keyed = api(concat!(
            "paths:\n",
            "  /a?q={q}&v=2&flag#X-Target=T.Get:\n",
            "    get:\n",
            "      parameters:\n",
            "        - {name: q, in: path, required: true, schema: {type: string}}\n",
            "        - {name: x-target, in: header, schema: {type: string}}\n",
            "      responses: {'200': {description: ok}}\n",
        ));
        let op = &keyed.operations[0];
        assert_eq!(op.path, "/a");
        assert_eq!(op.params[0].location, ParamLocation::Query);
        assert_eq!(op.params[0].style, ParamStyle::Form);
        let pair = |name: &str, value: Option<&str>, declared| FixedPair {
            name: name.to_owned(),
            value: value.map(str::to_owned),
            declared,
        };
        assert_eq!(
            op.fixed_query,
            [
                pair("v", Some("2"), None),
                pair("flag", None, None),
                pair("X-Target", Some("T.Get"), Some(ParamLocation::Header)),
            ]
        );
        assert_eq!(op.path_key(), "/a?v=2&flag X-Target: T.Get");
        assert!(
            keyed
                .notes
                .iter()
                .any(|n| n.contains("query string or fragment"))
        );
        // Not declared: a required text query parameter.
        let undeclared =
            api("paths:\n  /a?q={q}:\n    get:\n      responses: {'200': {description: ok}}\n");
        let q = &undeclared.operations[0].params[0];
        assert_eq!(
            (q.wire.as_str(), q.location, q.required),
            ("q", ParamLocation::Query, true)
        );
        assert_eq!(q.shape.ty, Ty::Primitive(Primitive::String));
    }

    /// An optional body with no media type is no body (noted); a required
    /// one says nothing of what to send, and is refused.
    #[test]
    fn an_optional_body_without_content_is_no_body() {
        let api = api(
            "paths:\n  /a:\n    post:\n      requestBody: {content: {}}\n      responses: {'204': {description: ok}}\n",
        );
        assert!(api.operations[0].body.is_none());
        assert!(api.notes.iter().any(|n| n.contains("without a media type")));
        let message = error(
            "paths:\n  /a:\n    post:\n      requestBody: {required: true, content: {}}\n      responses: {'204': {description: ok}}\n",
        );
        assert!(
            message.contains("a request body needs at least one media type"),
            "{message}"
        );
    }

    /// Each `{name}` of the path must be a path parameter: a query
    /// parameter of that name cannot fill it.
    #[test]
    fn a_path_template_needs_a_path_parameter_of_its_name() {
        let message = error(
            "paths:\n  /a/{id}:\n    get:\n      parameters:\n        - {name: id, in: query, schema: {type: string}}\n        - {name: other, in: path, required: true, schema: {type: string}}\n      responses: {'200': {description: ok}}\n",
        );
        assert!(
            message
                .contains("the path has `{id}` but the operation declares no path parameter `id`"),
            "{message}"
        );
    }

    /// Only the query spreads an object over pairs (`deepObject`, exploded
    /// `form`); an object in a header or a cookie is one value, its text,
    /// even in a cookie's exploded `form` style.
    #[test]
    fn an_object_is_spread_over_the_query_only() {
        let api = api(
            "paths:\n  /a:\n    get:\n      parameters:\n        - {name: q, in: query, style: form, explode: true, schema: {$ref: '#/components/schemas/O'}}\n        - {name: h, in: header, schema: {$ref: '#/components/schemas/O'}}\n        - {name: c, in: cookie, style: form, explode: true, schema: {$ref: '#/components/schemas/O'}}\n      responses: {'200': {description: ok}}\ncomponents:\n  schemas:\n    O: {type: object, properties: {a: {type: string}}}\n",
        );
        let spread: Vec<(&str, bool)> = api.operations[0]
            .params
            .iter()
            .map(|p| (p.wire.as_str(), p.object))
            .collect();
        assert_eq!(spread, [("q", true), ("h", false), ("c", false)]);
    }

    /// What is not spread over the query is one value: an object in
    /// `form` style not exploded is its text (`q=a,1`), as is an object in a
    /// header, whatever its properties hold; `deepObject` on a value that
    /// is not an object is read as exploded `form`, which writes it the same.
    #[test]
    fn a_value_not_spread_over_the_query_is_one_value() {
        let api = api(
            "paths:\n  /a:\n    get:\n      parameters:\n        - {name: q, in: query, style: form, explode: false, schema: {$ref: '#/components/schemas/O'}}\n        - {name: h, in: header, schema: {$ref: '#/components/schemas/Nested'}}\n        - {name: s, in: query, style: deepObject, schema: {type: string}}\n      responses: {'200': {description: ok}}\ncomponents:\n  schemas:\n    O: {type: object, properties: {a: {type: string}}}\n    Nested: {type: object, properties: {inner: {$ref: '#/components/schemas/O'}}}\n",
        );
        let read: Vec<(&str, ParamStyle, bool, bool)> = api.operations[0]
            .params
            .iter()
            .map(|p| (p.wire.as_str(), p.style, p.explode, p.object))
            .collect();
        assert_eq!(
            read,
            [
                ("q", ParamStyle::Form, false, false),
                ("h", ParamStyle::Simple, false, false),
                ("s", ParamStyle::Form, true, false),
            ]
        );
    }

    /// A request body's `description` documents the body's argument in the
    /// generated client and server.
    #[test]
    fn a_request_body_keeps_its_description() {
        let api = api(
            "paths:\n  /a:\n    post:\n      requestBody:\n        description: The order to place.\n        content: {application/json: {schema: {type: string}}}\n      responses: {'204': {description: done}}\n",
        );
        let body = api.operations[0].body.as_ref().unwrap();
        assert_eq!(
            body.docs.description.as_deref(),
            Some("The order to place.")
        );
    }

    /// How each response's body is read: text whose schema is structured
    /// is that structure as JSON; a multipart answer is bytes (the client
    /// does not take parts apart), with or without a schema; media types
    /// that encode the body the same are all offered, one that encodes it
    /// otherwise is left out.
    #[test]
    fn reads_each_answer_by_its_media_types() {
        let api = api(concat!(
            "paths:\n  /a:\n    get:\n      responses:\n",
            "        '200': {description: ok, content: {text/plain: {schema: {type: array, items: {type: string}}}}}\n",
            "        '201': {description: ok, content: {multipart/form-data: {schema: {type: object, properties: {a: {type: string}}}}}}\n",
            "        '202': {description: ok, content: {multipart/mixed: {}}}\n",
            "        '203':\n          description: ok\n          content:\n",
            "            application/json: {schema: {type: integer}}\n",
            "            application/octet-stream: {schema: {type: string, format: binary}}\n",
            "            application/problem+json: {schema: {type: integer}}\n",
        ));
        let read: Vec<(Option<&BodyKind>, Vec<&str>)> = api.operations[0]
            .responses
            .iter()
            .map(|r| {
                (
                    r.body.as_ref(),
                    r.media_types.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        let strings = Shape::of(Ty::Array(Box::new(Shape::of(Ty::Primitive(
            crate::ir::Primitive::String,
        )))));
        let integer = Shape::of(Ty::Primitive(crate::ir::Primitive::I64));
        assert_eq!(
            read,
            [
                (Some(&BodyKind::Json(strings)), vec!["text/plain"]),
                (Some(&BodyKind::Binary), vec!["multipart/form-data"]),
                (Some(&BodyKind::Binary), vec!["multipart/mixed"]),
                (
                    Some(&BodyKind::Json(integer)),
                    vec!["application/json", "application/problem+json"]
                ),
            ]
        );
    }

    /// A multipart request is taken apart by its schema's properties: it
    /// cannot go without one.
    #[test]
    fn a_multipart_request_needs_a_schema() {
        let message = error(
            "paths:\n  /a:\n    post:\n      requestBody: {content: {multipart/form-data: {}}}\n      responses: {'204': {description: done}}\n",
        );
        assert!(
            message.ends_with("/paths/~1a/post/requestBody/content/multipart~1form-data: invalid document: a multipart body needs a schema"),
            "{message}"
        );
    }

    #[test]
    fn names_operations_without_ids_from_method_and_path() {
        assert_eq!(
            field_name(&synthesized_id(Method::Get, "/pets/{petId}/photos")),
            "get_pets_pet_id_photos"
        );
    }

    #[test]
    fn names_statuses() {
        assert_eq!(status_name(Status::Code(200)), "Ok");
        assert_eq!(status_name(Status::Code(201)), "Created");
        assert_eq!(status_name(Status::Code(299)), "Status299");
        assert_eq!(status_name(Status::Range(4)), "Status4xx");
        assert_eq!(status_name(Status::Default), "Default");
    }

    /// A response's variant is named by its status's reason phrase: a user
    /// matches `Response::TooManyRequests`, and a status without a reason
    /// here would become `Status429`, another name in their code.
    #[test]
    fn names_each_status_by_its_http_reason() {
        let expected = [
            (100, "Continue"),
            (101, "SwitchingProtocols"),
            (200, "Ok"),
            (201, "Created"),
            (202, "Accepted"),
            (203, "NonAuthoritativeInformation"),
            (204, "NoContent"),
            (205, "ResetContent"),
            (206, "PartialContent"),
            (207, "MultiStatus"),
            (300, "MultipleChoices"),
            (301, "MovedPermanently"),
            (302, "Found"),
            (303, "SeeOther"),
            (304, "NotModified"),
            (307, "TemporaryRedirect"),
            (308, "PermanentRedirect"),
            (400, "BadRequest"),
            (401, "Unauthorized"),
            (402, "PaymentRequired"),
            (403, "Forbidden"),
            (404, "NotFound"),
            (405, "MethodNotAllowed"),
            (406, "NotAcceptable"),
            (408, "RequestTimeout"),
            (409, "Conflict"),
            (410, "Gone"),
            (411, "LengthRequired"),
            (412, "PreconditionFailed"),
            (413, "PayloadTooLarge"),
            (414, "UriTooLong"),
            (415, "UnsupportedMediaType"),
            (416, "RangeNotSatisfiable"),
            (422, "UnprocessableEntity"),
            (423, "Locked"),
            (428, "PreconditionRequired"),
            (429, "TooManyRequests"),
            (500, "InternalServerError"),
            (501, "NotImplemented"),
            (502, "BadGateway"),
            (503, "ServiceUnavailable"),
            (504, "GatewayTimeout"),
        ];
        let named: Vec<(u16, String)> = expected
            .iter()
            .map(|&(code, _)| (code, status_name(Status::Code(code))))
            .collect();
        let expected: Vec<(u16, String)> = expected
            .iter()
            .map(|&(code, name)| (code, name.to_owned()))
            .collect();
        assert_eq!(named, expected);
        // Codes HTTP gives no reason here keep their number.
        assert_eq!(status_name(Status::Code(418)), "Status418");
    }
}
