//! Objects: the fields of one object schema, or of the members of an `allOf`
//! merged in order, and what the object does with properties it does not declare.

use indexmap::IndexMap;
use openapiv3::{AdditionalProperties, ReferenceOr};

use crate::error::Result;
use crate::ir::{Access, Additional, Docs, Field, Shape, Ty};
use crate::lower::lenient::Leniency;
use crate::names::{Namespace, type_name};
use crate::parse::Pointer;

use super::table::{SchemaRef, TypeTable};
use super::view::{View, access_of, docs_of};

impl<'d> TypeTable<'d> {
    /// Fields of one object, or of the members of an `allOf`, merged in order.
    pub(super) fn fields(
        &mut self,
        members: &[(View<'_>, Pointer)],
        parent: &str,
    ) -> Result<Vec<Field>> {
        let mut by_wire: IndexMap<String, Field> = IndexMap::new();
        let required: Vec<&String> = members
            .iter()
            .flat_map(|(v, _)| v.required.iter())
            .collect();
        for (view, at) in members {
            for (wire, property) in view.properties {
                let property_at = at.push("properties").push(wire);
                let hint = format!("{parent}{}", type_name(wire));
                let shape = self.shape(SchemaRef::from(property), &property_at, &hint)?;
                let (docs, default, access) = match property {
                    ReferenceOr::Item(schema) => (
                        docs_of(&schema.schema_data),
                        schema.schema_data.default.clone(),
                        access_of(&schema.schema_data),
                    ),
                    ReferenceOr::Reference { reference } => (
                        Docs::default(),
                        None,
                        self.access_at(reference, &property_at),
                    ),
                };
                let field = Field {
                    name: String::new(),
                    wire: wire.clone(),
                    shape,
                    required: required.contains(&wire),
                    boxed: false,
                    default,
                    access,
                    docs,
                };
                // A later allOf member restating a property refines the earlier one.
                by_wire.insert(wire.clone(), field);
            }
        }
        // A required property the schema does not declare may hold any value
        // (JSON Schema's default). Where no undeclared property is allowed,
        // no value could match: the name is a slip (Jira's `required:
        // [defaultScreen]` beside a property `default`), and the object its
        // author describes is the one its properties say, so the name is
        // read past.
        let forbids_undeclared = members.iter().any(|(view, _)| view.denies_additional());
        for (view, at) in members {
            for name in view.required {
                if by_wire.contains_key(name) {
                    continue;
                }
                if forbids_undeclared {
                    self.lenient
                        .record(Leniency::RequiredForbidden, &at.push("required"));
                    continue;
                }
                self.lenient
                    .record(Leniency::RequiredNotDeclared, &at.push("required"));
                by_wire.insert(
                    name.clone(),
                    Field {
                        name: String::new(),
                        wire: name.clone(),
                        shape: Shape::of(Ty::Any),
                        required: true,
                        boxed: false,
                        default: None,
                        access: Access::ReadWrite,
                        docs: Docs {
                            description: Some(
                                "Required by the schema, which does not declare it: any JSON value."
                                    .to_owned(),
                            ),
                            ..Docs::default()
                        },
                    },
                );
            }
        }
        let mut names = Namespace::default();
        Ok(by_wire
            .into_values()
            .map(|mut field| {
                field.name = names.claim(crate::names::field_name(&field.wire));
                field
            })
            .collect())
    }

    /// What the object `name` does with the properties it does not
    /// declare; a map of them is a field beside `fields`, with a name none
    /// of them has.
    pub(super) fn additional(
        &mut self,
        view: &View<'_>,
        at: &Pointer,
        name: &str,
        fields: &[Field],
    ) -> Result<Additional> {
        let counted = view.min_properties.is_some() || view.max_properties.is_some();
        let value = match view.additional {
            Some(AdditionalProperties::Any(false)) => return Ok(Additional::Deny),
            // `minProperties` and `maxProperties` count every property: the
            // undeclared ones are kept, so that the decoded value can be
            // counted (dropped, `{"a": 1}` would be an empty object).
            None if !counted => return Ok(Additional::Ignore),
            None | Some(AdditionalProperties::Any(true)) => Shape::of(Ty::Any),
            Some(AdditionalProperties::Schema(schema)) => self.shape(
                SchemaRef::from(schema.as_ref()),
                &at.push("additionalProperties"),
                &format!("{name}Value"),
            )?,
        };
        let taken: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
        let field = Namespace::with_reserved(&taken).claim("additional_properties".to_owned());
        Ok(Additional::Map {
            field,
            value: Box::new(value),
        })
    }
}

#[cfg(test)]
mod tests {

    use crate::lower::schemas::testing::{api, fields};

    /// A `required` name beside `additionalProperties: false` and no
    /// property of that name is a slip no value could satisfy (Jira's
    /// `ScreenTypes` requires `defaultScreen` and declares `default`): the
    /// object is its properties, the name ignored and noted.
    #[test]
    fn ignores_a_required_name_that_additional_properties_forbids() {
        let api = api(
            "    Screens:\n      type: object\n      additionalProperties: false\n      \
             required: [defaultScreen]\n      properties: {default: {type: integer}}\n",
        );
        let screens: Vec<(&str, bool)> = fields(&api, "Screens")
            .iter()
            .map(|f| (f.wire.as_str(), f.required))
            .collect();
        assert_eq!(screens, [("default", false)]);
        assert!(
            api.notes.iter().any(|note| note.contains(
                "forbids (1, the first at t.yaml#/components/schemas/Screens/required): ignored"
            )),
            "{:?}",
            api.notes
        );
    }
}
