//! What lowering marks on the types once they are all known: the fields
//! that must be boxed, the types with checks, the messages each type travels
//! in, and the properties a one-way message need not carry.

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::ir::{
    Access, Additional, Api, BodyKind, EnumRepr, Operation, Primitive, Shape, Ty, TypeDef, TypeKind,
};

/// The named types a shape refers to, at any depth.
fn named_in(shape: &Shape, out: &mut Vec<String>) {
    match &shape.ty {
        Ty::Named(name) => out.push(name.clone()),
        Ty::Array(item) | Ty::Map(item) => named_in(item, out),
        Ty::Primitive(_) | Ty::Any => {}
    }
}

/// The named types a type refers to directly.
fn references(def: &TypeDef) -> Vec<String> {
    let mut out = Vec::new();
    match &def.kind {
        TypeKind::Struct(s) => {
            for field in &s.fields {
                named_in(&field.shape, &mut out);
            }
            if let Additional::Map { value, .. } = &s.additional {
                named_in(value, &mut out);
            }
        }
        TypeKind::Union(u) => {
            for variant in &u.variants {
                named_in(&variant.shape, &mut out);
            }
        }
        TypeKind::Newtype(shape) | TypeKind::Alias(shape) => named_in(shape, &mut out),
        TypeKind::Enum(_) => {}
    }
    out
}

/// Boxes the fields through which a type contains itself by value (arrays and
/// maps already put their items on the heap).
pub(super) fn mark_boxes(types: &mut [TypeDef]) {
    let index: HashMap<String, usize> = types
        .iter()
        .enumerate()
        .map(|(i, t)| (t.name.clone(), i))
        .collect();
    let by_value = |shape: &Shape| match &shape.ty {
        Ty::Named(name) => index.get(name).copied(),
        _ => None,
    };
    // Aliases are transparent: `type A = B;` holds B by value.
    let edges: Vec<Vec<usize>> = types
        .iter()
        .map(|def| match &def.kind {
            TypeKind::Struct(s) => s.fields.iter().filter_map(|f| by_value(&f.shape)).collect(),
            TypeKind::Union(u) => u
                .variants
                .iter()
                .filter_map(|v| by_value(&v.shape))
                .collect(),
            TypeKind::Newtype(shape) | TypeKind::Alias(shape) => {
                by_value(shape).into_iter().collect()
            }
            TypeKind::Enum(_) => Vec::new(),
        })
        .collect();
    let reaches = |from: usize, to: usize| -> bool {
        let mut stack = vec![from];
        let mut seen = HashSet::new();
        while let Some(node) = stack.pop() {
            if node == to {
                return true;
            }
            if seen.insert(node) {
                stack.extend(&edges[node]);
            }
        }
        false
    };
    let boxed: Vec<Vec<bool>> = types
        .iter()
        .enumerate()
        .map(|(i, def)| {
            let targets: Vec<Option<usize>> = match &def.kind {
                TypeKind::Struct(s) => s.fields.iter().map(|f| by_value(&f.shape)).collect(),
                TypeKind::Union(u) => u.variants.iter().map(|v| by_value(&v.shape)).collect(),
                _ => Vec::new(),
            };
            targets
                .into_iter()
                .map(|t| t.is_some_and(|t| reaches(t, i)))
                .collect()
        })
        .collect();
    for (def, flags) in types.iter_mut().zip(boxed) {
        match &mut def.kind {
            TypeKind::Struct(s) => s
                .fields
                .iter_mut()
                .zip(flags)
                .for_each(|(f, b)| f.boxed = b),
            TypeKind::Union(u) => u
                .variants
                .iter_mut()
                .zip(flags)
                .for_each(|(v, b)| v.boxed = b),
            _ => {}
        }
    }
}

/// Marks the types that have something to check beyond what serde checks,
/// themselves or in what they hold.
pub(super) fn mark_checks(types: &mut [TypeDef]) {
    let own: Vec<bool> = types
        .iter()
        .map(|def| match &def.kind {
            TypeKind::Struct(s) => {
                s.fields.iter().any(|f| f.shape.has_own_checks())
                    || s.property_count != (None, None)
                    || matches!(&s.additional, Additional::Map { value, .. } if value.has_own_checks())
            }
            TypeKind::Union(u) => u.variants.iter().any(|v| v.shape.has_own_checks()),
            TypeKind::Newtype(shape) | TypeKind::Alias(shape) => shape.has_own_checks(),
            TypeKind::Enum(e) => e.open,
        })
        .collect();
    let refs: Vec<Vec<String>> = types.iter().map(references).collect();
    let index: HashMap<String, usize> = types
        .iter()
        .enumerate()
        .map(|(i, t)| (t.name.clone(), i))
        .collect();
    let mut has = own;
    loop {
        let mut changed = false;
        for i in 0..types.len() {
            if !has[i]
                && refs[i]
                    .iter()
                    .any(|r| index.get(r).is_some_and(|&j| has[j]))
            {
                has[i] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for (def, has) in types.iter_mut().zip(has) {
        def.has_checks = has;
    }
}

/// Opens the string enums that answers carry: a value they do not list
/// decodes into a variant that keeps it (the `open-enums` setting, on by
/// default). Such an enum has a check of its own (a request must not carry
/// an unlisted value), so the types holding it check it.
pub fn open_enums(api: &mut Api) {
    for def in &mut api.types {
        if let TypeKind::Enum(e) = &mut def.kind {
            e.open = e.repr == EnumRepr::String && def.in_response;
        }
    }
    mark_checks(&mut api.types);
}

/// The named types an operation names itself: its requests' (parameters
/// and body) and its answers' (bodies, headers and events).
pub(super) fn operation_roots(op: &Operation) -> (Vec<String>, Vec<String>) {
    let mut request = Vec::new();
    for param in &op.params {
        named_in(&param.shape, &mut request);
    }
    if let Some(body) = &op.body {
        match &body.kind {
            BodyKind::Multipart(multipart) => named_in(&multipart.shape, &mut request),
            kind => kind
                .json_shape()
                .into_iter()
                .for_each(|s| named_in(s, &mut request)),
        }
    }
    let mut response = Vec::new();
    for answer in &op.responses {
        if let Some(shape) = answer.body.as_ref().and_then(BodyKind::json_shape) {
            named_in(shape, &mut response);
        }
        for header in &answer.headers {
            named_in(&header.shape, &mut response);
        }
        if let Some(events) = &answer.events {
            named_in(events, &mut response);
        }
    }
    (request, response)
}

/// A required `readOnly` property is optional in a type that requests
/// carry, and a required `writeOnly` one in a type that answers carry:
/// OpenAPI applies their `required` to the other direction only, so a
/// request without the read-only `id` is valid (the server stubs accept it,
/// the client need not make one up) and so is an answer without the
/// write-only `password` (the client decodes it).
pub(super) fn relax_one_way_required(types: &mut [TypeDef]) {
    for def in types {
        let (in_request, in_response) = (def.in_request, def.in_response);
        let TypeKind::Struct(s) = &mut def.kind else {
            continue;
        };
        for field in &mut s.fields {
            let may_be_absent = match field.access {
                Access::ReadOnly => in_request,
                Access::WriteOnly => in_response,
                Access::ReadWrite => false,
            };
            if may_be_absent {
                field.required = false;
            }
        }
    }
}

/// Records which tags use each type, and which types requests and answers carry.
pub(super) fn mark_usage(types: &mut [TypeDef], operations: &[Operation]) {
    let index: HashMap<String, usize> = types
        .iter()
        .enumerate()
        .map(|(i, t)| (t.name.clone(), i))
        .collect();
    let refs: Vec<Vec<String>> = types.iter().map(references).collect();
    let closure = |roots: Vec<String>| -> BTreeSet<usize> {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<usize> = roots.iter().filter_map(|r| index.get(r).copied()).collect();
        while let Some(i) = stack.pop() {
            if seen.insert(i) {
                stack.extend(refs[i].iter().filter_map(|r| index.get(r).copied()));
            }
        }
        seen
    };
    for op in operations {
        let (request_roots, response_roots) = operation_roots(op);
        let request = closure(request_roots);
        let response = closure(response_roots);
        let all: BTreeSet<usize> = request.union(&response).copied().collect();
        for &i in &request {
            types[i].in_request = true;
        }
        for &i in &response {
            types[i].in_response = true;
        }
        for &i in &all {
            types[i].tags.extend(op.tags.iter().take(1).cloned());
            if op.tags.is_empty() {
                types[i].tags.insert(String::new());
            }
        }
    }
}

/// Marks the types that a parameter the server stubs read holds as one value
/// read from text ([`TypeDef::from_param`]): in the parameters of every
/// operation the server routes (not one that repeats another's route) and in
/// the common headers.
pub(super) fn mark_from_param(api: &mut Api) {
    let routed = crate::ir::repeats_a_route(&api.operations);
    let params = api
        .operations
        .iter()
        .zip(routed)
        .filter(|(_, repeats)| !repeats)
        .flat_map(|(op, _)| &op.params)
        .filter(|param| !api.is_common_header(param))
        .chain(&api.common_headers)
        .chain(api.hook_operations().flat_map(|op| &op.params));
    let mut names = BTreeSet::new();
    for param in params {
        read_from_text(api, &param.shape, &mut names);
    }
    for def in &mut api.types {
        def.from_param = names.contains(&def.name);
    }
}

/// The named types of `shape` that are read from a parameter's text one
/// value at a time: enums, and newtypes of a scalar.
fn read_from_text(api: &Api, shape: &Shape, out: &mut BTreeSet<String>) {
    match &shape.ty {
        Ty::Named(name) => match api.type_named(name).map(|def| &def.kind) {
            Some(TypeKind::Enum(_)) => {
                out.insert(name.clone());
            }
            Some(TypeKind::Newtype(inner)) => {
                if is_scalar(inner) {
                    out.insert(name.clone());
                }
                read_from_text(api, inner, out);
            }
            Some(TypeKind::Alias(inner)) => read_from_text(api, inner, out),
            _ => {}
        },
        Ty::Array(item) => read_from_text(api, item, out),
        _ => {}
    }
}

/// Whether a newtype wraps one scalar (a primitive other than null), as
/// opposed to a list or a map. What a newtype wraps is what `plain_shape`
/// makes, never a named type.
fn is_scalar(inner: &Shape) -> bool {
    matches!(inner.ty, Ty::Primitive(primitive) if primitive != Primitive::Null)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Primitive, TypeKind};
    use crate::testing::api;

    fn struct_fields(api: &Api, name: &str) -> Vec<(String, bool, bool)> {
        match &api.type_named(name).unwrap().kind {
            TypeKind::Struct(s) => s
                .fields
                .iter()
                .map(|f| (f.name.clone(), f.required, f.boxed))
                .collect(),
            other => panic!("{name} is {other:?}"),
        }
    }

    #[test]
    fn the_type_of_an_answers_events_is_carried_by_answers() {
        // It decodes as an answer does (leniently, its string enums open).
        let api = api(
            "paths:\n  /chat:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            text/event-stream: {schema: {$ref: '#/components/schemas/Chunk'}}\ncomponents:\n  schemas:\n    Chunk: {type: object, properties: {text: {type: string}}}\n",
        );
        let chunk = api.type_named("Chunk").unwrap();
        assert!(chunk.in_response && !chunk.in_request);
    }

    #[test]
    fn a_one_way_property_is_optional_where_it_need_not_travel() {
        // Account goes both ways: its read-only `id` (inline, and through a
        // `$ref` to a read-only schema) need not be sent, its write-only
        // `password` need not come back. Receipt only comes back, so its
        // read-only `id` stays required; Signup is only sent, so its
        // write-only `password` does.
        let api = api(concat!(
            "paths:\n",
            "  /accounts:\n",
            "    post:\n",
            "      requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/Account'}}}}\n",
            "      responses:\n",
            "        '201': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Account'}}}}\n",
            "  /signups:\n",
            "    post:\n",
            "      requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/Signup'}}}}\n",
            "      responses:\n",
            "        '200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Receipt'}}}}\n",
            "components:\n",
            "  schemas:\n",
            "    Id: {type: integer, readOnly: true}\n",
            "    Account:\n",
            "      type: object\n",
            "      required: [id, number, name, password]\n",
            "      properties:\n",
            "        id: {type: integer, readOnly: true}\n",
            "        number: {$ref: '#/components/schemas/Id'}\n",
            "        name: {type: string}\n",
            "        password: {type: string, writeOnly: true}\n",
            "    Signup: {type: object, required: [password], properties: {password: {type: string, writeOnly: true}}}\n",
            "    Receipt: {type: object, required: [id], properties: {id: {type: integer, readOnly: true}}}\n",
        ));
        assert_eq!(
            struct_fields(&api, "Account"),
            [
                ("id".to_owned(), false, false),
                ("number".to_owned(), false, false),
                ("name".to_owned(), true, false),
                ("password".to_owned(), false, false)
            ]
        );
        assert_eq!(
            struct_fields(&api, "Signup"),
            [("password".to_owned(), true, false)]
        );
        assert_eq!(
            struct_fields(&api, "Receipt"),
            [("id".to_owned(), true, false)]
        );
    }

    #[test]
    fn merges_all_of_members_in_order() {
        let api = api(
            "paths: {}\ncomponents:\n  schemas:\n    A: {type: object, required: [a], properties: {a: {type: string}}}\n    B:\n      allOf:\n        - $ref: '#/components/schemas/A'\n        - {type: object, properties: {b: {type: integer}}}\n",
        );
        assert_eq!(
            struct_fields(&api, "B"),
            [
                ("a".to_owned(), true, false),
                ("b".to_owned(), false, false)
            ]
        );
    }

    #[test]
    fn boxes_only_fields_that_hold_their_type_by_value() {
        let api = api(
            "paths: {}\ncomponents:\n  schemas:\n    N: {type: object, properties: {next: {$ref: '#/components/schemas/N'}, all: {type: array, items: {$ref: '#/components/schemas/N'}}}}\n",
        );
        assert_eq!(
            struct_fields(&api, "N"),
            [
                ("next".to_owned(), false, true),
                ("all".to_owned(), false, false)
            ]
        );
    }

    #[test]
    fn boxes_the_variants_through_which_a_union_holds_itself() {
        // Node is a Leaf or a Pair, and a Pair holds a Node: the cycle is
        // boxed at each step, the union's variant as the struct's field.
        let api = api(
            "paths: {}\ncomponents:\n  schemas:\n    Node: {oneOf: [{$ref: '#/components/schemas/Leaf'}, {$ref: '#/components/schemas/Pair'}]}\n    Leaf: {type: object, properties: {value: {type: string}}}\n    Pair: {type: object, properties: {left: {$ref: '#/components/schemas/Node'}, label: {$ref: '#/components/schemas/Leaf'}}}\n",
        );
        let variants: Vec<(String, bool)> = match &api.type_named("Node").unwrap().kind {
            TypeKind::Union(u) => u
                .variants
                .iter()
                .map(|v| (v.name.clone(), v.boxed))
                .collect(),
            other => panic!("Node is {other:?}"),
        };
        assert_eq!(
            variants,
            [("Leaf".to_owned(), false), ("Pair".to_owned(), true)]
        );
        assert_eq!(
            struct_fields(&api, "Pair"),
            [
                ("left".to_owned(), false, true),
                ("label".to_owned(), false, false)
            ]
        );
    }

    #[test]
    fn an_object_whose_other_properties_or_size_are_checked_has_checks() {
        let api = api(
            "paths: {}\ncomponents:\n  schemas:\n    Tags: {type: object, properties: {name: {type: string}}, additionalProperties: {type: string, minLength: 2}}\n    Counted: {type: object, properties: {name: {type: string}}, minProperties: 1}\n    Free: {type: object, properties: {name: {type: string}}, additionalProperties: {type: string}}\n",
        );
        let checked = |name: &str| api.type_named(name).unwrap().has_checks;
        assert!(checked("Tags"), "the values are checked");
        assert!(checked("Counted"), "the number of entries is checked");
        assert!(!checked("Free"));
    }

    #[test]
    fn marks_request_types_and_types_with_checks() {
        let api = api(
            "paths:\n  /a:\n    post:\n      requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/In'}}}}\n      responses:\n        '200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Out'}}}}\ncomponents:\n  schemas:\n    In: {type: object, properties: {x: {$ref: '#/components/schemas/Leaf'}}}\n    Leaf: {type: object, properties: {s: {type: string, minLength: 2}}}\n    Out: {type: object, properties: {n: {type: integer, format: int32}}}\n",
        );
        let (input, leaf, out) = (
            api.type_named("In").unwrap(),
            api.type_named("Leaf").unwrap(),
            api.type_named("Out").unwrap(),
        );
        assert!(input.in_request && leaf.in_request && !out.in_request);
        assert!(input.has_checks && leaf.has_checks && !out.has_checks);
        match &out.kind {
            TypeKind::Struct(s) => assert_eq!(
                s.fields[0].shape.ty,
                crate::ir::Ty::Primitive(Primitive::I32)
            ),
            other => panic!("{other:?}"),
        }
    }

    /// The named types a parameter is read into one value at a time are
    /// marked `from_param`: enums and newtypes of a scalar, in lists and
    /// through aliases too; a newtype of a list is not (its items are),
    /// nor a type only an answer holds.
    #[test]
    fn types_read_from_a_parameters_text_are_marked() {
        let api = api(concat!(
            "paths:\n",
            "  /items:\n",
            "    get:\n",
            "      parameters:\n",
            "        - {name: count, in: query, schema: {$ref: '#/components/schemas/Count'}}\n",
            "        - {name: sizes, in: query, schema: {type: array, items: {$ref: '#/components/schemas/Size'}}}\n",
            "        - {name: tags, in: query, schema: {$ref: '#/components/schemas/Tags'}}\n",
            "        - {name: level, in: query, schema: {$ref: '#/components/schemas/Level'}}\n",
            "        - {name: short, in: query, schema: {$ref: '#/components/schemas/Short'}}\n",
            "        - {name: word, in: query, schema: {$ref: '#/components/schemas/Word'}}\n",
            "      responses:\n",
            "        '200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Shown'}}}}\n",
            "components:\n",
            "  schemas:\n",
            "    Count: {type: integer, minimum: 1}\n",
            "    Size: {type: string, enum: [s, m]}\n",
            "    Tags: {type: array, minItems: 1, items: {$ref: '#/components/schemas/Tag'}}\n",
            "    Tag: {type: string, enum: [a, b]}\n",
            "    Level: {$ref: '#/components/schemas/Grade'}\n",
            "    Grade: {type: number, maximum: 5}\n",
            "    Code: {type: string}\n",
            "    Short: {allOf: [{$ref: '#/components/schemas/Code'}], maxLength: 3}\n",
            "    Shown: {type: string, enum: [x]}\n",
            "    Word: {description: A grade by another name., allOf: [$ref: '#/components/schemas/Rank']}\n",
            "    Rank: {type: integer, maximum: 9}\n",
        ));
        let mut marked: Vec<&str> = api
            .types
            .iter()
            .filter(|t| t.from_param)
            .map(|t| t.name.as_str())
            .collect();
        marked.sort_unstable();
        assert_eq!(marked, ["Count", "Grade", "Rank", "Short", "Size", "Tag"]);
    }
}
