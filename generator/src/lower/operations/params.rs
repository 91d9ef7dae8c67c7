//! Parameters: the path item's and the operation's merged, each one's shape
//! (from `schema` or `content`), and an object parameter spread over the query.
//! OpenAPI 3.2's querystrings are read by [`super::querystring`].

use std::collections::HashMap;

use indexmap::IndexMap;
use openapiv3::{
    Parameter as OaParameter, ParameterData, ParameterSchemaOrContent, PathItem, ReferenceOr,
};

use crate::error::Result;
use crate::ir::{
    Docs, FixedPair, MediaKind, ParamLocation, ParamStyle, Parameter, Primitive, Shape, Ty,
};
use crate::lower::lenient::Leniency;
use crate::lower::schemas::SchemaRef;
use crate::names::{Namespace, field_name, type_name};
use crate::parse::Pointer;

use super::operation::{OperationLowering, path_template_names};
use super::querystring::QueryString;

impl<'d> OperationLowering<'_, 'd> {
    pub(super) fn params(
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
        let sources: Vec<_> = item
            .parameters
            .iter()
            .enumerate()
            .map(|(i, p)| (p, item_at.push("parameters").index(i), true))
            .chain(
                op.parameters
                    .iter()
                    .enumerate()
                    .map(|(i, p)| (p, self.at.push("parameters").index(i), false)),
            )
            .collect();
        self.querystring_alone(&sources)?;
        for (param, at, from_path_item) in sources {
            let Some(lowered) = self.param(param, &at, prefix)? else {
                continue;
            };
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
            // OpenAPI: "If `in` is `header` and the name is `Accept`,
            // `Content-Type` or `Authorization`, the parameter definition
            // SHALL be ignored." A required one would refuse with 400 what
            // the security scheme answers with 401 (Keeper's document).
            let reserved = ["accept", "content-type", "authorization"];
            if lowered.location == ParamLocation::Header
                && reserved.contains(&lowered.wire.to_ascii_lowercase().as_str())
            {
                self.types
                    .lenient
                    .record(Leniency::ReservedHeaderIgnored, &at.push("name"));
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
        let mut params: Vec<Parameter> = merged.into_values().map(|(p, _)| p).collect();
        for template in path_template_names(path) {
            if !params
                .iter()
                .any(|p| p.location == ParamLocation::Path && p.wire == template)
            {
                // Not declared (the specification's own example names
                // `{id}` and declares `petId`): a text path parameter, as
                // the path writes it, which every request carries.
                self.types
                    .lenient
                    .record(Leniency::PathTemplateNotDeclared, self.at);
                let plain = field_name(&template);
                let suffixed = field_name(&format!("{template} path"));
                let field = if names.contains(&plain) && !names.contains(&suffixed) {
                    names.claim(suffixed)
                } else {
                    names.claim(plain)
                };
                params.push(Parameter {
                    wire: template.clone(),
                    field,
                    location: ParamLocation::Path,
                    required: true,
                    shape: Shape::of(Ty::Primitive(Primitive::String)),
                    style: ParamStyle::Simple,
                    explode: false,
                    object: false,
                    json: false,
                    docs: Docs::default(),
                    origin: self.at.clone(),
                    component: None,
                    dynamic_query: None,
                });
            }
        }
        Ok(params)
    }

    /// The pairs of the query string or fragment of a path's key: a
    /// `{name}` value is the parameter `name` (declared in the path, as
    /// ClickSend's are, it moves to the query under the pair's name);
    /// the others are fixed pairs, carried by the parameter of their name
    /// when there is one.
    pub(super) fn key_query(&self, query: &str, params: &mut Vec<Parameter>) -> Vec<FixedPair> {
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
                    ParamLocation::Path | ParamLocation::Cookie | ParamLocation::QueryString => {
                        false
                    }
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

    /// The parameter `param` (at `at`) lowered; `None` for a querystring
    /// that is left out, noted where the operation names it.
    pub(super) fn param(
        &mut self,
        param: &ReferenceOr<OaParameter>,
        at: &Pointer,
        prefix: &str,
    ) -> Result<Option<Parameter>> {
        let resolved = self.doc.resolve(param, at)?;
        let used_at = at;
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
                let location = match self.querystring(parameter_data, &at)? {
                    Some(QueryString::Unread) => {
                        self.types
                            .lenient
                            .record(Leniency::QueryStringUnread, used_at);
                        return Ok(None);
                    }
                    Some(QueryString::Whole) => ParamLocation::QueryString,
                    Some(QueryString::Pairs) | None => ParamLocation::Query,
                };
                (
                    parameter_data,
                    location,
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
        let (style, object, explode) = if json || location == ParamLocation::QueryString {
            // One JSON text, or the whole query string, whatever its type:
            // nothing to spread or split.
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
        Ok(Some(Parameter {
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
        }))
    }

    /// A parameter's shape, and whether its value is JSON text (`content`
    /// with a JSON media type: any shape, written as one JSON text).
    /// `content` with another media type (`text/plain`, `*/*`) is read as
    /// `schema` would be.
    pub(super) fn param_shape(
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
    pub(super) fn content_schema<'c>(
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
    pub(super) fn object_spread(
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
}

/// How a parameter's location reads in a name.
pub(super) fn location_word(location: ParamLocation) -> &'static str {
    match location {
        ParamLocation::Path => "path",
        ParamLocation::Query => "query",
        ParamLocation::Header => "header",
        ParamLocation::Cookie => "cookie",
        ParamLocation::QueryString => "querystring",
    }
}

/// The schema of a parameter's or header's `content`, with where it is,
/// and whether its media type is JSON (the value is one JSON text).
pub(super) struct ContentSchema<'c> {
    pub(super) schema: Option<(&'c ReferenceOr<openapiv3::Schema>, Pointer)>,
    pub(super) json: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{api, error};

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

    /// Header parameters named `Accept`, `Content-Type` or `Authorization`
    /// are ignored, as OpenAPI says, with a note.
    #[test]
    fn reserved_header_parameters_are_ignored() {
        let api = api(
            "paths:\n  /a:\n    get:\n      parameters:\n        - {name: Authorization, in: header, required: true, schema: {type: string}}\n        - {name: accept, in: header, schema: {type: string}}\n        - {name: Content-Type, in: header, schema: {type: string}}\n        - {name: X-Trace, in: header, schema: {type: string}}\n      responses: {'200': {description: ok}}\n",
        );
        let wires: Vec<&str> = api.operations[0]
            .params
            .iter()
            .map(|p| p.wire.as_str())
            .collect();
        assert_eq!(wires, ["X-Trace"]);
        assert!(
            api.notes.iter().any(|note| note.contains("named `Accept`, `Content-Type` or `Authorization` (3, the first at t.yaml#/paths/~1a/get/parameters/0/name): ignored")),
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
        // Undeclared beside declared ones: named by the pair, its field
        // apart from theirs and from the body's.
        let beside = api(concat!(
            "paths:\n",
            "  /a?body={b}&other={o}:\n",
            "    post:\n",
            "      parameters:\n",
            "        - {name: X-H, in: header, schema: {type: string}}\n",
            "        - {name: Other, in: query, schema: {type: string}}\n",
            "      requestBody: {content: {application/json: {schema: {type: string}}}}\n",
            "      responses: {'200': {description: ok}}\n",
        ));
        let fields: Vec<(&str, &str)> = beside.operations[0]
            .params
            .iter()
            .map(|p| (p.wire.as_str(), p.field.as_str()))
            .collect();
        assert_eq!(
            fields,
            [
                ("X-H", "x_h"),
                ("Other", "other"),
                ("body", "body_query"),
                ("other", "other_query")
            ]
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
}
