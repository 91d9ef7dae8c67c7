//! OpenAPI 3.2 documents, rewritten into the 3.1 that [`super::v31`] then
//! rewrites into 3.0, so that every later stage reads them unchanged.
//!
//! Only what 3.2 adds needs rewriting; the rest of a 3.2 document is 3.1:
//! - the `query` method and `additionalOperations` (any other method, by
//!   the name it is sent with) move into the path item's
//!   [`OTHER_METHODS`] extension, which `openapiv3` keeps and the lowering
//!   reads as operations with their method;
//! - a `$ref` to `#/components/mediaTypes/…` in a `content` map is
//!   replaced by the media type it names (3.0 has no reusable media types);
//! - `in: querystring` (the whole query string as one value) is an
//!   `in: query` parameter marked [`QUERYSTRING`]: with
//!   `application/x-www-form-urlencoded` content, the query parameter it
//!   means, an object exploded into the query's pairs (`style: form`);
//!   with any other, its `content` as written, which the lowering reads
//!   (JSON and text) or leaves out with a note;
//! - `style: cookie`, 3.2's name for how cookies are written, is `form`,
//!   which is how 3.0 serialised a cookie parameter's value;
//! - a media type's `itemSchema` (a sequential body: JSON Lines, JSON
//!   text sequences, server-sent events) is the `schema` of the array of
//!   its items, marked [`SEQUENCE`]; for `text/event-stream` the `schema`
//!   is each event's data, as 3.0 and 3.1 documents give it;
//! - `$self` (the document's own URI) is dropped: references are resolved
//!   against the file they are in. Tags' `parent` and `kind` need no
//!   rewriting: nothing generated groups by tag.
//!
//! Every moved node is recorded in [`Origins`], as `v31.rs` does.

use serde_yaml::{Mapping, Value};

use super::v31::{METHODS, OTHER_METHODS, Origins};
use crate::pointer::Pointer;

/// The media type extension the rewrite marks a sequential body with
/// (`itemSchema` beside `application/jsonl`, `application/json-seq`, …):
/// its `schema` is then the array of the items.
pub const SEQUENCE: &str = "x-openapi-codegen-sequence";

/// The parameter extension the rewrite marks an `in: querystring`
/// parameter with, as 3.0 has no such place: its value is the parameter's
/// media type as written (empty without one). In
/// `application/x-www-form-urlencoded` the parameter is also rewritten into
/// the exploded `form` object it means; in any other media type it keeps
/// its `content`, which the lowering reads (JSON and text are the whole
/// query string) or leaves out with a note.
pub const QUERYSTRING: &str = "x-openapi-codegen-querystring";

/// Whether `version` (the `openapi` field) is a 3.2 version.
pub fn is_32(version: &str) -> bool {
    version == "3.2" || version.starts_with("3.2.")
}

/// Rewrites the 3.2 document `raw` into 3.1 in place; where the rewritten
/// tree's nodes are in the user's document.
pub fn rewrite(raw: &mut Value) -> Origins {
    let mut rewriter = Rewriter {
        media_types: raw
            .get("components")
            .and_then(|c| c.get("mediaTypes"))
            .and_then(Value::as_mapping)
            .cloned()
            .unwrap_or_default(),
        origins: Origins::default(),
    };
    let Value::Mapping(root) = raw else {
        return rewriter.origins;
    };
    root.insert("openapi".into(), "3.1.1".into());
    root.remove("$self");
    let at = Pointer::root();
    for section in ["paths", "webhooks"] {
        if let Some(Value::Mapping(items)) = root.get_mut(section) {
            for (key, item) in items.iter_mut() {
                if let Some(key) = key.as_str() {
                    rewriter.path_item(item, &at.push(section).push(key));
                }
            }
        }
    }
    if let Some(Value::Mapping(components)) = root.get_mut("components") {
        components.remove("mediaTypes");
        let at = at.push("components");
        type Visit = fn(&mut Rewriter, &mut Value, &Pointer);
        let sections: [(&str, Visit); 6] = [
            ("pathItems", Rewriter::path_item),
            ("callbacks", Rewriter::callback),
            ("parameters", Rewriter::parameter),
            ("headers", Rewriter::content_of),
            ("requestBodies", Rewriter::content_of),
            ("responses", Rewriter::response),
        ];
        for (section, visit) in sections {
            if let Some(Value::Mapping(items)) = components.get_mut(section) {
                for (key, item) in items.iter_mut() {
                    if let Some(key) = key.as_str() {
                        visit(&mut rewriter, item, &at.push(section).push(key));
                    }
                }
            }
        }
    }
    rewriter.origins
}

/// The `application/x-www-form-urlencoded` entry of a parameter's
/// `content`: its media type as written, and its schema.
fn form_content(param: &Mapping) -> Option<(Value, Option<Value>)> {
    let content = param.get("content")?.as_mapping()?;
    content
        .iter()
        .find(|(media_type, _)| {
            media_type.as_str().is_some_and(|m| {
                m.split(';').next().is_some_and(|m| {
                    m.trim()
                        .eq_ignore_ascii_case("application/x-www-form-urlencoded")
                })
            })
        })
        .map(|(media_type, media)| (media_type.clone(), media.get("schema").cloned()))
}

struct Rewriter {
    /// `components.mediaTypes`, as the user wrote them.
    media_types: Mapping,
    /// Where the rewritten tree's nodes are in the user's document.
    origins: Origins,
}

impl Rewriter {
    fn path_item(&mut self, node: &mut Value, at: &Pointer) {
        let Value::Mapping(map) = node else { return };
        let mut others = Mapping::new();
        if let Some(query) = map.remove("query") {
            others.insert("QUERY".into(), query);
            self.moved(&at.push(OTHER_METHODS).push("QUERY"), at.push("query"));
        }
        if let Some(Value::Mapping(additional)) = map.remove("additionalOperations") {
            for (method, op) in additional {
                let Some(name) = method.as_str() else {
                    continue;
                };
                let user = at.push("additionalOperations").push(name);
                // A fixed method written here (`GET`, `post`) is that method's;
                // anything else keeps its name, as HTTP's methods are
                // case-sensitive.
                let fixed = name.to_ascii_lowercase();
                if METHODS.contains(&fixed.as_str()) && !map.contains_key(fixed.as_str()) {
                    self.moved(&at.push(&fixed), user);
                    map.insert(fixed.into(), op);
                } else {
                    self.moved(&at.push(OTHER_METHODS).push(name), user);
                    others.insert(method, op);
                }
            }
        }
        for method in METHODS {
            if let Some(op) = map.get_mut(method) {
                self.operation(op, &at.push(method));
            }
        }
        for (method, op) in others.iter_mut() {
            if let Some(method) = method.as_str() {
                self.operation(op, &at.push(OTHER_METHODS).push(method));
            }
        }
        if !others.is_empty() {
            map.insert(OTHER_METHODS.into(), Value::Mapping(others));
        }
        self.parameters(map, at);
    }

    fn operation(&mut self, node: &mut Value, at: &Pointer) {
        let Value::Mapping(map) = node else { return };
        self.parameters(map, at);
        if let Some(body) = map.get_mut("requestBody") {
            self.content_of(body, &at.push("requestBody"));
        }
        if let Some(Value::Mapping(responses)) = map.get_mut("responses") {
            for (status, response) in responses.iter_mut() {
                let status = match status {
                    Value::String(s) => s.clone(),
                    Value::Number(n) => n.to_string(),
                    _ => continue,
                };
                self.response(response, &at.push("responses").push(&status));
            }
        }
        if let Some(Value::Mapping(callbacks)) = map.get_mut("callbacks") {
            for (name, callback) in callbacks.iter_mut() {
                if let Some(name) = name.as_str() {
                    self.callback(callback, &at.push("callbacks").push(name));
                }
            }
        }
    }

    /// A callback: path items by runtime expression.
    fn callback(&mut self, node: &mut Value, at: &Pointer) {
        let Value::Mapping(map) = node else { return };
        for (key, item) in map.iter_mut() {
            if let Some(key) = key.as_str() {
                self.path_item(item, &at.push(key));
            }
        }
    }

    /// The `parameters` list of a path item or an operation.
    fn parameters(&mut self, map: &mut Mapping, at: &Pointer) {
        let Some(Value::Sequence(list)) = map.get_mut("parameters") else {
            return;
        };
        let at = at.push("parameters");
        for (i, param) in list.iter_mut().enumerate() {
            self.parameter(param, &at.index(i));
        }
    }

    /// A parameter, in a list or among the components.
    fn parameter(&mut self, node: &mut Value, at: &Pointer) {
        let Value::Mapping(map) = node else { return };
        if map.get("style").and_then(Value::as_str) == Some("cookie") {
            map.insert("style".into(), "form".into());
        }
        self.content(map, at);
        if map.get("in").and_then(Value::as_str) == Some("querystring") {
            self.querystring(map, at);
        }
    }

    /// An `in: querystring` parameter: an `in: query` one marked
    /// [`QUERYSTRING`] with its media type. A form is the exploded `form`
    /// object it means; any other media type keeps its `content`, which
    /// must name one (a querystring has no `schema`): an empty one is
    /// refused where the lowering reads it.
    fn querystring(&mut self, map: &mut Mapping, at: &Pointer) {
        map.insert("in".into(), "query".into());
        let media_type = match form_content(map) {
            Some((media_type, schema)) => {
                let schema = schema.unwrap_or_else(|| Value::Mapping(Mapping::new()));
                map.remove("content");
                map.insert("style".into(), "form".into());
                map.insert("explode".into(), true.into());
                map.insert("schema".into(), schema);
                if let Some(written) = media_type.as_str() {
                    let user = self.user(at).push("content").push(written).push("schema");
                    self.moved(&at.push("schema"), user);
                }
                media_type
            }
            None => {
                map.remove("schema");
                let first = map
                    .get("content")
                    .and_then(Value::as_mapping)
                    .and_then(|content| content.keys().next().cloned());
                if first.is_none() {
                    map.insert("content".into(), Value::Mapping(Mapping::new()));
                }
                first.unwrap_or_else(|| "".into())
            }
        };
        map.insert(QUERYSTRING.into(), media_type);
    }

    fn response(&mut self, node: &mut Value, at: &Pointer) {
        let Value::Mapping(map) = node else { return };
        if let Some(Value::Mapping(headers)) = map.get_mut("headers") {
            for (name, header) in headers.iter_mut() {
                if let Some(name) = name.as_str() {
                    self.content_of(header, &at.push("headers").push(name));
                }
            }
        }
        self.content(map, at);
    }

    /// The `content` of a request body or header.
    fn content_of(&mut self, node: &mut Value, at: &Pointer) {
        if let Value::Mapping(map) = node {
            self.content(map, at);
        }
    }

    /// Replaces each `$ref` to `#/components/mediaTypes/…` of `map`'s
    /// `content` with the media type it names.
    fn content(&mut self, map: &mut Mapping, at: &Pointer) {
        let Some(Value::Mapping(content)) = map.get_mut("content") else {
            return;
        };
        for (key, media) in content.iter_mut() {
            let Some(key) = key.as_str() else { continue };
            let here = at.push("content").push(key);
            // A media type may name another, which may name another: at
            // most as many steps as there are media types.
            for _ in 0..=self.media_types.len() {
                let Some(name) = media
                    .get("$ref")
                    .and_then(Value::as_str)
                    .and_then(|r| r.strip_prefix("#/components/mediaTypes/"))
                    .map(|name| name.replace("~1", "/").replace("~0", "~"))
                else {
                    break;
                };
                let Some(named) = self.media_types.get(name.as_str()) else {
                    break;
                };
                *media = named.clone();
                let user = Pointer::root()
                    .push("components")
                    .push("mediaTypes")
                    .push(&name);
                self.moved(&here, user);
            }
            self.item_schema(key, media, &here);
        }
    }

    /// A media type's `itemSchema`, the schema of each item of a
    /// sequential body: for `text/event-stream`, its `data`'s
    /// `contentSchema` is the media type's `schema`, as 3.0 documents
    /// give each event's data; for another media type, the body is the
    /// array of its items, marked [`SEQUENCE`].
    fn item_schema(&mut self, media_type: &str, media: &mut Value, at: &Pointer) {
        let Value::Mapping(map) = media else { return };
        let Some(items) = map.remove("itemSchema") else {
            return;
        };
        let user = self.user(at).push("itemSchema");
        if media_type.split(';').next().map(str::trim) == Some("text/event-stream") {
            map.remove("schema");
            let data = ["properties", "data", "contentSchema"];
            if let Some(schema) = data.iter().try_fold(&items, |node, key| node.get(*key)) {
                map.insert("schema".into(), schema.clone());
                let user = data.iter().fold(user, |user, key| user.push(key));
                self.moved(&at.push("schema"), user);
            }
            return;
        }
        let array = Mapping::from_iter([("type".into(), "array".into()), ("items".into(), items)]);
        map.insert("schema".into(), Value::Mapping(array));
        map.insert(SEQUENCE.into(), true.into());
        self.moved(&at.push("schema").push("items"), user);
    }

    fn user(&self, at: &Pointer) -> Pointer {
        self.origins.to_user(at)
    }

    fn moved(&mut self, rewritten: &Pointer, user: Pointer) {
        self.origins.record(rewritten.clone(), user);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(yaml: &str) -> (Value, Origins) {
        let mut raw: Value = serde_yaml::from_str(yaml).unwrap();
        let origins = rewrite(&mut raw);
        (raw, origins)
    }

    #[test]
    fn the_query_method_and_additional_operations_keep_their_names() {
        let (raw, origins) = rewritten(
            "openapi: 3.2.0\npaths:\n  /pets:\n    query: {operationId: q}\n    additionalOperations:\n      COPY: {operationId: c}\n      post: {operationId: p}\n",
        );
        let item = &raw["paths"]["/pets"];
        assert_eq!(raw["openapi"], "3.1.1");
        assert_eq!(item[OTHER_METHODS]["QUERY"]["operationId"], "q");
        assert_eq!(item[OTHER_METHODS]["COPY"]["operationId"], "c");
        assert_eq!(item["post"]["operationId"], "p");
        assert!(item.get("query").is_none() && item.get("additionalOperations").is_none());
        let copy = Pointer::root()
            .push("paths")
            .push("/pets")
            .push(OTHER_METHODS)
            .push("COPY")
            .push("responses");
        assert_eq!(
            origins.to_user(&copy).to_string(),
            "#/paths/~1pets/additionalOperations/COPY/responses"
        );
    }

    /// Every querystring stays, as an `in: query` parameter marked with
    /// its media type: a form is the object exploded into the query's
    /// pairs; JSON keeps its `content`, which the lowering reads.
    #[test]
    fn a_querystring_is_a_marked_query_parameter_and_a_form_one_its_exploded_object() {
        let (raw, origins) = rewritten(
            "openapi: 3.2.0\npaths:\n  /s:\n    parameters:\n      - {in: querystring, name: j, content: {application/json: {schema: {type: object}}}}\n      - {in: querystring, name: f, content: {application/x-www-form-urlencoded: {schema: {type: object}}}}\n      - {in: cookie, name: c, style: cookie, schema: {type: string}}\n",
        );
        let params = raw["paths"]["/s"]["parameters"].as_sequence().unwrap();
        assert_eq!(params.len(), 3);
        assert_eq!(params[0]["in"], "query");
        assert_eq!(params[0][QUERYSTRING], "application/json");
        assert_eq!(
            params[0]["content"]["application/json"]["schema"]["type"],
            "object"
        );
        assert_eq!(params[1]["name"], "f");
        assert_eq!(params[1]["in"], "query");
        assert_eq!(params[1][QUERYSTRING], "application/x-www-form-urlencoded");
        assert_eq!(params[1]["style"], "form");
        assert_eq!(params[1]["explode"], true);
        assert_eq!(params[1]["schema"]["type"], "object");
        assert!(params[1].get("content").is_none());
        assert_eq!(params[2]["style"], "form");
        let at = Pointer::root().push("paths").push("/s").push("parameters");
        assert_eq!(
            origins.to_user(&at.index(1).push("schema")).to_string(),
            "#/paths/~1s/parameters/1/content/application~1x-www-form-urlencoded/schema"
        );
    }

    /// A querystring among the components is rewritten where it is
    /// declared; one without `content` gets an empty one, which the
    /// lowering refuses with its place.
    #[test]
    fn a_component_querystring_is_rewritten_and_one_without_content_gets_an_empty_one() {
        let (raw, _) = rewritten(
            "openapi: 3.2.0\ncomponents:\n  parameters:\n    J: {in: querystring, name: j, content: {application/json: {schema: {}}}}\n    S: {in: querystring, name: s, schema: {type: string}}\npaths:\n  /a:\n    get:\n      parameters: [{$ref: '#/components/parameters/J'}]\n",
        );
        let components = &raw["components"]["parameters"];
        assert_eq!(components["J"]["in"], "query");
        assert_eq!(components["J"][QUERYSTRING], "application/json");
        assert_eq!(components["S"][QUERYSTRING], "");
        assert!(components["S"].get("schema").is_none());
        assert_eq!(
            components["S"]["content"].as_mapping().map(Mapping::len),
            Some(0)
        );
        assert_eq!(
            raw["paths"]["/a"]["get"]["parameters"][0]["$ref"],
            "#/components/parameters/J"
        );
    }

    #[test]
    fn media_type_components_are_put_where_they_are_named_and_item_schemas_are_arrays() {
        let (raw, origins) = rewritten(
            "openapi: 3.2.0\n$self: https://example.com/api\ncomponents:\n  mediaTypes:\n    Pets: {$ref: '#/components/mediaTypes/Items'}\n    Items: {itemSchema: {type: string}}\npaths:\n  /p:\n    get:\n      responses:\n        '200':\n          description: d\n          content:\n            application/jsonl: {$ref: '#/components/mediaTypes/Pets'}\n            text/event-stream:\n              itemSchema:\n                properties:\n                  data: {type: string, contentSchema: {type: integer}}\n",
        );
        let content = &raw["paths"]["/p"]["get"]["responses"]["200"]["content"];
        let lines = &content["application/jsonl"];
        assert_eq!(lines["schema"]["type"], "array");
        assert_eq!(lines["schema"]["items"]["type"], "string");
        assert_eq!(lines[SEQUENCE], true);
        assert!(lines.get("itemSchema").is_none());
        // Server-sent events: each event's data is the schema.
        assert_eq!(content["text/event-stream"]["schema"]["type"], "integer");
        assert!(content["text/event-stream"].get(SEQUENCE).is_none());
        assert!(raw.get("$self").is_none());
        assert!(raw["components"].get("mediaTypes").is_none());
        let at = Pointer::root()
            .push("paths")
            .push("/p")
            .push("get")
            .push("responses")
            .push("200")
            .push("content");
        assert_eq!(
            origins
                .to_user(&at.push("application/jsonl").push("schema").push("items"))
                .to_string(),
            "#/components/mediaTypes/Items/itemSchema"
        );
        assert_eq!(
            origins
                .to_user(&at.push("text/event-stream").push("schema"))
                .to_string(),
            "#/paths/~1p/get/responses/200/content/text~1event-stream/itemSchema/properties/data/contentSchema"
        );
    }

    /// An answer under a status written as a number, and a callback's
    /// path item, are rewritten as the others are.
    #[test]
    fn numeric_statuses_and_callbacks_are_rewritten() {
        let (raw, _) = rewritten(
            "openapi: 3.2.0\npaths:\n  /pets:\n    get:\n      responses:\n        200:\n          description: ok\n          content:\n            application/jsonl: {itemSchema: {type: string}}\n      callbacks:\n        done:\n          '{$request.body#/url}':\n            query: {operationId: notified}\n",
        );
        let get = &raw["paths"]["/pets"]["get"];
        let media = &get["responses"][200]["content"]["application/jsonl"];
        assert!(media.get("itemSchema").is_none(), "{media:?}");
        assert_eq!(
            media["schema"]["items"],
            serde_yaml::from_str::<Value>("{type: string}").unwrap()
        );
        let item = &get["callbacks"]["done"]["{$request.body#/url}"];
        assert_eq!(item[OTHER_METHODS]["QUERY"]["operationId"], "notified");
    }
}
