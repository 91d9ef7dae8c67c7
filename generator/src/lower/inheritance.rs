//! Inheritance: a schema with a `discriminator` and no `oneOf`/`anyOf`,
//! extended by other schemas through `allOf` (Springdoc's and
//! Swashbuckle's polymorphism, Azure's `x-ms-discriminator-value`).
//!
//! OpenAPI reads such a base as "any of its subtypes, told apart by the
//! discriminator": a `Pet` may be a `Cat` with its `meows`. Lowered as the
//! base's own struct, every subtype's own properties would be dropped, so
//! the base becomes a union over its subtypes, with the base's own
//! properties as the alternative every other tag falls back to.

use std::collections::{HashMap, HashSet};

use serde_yaml::Value;

use crate::parse::{Document, Pointer};

/// A subtype of a base schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Subtype {
    /// Where the subtype's schema is.
    pub pointer: Pointer,
    /// The discriminator values that name it.
    pub tags: Vec<String>,
}

/// A base schema's subtypes and its own tags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hierarchy {
    /// The discriminator's property.
    pub property: String,
    /// The values that name the base itself (it is also what any other
    /// value is read as).
    pub own_tags: Vec<String>,
    /// The subtypes, in document order, each with the values no earlier
    /// one took.
    pub subtypes: Vec<Subtype>,
}

/// The hierarchy of every component schema that has subtypes, by the
/// base's pointer. References that lead nowhere are left to the lowering
/// to report.
pub(crate) fn find(doc: &Document) -> HashMap<Pointer, Hierarchy> {
    let section = Pointer::root().push("components").push("schemas");
    let Some(Value::Mapping(schemas)) = doc.node(&section) else {
        return HashMap::new();
    };
    let names: Vec<&str> = schemas.keys().filter_map(Value::as_str).collect();
    let pointers: Vec<Pointer> = names.iter().map(|name| section.push(name)).collect();
    let index: HashMap<&Pointer, usize> =
        pointers.iter().enumerate().map(|(i, p)| (p, i)).collect();
    // Each schema's direct `allOf` parents, reversed into children.
    let mut children: HashMap<Pointer, Vec<usize>> = HashMap::new();
    for (i, pointer) in pointers.iter().enumerate() {
        let Some(Value::Sequence(members)) = doc.node(pointer).and_then(|s| s.get("allOf")) else {
            continue;
        };
        for (j, member) in members.iter().enumerate() {
            let Some(reference) = member.get("$ref").and_then(Value::as_str) else {
                continue;
            };
            if let Ok(parent) = doc.follow(reference, &pointer.push("allOf").index(j)) {
                children.entry(parent).or_default().push(i);
            }
        }
    }
    let mut found = HashMap::new();
    for (i, pointer) in pointers.iter().enumerate() {
        let Some(schema) = doc.node(pointer) else {
            continue;
        };
        let Some(discriminator) = schema.get("discriminator") else {
            continue;
        };
        if schema.get("oneOf").is_some() || schema.get("anyOf").is_some() {
            continue;
        }
        let Some(property) = discriminator.get("propertyName").and_then(Value::as_str) else {
            continue;
        };
        let mapping = mapping(doc, discriminator, &pointer.push("discriminator"));
        let mut members = descendants(i, &pointers, &children);
        for (_, target) in &mapping {
            if let Some(&j) = index.get(target) {
                if j != i && !members.contains(&j) {
                    members.push(j);
                }
            }
        }
        if members.is_empty() {
            continue;
        }
        members.sort_unstable();
        let mut taken: HashSet<String> = HashSet::new();
        let mut tags_of = |j: usize| -> Vec<String> {
            let mapped: Vec<String> = mapping
                .iter()
                .filter(|(_, target)| *target == pointers[j])
                .map(|(value, _)| value.clone())
                .collect();
            let tags = if mapped.is_empty() {
                let own = doc
                    .node(&pointers[j])
                    .and_then(|s| s.get("x-ms-discriminator-value"))
                    .and_then(Value::as_str)
                    .unwrap_or(names[j]);
                vec![own.to_owned()]
            } else {
                mapped
            };
            tags.into_iter()
                .filter(|tag| taken.insert(tag.clone()))
                .collect()
        };
        let own_tags = tags_of(i);
        let subtypes: Vec<Subtype> = members
            .into_iter()
            .map(|j| Subtype {
                pointer: pointers[j].clone(),
                tags: tags_of(j),
            })
            // A subtype whose every value an earlier one took could
            // never be read.
            .filter(|subtype| !subtype.tags.is_empty())
            .collect();
        if !subtypes.is_empty() {
            found.insert(
                pointer.clone(),
                Hierarchy {
                    property: property.to_owned(),
                    own_tags,
                    subtypes,
                },
            );
        }
    }
    found
}

/// Every schema that extends schema `base` through `allOf`, directly or
/// through another; a loop of `allOf`s ends where it comes back.
fn descendants(
    base: usize,
    pointers: &[Pointer],
    children: &HashMap<Pointer, Vec<usize>>,
) -> Vec<usize> {
    let mut seen = HashSet::from([base]);
    let mut queue = vec![base];
    let mut found = Vec::new();
    while let Some(next) = queue.pop() {
        for &child in children.get(&pointers[next]).into_iter().flatten() {
            if seen.insert(child) {
                found.push(child);
                queue.push(child);
            }
        }
    }
    found
}

/// The discriminator's `mapping`, each value with the pointer it names: a
/// reference, or a schema's name.
fn mapping(doc: &Document, discriminator: &Value, at: &Pointer) -> Vec<(String, Pointer)> {
    let Some(Value::Mapping(mapping)) = discriminator.get("mapping") else {
        return Vec::new();
    };
    mapping
        .iter()
        .filter_map(|(value, target)| {
            // Text: the parser took `1:` and `true:` as written.
            let value = value.as_str()?.to_owned();
            let target = target.as_str()?;
            let reference = if target.starts_with('#') {
                target.to_owned()
            } else {
                format!("#/components/schemas/{target}")
            };
            let pointer = doc.follow(&reference, &at.push("mapping")).ok()?;
            Some((value, pointer))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each hierarchy of the document whose `components.schemas` is
    /// `schemas`, written `Base [own tags]: Subtype [tags], …`.
    fn hierarchies(schemas: &str) -> Vec<String> {
        let text = format!(
            "openapi: 3.0.3\ninfo: {{title: t, version: '1'}}\npaths: {{}}\ncomponents:\n  schemas:\n{schemas}"
        );
        let doc = Document::parse(&text, "t.yaml", false).unwrap();
        let named = |pointer: &Pointer, tags: &[String]| {
            format!("{} [{}]", pointer.last().unwrap(), tags.join(", "))
        };
        let mut found: Vec<String> = find(&doc)
            .into_iter()
            .map(|(base, h)| {
                let subtypes: Vec<String> = h
                    .subtypes
                    .iter()
                    .map(|s| named(&s.pointer, &s.tags))
                    .collect();
                format!("{}: {}", named(&base, &h.own_tags), subtypes.join(", "))
            })
            .collect();
        found.sort();
        found
    }

    #[test]
    fn subtypes_are_every_schema_that_extends_the_base_and_every_one_its_mapping_names() {
        let found = hierarchies(
            "    Pet:\n      type: object\n      properties: {kind: {type: string}}\n      discriminator: {propertyName: kind, mapping: {c: Cat, fish: '#/components/schemas/Fish'}}\n\
             \x20   Cat: {allOf: [{$ref: '#/components/schemas/Pet'}]}\n\
             \x20   Dog: {allOf: [{$ref: '#/components/schemas/Pet'}, {properties: {bark: {type: boolean}}}]}\n\
             \x20   Puppy: {x-ms-discriminator-value: pup, allOf: [{$ref: '#/components/schemas/Dog'}]}\n\
             \x20   Fish: {type: object, properties: {kind: {type: string}}}\n\
             \x20   Rock: {type: object}\n",
        );
        assert_eq!(
            found,
            ["Pet [Pet]: Cat [c], Dog [Dog], Puppy [pup], Fish [fish]"]
        );
    }

    #[test]
    fn a_base_needs_a_discriminator_no_one_of_and_a_subtype() {
        let found = hierarchies(
            "    Plain: {type: object, properties: {kind: {type: string}}}\n\
             \x20   PlainSub: {allOf: [{$ref: '#/components/schemas/Plain'}]}\n\
             \x20   Union:\n      oneOf: [{$ref: '#/components/schemas/UnionSub'}]\n      discriminator: {propertyName: kind}\n\
             \x20   UnionSub: {allOf: [{$ref: '#/components/schemas/Union'}], properties: {kind: {type: string}}}\n\
             \x20   Alone: {type: object, discriminator: {propertyName: kind}}\n\
             \x20   Itself: {type: object, discriminator: {propertyName: kind, mapping: {me: '#/components/schemas/Itself'}}}\n",
        );
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn a_value_two_schemas_claim_names_the_first_and_loops_end() {
        let found = hierarchies(
            "    Pet:\n      type: object\n      discriminator: {propertyName: kind, mapping: {same: A}}\n\
             \x20   A: {allOf: [{$ref: '#/components/schemas/Pet'}]}\n\
             \x20   B: {x-ms-discriminator-value: same, allOf: [{$ref: '#/components/schemas/Pet'}, {$ref: '#/components/schemas/C'}]}\n\
             \x20   C: {allOf: [{$ref: '#/components/schemas/B'}]}\n",
        );
        // `B` is left out (its only value is `A`'s); `C` extends it, and
        // through it the base, and the loop between them ends.
        assert_eq!(found, ["Pet [Pet]: A [same], C [C]"]);
    }

    #[test]
    fn a_mapping_may_name_the_base_and_use_numbers_and_booleans_as_values() {
        // YAML reads `1` and `true` as a number and a boolean; the
        // discriminator's values are their text. The base named by its
        // own mapping is not one of its subtypes.
        let found = hierarchies(
            "    Pet:\n      type: object\n      properties: {kind: {type: string}}\n      discriminator: {propertyName: kind, mapping: {any: Pet, 1: Cat, true: Dog}}\n\
             \x20   Cat: {allOf: [{$ref: '#/components/schemas/Pet'}]}\n\
             \x20   Dog: {allOf: [{$ref: '#/components/schemas/Pet'}]}\n",
        );
        assert_eq!(found, ["Pet [any]: Cat [1], Dog [true]"]);
    }
}
