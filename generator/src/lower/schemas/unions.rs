//! Unions: `oneOf`/`anyOf` (and a base schema with subtypes) as a Rust enum,
//! its variants labelled, and how a value says which variant it is (a
//! discriminator, a distinguishing property, or nothing).

use indexmap::IndexMap;
use openapiv3::{ReferenceOr, Schema, SchemaKind, Type};

use crate::error::Result;
use crate::ir::{Docs, Shape, Tagging, Ty, TypeKind, UnionDef, UnionVariant};
use crate::lower::inheritance::Hierarchy;
use crate::lower::lenient::Leniency;
use crate::names::{Namespace, type_name};
use crate::parse::Pointer;

use super::all_of::sole_all_of_member;
use super::table::{SchemaRef, TypeTable};
use super::view::View;

impl<'d> TypeTable<'d> {
    /// A base schema with subtypes: a union of each subtype's struct, told
    /// apart by the discriminator, and of a struct of the base's own
    /// properties (`{name}Base`), which any other value is read as.
    pub(super) fn polymorphic(
        &mut self,
        schema: &Schema,
        pointer: &Pointer,
        name: &str,
        hierarchy: Hierarchy,
    ) -> Result<TypeKind> {
        // Claimed before anything below is lowered, so that a subtype that
        // holds a base (`children: [Pet]`) finds both.
        let base_name = self.names.claim(format!("{name}Base"));
        let docs = Docs {
            description: Some(format!(
                "The properties of `{name}` itself: a `{name}` whose `{}` names none of its \
                 subtypes.",
                hierarchy.property
            )),
            ..Docs::default()
        };
        let base = self.push_def(base_name, pointer, docs, false);
        self.base_structs.insert(pointer.clone(), base);
        // Inline types within are named after the base schema, as they
        // would be without subtypes.
        self.defs[base].kind = self.kind_of(schema, pointer, name, true)?;
        let mut variant_names = Namespace::default();
        let mut variants = Vec::with_capacity(hierarchy.subtypes.len() + 1);
        for subtype in &hierarchy.subtypes {
            let shape = self.struct_shape(&subtype.pointer)?;
            let label = match &shape.ty {
                Ty::Named(named) => named.clone(),
                _ => type_name(&subtype.pointer.last().unwrap_or_default()),
            };
            variants.push(UnionVariant {
                name: variant_names.claim(label),
                shape: Shape {
                    nullable: false,
                    ..shape
                },
                boxed: false,
                tag_values: subtype.tags.clone(),
            });
        }
        variants.push(UnionVariant {
            name: variant_names.claim("Other".to_owned()),
            shape: self.shape_of_def(base),
            boxed: false,
            tag_values: hierarchy.own_tags,
        });
        Ok(TypeKind::Union(UnionDef {
            tagging: Tagging::Internal {
                property: hierarchy.property,
                fallback: Some(variants.len() - 1),
            },
            variants,
        }))
    }

    pub(super) fn union(&mut self, view: &View<'_>, at: &Pointer, name: &str) -> Result<TypeKind> {
        let (keyword, members) = if view.one_of.is_empty() {
            ("anyOf", view.any_of)
        } else {
            ("oneOf", view.one_of)
        };
        if view.has_object_keywords() || !view.all_of.is_empty() {
            // Properties shared by every alternative: merged into each.
            return self.all_of(view, at, name);
        }
        // The same `$ref` listed twice is one alternative (Stream's
        // `ChatEvent` lists `AnyEvent` once per discriminator value that
        // maps to it); two variants of one type could never be told apart.
        let mut seen = std::collections::HashSet::new();
        let kept: Vec<(usize, &ReferenceOr<Schema>)> = members
            .iter()
            .enumerate()
            .filter(|(_, member)| match member {
                ReferenceOr::Reference { reference } => seen.insert(reference.as_str()),
                ReferenceOr::Item(_) => true,
            })
            .collect();
        let mut variant_names = Namespace::default();
        let mut variants = Vec::with_capacity(kept.len());
        for &(i, member) in &kept {
            let member_at = at.push(keyword).index(i);
            let label = member_label(member, i);
            let shape = self.shape(
                SchemaRef::from(member),
                &member_at,
                &format!("{name}{label}"),
            )?;
            variants.push(UnionVariant {
                name: variant_names.claim(label),
                shape,
                boxed: false,
                tag_values: Vec::new(),
            });
        }
        // (With one left out, a tagging error's pointer to an inline member
        // counts the members kept, as for the alternatives `all_of` leaves
        // out.)
        let kept_members: std::borrow::Cow<'_, [ReferenceOr<Schema>]> =
            if kept.len() == members.len() {
                members.into()
            } else {
                kept.into_iter().map(|(_, member)| member.clone()).collect()
            };
        let tagging = self.tagging(&mut variants, view, &kept_members, at, keyword)?;
        Ok(TypeKind::Union(UnionDef { variants, tagging }))
    }

    /// How the values of a union say which alternative they are: by the
    /// discriminator of `view`, by a property only one value of which each
    /// alternative allows, or not at all.
    pub(super) fn tagging(
        &mut self,
        variants: &mut [UnionVariant],
        view: &View<'_>,
        members: &[ReferenceOr<Schema>],
        at: &Pointer,
        keyword: &str,
    ) -> Result<crate::ir::Tagging> {
        Ok(match &view.data.discriminator {
            Some(discriminator) => {
                for (i, (variant, member)) in variants.iter_mut().zip(members).enumerate() {
                    variant.tag_values = discriminator_values(discriminator, member);
                    if variant.tag_values.is_empty() {
                        // An inline alternative: the values its property allows.
                        let member = self.doc.resolve(member, &at.push(keyword).index(i))?;
                        let view = View::of(&member.value);
                        if let Some(property) = view.properties.get(&discriminator.property_name) {
                            let property_at = member
                                .pointer
                                .push("properties")
                                .push(&discriminator.property_name);
                            let property = self.doc.resolve(property, &property_at)?;
                            if let Some(values) = View::of(&property.value).string_enum {
                                variant.tag_values = values.into_iter().flatten().collect();
                            }
                        }
                    }
                }
                if variants.iter().all(|v| !v.tag_values.is_empty()) {
                    return Ok(crate::ir::Tagging::Internal {
                        property: discriminator.property_name.clone(),
                        fallback: None,
                    });
                }
                // An inline alternative the discriminator cannot name
                // (DigitalOcean's `allOf: [$ref, {required}]` variants): read
                // as if there were none.
                self.lenient
                    .record(Leniency::DiscriminatorIgnored, &at.push("discriminator"));
                for variant in variants.iter_mut() {
                    variant.tag_values.clear();
                }
                self.untagged_or_distinguished(variants, members, at, keyword)?
            }
            None => self.untagged_or_distinguished(variants, members, at, keyword)?,
        })
    }

    /// A union without a (usable) discriminator: tagged by a distinguishing
    /// property when there is one, else untagged.
    pub(super) fn untagged_or_distinguished(
        &self,
        variants: &mut [UnionVariant],
        members: &[ReferenceOr<Schema>],
        at: &Pointer,
        keyword: &str,
    ) -> Result<crate::ir::Tagging> {
        Ok(match self.distinguishing_property(members, at, keyword)? {
            Some((property, values)) => {
                for (variant, value) in variants.iter_mut().zip(values) {
                    variant.tag_values = vec![value];
                }
                crate::ir::Tagging::Internal {
                    property,
                    fallback: None,
                }
            }
            None => crate::ir::Tagging::Untagged,
        })
    }

    /// Without a discriminator, a property that every alternative requires
    /// and allows one string in, a different one in each, tags the union:
    /// the property and each alternative's value.
    pub(super) fn distinguishing_property(
        &self,
        members: &[ReferenceOr<Schema>],
        at: &Pointer,
        keyword: &str,
    ) -> Result<Option<(String, Vec<String>)>> {
        let mut constants: Vec<IndexMap<String, String>> = Vec::with_capacity(members.len());
        for (i, member) in members.iter().enumerate() {
            let member = self.doc.resolve(member, &at.push(keyword).index(i))?;
            let view = View::of(&member.value);
            let mut found = IndexMap::new();
            for name in view.required {
                let Some(property) = view.properties.get(name) else {
                    continue;
                };
                let property_at = member.pointer.push("properties").push(name);
                let property = self.doc.resolve(property, &property_at)?;
                if let Some([Some(only)]) = View::of(&property.value).string_enum.as_deref() {
                    found.insert(name.clone(), only.clone());
                }
            }
            constants.push(found);
        }
        let Some(first) = constants.first() else {
            return Ok(None);
        };
        for property in first.keys() {
            let values: Option<Vec<&String>> = constants.iter().map(|c| c.get(property)).collect();
            if let Some(values) = values {
                let distinct: std::collections::BTreeSet<&String> =
                    values.iter().copied().collect();
                if distinct.len() == values.len() {
                    return Ok(Some((
                        property.clone(),
                        values.into_iter().cloned().collect(),
                    )));
                }
            }
        }
        Ok(None)
    }
}

/// A label for a union member: the name its `$ref` points at, or what
/// [`variant_label`] finds in it.
pub(super) fn member_label(member: &ReferenceOr<Schema>, index: usize) -> String {
    match member {
        ReferenceOr::Reference { reference } => Pointer::parse_local(reference)
            .and_then(|p| p.last())
            .map(|last| type_name(&last))
            .unwrap_or_else(|| format!("Variant{index}")),
        ReferenceOr::Item(schema) => variant_label(schema, index),
    }
}

/// A label for an inline union member: its title, the value of a property
/// that can only have one value, or its position.
fn variant_label(schema: &Schema, index: usize) -> String {
    if let Some(title) = &schema.schema_data.title {
        return type_name(title);
    }
    let view = View::of(schema);
    for (property, value) in view.properties {
        if let ReferenceOr::Item(inner) = value {
            if let SchemaKind::Type(Type::String(s)) = &inner.schema_kind {
                if let [Some(only)] = s.enumeration.as_slice() {
                    if view.required.contains(property) {
                        return type_name(only);
                    }
                }
            }
        }
    }
    match view.typ {
        Some("string") => "String".to_owned(),
        Some("integer") => "Integer".to_owned(),
        Some("number") => "Number".to_owned(),
        Some("boolean") => "Boolean".to_owned(),
        Some("array") => "Array".to_owned(),
        _ => format!("Variant{index}"),
    }
}

fn discriminator_values(
    discriminator: &openapiv3::Discriminator,
    member: &ReferenceOr<Schema>,
) -> Vec<String> {
    let reference = match member {
        ReferenceOr::Reference { reference } => reference,
        // `{allOf: [$ref], description}` (a 3.1 `$ref` beside a description) names it too.
        ReferenceOr::Item(schema) => {
            let view = View::of(schema);
            match sole_all_of_member(&view).map(|i| &view.all_of[i]) {
                Some(ReferenceOr::Reference { reference }) => reference,
                _ => return Vec::new(),
            }
        }
    };
    let mapped: Vec<String> = discriminator
        .mapping
        .iter()
        .filter(|(_, target)| *target == reference || reference.ends_with(&format!("/{target}")))
        .map(|(value, _)| value.clone())
        .collect();
    if !mapped.is_empty() {
        return mapped;
    }
    // Without a mapping, the value is the schema's name.
    Pointer::parse_local(reference)
        .and_then(|p| p.last())
        .into_iter()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::lower::schemas::testing::{api, kind};

    /// The variants of a union of inline schemas are named, in this order,
    /// by the alternative's title, by the one value a required property
    /// allows, by its type, or else by its position.
    #[test]
    fn names_inline_alternatives_by_title_constant_type_or_position() {
        let api = api(concat!(
            "    U:\n",
            "      oneOf:\n",
            "        - {type: number}\n",
            "        - {type: boolean}\n",
            "        - {type: array, items: {type: string}}\n",
            "        - {type: integer}\n",
            "        - {type: string}\n",
            "        - {title: by hand, type: object, properties: {a: {type: string}}}\n",
            "        - {type: object, required: [kind], properties: {kind: {type: string, enum: [circle]}}}\n",
            "        - {type: object, properties: {kind: {type: string, enum: [square]}}}\n",
        ));
        let TypeKind::Union(union) = kind(&api, "U") else {
            panic!("{:?}", kind(&api, "U"));
        };
        let names: Vec<&str> = union.variants.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "Number", "Boolean", "Array", "Integer", "String", "ByHand", "Circle", "Variant7"
            ]
        );
    }

    /// A discriminated alternative written as `{allOf: [$ref], description}`
    /// (how a 3.0 document documents a `$ref`, and what a 3.1 `$ref` beside
    /// a description becomes) is tagged by the value the mapping gives its
    /// reference, or else by the referenced schema's name.
    #[test]
    fn a_documented_reference_in_a_discriminated_union_is_tagged_by_its_reference() {
        let api = api(concat!(
            "    Cat: {type: object, required: [kind], properties: {kind: {type: string}}}\n",
            "    Dog: {type: object, required: [kind], properties: {kind: {type: string}}}\n",
            "    Pet:\n",
            "      oneOf:\n",
            "        - {description: A cat., allOf: [$ref: '#/components/schemas/Cat']}\n",
            "        - {description: A dog., allOf: [$ref: '#/components/schemas/Dog']}\n",
            "      discriminator: {propertyName: kind, mapping: {cat: '#/components/schemas/Cat'}}\n",
        ));
        let TypeKind::Union(union) = kind(&api, "Pet") else {
            panic!("{:?}", kind(&api, "Pet"));
        };
        let tags: Vec<&[String]> = union
            .variants
            .iter()
            .map(|v| v.tag_values.as_slice())
            .collect();
        assert_eq!(tags, [["cat".to_owned()], ["Dog".to_owned()]]);
    }

    /// A subtype is a variant of its base's union named by its Rust type
    /// (`Dog2` when a `Dog` came first), and never null there, even when
    /// its schema may be: a null is no subtype.
    #[test]
    fn a_subtype_variant_is_named_by_its_type_and_not_null() {
        let api = api(concat!(
            "    Dog: {type: string}\n",
            "    Pet:\n",
            "      type: object\n",
            "      required: [kind]\n",
            "      properties: {kind: {type: string}}\n",
            "      discriminator: {propertyName: kind}\n",
            "    dog: {nullable: true, allOf: [{$ref: '#/components/schemas/Pet'}, {properties: {bark: {type: boolean}}}]}\n",
        ));
        let TypeKind::Union(union) = kind(&api, "Pet") else {
            panic!("{:?}", kind(&api, "Pet"));
        };
        let variants: Vec<(&str, String, bool)> = union
            .variants
            .iter()
            .map(|v| {
                (
                    v.name.as_str(),
                    format!("{:?}", v.shape.ty),
                    v.shape.nullable,
                )
            })
            .collect();
        assert_eq!(
            variants,
            [
                ("Dog2", "Named(\"Dog2\")".to_owned(), false),
                ("Other", "Named(\"PetBase\")".to_owned(), false),
            ]
        );
    }
}
