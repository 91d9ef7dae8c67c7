//! An `allOf` one of whose members is a `oneOf` or `anyOf`: the shared
//! properties distributed over the alternatives, as a Rust user writes it by
//! hand (an enum of one struct per alternative, or one struct).

use openapiv3::{ReferenceOr, Schema};

use crate::error::Result;
use crate::ir::{StructDef, TypeKind, UnionDef, UnionVariant};
use crate::lower::lenient::Leniency;
use crate::names::Namespace;
use crate::parse::Pointer;

use super::table::TypeTable;
use super::unions::member_label;
use super::view::View;

impl<'d> TypeTable<'d> {
    /// Object schemas merged (`views`), one of which (`union`) also has a
    /// `oneOf` or `anyOf`: what a Rust user writes by hand. `oneOf`: an enum
    /// of one struct per alternative, each with the shared properties and
    /// the alternative's. `anyOf` (any number of alternatives may hold): one
    /// struct with the shared properties and every alternative's, which are
    /// optional.
    pub(super) fn distribute(
        &mut self,
        views: Vec<(View<'_>, Pointer)>,
        union: usize,
        view: &View<'_>,
        at: &Pointer,
        name: &str,
    ) -> Result<TypeKind> {
        let (union_view, union_at) = views[union].clone();
        let (keyword, members) = if union_view.one_of.is_empty() {
            ("anyOf", union_view.any_of)
        } else {
            ("oneOf", union_view.one_of)
        };
        let mut alternatives: Vec<Vec<(Schema, Pointer)>> = Vec::with_capacity(members.len());
        for (i, member) in members.iter().enumerate() {
            let mut collected = Vec::new();
            self.collect_all_of(member, union_at.push(keyword).index(i), &mut collected, 0)?;
            alternatives.push(collected);
        }
        for collected in &alternatives {
            let alternative: Vec<(View<'_>, Pointer)> = collected
                .iter()
                .map(|(s, p)| (View::of(s), p.clone()))
                .collect();
            self.check_mergeable(&alternative)?;
            if let Some((_, nested)) = alternative
                .iter()
                .find(|(v, _)| !v.one_of.is_empty() || !v.any_of.is_empty())
            {
                return Err(self.doc.unsupported(
                    nested,
                    "a `oneOf`/`anyOf` inside an alternative of a `oneOf`/`anyOf` beside properties cannot be turned into a Rust type",
                ));
            }
        }
        if keyword == "anyOf" {
            let mut merged = views.clone();
            for collected in &alternatives {
                merged.extend(collected.iter().map(|(schema, pointer)| {
                    let view = View {
                        required: &[],
                        ..View::of(schema)
                    };
                    (view, pointer.clone())
                }));
            }
            let fields = self.fields(&merged, name)?;
            let additional = self.additional(view, at, name, &fields)?;
            return Ok(TypeKind::Struct(StructDef {
                fields,
                additional,
                property_count: (view.min_properties, view.max_properties),
            }));
        }
        // The shared properties' own types are named after the union, not
        // after whichever alternative is lowered first.
        self.fields(&views, name)?;
        let merged: Vec<Vec<(View<'_>, Pointer)>> = alternatives
            .iter()
            .map(|collected| {
                let mut merged = views.clone();
                merged.extend(collected.iter().map(|(s, p)| (View::of(s), p.clone())));
                merged
            })
            .collect();
        // An alternative no value can match (GitHub's `oneOf: [{required:
        // [a]}, {required: [b]}]` beside `additionalProperties: false` and
        // no `b`) adds nothing to a `oneOf`: it is left out, noted. When
        // every alternative is such, the first one's error says why.
        let matchable: Vec<usize> = (0..merged.len())
            .filter(|&i| unmatchable_requirement(&merged[i]).is_none())
            .collect();
        if !matchable.is_empty() && matchable.len() < merged.len() {
            for i in (0..merged.len()).filter(|i| !matchable.contains(i)) {
                self.lenient.record(
                    Leniency::AlternativeNeverMatches,
                    &union_at.push(keyword).index(i),
                );
            }
            if let [only] = matchable[..] {
                let own = &alternatives[only][0];
                let def = self.alternative_struct(&merged[only], own, view, at, name)?;
                return Ok(TypeKind::Struct(def));
            }
        }
        let keep = |i: &usize| matchable.is_empty() || matchable.contains(i);
        let kept_members: Vec<ReferenceOr<Schema>> = (0..members.len())
            .filter(keep)
            .map(|i| members[i].clone())
            .collect();
        let mut variant_names = Namespace::default();
        let mut variants = Vec::with_capacity(members.len());
        for (i, (member, collected)) in members.iter().zip(&alternatives).enumerate() {
            if !keep(&i) {
                continue;
            }
            let member_at = union_at.push(keyword).index(i);
            let label = member_label(member, i);
            let merged = &merged[i];
            let variant_name = self.names.claim(format!("{name}{label}"));
            let index = self.reserve(variant_name.clone(), &member_at, &collected[0].0);
            let def = self.alternative_struct(merged, &collected[0], view, at, &variant_name)?;
            self.defs[index].kind = TypeKind::Struct(def);
            variants.push(UnionVariant {
                name: variant_names.claim(label),
                shape: self.shape_of_def(index),
                boxed: false,
                tag_values: Vec::new(),
            });
        }
        let tag_view = if union_view.data.discriminator.is_some() {
            &union_view
        } else {
            view
        };
        // The members left (an inline one's pointer in a tagging error may
        // then count only those).
        let tagging = self.tagging(&mut variants, tag_view, &kept_members, &union_at, keyword)?;
        Ok(TypeKind::Union(UnionDef { variants, tagging }))
    }

    /// A `oneOf` alternative (`own`, the first of its schemas) merged with
    /// the shared schemas into `merged`, as the struct `name`: the merged
    /// fields, and unknown properties as the union's schema (`view` at
    /// `at`) says, else as the alternative's own does, else as the union's
    /// `minProperties`/`maxProperties` need (kept, to be counted).
    pub(super) fn alternative_struct(
        &mut self,
        merged: &[(View<'_>, Pointer)],
        own: &(Schema, Pointer),
        view: &View<'_>,
        at: &Pointer,
        name: &str,
    ) -> Result<StructDef> {
        let fields = self.fields(merged, name)?;
        let own_view = View::of(&own.0);
        let additional = if own_view.additional.is_some() && view.additional.is_none() {
            self.additional(&own_view, &own.1, name, &fields)?
        } else {
            self.additional(view, at, name, &fields)?
        };
        Ok(StructDef {
            fields,
            additional,
            property_count: (view.min_properties, view.max_properties),
        })
    }
}

/// A property that merged object schemas require, declare nowhere and
/// cannot hold (one of them has `additionalProperties: false`), with where
/// it is required: no value can match them.
pub(super) fn unmatchable_requirement<'v>(
    members: &'v [(View<'_>, Pointer)],
) -> Option<(&'v str, &'v Pointer)> {
    if !members.iter().any(|(view, _)| view.denies_additional()) {
        return None;
    }
    members.iter().find_map(|(view, at)| {
        view.required
            .iter()
            .find(|name| {
                !members
                    .iter()
                    .any(|(v, _)| v.properties.contains_key(*name))
            })
            .map(|name| (name.as_str(), at))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Additional, Ty};

    use crate::lower::schemas::testing::{api, error, fields, kind};

    /// A union beside properties becomes one struct per alternative; an
    /// alternative that is itself a union (`oneOf` or `anyOf` alone) would
    /// be every combination, and is refused, naming the alternative.
    #[test]
    fn a_union_inside_an_alternative_beside_properties_is_refused() {
        for keyword in ["oneOf", "anyOf"] {
            let message = error(&format!(
                concat!(
                    "    U:\n",
                    "      type: object\n",
                    "      properties: {{id: {{type: string}}}}\n",
                    "      oneOf:\n",
                    "        - {{type: object, properties: {{b: {{type: string}}}}}}\n",
                    "        - {keyword}: [{{type: object, properties: {{c: {{type: string}}}}}}, {{type: object, properties: {{d: {{type: string}}}}}}]\n",
                ),
                keyword = keyword
            ));
            assert!(
                message.ends_with("#/components/schemas/U/oneOf/1: not supported by the generator: a `oneOf`/`anyOf` inside an alternative of a `oneOf`/`anyOf` beside properties cannot be turned into a Rust type"),
                "{keyword}: {message}"
            );
        }
    }

    /// The union's `minProperties` counts every property of a value, so
    /// each alternative keeps the properties it does not declare, unless
    /// the alternative itself says what becomes of them.
    #[test]
    fn an_alternative_keeps_undeclared_properties_the_union_counts() {
        let api = api(concat!(
            "    Contact:\n",
            "      type: object\n",
            "      minProperties: 2\n",
            "      properties: {id: {type: string}}\n",
            "      oneOf:\n",
            "        - {type: object, properties: {email: {type: string}}}\n",
            "        - {type: object, properties: {phone: {type: string}}, additionalProperties: false}\n",
        ));
        let TypeKind::Union(union) = kind(&api, "Contact") else {
            panic!("Contact is not a union");
        };
        let additional: Vec<&Additional> = union
            .variants
            .iter()
            .map(|variant| {
                let Ty::Named(name) = &variant.shape.ty else {
                    panic!("{variant:?}");
                };
                let TypeKind::Struct(def) = kind(&api, name) else {
                    panic!("{name} is not a struct");
                };
                assert_eq!(def.property_count, (Some(2), None), "{name}");
                &def.additional
            })
            .collect();
        assert!(
            matches!(additional[..], [Additional::Map { .. }, Additional::Deny]),
            "{additional:?}"
        );
    }

    /// A `oneOf` alternative that requires a property the schemas declare
    /// nowhere and forbid (GitHub's campaign request) can match no value:
    /// it is left out, noted. One left is the type itself, two left a
    /// union of them (and a `oneOf` of one alternative, none left out,
    /// stays a union); when none can match, the first one's error says why.
    #[test]
    fn leaves_out_a_one_of_alternative_no_value_can_match() {
        let schema = |name: &str, alternatives: &str| {
            format!(
                "    {name}:\n      type: object\n      additionalProperties: false\n      \
                 properties: {{email: {{type: string}}, phone: {{type: string}}}}\n      \
                 oneOf: [{alternatives}]\n"
            )
        };
        let api = api(&[
            schema("One", "{required: [email]}, {required: [fax]}"),
            schema(
                "Two",
                "{required: [email]}, {required: [fax]}, {required: [phone]}",
            ),
        ]
        .concat());
        let one: Vec<(&str, bool)> = fields(&api, "One")
            .iter()
            .map(|f| (f.wire.as_str(), f.required))
            .collect();
        assert_eq!(one, [("email", true), ("phone", false)]);
        let TypeKind::Union(two) = kind(&api, "Two") else {
            panic!("Two is not a union");
        };
        let required: Vec<Vec<&str>> = two
            .variants
            .iter()
            .map(|variant| {
                let Ty::Named(name) = &variant.shape.ty else {
                    panic!("{variant:?}");
                };
                fields(&api, name)
                    .iter()
                    .filter(|f| f.required)
                    .map(|f| f.wire.as_str())
                    .collect()
            })
            .collect();
        assert_eq!(required, [["email"], ["phone"]]);
        // Nothing left out: a `oneOf` of one alternative stays a union.
        let single = self::api(&schema("Single", "{required: [email]}"));
        let TypeKind::Union(single) = kind(&single, "Single") else {
            panic!("Single is not a union");
        };
        assert_eq!(single.variants.len(), 1);
        let note = api
            .notes
            .iter()
            .find(|note| note.contains("read leniently"))
            .expect("a note of what was read leniently");
        assert!(
            note.contains(
                "`oneOf` alternatives that require a property no value may have (2, the first \
                 at t.yaml#/components/schemas/One/oneOf/1): left out"
            ),
            "{note}"
        );
        // When none can match, each is read without the name it cannot
        // have, as a plain object's would be.
        let none = self::api(&schema("None", "{required: [fax]}, {required: [telex]}"));
        let note = none
            .notes
            .iter()
            .find(|note| note.contains("read leniently"))
            .expect("a note of what was read leniently");
        assert!(
            note.contains(
                "`required` names that no property declares and `additionalProperties: false` \
                 forbids (2, the first at t.yaml#/components/schemas/None/oneOf/0/required): \
                 ignored"
            ),
            "{note}"
        );
    }
}
