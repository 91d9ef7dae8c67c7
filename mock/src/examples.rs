//! The document's examples, read from its tree: a media type's `example`
//! or named `examples`, else its schema's `example`. `$ref`s to
//! `components` are followed; an `externalValue` is not fetched.

use openapi_codegen::parse::Document;
use serde_json::Value;

/// The examples of a media type object (a request body's or a
/// response's, under `content`), by name: `example` is named "default".
pub fn of_media(doc: &Document, media: &serde_yaml::Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    if let Some(example) = media.get("example") {
        out.extend(json(example).map(|v| ("default".to_owned(), v)));
    }
    if let Some(serde_yaml::Value::Mapping(named)) = media.get("examples") {
        for (name, example) in named {
            let (Some(name), example) = (name.as_str(), doc.follow_refs(example)) else {
                continue;
            };
            if let Some(value) = example.get("value").and_then(json) {
                out.push((name.to_owned(), value));
            }
        }
    }
    if out.is_empty() {
        let schema = media.get("schema").map(|s| doc.follow_refs(s));
        if let Some(example) = schema.and_then(|s| s.get("example")).and_then(json) {
            out.push(("default".to_owned(), example));
        }
    }
    out
}

/// The media type `media` of `node` (a request body or a response),
/// `$ref`s followed.
pub fn media<'d>(
    doc: &'d Document,
    node: &'d serde_yaml::Value,
    media: &str,
) -> Option<&'d serde_yaml::Value> {
    let content = doc.follow_refs(node).get("content")?.as_mapping()?;
    content
        .iter()
        .find(|(key, _)| key.as_str() == Some(media))
        .map(|(_, found)| doc.follow_refs(found))
}

/// A YAML node as JSON; `None` for what JSON cannot hold (a non-string key).
fn json(node: &serde_yaml::Value) -> Option<Value> {
    serde_json::to_value(node).ok()
}
