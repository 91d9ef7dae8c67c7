//! One operation lowered: its name, route, parameters, body, responses and
//! security, each read by the parts beside this one; and every operation of
//! the document, in order, with the names they claim.

use std::borrow::Cow;

use openapiv3::PathItem;

use crate::error::Result;
use crate::ir::{Docs, Method, Operation, ParamLocation, SecurityRequirement, is_header_name};
use crate::lower::lenient::Leniency;
use crate::lower::schemas::TypeTable;
use crate::names::{Namespace, field_name, type_name};
use crate::parse::{Document, OTHER_METHODS, Pointer, deserialize_at};

/// Function names the generated client and server use for themselves, and
/// the methods of the traits a `Client` implements (`Clone`, `Debug`, and
/// what every type has): an inherent `fn clone(&self, id)` would hide
/// `Clone::clone` from `client.clone()`.
pub(super) const RESERVED_FNS: &[&str] = &[
    "new",
    "builder",
    "authenticate",
    "router",
    "router_with",
    "base_url",
    "config",
    "clone",
    "clone_from",
    "to_owned",
    "fmt",
    "into",
    "try_into",
    "type_id",
];

/// Things seen in the document that are deliberately not generated.
#[derive(Default)]
pub(crate) struct NotGenerated {
    pub links: Vec<Pointer>,
}

pub(crate) fn lower_operations<'d>(
    doc: &'d Document,
    types: &mut TypeTable<'d>,
    skipped: &mut NotGenerated,
) -> Result<Vec<Operation>> {
    let mut operations = Vec::new();
    let mut fn_names = Namespace::with_reserved(RESERVED_FNS);
    let mut prefixes = Namespace::default();
    let mut ids = std::collections::HashSet::new();
    let paths_at = Pointer::root().push("paths");
    for (path, item) in &doc.api.paths.paths {
        let item_at = paths_at.push(path);
        let item = doc.resolve(item, &item_at)?;
        let item_at = item.pointer.clone();
        for (method, operation, at) in methods(doc, &item.value, &item_at)? {
            let operation = &operation;
            let lowered = OperationLowering {
                doc,
                types: &mut *types,
                at: &at,
                skipped: &mut *skipped,
            }
            .lower(
                path,
                method,
                operation,
                &item.value,
                &item_at,
                &mut fn_names,
                &mut prefixes,
            )?;
            // `operationId`s MUST be unique; a repeated one gets a name of
            // its own (`list_pets2`) from the namespaces above.
            let repeated = operation
                .operation_id
                .as_ref()
                .is_some_and(|id| !ids.insert(id.clone()));
            if repeated {
                types
                    .lenient
                    .record(Leniency::RepeatedOperationId, &at.push("operationId"));
            }
            operations.push(lowered);
        }
    }
    Ok(operations)
}

/// The operations of a path item, with their methods and where each is:
/// 3.0's eight methods, then the others that 3.2 adds (`query`,
/// `additionalOperations`), which `parse` keeps in the path item's
/// [`OTHER_METHODS`] extension.
pub(super) fn methods<'i>(
    doc: &Document,
    item: &'i PathItem,
    item_at: &Pointer,
) -> Result<Vec<(Method, Cow<'i, openapiv3::Operation>, Pointer)>> {
    let mut found: Vec<_> = [
        (Method::Get, &item.get),
        (Method::Put, &item.put),
        (Method::Post, &item.post),
        (Method::Delete, &item.delete),
        (Method::Options, &item.options),
        (Method::Head, &item.head),
        (Method::Patch, &item.patch),
        (Method::Trace, &item.trace),
    ]
    .into_iter()
    .filter_map(|(method, op)| {
        let at = item_at.push(&method.as_str().to_ascii_lowercase());
        op.as_ref().map(|op| (method, Cow::Borrowed(op), at))
    })
    .collect();
    let others_at = item_at.push(OTHER_METHODS);
    let others = doc.node(&others_at).and_then(serde_yaml::Value::as_mapping);
    for (name, node) in others.into_iter().flatten() {
        let Some(name) = name.as_str() else { continue };
        let at = others_at.push(name);
        if !is_header_name(name) {
            return Err(doc.invalid(
                &at,
                format!("`{name}` is not an HTTP method: a method's name is a token (RFC 9110), such as COPY"),
            ));
        }
        let op = deserialize_at::<openapiv3::Operation>(node, &doc.file, &at)?;
        found.push((Method::Other(name.to_owned()), Cow::Owned(op), at));
    }
    Ok(found)
}

/// One operation as it is lowered: the document, the type table its shapes
/// go into, where the operation is, and what it leaves out.
pub(super) struct OperationLowering<'a, 'd> {
    pub(super) doc: &'d Document,
    pub(super) types: &'a mut TypeTable<'d>,
    pub(super) at: &'a Pointer,
    pub(super) skipped: &'a mut NotGenerated,
}

impl<'d> OperationLowering<'_, 'd> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn lower(
        mut self,
        path: &str,
        method: Method,
        op: &openapiv3::Operation,
        item: &PathItem,
        item_at: &Pointer,
        fn_names: &mut Namespace,
        prefixes: &mut Namespace,
    ) -> Result<Operation> {
        let id = op
            .operation_id
            .clone()
            .unwrap_or_else(|| synthesized_id(&method, path));
        let fn_name = fn_names.claim(field_name(&id));
        let type_prefix = prefixes.claim(type_name(&id));
        let (route, key_query) = split_path_key(path);
        if key_query.is_some() {
            self.types.lenient.record(Leniency::QueryInPathKey, item_at);
        }
        let mut params = self.params(op, item, item_at, &type_prefix, route)?;
        let fixed_query = match key_query {
            Some(query) => self.key_query(query, &mut params),
            None => Vec::new(),
        };
        self.querystring_without_key_pairs(&params, &fixed_query)?;
        let in_route = path_template_names(route);
        params.retain(|param| {
            let missing = param.location == ParamLocation::Path && !in_route.contains(&param.wire);
            if missing {
                self.types
                    .lenient
                    .record(Leniency::PathParamNotInPath, &param.origin);
            }
            !missing
        });
        let body = match &op.request_body {
            Some(body) => self.body(body, &type_prefix)?,
            None => None,
        };
        let responses = self.responses(op, &type_prefix)?;
        let security = self.security(op)?;
        let security = self.querystring_security(&params, security)?;
        Ok(Operation {
            id,
            fn_name,
            type_prefix,
            method,
            path: route.to_owned(),
            fixed_query,
            origin: self.at.clone(),
            docs: Docs {
                title: op.summary.clone(),
                description: op.description.clone(),
                example: None,
                deprecated: op.deprecated,
            },
            tags: op.tags.clone(),
            params,
            body,
            responses,
            security,
        })
    }

    fn security(&mut self, op: &openapiv3::Operation) -> Result<Vec<SecurityRequirement>> {
        let (requirements, at) = match &op.security {
            Some(own) => (own, self.at.push("security")),
            None => match &self.doc.api.security {
                Some(global) => (global, Pointer::root().push("security")),
                None => return Ok(Vec::new()),
            },
        };
        let schemes = self
            .doc
            .api
            .components
            .as_ref()
            .map(|c| &c.security_schemes);
        let mut kept = Vec::new();
        let mut undeclared = Vec::new();
        for (i, requirement) in requirements.iter().enumerate() {
            let mut named = Vec::new();
            let mut missing = None;
            for name in requirement.keys() {
                if self.doc.mutual_tls.contains(name) {
                    self.types
                        .lenient
                        .record(Leniency::MutualTlsByConnection, &at.index(i).push(name));
                } else if schemes.is_some_and(|s| s.contains_key(name)) {
                    named.push(name.clone());
                } else if missing.is_none() {
                    missing = Some((name, at.index(i).push(name)));
                }
            }
            match missing {
                Some(place) => undeclared.push(place),
                None => kept.push(SecurityRequirement { schemes: named }),
            }
        }
        // An alternative no request could meet is left out while another
        // remains. Without one, the operation would read as open to
        // anyone, which its author did not mean: an error (D58).
        match undeclared.first() {
            Some((name, place)) if kept.is_empty() => Err(self.doc.invalid(
                place,
                format!(
                    "security scheme `{name}` is not declared in components.securitySchemes, \
                     and no other alternative of the requirement is met without it \
                     (leaving it out would make the operation public)"
                ),
            )),
            _ => {
                for (_, place) in &undeclared {
                    self.types.lenient.record(Leniency::UndeclaredScheme, place);
                }
                Ok(kept)
            }
        }
    }
}

/// `GET /pets/{petId}` → `get_pets_pet_id`.
pub(super) fn synthesized_id(method: &Method, path: &str) -> String {
    format!(
        "{} {}",
        method.as_str().to_ascii_lowercase(),
        path.replace(['{', '}'], " ")
    )
}

/// A path's key split at a query string or fragment written into it
/// (`/search?q={q}`, `/#Action=X`): the path, and the pairs' text.
pub(super) fn split_path_key(key: &str) -> (&str, Option<&str>) {
    match key.find(['?', '#']) {
        Some(at) => (&key[..at], Some(&key[at + 1..])),
        None => (key, None),
    }
}

pub(super) fn path_template_names(path: &str) -> Vec<String> {
    path.split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}').map(|(name, _)| name.to_owned()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::api;

    /// A path that differs from another in parameter names only is the
    /// same path: the later operation with the same method is noted.
    #[test]
    fn notes_an_operation_on_a_path_another_has_under_other_names() {
        let api = api(
            "paths:\n  /a/{id}:\n    get:\n      parameters: [{name: id, in: path, required: true, schema: {type: string}}]\n      responses: {'200': {description: ok}}\n  /a/{key}:\n    get:\n      parameters: [{name: key, in: path, required: true, schema: {type: string}}]\n      responses: {'200': {description: ok}}\n    delete:\n      parameters: [{name: key, in: path, required: true, schema: {type: string}}]\n      responses: {'200': {description: ok}}\n",
        );
        assert_eq!(api.operations.len(), 3);
        assert!(
            api.notes.iter().any(|note| note.contains(
                "operations whose method and path (but for parameter names) an earlier one has \
                 (1, the first at t.yaml#/paths/~1a~1{key}/get)"
            )),
            "{:?}",
            api.notes
        );
    }

    /// Each `{name}` of the path is a path parameter: one the operation
    /// does not declare is text, beside a query parameter of that name,
    /// and noted; a declared one the path lacks is left out.
    #[test]
    fn a_path_template_without_a_declared_parameter_is_a_text_path_parameter() {
        let api = api(
            "paths:\n  /a/{id}:\n    get:\n      parameters:\n        - {name: id, in: query, schema: {type: string}}\n        - {name: other, in: path, required: true, schema: {type: string}}\n      responses: {'200': {description: ok}}\n",
        );
        let params: Vec<_> = api.operations[0]
            .params
            .iter()
            .map(|p| (p.wire.as_str(), p.location, p.field.as_str(), p.required))
            .collect();
        assert_eq!(
            params,
            [
                ("id", ParamLocation::Query, "id", false),
                ("id", ParamLocation::Path, "id_path", true)
            ]
        );
        assert!(
            api.notes.iter().any(|note| note.contains(
                "operations whose path has a `{name}` they declare no path parameter for \
                 (1, the first at t.yaml#/paths/~1a~1{id}/get)"
            )),
            "{:?}",
            api.notes
        );
    }

    #[test]
    fn names_operations_without_ids_from_method_and_path() {
        assert_eq!(
            field_name(&synthesized_id(&Method::Get, "/pets/{petId}/photos")),
            "get_pets_pet_id_photos"
        );
    }
}
