//! Callbacks given by reference (`callbacks: {onEvent: {$ref:
//! '#/components/callbacks/Event'}}`, as PeerTube's document has) are valid
//! OpenAPI, but `openapiv3` reads an operation's callbacks as path items
//! only. The generator reads a callback as the API's own path items, so a
//! reference is replaced by the callback it names before the typed model is
//! read, or by an empty one when it names nothing local.

use serde_yaml::{Mapping, Value};

/// How many references to references are followed before giving up.
const MAX_HOPS: usize = 8;

/// Replaces every operation's callback reference under `paths` with the
/// callback it names.
pub fn inline_references(raw: &mut Value) {
    let components = raw
        .get("components")
        .and_then(|c| c.get("callbacks"))
        .cloned()
        .unwrap_or(Value::Null);
    let Some(Value::Mapping(paths)) = raw.get_mut("paths") else {
        return;
    };
    for item in paths.values_mut() {
        let Value::Mapping(item) = item else { continue };
        for operation in item.values_mut() {
            let Some(Value::Mapping(callbacks)) = operation.get_mut("callbacks") else {
                continue;
            };
            for callback in callbacks.values_mut() {
                if reference(callback).is_some() {
                    *callback = named(callback, &components);
                }
            }
        }
    }
}

/// The `$ref` of a node that is a reference.
fn reference(node: &Value) -> Option<&str> {
    node.get("$ref").and_then(Value::as_str)
}

/// The callback `node` refers to, through at most [`MAX_HOPS`] references;
/// an empty callback when it names nothing under `components/callbacks`.
fn named(node: &Value, components: &Value) -> Value {
    let mut node = node;
    for _ in 0..MAX_HOPS {
        let Some(target) = reference(node) else {
            return node.clone();
        };
        let Some(name) = target.strip_prefix("#/components/callbacks/") else {
            break;
        };
        let name = name.replace("~1", "/").replace("~0", "~");
        match components.get(name.as_str()) {
            Some(found) => node = found,
            None => break,
        }
    }
    Value::Mapping(Mapping::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_a_callback_reference_by_the_callback() {
        let mut raw: Value = serde_yaml::from_str(
            "paths:\n  /a:\n    get:\n      callbacks:\n        viaRef: {$ref: '#/components/callbacks/Hook'}\n        missing: {$ref: '#/components/callbacks/None'}\n        inline: {'{$url}': {post: {responses: {'200': {description: ok}}}}}\n\
             components:\n  callbacks:\n    Hook: {$ref: '#/components/callbacks/Real'}\n    Real: {'{$request.body#/url}': {post: {responses: {'200': {description: ok}}}}}\n",
        )
        .unwrap();
        inline_references(&mut raw);
        let callbacks = &raw["paths"]["/a"]["get"]["callbacks"];
        assert_eq!(callbacks["viaRef"], raw["components"]["callbacks"]["Real"]);
        assert_eq!(callbacks["missing"], Value::Mapping(Mapping::new()));
        assert!(callbacks["inline"].get("{$url}").is_some());
    }
}
