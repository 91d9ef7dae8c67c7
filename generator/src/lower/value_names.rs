//! The names and meanings a document gives an enum's values in an
//! extension, read the same way by the lowering (variant names and docs)
//! and by `api-diff` (a renamed variant breaks Rust code).

use std::collections::HashMap;

use serde_yaml::Value;

/// What the document says of one enum value in an extension.
#[derive(Debug, Default)]
pub(crate) struct ValueName {
    /// The name to give its variant.
    pub name: Option<String>,
    /// What it means.
    pub description: Option<String>,
}

/// What the extensions of the enum schema `schema` (a node of the document's
/// tree) say of its values, by `key` of each value: `x-enum-varnames` (or
/// NSwag's `x-enumNames`) and `x-enum-descriptions`, lists in the order of
/// `enum` (a `null` keeps its place), as OpenAPI Generator reads them; or
/// the `values` of Azure's `x-ms-enum`. The lists win over `x-ms-enum`. A
/// list of another length than `enum` is read past: which name goes with
/// which value is then a guess.
pub(crate) fn given(
    schema: &Value,
    key: impl Fn(&serde_json::Value) -> Option<String>,
) -> HashMap<String, ValueName> {
    let key = |value: &Value| key(&serde_json::to_value(value).ok()?);
    let text = |value: &Value| {
        value
            .as_str()
            .filter(|t| !t.trim().is_empty())
            .map(str::to_owned)
    };
    let mut named: HashMap<String, ValueName> = HashMap::new();
    let values: Vec<Option<String>> = schema
        .get("enum")
        .and_then(Value::as_sequence)
        .map(|items| items.iter().map(key).collect())
        .unwrap_or_default();
    let list = |key: &str| {
        schema
            .get(key)
            .and_then(Value::as_sequence)
            .filter(|list| list.len() == values.len())
    };
    let names = list("x-enum-varnames").or_else(|| list("x-enumNames"));
    for (list, is_name) in [(names, true), (list("x-enum-descriptions"), false)] {
        for (value, item) in values.iter().zip(list.into_iter().flatten()) {
            let (Some(value), Some(item)) = (value, text(item)) else {
                continue;
            };
            let entry = named.entry(value.clone()).or_default();
            if is_name {
                entry.name = Some(item);
            } else {
                entry.description = Some(item);
            }
        }
    }
    let azure = schema
        .get("x-ms-enum")
        .and_then(|e| e.get("values"))
        .and_then(Value::as_sequence);
    for value in azure.into_iter().flatten() {
        let Some(wire) = value.get("value").and_then(key) else {
            continue;
        };
        let entry = named.entry(wire).or_default();
        entry.name = entry
            .name
            .take()
            .or_else(|| value.get("name").and_then(text));
        entry.description = entry
            .description
            .take()
            .or_else(|| value.get("description").and_then(text));
    }
    named
}
