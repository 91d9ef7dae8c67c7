//! A query parameter whose object allows properties it does not name: the
//! named ones and the rest, read as a [`DynamicQuery`].

use openapiv3::ParameterData;

use crate::error::Result;
use crate::ir::{DynamicQuery, QueryProperty, QueryValueKind, Shape, Ty};
use crate::names::{Namespace, type_name};
use crate::parse::Pointer;

use super::operation::OperationLowering;

impl<'d> OperationLowering<'_, 'd> {
    pub(super) fn dynamic_query(
        &mut self,
        extension: &serde_json::Value,
        at: &Pointer,
        component: Option<&str>,
        prefix: &str,
        data: &ParameterData,
        shape: &Shape,
    ) -> Result<DynamicQuery> {
        let at = at.push("x-dynamic-query");
        if shape.ty != Ty::Primitive(crate::ir::Primitive::String) {
            return Err(self
                .doc
                .invalid(&at, "`x-dynamic-query` belongs on a string parameter"));
        }
        let invalid = |what: &str| self.doc.invalid(&at, what.to_owned());
        let object = extension
            .as_object()
            .ok_or_else(|| invalid("must be an object"))?;
        let count = |key: &str, default: u32| -> Result<u32> {
            match object.get(key) {
                None => Ok(default),
                Some(v) => v
                    .as_u64()
                    .filter(|n| (1..=u64::from(u32::MAX)).contains(n))
                    .map(|n| n as u32)
                    .ok_or_else(|| invalid(&format!("`{key}` must be a positive integer"))),
            }
        };
        let max_count = count("maxCount", 100)?;
        let default_count = count("defaultCount", max_count)?.min(max_count);
        let properties_json = object
            .get("properties")
            .and_then(serde_json::Value::as_object)
            .ok_or_else(|| {
                invalid("`properties` (a map from property name to its schema) is required")
            })?;
        let mut names = Namespace::default();
        let mut properties = Vec::new();
        // Extensions reach us as unordered JSON; take the order from the document.
        let ordered: Vec<String> = match self.doc.node(&at.push("properties")) {
            Some(serde_yaml::Value::Mapping(map)) => map
                .keys()
                .filter_map(|k| k.as_str().map(str::to_owned))
                .collect(),
            _ => properties_json.keys().cloned().collect(),
        };
        for wire in &ordered {
            let Some(schema) = properties_json.get(wire) else {
                continue;
            };
            let typ = schema.get("type").and_then(serde_json::Value::as_str);
            let format = schema.get("format").and_then(serde_json::Value::as_str);
            let kind = match (typ, format) {
                (Some("string"), Some("date-time")) => QueryValueKind::DateTime,
                (Some("string"), Some("uuid")) => QueryValueKind::Uuid,
                (Some("string"), _) => QueryValueKind::String,
                (Some("integer"), _) => QueryValueKind::Integer,
                (Some("number"), _) => QueryValueKind::Number,
                (Some("boolean"), _) => QueryValueKind::Boolean,
                _ => {
                    return Err(self.doc.invalid(
                        &at.push("properties").push(wire),
                        "a dynamic query property needs a scalar `type` (string, integer, number or boolean)",
                    ));
                }
            };
            properties.push(QueryProperty {
                wire: wire.clone(),
                name: names.claim(type_name(wire)),
                kind,
            });
        }
        let default_sort: Vec<String> = match object.get("defaultSort") {
            None => Vec::new(),
            Some(serde_json::Value::Array(items)) => items
                .iter()
                .map(|item| {
                    item.as_str()
                        .map(str::to_owned)
                        .ok_or_else(|| invalid("`defaultSort` must list property names"))
                })
                .collect::<Result<_>>()?,
            Some(_) => return Err(invalid("`defaultSort` must list property names")),
        };
        for name in &default_sort {
            if !properties.iter().any(|p| &p.wire == name) {
                return Err(invalid(&format!(
                    "`defaultSort` names `{name}`, which is not among `properties`"
                )));
            }
        }
        let name = match component {
            Some(component) => type_name(component),
            None => format!("{prefix}{}Query", type_name(&data.name)),
        };
        // The query type and its property enum live beside the schemas' types.
        let name = self.types.claim_name(&at, name);
        let property_type = self
            .types
            .claim_name(&at.push("properties"), format!("{name}Property"));
        Ok(DynamicQuery {
            name,
            property_type,
            properties,
            max_count,
            default_count,
            default_sort,
        })
    }
}
