//! Reading the documents' nodes as the comparison needs them: `$ref`s
//! followed, mappings' entries, scalars as text, and a node without what
//! the comparison ignores.

use crate::parse::{Document, Pointer};

/// What a document node holds, with `$ref`s followed ([`Document::follow_refs`]).
pub(crate) fn resolve<'a>(doc: &'a Document, node: &'a serde_yaml::Value) -> &'a serde_yaml::Value {
    doc.follow_refs(node)
}

/// The name of the schema a `$ref` names (`#/components/schemas/<name>`).
pub(crate) fn schema_ref(node: &serde_yaml::Value) -> Option<String> {
    node.get("$ref")
        .and_then(serde_yaml::Value::as_str)
        .and_then(Pointer::parse_local)
        .and_then(|pointer| pointer.component_name("schemas"))
}

/// The entries of a mapping node by string key, in document order.
pub(crate) fn entries(node: Option<&serde_yaml::Value>) -> Vec<(String, &serde_yaml::Value)> {
    node.and_then(serde_yaml::Value::as_mapping)
        .map(|map| {
            map.iter()
                .filter_map(|(k, v)| Some((scalar_text(k)?, v)))
                .collect()
        })
        .unwrap_or_default()
}

/// A scalar as text (`200` and `"200"` alike); `None` for collections.
pub(crate) fn scalar_text(node: &serde_yaml::Value) -> Option<String> {
    match node {
        serde_yaml::Value::String(s) => Some(s.clone()),
        serde_yaml::Value::Number(n) => Some(n.to_string()),
        serde_yaml::Value::Bool(b) => Some(b.to_string()),
        serde_yaml::Value::Null => Some("null".to_owned()),
        _ => None,
    }
}

/// The node's `key` as a boolean, `false` when absent.
pub(crate) fn flag(node: &serde_yaml::Value, key: &str) -> bool {
    node.get(key)
        .and_then(serde_yaml::Value::as_bool)
        .unwrap_or(false)
}

/// The node without what the comparison ignores (descriptions, examples,
/// titles, extensions), to tell whether two shapes are the same.
pub(crate) fn without_text(node: &serde_yaml::Value) -> serde_yaml::Value {
    match node {
        serde_yaml::Value::Mapping(map) => serde_yaml::Value::Mapping(
            map.iter()
                .filter(|(k, _)| {
                    k.as_str().is_none_or(|k| {
                        !matches!(
                            k,
                            "description"
                                | "summary"
                                | "example"
                                | "examples"
                                | "title"
                                | "externalDocs"
                        ) && !k.starts_with("x-")
                    })
                })
                .map(|(k, v)| (k.clone(), without_text(v)))
                .collect(),
        ),
        serde_yaml::Value::Sequence(items) => {
            serde_yaml::Value::Sequence(items.iter().map(without_text).collect())
        }
        other => other.clone(),
    }
}
