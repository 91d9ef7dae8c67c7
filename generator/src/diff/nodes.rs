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
                .filter(|(k, _)| k.as_str().is_none_or(|k| !is_text(k)))
                .map(|(k, v)| {
                    let names_chosen = k.as_str().is_some_and(|k| NAMES.contains(&k));
                    let v = if names_chosen {
                        named(v)
                    } else {
                        without_text(v)
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        serde_yaml::Value::Sequence(items) => {
            serde_yaml::Value::Sequence(items.iter().map(without_text).collect())
        }
        other => other.clone(),
    }
}

/// Whether a keyword only says something to people (or to other tools).
fn is_text(keyword: &str) -> bool {
    matches!(
        keyword,
        "description" | "summary" | "example" | "examples" | "title" | "externalDocs"
    ) || keyword.starts_with("x-")
}

/// The keywords whose keys are names the document chose, not keywords: a
/// property called `description` or a discriminator value `x-legacy` is
/// part of the shape.
const NAMES: [&str; 6] = [
    "properties",
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
    "mapping",
];

/// A mapping of chosen names: every entry kept, each value without its text.
fn named(node: &serde_yaml::Value) -> serde_yaml::Value {
    match node {
        serde_yaml::Value::Mapping(map) => serde_yaml::Value::Mapping(
            map.iter()
                .map(|(k, v)| (k.clone(), without_text(v)))
                .collect(),
        ),
        other => without_text(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yaml(text: &str) -> serde_yaml::Value {
        serde_yaml::from_str(text).expect("valid YAML")
    }

    #[test]
    fn scalars_are_read_as_text_and_collections_are_not() {
        let texts: Vec<Option<String>> = yaml("[a, 200, 1.5, true, null, [x], {k: v}]")
            .as_sequence()
            .expect("a list")
            .iter()
            .map(scalar_text)
            .collect();
        let some = |t: &str| Some(t.to_owned());
        assert_eq!(
            texts,
            [
                some("a"),
                some("200"),
                some("1.5"),
                some("true"),
                some("null"),
                None,
                None
            ]
        );
    }

    #[test]
    fn the_text_a_comparison_ignores_is_dropped_at_every_depth() {
        let node = yaml(
            "{type: object, description: d, title: t, x-order: 1, summary: s, example: e, \
             examples: [e], externalDocs: {url: u}, 200: kept, \
             properties: {id: {type: string, description: inner, x-go-name: Id}, \
             description: {type: string}, x-legacy: {type: integer}}, \
             discriminator: {propertyName: kind, mapping: {x-old: '#/a', title: '#/b'}}, \
             allOf: [{title: t, required: [id]}]}",
        );
        let expected = yaml(
            "{type: object, 200: kept, properties: {id: {type: string}, \
             description: {type: string}, x-legacy: {type: integer}}, \
             discriminator: {propertyName: kind, mapping: {x-old: '#/a', title: '#/b'}}, \
             allOf: [{required: [id]}]}",
        );
        assert_eq!(without_text(&node), expected);
    }
}
