//! Finding the deepest node that does not fit, when `openapiv3` refuses a
//! document: its untagged enums (`ReferenceOr`, schema kinds) hide the path of
//! the real problem from serde, so the error would otherwise name only an
//! ancestor. We descend through the containers of OpenAPI 3.0 and try each
//! child on its own.

use openapiv3::{
    Header, MediaType, Operation, Parameter, PathItem, ReferenceOr, RequestBody, Response, Schema,
    SecurityScheme,
};
use serde::de::DeserializeOwned;
use serde_yaml::Value;

use crate::pointer::Pointer;

/// The kinds of node we know how to descend into.
#[derive(Clone, Copy)]
enum Kind {
    PathItem,
    Operation,
    Responses,
    Parameter,
    RequestBody,
    Response,
    Header,
    MediaType,
    Schema,
    SecurityScheme,
}

/// The deepest node under `root` that does not deserialise, and why; `None`
/// when the children all fit (the problem is then the node `at` itself).
pub(super) fn deepest_problem(root: &Value, at: &Pointer) -> Option<(Pointer, String)> {
    let node = lookup(root, at)?;
    let tokens: Vec<String> = at.tokens().collect();
    let candidates: Vec<(Pointer, Kind)> = match tokens.as_slice() {
        [] => {
            let mut out = Vec::new();
            if let Some(Value::Mapping(paths)) = node.get("paths") {
                for key in paths.keys().filter_map(Value::as_str) {
                    out.push((at.push("paths").push(key), Kind::PathItem));
                }
            }
            if let Some(Value::Mapping(components)) = node.get("components") {
                let sections = [
                    ("schemas", Kind::Schema),
                    ("responses", Kind::Response),
                    ("parameters", Kind::Parameter),
                    ("requestBodies", Kind::RequestBody),
                    ("headers", Kind::Header),
                    ("securitySchemes", Kind::SecurityScheme),
                ];
                for (section, kind) in sections {
                    if let Some(Value::Mapping(items)) = components.get(section) {
                        for key in items.keys().filter_map(Value::as_str) {
                            out.push((at.push("components").push(section).push(key), kind));
                        }
                    }
                }
            }
            out
        }
        _ => return None,
    };
    candidates
        .into_iter()
        .find_map(|(pointer, kind)| check(root, &pointer, kind))
}

/// `Some` with the deepest problem under the node at `at`, of kind `kind`.
fn check(root: &Value, at: &Pointer, kind: Kind) -> Option<(Pointer, String)> {
    let node = lookup(root, at)?;
    let error = match kind {
        Kind::PathItem => fits::<ReferenceOr<PathItem>>(node),
        Kind::Operation => fits::<Operation>(node),
        Kind::Responses => fits::<openapiv3::Responses>(node),
        Kind::Parameter => fits::<ReferenceOr<Parameter>>(node),
        Kind::RequestBody => fits::<ReferenceOr<RequestBody>>(node),
        Kind::Response => fits::<ReferenceOr<Response>>(node),
        Kind::Header => fits::<ReferenceOr<Header>>(node),
        Kind::MediaType => fits::<MediaType>(node),
        Kind::Schema => fits::<ReferenceOr<Schema>>(node),
        Kind::SecurityScheme => fits::<ReferenceOr<SecurityScheme>>(node),
    }?;
    children(node, at, kind)
        .into_iter()
        .find_map(|(pointer, kind)| check(root, &pointer, kind))
        .or(Some((at.clone(), error)))
}

fn children(node: &Value, at: &Pointer, kind: Kind) -> Vec<(Pointer, Kind)> {
    let mut out = Vec::new();
    let each_key = |out: &mut Vec<(Pointer, Kind)>, field: &str, kind: Kind| {
        if let Some(Value::Mapping(map)) = node.get(field) {
            for key in map.keys() {
                if let Some(key) = key
                    .as_str()
                    .map(str::to_owned)
                    .or_else(|| key.as_u64().map(|n| n.to_string()))
                {
                    out.push((at.push(field).push(&key), kind));
                }
            }
        }
    };
    match kind {
        Kind::PathItem => {
            for method in [
                "get", "put", "post", "delete", "options", "head", "patch", "trace",
            ] {
                if node.get(method).is_some() {
                    out.push((at.push(method), Kind::Operation));
                }
            }
            each_index(node, at, "parameters", Kind::Parameter, &mut out);
        }
        Kind::Operation => {
            each_index(node, at, "parameters", Kind::Parameter, &mut out);
            if node.get("requestBody").is_some() {
                out.push((at.push("requestBody"), Kind::RequestBody));
            }
            if node.get("responses").is_some() {
                out.push((at.push("responses"), Kind::Responses));
            }
        }
        Kind::Responses => {
            if let Value::Mapping(map) = node {
                for key in map.keys() {
                    let key = key
                        .as_str()
                        .map(str::to_owned)
                        .or_else(|| key.as_u64().map(|n| n.to_string()));
                    if let Some(key) = key.filter(|k| !k.starts_with("x-")) {
                        out.push((at.push(&key), Kind::Response));
                    }
                }
            }
        }
        Kind::Parameter | Kind::Header | Kind::MediaType => {
            if node.get("schema").is_some() {
                out.push((at.push("schema"), Kind::Schema));
            }
            each_key(&mut out, "content", Kind::MediaType);
        }
        Kind::RequestBody => each_key(&mut out, "content", Kind::MediaType),
        Kind::Response => {
            each_key(&mut out, "headers", Kind::Header);
            each_key(&mut out, "content", Kind::MediaType);
        }
        Kind::Schema => {
            each_key(&mut out, "properties", Kind::Schema);
            for field in ["items", "not"] {
                if node.get(field).is_some() {
                    out.push((at.push(field), Kind::Schema));
                }
            }
            if let Some(Value::Mapping(_)) = node.get("additionalProperties") {
                out.push((at.push("additionalProperties"), Kind::Schema));
            }
            for field in ["allOf", "oneOf", "anyOf"] {
                each_index(node, at, field, Kind::Schema, &mut out);
            }
        }
        Kind::SecurityScheme => {}
    }
    out
}

fn each_index(node: &Value, at: &Pointer, field: &str, kind: Kind, out: &mut Vec<(Pointer, Kind)>) {
    if let Some(Value::Sequence(items)) = node.get(field) {
        for i in 0..items.len() {
            out.push((at.push(field).index(i), kind));
        }
    }
}

/// `None` when `node` deserialises as `T`, the error message otherwise.
fn fits<T: DeserializeOwned>(node: &Value) -> Option<String> {
    T::deserialize(node).err().map(|e| e.to_string())
}

fn lookup<'a>(root: &'a Value, at: &Pointer) -> Option<&'a Value> {
    let mut node = root;
    for token in at.tokens() {
        node = match node {
            Value::Mapping(map) => map.get(token.as_str())?,
            Value::Sequence(seq) => seq.get(token.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(node)
}
