//! What hand-written OpenAPI 3 documents carry over from Swagger 2, or
//! leave out, in ways whose meaning is plain: read as meant before the
//! typed model is read (which would refuse them with serde's words), each
//! remembered with its place so that the lowering's lenient note names it.
//!
//! - a property's own `required: true` (Swagger 2's form for parameters)
//!   moves into its object's `required` list;
//! - a parameter or header with `type` (and `format`, `items`, `enum`, …)
//!   beside its `name` instead of a `schema` gets those in a `schema`, and
//!   `collectionFormat` becomes its `style` and `explode`;
//! - a response without a `description` (required, but only words) gets
//!   an empty one, and one with its `schema` beside the description gets
//!   it as its `application/json` content (unread, the answer would have
//!   no body, silently);
//! - an operation's `in: body` parameter becomes its `requestBody`
//!   (`application/json`), and its `in: formData` parameters one object
//!   schema of a `requestBody`: `multipart/form-data` when a field is a
//!   file (`type: file`) or the operation `consumes` it, else
//!   `application/x-www-form-urlencoded`;
//! - a document without `info` gets one titled after its file, without a
//!   version, and a 3.0 document without `paths` an empty one
//!   ([`missing_sections`]).

use serde_yaml::{Mapping, Value};

use crate::pointer::Pointer;

/// One kind of what the parser reads past.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Habit {
    /// A property that said `required: true` or `false` itself.
    RequiredFlag,
    /// A `pattern` that is a number, a boolean or `null`, not a regular
    /// expression (api.video's `pattern: 0`).
    PatternNotText,
    /// A parameter or header with its schema's keywords beside its name.
    SchemaBesideName,
    /// A response without a `description`.
    ResponseWithoutDescription,
    /// A response with its `schema` beside its description, not in `content`.
    ResponseSchema,
    /// An operation's body as `in: body` or `in: formData` parameters.
    BodyParameters,
    /// A 3.1 schema with JSON Schema's conditional keywords (`if`,
    /// `dependentRequired`, `unevaluatedProperties`, …), which nothing checks
    /// (found by `v31.rs`).
    ConditionalKeywords,
    /// A document that says 3.0 read as 3.1, whose forms it uses and 3.0
    /// cannot read (`Document::read`); the place is the first such form.
    ThreeOneForms,
    /// `items` given as a list, the tuple form of JSON Schema's drafts
    /// before 2020-12: read as 3.1's `prefixItems` (found by `v31.rs`).
    TupleItems,
    /// A document without `info`.
    NoInfo,
    /// A 3.0 document without `paths`.
    NoPaths,
    /// A vendor extension of a Swagger 2.0 document that the generator
    /// does not read (`v20.rs`).
    UnreadExtension,
}

/// Gives a document without `info` one titled after `file` (its name
/// without folder or extension) with an empty version, and a 3.0 document
/// without `paths` an empty one (3.1 makes `paths` optional: `v31.rs`
/// adds it). Both are required, but saying nothing of them leaves no
/// doubt about what the document describes.
pub fn missing_sections(raw: &mut Value, file: &str) -> Vec<(Habit, Pointer)> {
    let mut found = Vec::new();
    let Value::Mapping(root) = raw else {
        return found;
    };
    if !root.contains_key("info") {
        let title = std::path::Path::new(file)
            .file_stem()
            .map(|stem| stem.to_string_lossy().into_owned())
            .unwrap_or_default();
        let info = Mapping::from_iter([
            ("title".into(), Value::String(title)),
            ("version".into(), Value::String(String::new())),
        ]);
        root.insert("info".into(), Value::Mapping(info));
        found.push((Habit::NoInfo, Pointer::root().push("info")));
    }
    if !root.contains_key("paths") {
        root.insert("paths".into(), Value::Mapping(Mapping::new()));
        found.push((Habit::NoPaths, Pointer::root().push("paths")));
    }
    found
}

/// Rewrites the habits of `raw` (the whole document) into OpenAPI 3's
/// forms; returns each with its place.
pub fn read_past(raw: &mut Value) -> Vec<(Habit, Pointer)> {
    let mut found = Vec::new();
    let root = Pointer::root();
    schema_forms(raw, &root, &mut found);
    if let Some(Value::Mapping(paths)) = raw.get_mut("paths") {
        for (key, item) in paths.iter_mut() {
            let Some(key) = key.as_str() else { continue };
            path_item(item, &root.push("paths").push(key), &mut found);
        }
    }
    if let Some(Value::Mapping(components)) = raw.get_mut("components") {
        let at = root.push("components");
        each(components, "parameters", &at, &mut found, parameter);
        each(components, "headers", &at, &mut found, parameter);
        each(components, "responses", &at, &mut found, response);
    }
    found
}

type Visit = fn(&mut Value, &Pointer, &mut Vec<(Habit, Pointer)>);

/// Visits each node of the map `field` of `map` (at `at`).
fn each(
    map: &mut Mapping,
    field: &str,
    at: &Pointer,
    found: &mut Vec<(Habit, Pointer)>,
    visit: Visit,
) {
    if let Some(Value::Mapping(items)) = map.get_mut(field) {
        for (name, item) in items.iter_mut() {
            if let Some(name) = name.as_str() {
                visit(item, &at.push(field).push(name), found);
            }
        }
    }
}

fn path_item(item: &mut Value, at: &Pointer, found: &mut Vec<(Habit, Pointer)>) {
    let Value::Mapping(item) = item else { return };
    parameters(item, at, found);
    for (method, operation) in item.iter_mut() {
        let Some(method) = method.as_str() else {
            continue;
        };
        let at = at.push(method);
        let Value::Mapping(operation) = operation else {
            continue;
        };
        body_parameters(operation, &at, found);
        parameters(operation, &at, found);
        each(operation, "responses", &at, found, response);
    }
}

fn parameters(map: &mut Mapping, at: &Pointer, found: &mut Vec<(Habit, Pointer)>) {
    if let Some(Value::Sequence(list)) = map.get_mut("parameters") {
        for (i, item) in list.iter_mut().enumerate() {
            parameter(item, &at.push("parameters").index(i), found);
        }
    }
}

/// Moves an operation's Swagger 2 body parameters (`in: body`, `in:
/// formData`) into a `requestBody`, unless it has one. A `$ref`'d
/// parameter is left where it is (and refused with what to write).
pub(super) fn body_parameters(
    operation: &mut Mapping,
    at: &Pointer,
    found: &mut Vec<(Habit, Pointer)>,
) {
    if operation.contains_key("requestBody") {
        return;
    }
    let Some(Value::Sequence(list)) = operation.get_mut("parameters") else {
        return;
    };
    let (body, rest): (Vec<Value>, Vec<Value>) = std::mem::take(list)
        .into_iter()
        .partition(|p| matches!(location(p), Some("body" | "formData")));
    *list = rest;
    if list.is_empty() {
        operation.remove("parameters");
    }
    if body.is_empty() {
        return;
    }
    let mut required = false;
    let mut fields = Mapping::new();
    let mut required_fields = Vec::new();
    let mut json = None;
    let mut files = false;
    for mut parameter in body {
        let in_body = location(&parameter) == Some("body");
        let Value::Mapping(map) = &mut parameter else {
            continue;
        };
        let flag = map.get("required").and_then(Value::as_bool) == Some(true);
        if in_body {
            required |= flag;
            // Without a schema (which Swagger 2 requires), any JSON value.
            json = Some(
                map.remove("schema")
                    .unwrap_or(Value::Mapping(Mapping::new())),
            );
            continue;
        }
        let Some(name) = map.get("name").and_then(Value::as_str).map(str::to_owned) else {
            continue;
        };
        let mut schema = match map.remove("schema") {
            Some(Value::Mapping(schema)) => schema,
            _ => take_schema_keywords(map),
        };
        if schema.get("type").and_then(Value::as_str) == Some("file") {
            files = true;
            schema.insert("type".into(), "string".into());
            schema.insert("format".into(), "binary".into());
        }
        if let Some(description) = map.remove("description") {
            schema.insert("description".into(), description);
        }
        if flag {
            required = true;
            required_fields.push(Value::String(name.clone()));
        }
        fields.insert(name.into(), Value::Mapping(schema));
    }
    let consumes = |media: &str| {
        operation
            .get("consumes")
            .and_then(Value::as_sequence)
            .is_some_and(|list| list.iter().any(|m| m.as_str() == Some(media)))
    };
    let (media, schema) = match json {
        Some(schema) => ("application/json", schema),
        None => {
            let media = if files || consumes("multipart/form-data") {
                "multipart/form-data"
            } else {
                "application/x-www-form-urlencoded"
            };
            let mut object = Mapping::from_iter([
                ("type".into(), "object".into()),
                ("properties".into(), Value::Mapping(fields)),
            ]);
            if !required_fields.is_empty() {
                object.insert("required".into(), Value::Sequence(required_fields));
            }
            (media, Value::Mapping(object))
        }
    };
    let request_body = Mapping::from_iter([
        ("required".into(), required.into()),
        ("content".into(), content(media, schema)),
    ]);
    operation.insert("requestBody".into(), Value::Mapping(request_body));
    found.push((Habit::BodyParameters, at.push("parameters")));
}

/// Where a parameter is (`in`).
pub(super) fn location(parameter: &Value) -> Option<&str> {
    parameter.get("in")?.as_str()
}

/// The keywords of a Swagger 2 parameter beside its name, taken out of it
/// as the schema OpenAPI 3 has them in.
fn take_schema_keywords(map: &mut Mapping) -> Mapping {
    SCHEMA_KEYWORDS
        .iter()
        .filter_map(|k| map.remove(*k).map(|v| (Value::from(*k), v)))
        .collect()
}

/// OpenAPI 3's `content` of one media type with `schema`.
fn content(media: &str, schema: Value) -> Value {
    let media_type = Mapping::from_iter([("schema".into(), schema)]);
    Value::Mapping(Mapping::from_iter([(
        media.into(),
        Value::Mapping(media_type),
    )]))
}

/// The keywords of a Swagger 2 parameter or header that belong to its
/// schema in OpenAPI 3.
const SCHEMA_KEYWORDS: [&str; 16] = [
    "type",
    "format",
    "items",
    "enum",
    "default",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "multipleOf",
];

/// A parameter or a header.
pub(super) fn parameter(node: &mut Value, at: &Pointer, found: &mut Vec<(Habit, Pointer)>) {
    let Value::Mapping(map) = node else { return };
    if map.contains_key("$ref")
        || map.contains_key("schema")
        || map.contains_key("content")
        || !map.contains_key("type")
    {
        return;
    }
    let schema = take_schema_keywords(map);
    if let Some(format) = map.remove("collectionFormat") {
        let (style, explode) = match format.as_str() {
            Some("multi") => ("form", true),
            Some("ssv") => ("spaceDelimited", false),
            Some("pipes") => ("pipeDelimited", false),
            // `csv`, Swagger 2's default, is each location's default style
            // without `explode`.
            _ => ("", false),
        };
        if !style.is_empty() {
            map.insert("style".into(), style.into());
        }
        map.insert("explode".into(), explode.into());
    }
    map.insert("schema".into(), Value::Mapping(schema));
    found.push((Habit::SchemaBesideName, at.clone()));
}

fn response(node: &mut Value, at: &Pointer, found: &mut Vec<(Habit, Pointer)>) {
    let Value::Mapping(map) = node else { return };
    if map.contains_key("$ref") {
        return;
    }
    if !map.contains_key("description") {
        map.insert("description".into(), "".into());
        found.push((Habit::ResponseWithoutDescription, at.clone()));
    }
    // Unread, the schema would leave the answer without a body, silently.
    if !map.contains_key("content") {
        if let Some(schema) = map.remove("schema") {
            map.insert("content".into(), content("application/json", schema));
            found.push((Habit::ResponseSchema, at.clone()));
        }
    }
    each(map, "headers", at, found, parameter);
}

/// Rewrites what schemas get wrong into forms that read: moves a property's
/// own `required: true` (or `false`) into its object's `required` list,
/// where OpenAPI 3 has it, drops a `pattern` that is not text, and takes a
/// discriminator's mapping values as text. Data (`example`, `default`,
/// `enum`, extensions) is left alone.
fn schema_forms(node: &mut Value, at: &Pointer, found: &mut Vec<(Habit, Pointer)>) {
    let map = match node {
        Value::Mapping(map) => map,
        Value::Sequence(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                schema_forms(item, &at.index(i), found);
            }
            return;
        }
        _ => return,
    };
    // A schema's `pattern` must be text. A mapping here is a property
    // named `pattern` (this is a `properties` map), and is left alone.
    if map
        .get("pattern")
        .is_some_and(|p| matches!(p, Value::Number(_) | Value::Bool(_) | Value::Null))
    {
        map.remove("pattern");
        found.push((Habit::PatternNotText, at.push("pattern")));
    }
    // A discriminator's values are text; YAML reads `1:` and `true:` as a
    // number and a boolean, which the typed model would refuse. Taken as
    // written, as `openapi: 3.0` is (`tree::texts_as_written`).
    if let Some(Value::Mapping(mapping)) = map
        .get_mut("discriminator")
        .and_then(|d| d.get_mut("mapping"))
    {
        *mapping = std::mem::take(mapping)
            .into_iter()
            .map(|(value, target)| match value {
                Value::Number(n) => (Value::String(n.to_string()), target),
                Value::Bool(b) => (Value::String(b.to_string()), target),
                value => (value, target),
            })
            .collect();
    }
    let mut required = Vec::new();
    if let Some(Value::Mapping(properties)) = map.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            let (Some(name), Value::Mapping(property)) = (name.as_str(), property) else {
                continue;
            };
            // (A list is the property's own object's `required`: kept.)
            let Some(&Value::Bool(flag)) = property.get("required") else {
                continue;
            };
            property.remove("required");
            if flag {
                required.push(Value::String(name.to_owned()));
            }
            let at = at.push("properties").push(name).push("required");
            found.push((Habit::RequiredFlag, at));
        }
    }
    if !required.is_empty() {
        let list = map
            .entry("required".into())
            .or_insert_with(|| Value::Sequence(Vec::new()));
        if let Value::Sequence(list) = list {
            for name in required {
                if !list.contains(&name) {
                    list.push(name);
                }
            }
        }
    }
    for (key, value) in map.iter_mut() {
        let Some(key) = key.as_str() else { continue };
        if !super::tree::holds_data(key) {
            schema_forms(value, &at.push(key), found);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(yaml: &str) -> (Value, Vec<(Habit, Pointer)>) {
        let mut raw: Value = serde_yaml::from_str(yaml).unwrap();
        let found = read_past(&mut raw);
        (raw, found)
    }

    fn yaml(text: &str) -> Value {
        serde_yaml::from_str(text).unwrap()
    }

    #[test]
    fn a_parameter_in_swagger_2s_form_gets_its_schema() {
        let (raw, found) = read(
            "paths:\n  /a:\n    get:\n      parameters:\n        - {name: ids, in: query, type: array, items: {type: integer}, collectionFormat: multi, required: true}\n        - {name: q, in: query, schema: {type: string}}\n      responses:\n        '200':\n          headers:\n            X-Rate: {type: integer, description: left}\n          schema: {type: string}\n",
        );
        let get = &raw["paths"]["/a"]["get"];
        assert_eq!(
            get["parameters"][0],
            yaml(
                "{name: ids, in: query, required: true, style: form, explode: true, schema: {type: array, items: {type: integer}}}"
            )
        );
        assert_eq!(
            get["parameters"][1],
            yaml("{name: q, in: query, schema: {type: string}}")
        );
        let response = &get["responses"]["200"];
        assert_eq!(
            response["headers"]["X-Rate"],
            yaml("{description: left, schema: {type: integer}}")
        );
        assert_eq!(response["description"], "");
        assert_eq!(
            response["content"],
            yaml("{application/json: {schema: {type: string}}}")
        );
        assert!(response.get("schema").is_none());
        let at = Pointer::root().push("paths").push("/a").push("get");
        assert_eq!(
            found,
            [
                (Habit::SchemaBesideName, at.push("parameters").index(0)),
                (
                    Habit::ResponseWithoutDescription,
                    at.push("responses").push("200")
                ),
                (Habit::ResponseSchema, at.push("responses").push("200")),
                (
                    Habit::SchemaBesideName,
                    at.push("responses")
                        .push("200")
                        .push("headers")
                        .push("X-Rate")
                ),
            ]
        );
    }

    #[test]
    fn body_and_form_parameters_become_the_request_body() {
        let (raw, found) = read(
            "paths:\n  /a:\n    post:\n      parameters:\n        - {name: id, in: query, type: string}\n        - {name: file, in: formData, type: file, required: true, description: the upload}\n        - {name: note, in: formData, type: string}\n      responses: {'204': {description: ok}}\n    put:\n      parameters:\n        - {name: pet, in: body, required: true, schema: {$ref: '#/components/schemas/Pet'}}\n      responses: {'204': {description: ok}}\n    patch:\n      consumes: [application/x-www-form-urlencoded]\n      parameters:\n        - {name: n, in: formData, type: integer}\n      responses: {'204': {description: ok}}\n",
        );
        let item = &raw["paths"]["/a"];
        assert_eq!(
            item["post"]["requestBody"],
            yaml(
                "{required: true, content: {multipart/form-data: {schema: {type: object, properties: {file: {type: string, format: binary, description: the upload}, note: {type: string}}, required: [file]}}}}"
            )
        );
        assert_eq!(
            item["post"]["parameters"],
            yaml("[{name: id, in: query, schema: {type: string}}]")
        );
        assert_eq!(
            item["put"]["requestBody"],
            yaml(
                "{required: true, content: {application/json: {schema: {$ref: '#/components/schemas/Pet'}}}}"
            )
        );
        assert!(item["put"].get("parameters").is_none());
        assert_eq!(
            item["patch"]["requestBody"],
            yaml(
                "{required: false, content: {application/x-www-form-urlencoded: {schema: {type: object, properties: {n: {type: integer}}}}}}"
            )
        );
        let at = Pointer::root().push("paths").push("/a");
        let bodies: Vec<_> = found
            .iter()
            .filter(|(habit, _)| *habit == Habit::BodyParameters)
            .map(|(_, at)| at.clone())
            .collect();
        assert_eq!(
            bodies,
            ["post", "put", "patch"].map(|m| at.push(m).push("parameters"))
        );

        // A form parameter written with 3.0's `schema` keeps it.
        let (raw, _) = read(
            "paths:\n  /b:\n    post:\n      parameters:\n        - {name: n, in: formData, schema: {type: integer, minimum: 1}}\n      responses: {'204': {description: ok}}\n",
        );
        assert_eq!(
            raw["paths"]["/b"]["post"]["requestBody"]["content"]["application/x-www-form-urlencoded"]
                ["schema"]["properties"]["n"],
            yaml("{type: integer, minimum: 1}")
        );
    }

    #[test]
    fn a_pattern_that_is_not_text_is_read_past() {
        let (raw, found) = read(
            "components:\n  schemas:\n    A:\n      properties:\n        timecode: {type: string, pattern: 0}\n        pattern: {type: string, pattern: '^a'}\n",
        );
        assert_eq!(
            raw["components"]["schemas"]["A"]["properties"],
            yaml("{timecode: {type: string}, pattern: {type: string, pattern: '^a'}}")
        );
        assert_eq!(
            found,
            [(
                Habit::PatternNotText,
                Pointer::parse_local("#/components/schemas/A/properties/timecode/pattern").unwrap()
            )]
        );
    }

    #[test]
    fn references_and_documents_in_openapi_3s_forms_are_left_alone() {
        // An object property's own `required` list stays its own.
        let nested = "components:\n  schemas:\n    A:\n      properties:\n        b:\n          type: object\n          required: [c]\n          properties: {c: {type: string}}\n";
        let (raw, found) = read(nested);
        assert_eq!(raw, yaml(nested));
        assert!(found.is_empty(), "{found:?}");
        let text = "paths:\n  /a:\n    parameters:\n      - {$ref: '#/components/parameters/P'}\n    get:\n      responses:\n        '200': {$ref: '#/components/responses/R'}\ncomponents:\n  parameters:\n    P: {name: p, in: query, schema: {type: string}}\n  responses:\n    R: {description: r}\n";
        let (raw, found) = read(text);
        assert_eq!(raw, yaml(text));
        assert!(found.is_empty(), "{found:?}");
    }

    /// A parameter already in OpenAPI 3's form (a `schema`, a `content`, a
    /// `$ref`) is left as it is, even beside a stray `type`; Swagger 2's
    /// `ssv` lists are space-delimited; a property's own `required` is
    /// moved in schemas inside lists too.
    #[test]
    fn openapi_3_parameters_are_left_and_each_list_form_is_read() {
        let params = [
            "{name: a, in: query, type: string, schema: {type: integer}}",
            "{name: b, in: query, type: string, content: {application/json: {schema: {type: integer}}}}",
            "{$ref: '#/components/parameters/C', type: string}",
        ];
        let list: String = params.iter().map(|p| format!("        - {p}\n")).collect();
        let (raw, found) = read(&format!(
            "paths:\n  /a:\n    get:\n      parameters:\n{list}        - {{name: d, in: query, type: array, items: {{type: string}}, collectionFormat: ssv}}\n      responses: {{'204': {{description: ok}}}}\n"
        ));
        let get = &raw["paths"]["/a"]["get"]["parameters"];
        for (i, param) in params.iter().enumerate() {
            assert_eq!(get[i], yaml(param), "{param}");
        }
        assert_eq!(
            get[3],
            yaml(
                "{name: d, in: query, style: spaceDelimited, explode: false, schema: {type: array, items: {type: string}}}"
            )
        );
        assert_eq!(found.len(), 1, "{found:?}");

        let (raw, _) = read(
            "components:\n  schemas:\n    A:\n      allOf:\n        - {type: object, properties: {id: {type: string, required: true}}}\n",
        );
        assert_eq!(
            raw["components"]["schemas"]["A"]["allOf"][0],
            yaml("{type: object, properties: {id: {type: string}}, required: [id]}")
        );
    }
}
