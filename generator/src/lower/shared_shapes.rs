//! Inline schemas written out the same way in several places become one
//! type: each later copy is an alias of the first.
//!
//! Bundled documents spell a shared object out wherever it is used
//! (GitHub's webhook payloads repeat the same user, repository and issue
//! objects thousands of times). Lowered place by place, each copy is a type
//! with its derives, constructor and checks, and the crate grows with the
//! repetition, not with the API. An alias costs the compiler almost nothing
//! and keeps every name: code that names a copy keeps building, and if the
//! copies grow apart in a later version of the document, the alias becomes
//! a type of its own under the same name.
//!
//! Two types are copies when everything the generated code is made from is
//! equal: their kind with every field's name, shape, docs and default (the
//! named types they hold compared by the type they stand for), and whether
//! requests or answers carry them. Only the copy's own docs and origin may
//! differ; its alias keeps them. Schemas the document names
//! (`components.schemas`) stay types of their own, and so do the types an
//! operation names itself, which the emitters look into (bodies, forms,
//! pages).

use std::collections::{HashMap, HashSet};

use crate::ir::{Additional, Operation, Shape, Ty, TypeDef, TypeKind};

/// Turns every inline copy of an earlier type into an alias of it.
pub(super) fn alias_copies(types: &mut [TypeDef], operations: &[Operation]) {
    let named_by_operations: HashSet<String> = operations
        .iter()
        .flat_map(|op| {
            let (request, response) = super::marks::operation_roots(op);
            request.into_iter().chain(response)
        })
        .collect();
    // What each type stands for: itself, or the type its copy aliases.
    let mut stands_for: HashMap<String, String> = HashMap::new();
    loop {
        let mut first_of: HashMap<String, &str> = HashMap::new();
        let mut found: Vec<(usize, String)> = Vec::new();
        for (i, def) in types.iter().enumerate() {
            if matches!(def.kind, TypeKind::Alias(_)) || stands_for.contains_key(&def.name) {
                continue;
            }
            let key = key(def, &stands_for);
            match first_of.get(key.as_str()) {
                Some(first)
                    if def.schema_name.is_none() && !named_by_operations.contains(&def.name) =>
                {
                    found.push((i, (*first).to_owned()));
                }
                Some(_) => {}
                None => {
                    first_of.insert(key, &def.name);
                }
            }
        }
        if found.is_empty() {
            break;
        }
        for (i, first) in found {
            stands_for.insert(types[i].name.clone(), first);
        }
    }
    for def in types.iter_mut() {
        if let Some(first) = stands_for.get(&def.name) {
            def.kind = TypeKind::Alias(Shape::of(Ty::Named(first.clone())));
        }
    }
}

/// Everything about `def` that its generated code is made from, with the
/// named types it holds spelled as the types they stand for.
fn key(def: &TypeDef, stands_for: &HashMap<String, String>) -> String {
    let mut kind = def.kind.clone();
    let rename = |shape: &mut Shape| rename_in(shape, stands_for);
    match &mut kind {
        TypeKind::Struct(s) => {
            s.fields.iter_mut().for_each(|f| rename(&mut f.shape));
            if let Additional::Map { value, .. } = &mut s.additional {
                rename(value);
            }
        }
        TypeKind::Union(u) => u.variants.iter_mut().for_each(|v| rename(&mut v.shape)),
        TypeKind::Newtype(shape) | TypeKind::Alias(shape) => rename(shape),
        TypeKind::Enum(_) => {}
    }
    format!(
        "{kind:?} request={} response={} checks={}",
        def.in_request, def.in_response, def.has_checks
    )
}

fn rename_in(shape: &mut Shape, stands_for: &HashMap<String, String>) {
    match &mut shape.ty {
        Ty::Named(name) => {
            // A first copy may itself turn out a copy in a later round:
            // follow to the end (every step goes to an earlier type).
            while let Some(first) = stands_for.get(name.as_str()) {
                *name = first.clone();
            }
        }
        Ty::Array(item) | Ty::Map(item) => rename_in(item, stands_for),
        Ty::Primitive(_) | Ty::Any => {}
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{Ty, TypeKind};
    use crate::testing::api;

    fn alias_of(api: &crate::ir::Api, name: &str) -> Option<String> {
        match &api
            .type_named(name)
            .unwrap_or_else(|| panic!("no {name}"))
            .kind
        {
            TypeKind::Alias(shape) => match &shape.ty {
                Ty::Named(target) => Some(target.clone()),
                _ => None,
            },
            _ => None,
        }
    }

    #[test]
    fn an_inline_copy_nested_in_copies_is_an_alias_of_the_first_at_every_level() {
        // Two components spell the same `owner` (holding the same `plan`)
        // out inline; the second's nested types alias the first's.
        let api = api(
            "paths: {}\ncomponents:\n  schemas:\n    Issue:\n      type: object\n      properties:\n        owner: {type: object, properties: {login: {type: string}, plan: {type: object, properties: {seats: {type: integer}}}}}\n        state: {type: string, enum: [open, closed]}\n    Pull:\n      type: object\n      properties:\n        owner: {type: object, properties: {login: {type: string}, plan: {type: object, properties: {seats: {type: integer}}}}}\n        state: {type: string, enum: [open, closed]}\n",
        );
        assert_eq!(alias_of(&api, "IssueOwner"), None);
        assert_eq!(alias_of(&api, "PullOwner").as_deref(), Some("IssueOwner"));
        assert_eq!(
            alias_of(&api, "PullOwnerPlan").as_deref(),
            Some("IssueOwnerPlan")
        );
        assert_eq!(alias_of(&api, "PullState").as_deref(), Some("IssueState"));
        // The components themselves stay types, equal as they are.
        assert_eq!(alias_of(&api, "Pull"), None);
        // The fields keep the names of their own place.
        let TypeKind::Struct(pull) = &api.type_named("Pull").unwrap().kind else {
            panic!("Pull is a struct");
        };
        assert_eq!(pull.fields[0].shape.ty, Ty::Named("PullOwner".to_owned()));
    }

    #[test]
    fn copies_that_differ_in_a_field_doc_or_a_constraint_stay_apart() {
        let api = api(
            "paths: {}\ncomponents:\n  schemas:\n    A:\n      type: object\n      properties:\n        x: {type: object, properties: {n: {type: string, description: one}}}\n        y: {type: object, properties: {n: {type: string, description: two}}}\n        z: {type: object, properties: {n: {type: string, description: one, maxLength: 3}}}\n",
        );
        assert_eq!(alias_of(&api, "Ax"), None);
        assert_eq!(alias_of(&api, "Ay"), None);
        assert_eq!(alias_of(&api, "Az"), None);
    }

    /// The body type of the first operation of a document whose body and
    /// `Holder.inner` (the second's body) are the same object.
    fn body_beside_a_copy(operation_id: &str) -> (crate::ir::Api, String) {
        let api = api(&format!(
            "paths:\n  /a:\n    post:\n      operationId: {operation_id}\n      requestBody: {{content: {{application/json: {{schema: {{type: object, properties: {{n: {{type: string}}}}}}}}}}}}\n      responses: {{'200': {{description: ok}}}}\n  /b:\n    post:\n      operationId: holder\n      requestBody: {{content: {{application/json: {{schema: {{$ref: '#/components/schemas/Holder'}}}}}}}}\n      responses: {{'200': {{description: ok}}}}\ncomponents:\n  schemas:\n    Holder:\n      type: object\n      properties:\n        inner: {{type: object, properties: {{n: {{type: string}}}}}}\n",
        ));
        let body = match api.operations[0].body.as_ref().map(|b| &b.kind) {
            Some(crate::ir::BodyKind::Json(shape)) => match &shape.ty {
                Ty::Named(name) => name.clone(),
                other => panic!("the body is {other:?}"),
            },
            _ => panic!("the body is JSON"),
        };
        (api, body)
    }

    #[test]
    fn a_type_an_operation_names_is_never_the_alias() {
        // After `HolderInner` in the types' order, the body's type stays a
        // struct; before it, it is the one `HolderInner` aliases.
        let (api, body) = body_beside_a_copy("zeta");
        assert_eq!(alias_of(&api, &body), None);
        assert_eq!(alias_of(&api, "HolderInner"), None);
        let (api, body) = body_beside_a_copy("alpha");
        assert_eq!(alias_of(&api, &body), None);
        assert_eq!(alias_of(&api, "HolderInner"), Some(body));
    }

    #[test]
    fn a_first_copy_may_turn_out_a_copy_of_an_earlier_type_in_a_later_round() {
        // Round 1: `D1.p.x` is a copy of `C1.x` (both hold A1), and
        // `B1.p.x.child` of A1. Round 2: `C1.x`, now seen to hold what
        // `B1.p.x` holds, is a copy of it; and `D1.p` of the component C1.
        let api = api(concat!(
            "paths: {}\ncomponents:\n  schemas:\n",
            "    A1: {type: object, properties: {n: {type: string}}}\n",
            "    B1: {type: object, properties: {p: {type: object, properties: {x: {type: object, properties: {child: {type: object, properties: {n: {type: string}}}}}}}}}\n",
            "    C1: {type: object, properties: {x: {type: object, properties: {child: {$ref: '#/components/schemas/A1'}}}}}\n",
            "    D1: {type: object, properties: {p: {type: object, properties: {x: {type: object, properties: {child: {$ref: '#/components/schemas/A1'}}}}}}}\n",
        ));
        assert_eq!(alias_of(&api, "D1pX").as_deref(), Some("C1x"));
        assert_eq!(alias_of(&api, "C1x").as_deref(), Some("B1pX"));
        assert_eq!(alias_of(&api, "D1p").as_deref(), Some("C1"));
    }
}
