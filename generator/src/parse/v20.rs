//! Swagger 2.0 documents, converted on reading into the OpenAPI 3.0 tree
//! that `openapiv3` reads, so that every later stage works on them
//! unchanged (D59).
//!
//! The conversion works on the ordered tree, before `openapiv3` sees it:
//! - `host`, `basePath` and `schemes` are `servers` (one per scheme);
//! - `definitions`, `parameters`, `responses` and `securityDefinitions`
//!   are `components`' `schemas`, `parameters`, `responses` and
//!   `securitySchemes` (`basic` an `http` scheme, `oauth2`'s `flow` its
//!   `flows`), and every `$ref` to them follows;
//! - an operation's `in: body` parameter is its `requestBody`, in each
//!   media type it `consumes` (or the document does; JSON without either),
//!   and its `in: formData` parameters one object schema of a form body
//!   (`multipart/form-data` when a field is a `type: file` or the
//!   operation consumes it); a `$ref` to a shared parameter is inlined
//!   first, so that a shared body parameter is read the same way;
//! - a parameter's or header's `type` (and the other keywords of its
//!   schema) beside its name is its `schema`, `collectionFormat` its
//!   `style` and `explode`;
//! - a response's `schema` is its `content`, in each media type the
//!   operation `produces` (or the document does; JSON without either), its
//!   `examples` those media types' `example`;
//! - in schemas, `type: file` is a binary string, a `discriminator` (a
//!   property name) is `{propertyName}` and `x-nullable` is `nullable`.
//!
//! Every node that moves is recorded in [`Origins`], so that an error about
//! the converted tree names the node in the user's 2.0 file. Vendor
//! extensions (`x-…`) the generator does not read are listed, for the
//! lenient note.

use serde_yaml::{Mapping, Value};

use super::habits::{self, Habit};
use super::v31::Origins;
use crate::pointer::Pointer;

/// What converting a Swagger 2.0 document found.
#[derive(Debug, Default)]
pub struct Converted {
    /// Where the converted tree's nodes are in the user's document.
    pub origins: Origins,
    /// What the lenient note names: vendor extensions the generator does
    /// not read, where they are in the converted tree.
    pub notes: Vec<(Habit, Pointer)>,
}

/// The vendor extensions the generator reads (or the conversion does).
const READ_EXTENSIONS: [&str; 10] = [
    "x-rules",
    "x-dynamic-query",
    "x-enum-varnames",
    "x-enumNames",
    "x-enum-descriptions",
    "x-ms-enum",
    "x-ms-discriminator-value",
    "x-nullable",
    "x-enum-values",
    "x-codegen-request-body-name",
];

/// Whether `raw` is a Swagger 2.0 document.
pub fn is_20(raw: &Value) -> bool {
    raw.get("swagger").is_some_and(|v| match v {
        Value::String(s) => s == "2.0",
        Value::Number(n) => n.as_f64() == Some(2.0),
        _ => false,
    })
}

/// Converts the Swagger 2.0 document `raw` into OpenAPI 3.0's forms.
pub fn convert(raw: &mut Value) -> Converted {
    let mut converted = Converted::default();
    let Value::Mapping(root) = raw else {
        return converted;
    };
    let at = Pointer::root();
    extensions(&Value::Mapping(root.clone()), &at, &mut converted.notes);
    root.shift_remove("swagger");
    root.insert("openapi".into(), "3.0.3".into());
    servers(root);
    let consumes = media_list(root.shift_remove("consumes"));
    let produces = media_list(root.shift_remove("produces"));
    let shared = match root.get("parameters") {
        Some(Value::Mapping(shared)) => shared.clone(),
        _ => Mapping::new(),
    };
    let mut components = Mapping::new();
    let origins = &mut converted.origins;
    for (from, to) in [
        ("definitions", "schemas"),
        ("parameters", "parameters"),
        ("responses", "responses"),
        ("securityDefinitions", "securitySchemes"),
    ] {
        if let Some(section) = root.shift_remove(from) {
            origins.record(at.push("components").push(to), at.push(from));
            components.insert(to.into(), section);
        }
    }
    if let Some(Value::Mapping(schemes)) = components.get_mut("securitySchemes") {
        for (_, scheme) in schemes.iter_mut() {
            security_scheme(scheme);
        }
    }
    if let Some(Value::Mapping(parameters)) = components.get_mut("parameters") {
        // Body parameters are inlined where they are used (below); what
        // is left of them here is read by no operation.
        parameters.retain(|_, p| !matches!(habits::location(p), Some("body" | "formData")));
        for (name, parameter) in parameters.iter_mut() {
            let Some(name) = name.as_str() else { continue };
            let user = at.push("parameters").push(name);
            let rewritten = at.push("components").push("parameters").push(name);
            beside_name(parameter, &rewritten, &user, origins);
        }
    }
    if let Some(Value::Mapping(responses)) = components.get_mut("responses") {
        for (name, response) in responses.iter_mut() {
            let Some(name) = name.as_str() else { continue };
            let rewritten = at.push("components").push("responses").push(name);
            self::response(response, &rewritten, &produces, origins);
        }
    }
    if let Some(Value::Mapping(paths)) = root.get_mut("paths") {
        for (key, item) in paths.iter_mut() {
            let Some(key) = key.as_str() else { continue };
            let item_at = at.push("paths").push(key);
            path_item(item, &item_at, &shared, (&consumes, &produces), origins);
        }
    }
    if !components.is_empty() {
        root.insert("components".into(), Value::Mapping(components));
    }
    let mut tree = Value::Mapping(std::mem::take(root));
    schemas_and_refs(&mut tree);
    *raw = tree;
    converted
}

/// `schemes`, `host` and `basePath` → `servers`.
fn servers(root: &mut Mapping) {
    let host = root.shift_remove("host");
    let base = root.shift_remove("basePath");
    let schemes = root.shift_remove("schemes");
    let base = base.as_ref().and_then(Value::as_str).unwrap_or("");
    let base = base.trim_end_matches('/');
    let urls: Vec<String> = match host.as_ref().and_then(Value::as_str) {
        Some(host) => {
            let schemes: Vec<&str> = schemes
                .as_ref()
                .and_then(Value::as_sequence)
                .map(|list| list.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let schemes = if schemes.is_empty() {
                vec!["https"]
            } else {
                schemes
            };
            schemes
                .into_iter()
                .map(|scheme| format!("{scheme}://{host}{base}"))
                .collect()
        }
        None if !base.is_empty() => vec![base.to_owned()],
        None => Vec::new(),
    };
    if urls.is_empty() {
        return;
    }
    let servers = urls
        .into_iter()
        .map(|url| Value::Mapping(Mapping::from_iter([("url".into(), url.into())])))
        .collect();
    root.insert("servers".into(), Value::Sequence(servers));
}

/// A `consumes` or `produces` list's media types.
fn media_list(list: Option<Value>) -> Vec<String> {
    list.as_ref()
        .and_then(Value::as_sequence)
        .map(|list| {
            list.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// A 2.0 security scheme → 3.0's.
fn security_scheme(node: &mut Value) {
    let Value::Mapping(map) = node else { return };
    match map.get("type").and_then(Value::as_str) {
        Some("basic") => {
            map.insert("type".into(), "http".into());
            map.insert("scheme".into(), "basic".into());
        }
        Some("oauth2") => {
            let flow = map.shift_remove("flow");
            let mut details = Mapping::new();
            for key in ["authorizationUrl", "tokenUrl"] {
                if let Some(url) = map.shift_remove(key) {
                    details.insert(key.into(), url);
                }
            }
            let scopes = map
                .shift_remove("scopes")
                .unwrap_or(Value::Mapping(Mapping::new()));
            details.insert("scopes".into(), scopes);
            let name = match flow.as_ref().and_then(Value::as_str) {
                Some("password") => "password",
                Some("application") => "clientCredentials",
                Some("accessCode") => "authorizationCode",
                _ => "implicit",
            };
            let flows = Mapping::from_iter([(name.into(), Value::Mapping(details))]);
            map.insert("flows".into(), Value::Mapping(flows));
        }
        _ => {}
    }
}

/// A path item's operations and parameters.
fn path_item(
    item: &mut Value,
    at: &Pointer,
    shared: &Mapping,
    media: (&[String], &[String]),
    origins: &mut Origins,
) {
    let Value::Mapping(item) = item else { return };
    let item_users = parameters(item, at, shared, origins);
    let inherited = lift_body_parameters(item, at, &item_users, origins);
    for (method, operation) in item.iter_mut() {
        let Some(method) = method.as_str() else {
            continue;
        };
        if !super::v31::METHODS.contains(&method) {
            continue;
        }
        let Value::Mapping(operation) = operation else {
            continue;
        };
        let at = at.push(method);
        let mut users = parameters(operation, &at, shared, origins);
        inherit(operation, &at, &inherited, &mut users, origins);
        let consumes = own_or(media_list(operation.shift_remove("consumes")), media.0);
        let produces = own_or(media_list(operation.shift_remove("produces")), media.1);
        body(operation, &at, &users, &consumes, origins);
        if let Some(Value::Mapping(responses)) = operation.get_mut("responses") {
            for (status, response) in responses.iter_mut() {
                let status = match status {
                    Value::Number(n) => n.to_string(),
                    other => other.as_str().unwrap_or_default().to_owned(),
                };
                let at = at.push("responses").push(&status);
                self::response(response, &at, &produces, origins);
            }
        }
    }
}

/// A path item's `in: body` and `in: formData` parameters, taken out of its
/// list (3.0 has no path-level body), each with its user's pointer: they
/// are each of its operations' own.
fn lift_body_parameters(
    item: &mut Mapping,
    at: &Pointer,
    users: &[Pointer],
    origins: &mut Origins,
) -> Vec<(Value, Pointer)> {
    let Some(Value::Sequence(list)) = item.get_mut("parameters") else {
        return Vec::new();
    };
    let mut lifted = Vec::new();
    let mut kept = Vec::new();
    for (parameter, user) in std::mem::take(list).into_iter().zip(users) {
        if matches!(habits::location(&parameter), Some("body" | "formData")) {
            lifted.push((parameter, user.clone()));
        } else {
            // Its place moves up by those lifted before it.
            origins.record(at.push("parameters").index(kept.len()), user.clone());
            kept.push(parameter);
        }
    }
    if kept.is_empty() {
        item.shift_remove("parameters");
    } else {
        *list = kept;
    }
    lifted
}

/// The path item's body and form parameters added to an operation's, but
/// where the operation has its own of the same place and name (or its own
/// body, which 2.0 allows once).
fn inherit(
    operation: &mut Mapping,
    at: &Pointer,
    inherited: &[(Value, Pointer)],
    users: &mut Vec<Pointer>,
    origins: &mut Origins,
) {
    if inherited.is_empty() {
        return;
    }
    let list = operation
        .entry("parameters".into())
        .or_insert_with(|| Value::Sequence(Vec::new()));
    let Value::Sequence(list) = list else { return };
    let key = |p: &Value| {
        (
            habits::location(p).map(str::to_owned),
            p.get("name").cloned(),
        )
    };
    for (parameter, user) in inherited {
        let is_body = habits::location(parameter) == Some("body");
        let overridden = list.iter().any(|own| {
            key(own) == key(parameter) || (is_body && habits::location(own) == Some("body"))
        });
        if overridden {
            continue;
        }
        origins.record(at.push("parameters").index(list.len()), user.clone());
        list.push(parameter.clone());
        users.push(user.clone());
    }
}

/// The operation's own list, else the document's.
fn own_or(own: Vec<String>, document: &[String]) -> Vec<String> {
    if own.is_empty() {
        document.to_vec()
    } else {
        own
    }
}

/// The `parameters` of a path item or operation: `$ref`s to shared ones
/// inlined (their nodes named by where they came from), each read as 3.0
/// has it; the user's pointer of each.
fn parameters(
    map: &mut Mapping,
    at: &Pointer,
    shared: &Mapping,
    origins: &mut Origins,
) -> Vec<Pointer> {
    let Some(Value::Sequence(list)) = map.get_mut("parameters") else {
        return Vec::new();
    };
    let mut users = Vec::with_capacity(list.len());
    for (i, parameter) in list.iter_mut().enumerate() {
        let rewritten = at.push("parameters").index(i);
        let target = parameter
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#/parameters/"))
            .map(|name| name.replace("~1", "/").replace("~0", "~"));
        let inlined = target.and_then(|name| {
            shared
                .get(name.as_str())
                .map(|p| (p.clone(), Pointer::root().push("parameters").push(&name)))
        });
        let user = match inlined {
            Some((found, user)) => {
                *parameter = found;
                origins.record(rewritten.clone(), user.clone());
                user
            }
            None => rewritten.clone(),
        };
        if !matches!(habits::location(parameter), Some("body" | "formData")) {
            beside_name(parameter, &rewritten, &user, origins);
        }
        users.push(user);
    }
    users
}

/// A parameter's or header's schema keywords beside its name → its
/// `schema`, whose keywords name the user's node (`user`).
fn beside_name(node: &mut Value, rewritten: &Pointer, user: &Pointer, origins: &mut Origins) {
    let had_schema = node.get("schema").is_some();
    habits::parameter(node, rewritten, &mut Vec::new());
    if !had_schema && node.get("schema").is_some() {
        origins.record(rewritten.push("schema"), user.clone());
    }
}

/// An operation's `in: body` and `in: formData` parameters → its
/// `requestBody`, in the media types it consumes; `users` are the user's
/// pointers of the parameters.
fn body(
    operation: &mut Mapping,
    at: &Pointer,
    users: &[Pointer],
    consumes: &[String],
    origins: &mut Origins,
) {
    // Where the body's schema, or each form field's, is in the user's file.
    let mut body_schema = None;
    let mut fields = Vec::new();
    if let Some(Value::Sequence(list)) = operation.get("parameters") {
        for (parameter, user) in list.iter().zip(users) {
            match habits::location(parameter) {
                Some("body") => body_schema = Some(user.push("schema")),
                Some("formData") => {
                    if let Some(name) = parameter.get("name").and_then(Value::as_str) {
                        fields.push((name.to_owned(), user.clone()));
                    }
                }
                _ => {}
            }
        }
    }
    let mut scratch = Vec::new();
    habits::body_parameters(operation, &Pointer::root(), &mut scratch);
    if scratch.is_empty() {
        return;
    }
    let Some(Value::Mapping(body)) = operation.get_mut("requestBody") else {
        return;
    };
    let Some(Value::Mapping(content)) = body.get_mut("content") else {
        return;
    };
    let Some((media, schema)) = content.iter().next().map(|(m, s)| (m.clone(), s.clone())) else {
        return;
    };
    let is_json = media.as_str() == Some("application/json");
    let listed: Vec<&String> = consumes
        .iter()
        .filter(|m| {
            let form = m.starts_with("multipart/") || m.contains("x-www-form-urlencoded");
            // A body parameter is the body in each media type that is not a
            // form; form parameters the form the conversion chose.
            if is_json {
                !form
            } else {
                media.as_str() == Some(m.as_str())
            }
        })
        .collect();
    if !listed.is_empty() {
        *content = listed
            .into_iter()
            .map(|m| (Value::from(m.as_str()), schema.clone()))
            .collect();
    }
    let content_at = at.push("requestBody").push("content");
    let operation = origins.to_user(at);
    for media in content.keys().filter_map(Value::as_str) {
        // The media type is the operation's (`consumes` lists it).
        origins.record(content_at.push(media), operation.clone());
        let schema_at = content_at.push(media).push("schema");
        match &body_schema {
            Some(user) => origins.record(schema_at, user.clone()),
            None => {
                // A schema made of the form parameters: the operation's.
                origins.record(schema_at.clone(), operation.clone());
                for (name, user) in &fields {
                    origins.record(schema_at.push("properties").push(name), user.clone());
                }
            }
        }
    }
}

/// A response: its `schema` as `content` in the media types `produces`
/// lists, its `examples` their `example`, its headers' keywords their
/// schemas.
fn response(node: &mut Value, at: &Pointer, produces: &[String], origins: &mut Origins) {
    let Value::Mapping(map) = node else { return };
    let user = origins.to_user(at);
    if map.contains_key("$ref") {
        return;
    }
    let examples = map.shift_remove("examples");
    if let Some(schema) = map.shift_remove("schema") {
        let media: Vec<&str> = if produces.is_empty() {
            vec!["application/json"]
        } else {
            produces.iter().map(String::as_str).collect()
        };
        let content: Mapping = media
            .into_iter()
            .map(|m| {
                // The media type is the response's (2.0 has no node for
                // it: `produces` lists it); its schema is the `schema`.
                origins.record(at.push("content").push(m), user.clone());
                origins.record(
                    at.push("content").push(m).push("schema"),
                    user.push("schema"),
                );
                let mut media_type = Mapping::from_iter([("schema".into(), schema.clone())]);
                if let Some(example) = examples.as_ref().and_then(|e| e.get(m)) {
                    media_type.insert("example".into(), example.clone());
                }
                (Value::from(m), Value::Mapping(media_type))
            })
            .collect();
        map.insert("content".into(), Value::Mapping(content));
    }
    if !map.contains_key("description") {
        map.insert("description".into(), "".into());
    }
    if let Some(Value::Mapping(headers)) = map.get_mut("headers") {
        for (name, header) in headers.iter_mut() {
            let Some(name) = name.as_str() else { continue };
            let rewritten = at.push("headers").push(name);
            beside_name(
                header,
                &rewritten,
                &user.push("headers").push(name),
                origins,
            );
        }
    }
}

/// Every `$ref` to a 2.0 section → its 3.0 place; in schemas, `type:
/// file`, a `discriminator` that is a name and `x-nullable`.
fn schemas_and_refs(node: &mut Value) {
    match node {
        Value::Mapping(map) => {
            if let Some(Value::String(reference)) = map.get_mut("$ref") {
                for (from, to) in [
                    ("#/definitions/", "#/components/schemas/"),
                    ("#/parameters/", "#/components/parameters/"),
                    ("#/responses/", "#/components/responses/"),
                ] {
                    if let Some(rest) = reference.strip_prefix(from) {
                        *reference = format!("{to}{rest}");
                        break;
                    }
                }
            }
            if map.get("type").and_then(Value::as_str) == Some("file") {
                map.insert("type".into(), "string".into());
                map.insert("format".into(), "binary".into());
            }
            if let Some(Value::String(name)) = map.get("discriminator") {
                let name = name.clone();
                let discriminator = Mapping::from_iter([("propertyName".into(), name.into())]);
                map.insert("discriminator".into(), Value::Mapping(discriminator));
            }
            if let Some(nullable) = map.shift_remove("x-nullable") {
                map.insert("nullable".into(), nullable);
            }
            for (key, value) in map.iter_mut() {
                match (key.as_str(), value) {
                    // Statuses, `default` among them, not data.
                    (Some("responses"), Value::Mapping(responses)) => {
                        responses.values_mut().for_each(schemas_and_refs);
                    }
                    (Some(key), _) if super::tree::holds_data(key) => {}
                    (_, value) => schemas_and_refs(value),
                }
            }
        }
        Value::Sequence(items) => items.iter_mut().for_each(schemas_and_refs),
        _ => {}
    }
}

/// The vendor extensions of the user's document (at `at`) the generator
/// does not read; data (`example`, `default`, `enum`) not looked into.
fn extensions(node: &Value, at: &Pointer, found: &mut Vec<(Habit, Pointer)>) {
    match node {
        Value::Mapping(map) => {
            for (key, value) in map {
                let Some(key) = key.as_str() else { continue };
                if key.starts_with("x-") {
                    if !READ_EXTENSIONS.contains(&key) {
                        found.push((Habit::UnreadExtension, at.push(key)));
                    }
                    continue;
                }
                if super::tree::holds_data(key) {
                    continue;
                }
                // Maps of names, where `x-…` is a name (a header
                // `x-rate-limit`, a property), not an extension.
                let names = matches!(
                    key,
                    "properties" | "headers" | "definitions" | "securityDefinitions" | "scopes"
                ) || (*at == Pointer::root()
                    && matches!(key, "parameters" | "responses"));
                match value {
                    Value::Mapping(named) if names => {
                        for (name, item) in named {
                            let Some(name) = name.as_str() else { continue };
                            extensions(item, &at.push(key).push(name), found);
                        }
                    }
                    _ => extensions(value, &at.push(key), found),
                }
            }
        }
        Value::Sequence(items) => {
            for (i, item) in items.iter().enumerate() {
                extensions(item, &at.index(i), found);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn converted(yaml: &str) -> (Value, Converted) {
        let mut raw: Value = serde_yaml::from_str(yaml).unwrap();
        let converted = convert(&mut raw);
        (raw, converted)
    }

    fn yaml(text: &str) -> Value {
        serde_yaml::from_str(text).unwrap()
    }

    fn at(text: &str) -> Pointer {
        Pointer::parse_local(text).unwrap()
    }

    /// `swagger: 2.0` unquoted is a YAML number, and still Swagger 2.0.
    #[test]
    fn swagger_2_is_told_by_its_version_quoted_or_not() {
        assert!(is_20(&yaml("{swagger: '2.0'}")));
        assert!(is_20(&yaml("{swagger: 2.0}")));
        assert!(!is_20(&yaml("{swagger: 3.0}")));
        assert!(!is_20(&yaml("{swagger: '1.2'}")));
        assert!(!is_20(&yaml("{openapi: 2.0}")));
    }

    #[test]
    fn host_base_path_and_schemes_are_servers() {
        let (raw, _) = converted(
            "swagger: '2.0'\ninfo: {title: t, version: '1'}\nhost: api.example.com\nbasePath: /v2/\nschemes: [https, http]\npaths: {}\n",
        );
        assert_eq!(raw["openapi"], yaml("'3.0.3'"));
        assert!(raw.get("swagger").is_none());
        assert_eq!(
            raw["servers"],
            yaml("[{url: 'https://api.example.com/v2'}, {url: 'http://api.example.com/v2'}]")
        );
        let (raw, _) =
            converted("swagger: '2.0'\ninfo: {title: t, version: '1'}\nbasePath: /v2\npaths: {}\n");
        assert_eq!(raw["servers"], yaml("[{url: /v2}]"));
        // Neither host nor base path: no servers at all.
        let (raw, _) = converted("swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths: {}\n");
        assert!(raw.get("servers").is_none(), "{raw:?}");
    }

    #[test]
    fn security_definitions_are_security_schemes() {
        let (raw, converted) = converted(
            "swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths: {}\nsecurityDefinitions:\n  basic: {type: basic}\n  oauth: {type: oauth2, flow: application, tokenUrl: 'https://t', scopes: {a: A}}\n",
        );
        let schemes = &raw["components"]["securitySchemes"];
        assert_eq!(schemes["basic"], yaml("{type: http, scheme: basic}"));
        assert_eq!(
            schemes["oauth"],
            yaml(
                "{type: oauth2, flows: {clientCredentials: {tokenUrl: 'https://t', scopes: {a: A}}}}"
            )
        );
        assert_eq!(
            converted
                .origins
                .to_user(&at("#/components/securitySchemes/oauth"))
                .to_string(),
            "#/securityDefinitions/oauth"
        );
        // Each of Swagger 2's flows is its OpenAPI 3 flow.
        for (flow, named) in [
            ("password", "password"),
            ("accessCode", "authorizationCode"),
            ("implicit", "implicit"),
        ] {
            let (raw, _) = self::converted(&format!(
                "swagger: '2.0'\ninfo: {{title: t, version: '1'}}\npaths: {{}}\nsecurityDefinitions:\n  oauth: {{type: oauth2, flow: {flow}, tokenUrl: 'https://t'}}\n"
            ));
            let flows = &raw["components"]["securitySchemes"]["oauth"]["flows"];
            assert!(flows.get(named).is_some(), "{flow}: {flows:?}");
        }
    }

    /// A path item's body and form parameters are each of its operations'
    /// (3.0 has no path-level body); an operation's own body wins.
    #[test]
    fn a_path_level_body_parameter_is_each_operations() {
        let (raw, converted) = converted(
            "swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths:\n  /pets/{id}:\n    parameters:\n      - {name: id, in: path, required: true, type: string}\n      - {name: pet, in: body, required: true, schema: {type: object, properties: {name: {type: string}}}}\n    put:\n      responses: {'204': {description: ok}}\n    patch:\n      parameters: [{name: patch, in: body, schema: {type: array, items: {type: string}}}]\n      responses: {'204': {description: ok}}\n",
        );
        let item = &raw["paths"]["/pets/{id}"];
        assert_eq!(item["parameters"].as_sequence().map(Vec::len), Some(1));
        assert_eq!(item["parameters"][0]["name"], yaml("id"));
        let put = &item["put"]["requestBody"];
        assert_eq!(put["required"], yaml("true"));
        assert_eq!(
            put["content"]["application/json"]["schema"]["type"],
            yaml("object")
        );
        let patch = &item["patch"]["requestBody"]["content"]["application/json"]["schema"];
        assert_eq!(patch["type"], yaml("array"));
        // The put's body is the path item's, in the user's file.
        let at = Pointer::root()
            .push("paths")
            .push("/pets/{id}")
            .push("put")
            .push("requestBody")
            .push("content")
            .push("application/json")
            .push("schema");
        assert_eq!(
            converted.origins.to_user(&at).to_string(),
            "#/paths/~1pets~1{id}/parameters/1/schema"
        );
    }

    #[test]
    fn body_parameters_are_the_request_body_in_each_media_type_consumed() {
        let (raw, converted) = converted(
            "swagger: '2.0'\ninfo: {title: t, version: '1'}\nconsumes: [application/json, application/xml]\nparameters:\n  pet: {name: pet, in: body, required: true, schema: {$ref: '#/definitions/Pet'}}\npaths:\n  /pets:\n    post:\n      parameters: [{$ref: '#/parameters/pet'}]\n      responses: {'201': {description: ok}}\ndefinitions:\n  Pet: {type: object}\n",
        );
        let op = &raw["paths"]["/pets"]["post"];
        assert!(op.get("parameters").is_none(), "{op:?}");
        let body = &op["requestBody"];
        assert_eq!(body["required"], yaml("true"));
        let schema = yaml("{$ref: '#/components/schemas/Pet'}");
        assert_eq!(body["content"]["application/json"]["schema"], schema);
        assert_eq!(body["content"]["application/xml"]["schema"], schema);
        assert!(
            raw["components"]
                .get("parameters")
                .is_none_or(|p| p.get("pet").is_none())
        );
        assert_eq!(
            converted
                .origins
                .to_user(&at(
                    "#/paths/~1pets/post/requestBody/content/application~1xml/schema/$ref"
                ))
                .to_string(),
            "#/parameters/pet/schema/$ref"
        );
    }

    #[test]
    fn a_response_schema_is_its_content_in_each_media_type_produced() {
        let (raw, converted) = converted(
            "swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      produces: [text/csv]\n      responses:\n        default:\n          description: ok\n          schema: {type: file}\n          examples: {text/csv: 'a,b'}\n          headers: {X-N: {type: integer}}\n",
        );
        let response = &raw["paths"]["/a"]["get"]["responses"]["default"];
        assert_eq!(
            response["content"],
            yaml("{text/csv: {schema: {type: string, format: binary}, example: 'a,b'}}")
        );
        assert_eq!(
            response["headers"]["X-N"],
            yaml("{schema: {type: integer}}")
        );
        assert_eq!(
            converted
                .origins
                .to_user(&at(
                    "#/paths/~1a/get/responses/default/headers/X-N/schema/type"
                ))
                .to_string(),
            "#/paths/~1a/get/responses/default/headers/X-N/type"
        );
    }

    #[test]
    fn schemas_take_3_0_forms_and_unread_extensions_are_listed() {
        let (raw, converted) = converted(
            "swagger: '2.0'\ninfo: {title: t, version: '1', x-logo: l}\npaths: {}\ndefinitions:\n  Pet:\n    type: object\n    discriminator: kind\n    x-ms-enum: {}\n    properties:\n      kind: {type: string}\n      name: {type: string, x-nullable: true}\n      x-tag: {type: string}\n",
        );
        let pet = &raw["components"]["schemas"]["Pet"];
        assert_eq!(pet["discriminator"], yaml("{propertyName: kind}"));
        assert_eq!(
            pet["properties"]["name"],
            yaml("{type: string, nullable: true}")
        );
        assert_eq!(
            converted.notes,
            [(Habit::UnreadExtension, at("#/info/x-logo"))]
        );
    }

    /// A path item's body is each operation's even beside the operation's
    /// own parameters; a body is sent in each media type consumed that is
    /// not a form, form parameters in the form chosen; a schema already
    /// given keeps the user's pointer; data is not rewritten; extensions
    /// are found in lists, and at the root `x-…` names a shared parameter.
    #[test]
    fn bodies_media_types_and_extensions_of_a_swagger_2_document() {
        let (raw, converted) = converted(
            "swagger: '2.0'\ninfo: {title: t, version: '1'}\nconsumes: [application/json, multipart/form-data]\nparameters:\n  x-shared: {name: s, in: query, type: string}\npaths:\n  /a:\n    parameters:\n      - {name: pet, in: body, schema: {type: object, example: {$ref: '#/definitions/Pet'}}}\n    put:\n      parameters:\n        - {name: q, in: query, type: string, x-internal: true}\n        - {name: mixed, in: header, type: string, schema: {type: integer}}\n      responses: {'204': {description: ok}}\n  /b:\n    post:\n      consumes: [application/x-www-form-urlencoded, application/json]\n      parameters:\n        - {name: f, in: formData, type: string}\n      responses: {'204': {description: ok}}\ndefinitions:\n  Pet: {type: object}\n",
        );
        let put = &raw["paths"]["/a"]["put"];
        let content = put["requestBody"]["content"].as_mapping().unwrap();
        let media: Vec<&str> = content.keys().filter_map(Value::as_str).collect();
        assert_eq!(media, ["application/json"]);
        assert_eq!(
            content["application/json"]["schema"]["example"],
            yaml("{$ref: '#/definitions/Pet'}")
        );
        let post = &raw["paths"]["/b"]["post"]["requestBody"]["content"];
        let media: Vec<&str> = post
            .as_mapping()
            .unwrap()
            .keys()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(media, ["application/x-www-form-urlencoded"]);
        let mixed = at("#/paths/~1a/put/parameters/1/schema/type");
        assert_eq!(
            converted.origins.to_user(&mixed).to_string(),
            "#/paths/~1a/put/parameters/1/schema/type"
        );
        assert_eq!(
            converted.notes,
            [(
                Habit::UnreadExtension,
                at("#/paths/~1a/put/parameters/0/x-internal")
            )]
        );
    }
}
