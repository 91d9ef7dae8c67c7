//! `allOf`: a lone member that says what the value is (the 3.0 way to annotate
//! a `$ref`), scalar members folded into one schema, or object members merged
//! into one struct.

use openapiv3::{AdditionalProperties, ReferenceOr, Schema, SchemaKind};

use crate::error::Result;
use crate::ir::{Shape, StructDef, TypeKind};
use crate::lower::lenient::Leniency;
use crate::parse::Pointer;

use super::table::{SchemaRef, TypeTable, hint_from_pointer};
use super::view::{NO_PROPERTIES, View};

impl<'d> TypeTable<'d> {
    /// The one member of `view`'s `allOf` that says what the value is
    /// ([`sole_all_of_member`]). Object keywords beside it with no `type`
    /// of their own hold for every scalar, so they are read past when that
    /// member is a scalar (FastAPI's `{allOf: [$ref to a string enum],
    /// additionalProperties: false}`).
    pub(super) fn sole_member(&self, view: &View<'_>, at: &Pointer) -> Result<Option<usize>> {
        if let Some(i) = sole_all_of_member(view) {
            return Ok(Some(i));
        }
        if view.typ.is_some() || !view.has_object_keywords() {
            return Ok(None);
        }
        // The keywords `has_object_keywords` reads.
        let without_object_keywords = View {
            properties: &NO_PROPERTIES,
            required: &[],
            additional: None,
            ..view.clone()
        };
        let Some(i) = sole_all_of_member(&without_object_keywords) else {
            return Ok(None);
        };
        let resolved = self
            .doc
            .resolve(&view.all_of[i], &at.push("allOf").index(i))?;
        let typ = View::of(&resolved.value).typ;
        Ok(matches!(typ, Some("string" | "integer" | "number" | "boolean")).then_some(i))
    }

    /// `allOf: [$ref]` with nothing else is the common way to add a description
    /// or `nullable` to a reference: it is that reference's shape. So is an
    /// `allOf` whose other members only annotate (a description, a title).
    pub(super) fn single_all_of(&mut self, view: &View<'_>, at: &Pointer) -> Result<Option<Shape>> {
        let Some(i) = self.sole_member(view, at)? else {
            return Ok(None);
        };
        let member = SchemaRef::from(&view.all_of[i]);
        let hint = hint_from_pointer(at);
        let mut shape = self.shape(member, &at.push("allOf").index(i), &hint)?;
        // `nullable` on the `allOf` or on one of its other members: the
        // 3.0 way to let a reference be null.
        shape.nullable |= view.data.nullable
            || view.all_of.iter().enumerate().any(|(j, member)| {
                j != i && matches!(member, ReferenceOr::Item(schema) if schema.schema_data.nullable)
            });
        Ok(Some(shape))
    }

    /// An `allOf` of scalars of one type and of bare constraints
    /// (DigitalOcean's `allOf: [{type: string, description}, {maxLength:
    /// 16}]`): one schema holding every member's constraints, the tightest
    /// bound of each, `nullable` when a member says so. `None` when a member
    /// is anything else, or when two members set one `pattern`, `format`,
    /// `enum` or `multipleOf` differently, or an exclusive bound: the
    /// `allOf` is then merged as objects are, or refused.
    pub(super) fn merged_scalar_all_of(
        &self,
        schema: &Schema,
        view: &View<'_>,
        at: &Pointer,
    ) -> Result<Option<Schema>> {
        use serde_json::{Map, Value};
        // Object keywords (`properties`, `additionalProperties`) hold for
        // every value that is not an object, so beside scalar members and no
        // `type` of its own they say nothing (FastAPI's `{allOf: [$ref to a
        // string enum], additionalProperties: false}`). A `oneOf` or `anyOf`
        // beside gives the merge up below (`fold_scalar_keyword`).
        if view.all_of.is_empty() || (view.has_object_keywords() && view.typ.is_some()) {
            return Ok(None);
        }
        // The schema's own annotations first, then each member's.
        let mut own = match serde_json::to_value(schema) {
            Ok(Value::Object(own)) => own,
            _ => return Ok(None),
        };
        own.remove("allOf");
        let mut sources = vec![own];
        for (i, member) in view.all_of.iter().enumerate() {
            let resolved = self.doc.resolve(member, &at.push("allOf").index(i))?;
            match serde_json::to_value(&*resolved.value) {
                Ok(Value::Object(member)) => sources.push(member),
                _ => return Ok(None),
            }
        }
        let mut merged = Map::new();
        for (key, value) in sources.into_iter().flatten() {
            if !fold_scalar_keyword(&mut merged, key, value) {
                return Ok(None);
            }
        }
        if !merged
            .get("type")
            .and_then(Value::as_str)
            .is_some_and(|typ| matches!(typ, "string" | "integer" | "number" | "boolean"))
        {
            return Ok(None);
        }
        Ok(serde_json::from_value(Value::Object(merged)).ok())
    }

    /// A named type whose `allOf` has one member that says what the value is
    /// and that member is not an object (a string, an enum, a union, an
    /// array): the type is that member's, not a merged struct.
    pub(super) fn all_of_non_object(
        &mut self,
        view: &View<'_>,
        at: &Pointer,
        name: &str,
    ) -> Result<Option<TypeKind>> {
        let Some(i) = self.sole_member(view, at)? else {
            return Ok(None);
        };
        let member_at = at.push("allOf").index(i);
        let resolved = self.doc.resolve(&view.all_of[i], &member_at)?;
        let member = View::of(&resolved.value);
        // An object of `additionalProperties` alone is a map, not an empty
        // struct that would drop every entry: OpenAI's `Metadata`, `anyOf:
        // [{type: object, additionalProperties: {type: string}}, {type:
        // 'null'}]`, which the 3.1 rewrite makes a nullable `allOf`.
        let is_map = member.properties.is_empty()
            && member.required.is_empty()
            && member.all_of.is_empty()
            && matches!(
                member.additional,
                Some(AdditionalProperties::Schema(_) | AdditionalProperties::Any(true))
            );
        let is_struct = !is_map
            && member.one_of.is_empty()
            && member.any_of.is_empty()
            && member.string_enum.is_none()
            && member.scalar_enum.is_none()
            && !member.other_enum
            && (member.is_object() || !member.all_of.is_empty() || member.typ.is_none());
        if is_struct {
            return Ok(None);
        }
        Ok(Some(match &view.all_of[i] {
            ReferenceOr::Reference { .. } => {
                let shape = self.shape(SchemaRef::from(&view.all_of[i]), &member_at, name)?;
                TypeKind::Alias(shape)
            }
            ReferenceOr::Item(schema) => self.kind_of(schema, &member_at, name, true)?,
        }))
    }

    pub(super) fn all_of(&mut self, view: &View<'_>, at: &Pointer, name: &str) -> Result<TypeKind> {
        let mut members: Vec<(Schema, Pointer)> = Vec::new();
        for (i, member) in view.all_of.iter().enumerate() {
            self.collect_all_of(member, at.push("allOf").index(i), &mut members, 0)?;
        }
        let mut views = vec![(
            View {
                all_of: &[],
                ..view.clone()
            },
            at.clone(),
        )];
        views.extend(
            members
                .iter()
                .map(|(schema, pointer)| (View::of(schema), pointer.clone())),
        );
        self.check_mergeable(&views)?;
        let unions: Vec<usize> = (0..views.len())
            .filter(|&i| !views[i].0.one_of.is_empty() || !views[i].0.any_of.is_empty())
            .collect();
        match unions.as_slice() {
            [] => {}
            [union] => return self.distribute(views, *union, view, at, name),
            [_, second, ..] => {
                return Err(self.doc.unsupported(
                    &views[*second].1,
                    "a second `oneOf`/`anyOf` among the schemas of one `allOf` cannot be turned into a Rust type (it would be every combination of the alternatives)",
                ));
            }
        }
        let fields = self.fields(&views, name)?;
        let additional = self.additional(view, at, name, &fields)?;
        Ok(TypeKind::Struct(StructDef {
            fields,
            additional,
            property_count: (view.min_properties, view.max_properties),
        }))
    }

    /// Errors for members that cannot be merged into a struct.
    pub(super) fn check_mergeable(&mut self, views: &[(View<'_>, Pointer)]) -> Result<()> {
        for (member, member_at) in views {
            if member.not.is_some() {
                self.lenient
                    .record(Leniency::NotNotChecked, &member_at.push("not"));
            }
            if !member.is_object_like() {
                // Two types no value has at once (`string` and `integer`):
                // the document's contradiction, not a limit of ours.
                let typ = member.typ.unwrap_or_default();
                let clash = views.iter().find_map(|(other, other_at)| {
                    let other_typ = other.typ?;
                    let compatible = other_typ == typ
                        || matches!(
                            (typ, other_typ),
                            ("integer", "number") | ("number", "integer")
                        );
                    (!compatible).then_some((other_typ, other_at))
                });
                if let Some((other_typ, other_at)) = clash {
                    return Err(self.doc.invalid(
                        member_at,
                        format!(
                            "`allOf` asks for a value that is both of type `{typ}` and of type `{other_typ}` ({}): no value is",
                            self.doc.user_pointer(other_at)
                        ),
                    ));
                }
                return Err(self.doc.unsupported(
                    member_at,
                    "`allOf` can only merge object schemas; this member is not an object",
                ));
            }
        }
        Ok(())
    }

    /// Flattens nested `allOf`s and `$ref`s into the list of object schemas to
    /// merge, each without its own `allOf`.
    pub(super) fn collect_all_of(
        &self,
        member: &ReferenceOr<Schema>,
        at: Pointer,
        out: &mut Vec<(Schema, Pointer)>,
        depth: usize,
    ) -> Result<()> {
        if depth > 32 {
            return Err(self.doc.invalid(&at, "`allOf` nests deeper than 32 levels"));
        }
        let resolved = self.doc.resolve(member, &at)?;
        let mut schema = resolved.value.into_owned();
        let nested = match &mut schema.schema_kind {
            SchemaKind::AllOf { all_of } => std::mem::take(all_of),
            SchemaKind::Any(any) => std::mem::take(&mut any.all_of),
            _ => Vec::new(),
        };
        out.push((schema, resolved.pointer.clone()));
        for (i, inner) in nested.iter().enumerate() {
            self.collect_all_of(
                inner,
                resolved.pointer.push("allOf").index(i),
                out,
                depth + 1,
            )?;
        }
        Ok(())
    }
}

/// The index of the one `allOf` member of `view` that says what the value
/// is, when the schema itself adds no properties and every other member
/// only annotates.
pub(super) fn sole_all_of_member(view: &View<'_>) -> Option<usize> {
    // `oneOf: [{}]` beside the `allOf` says nothing more (progenitor writes it).
    let says_nothing = |members: &[ReferenceOr<Schema>]| {
        members
            .iter()
            .all(|m| matches!(m, ReferenceOr::Item(s) if View::of(s).only_annotates()))
    };
    // Nor does a constraint of its own beside the `allOf` (`{allOf: [$ref
    // to a string], maxLength: 3}`): the type is then the members and the
    // constraint merged (`merged_scalar_all_of`), not the member's alone.
    if view.has_object_keywords()
        || view.constrains_scalar()
        || !says_nothing(view.one_of)
        || !says_nothing(view.any_of)
    {
        return None;
    }
    // Beside a `$ref`, a member that only restates a scalar type adds
    // nothing but, maybe, `nullable` (DigitalOcean's
    // `allOf: [{$ref: slug}, {type: string, nullable: true}]`).
    let has_reference = view
        .all_of
        .iter()
        .any(|member| matches!(member, ReferenceOr::Reference { .. }));
    let mut typed = view
        .all_of
        .iter()
        .enumerate()
        .filter(|(_, member)| match member {
            ReferenceOr::Reference { .. } => true,
            ReferenceOr::Item(schema) => {
                let member = View::of(schema);
                !(member.only_annotates() || (has_reference && member.restates_scalar_type()))
            }
        });
    let (first, _) = typed.next()?;
    typed.next().is_none().then_some(first)
}

/// Folds one keyword of an `allOf` member into the scalar schema `merged`
/// (see `merged_scalar_all_of`): the tighter of two bounds, `nullable` when
/// either says so, the first annotation; `false` when it cannot be merged
/// (a second `type`, `pattern`, `format`, `enum` or `multipleOf` that
/// differs, an exclusive bound, structure).
pub(super) fn fold_scalar_keyword(
    merged: &mut serde_json::Map<String, serde_json::Value>,
    key: String,
    value: serde_json::Value,
) -> bool {
    use serde_json::Value;
    let tighten = |merged: &mut serde_json::Map<String, Value>,
                   key: String,
                   value: Value,
                   tighter: fn(f64, f64) -> bool| {
        let Some(new) = value.as_f64() else {
            return false;
        };
        // A bound already merged is a number: each came from a typed schema.
        match merged.get(&key).and_then(Value::as_f64) {
            Some(old) if !tighter(new, old) => true,
            _ => {
                merged.insert(key, value);
                true
            }
        }
    };
    match key.as_str() {
        // One member that may be null makes the value so; a `false` (which
        // a typed schema leaves out anyway) never undoes it.
        "nullable" => {
            if value == Value::Bool(true) {
                merged.insert(key, value);
            }
            true
        }
        "minLength" | "minimum" => tighten(merged, key, value, |new, old| new > old),
        "maxLength" | "maximum" => tighten(merged, key, value, |new, old| new < old),
        "type" | "pattern" | "format" | "enum" | "multipleOf" => match merged.get(&key) {
            Some(old) => *old == value,
            None => {
                merged.insert(key, value);
                true
            }
        },
        "description" | "title" | "example" | "default" | "deprecated" | "readOnly"
        | "writeOnly" | "externalDocs" => {
            merged.entry(key).or_insert(value);
            true
        }
        extension if extension.starts_with("x-") => true,
        // Only objects are held to them, and the merged value is a scalar
        // (or the merge is given up).
        "properties" | "additionalProperties" | "required" | "minProperties" | "maxProperties" => {
            true
        }
        // `exclusiveMinimum: false` and other flags left at their default.
        _ => value == Value::Bool(false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Ty;

    use crate::lower::schemas::testing::{api, error, fields, kind};

    /// `{allOf: [$ref], nullable: true}` is how a 3.0 document says that a
    /// reference may be null: the field is the referenced type, optional
    /// as a value (`Option`), and a reference to a nullable schema stays so.
    #[test]
    fn a_lone_all_of_reference_takes_the_nullable_beside_it() {
        let api = api(concat!(
            "    X: {type: object, properties: {a: {type: string}}}\n",
            "    N: {type: string, nullable: true, maxLength: 3}\n",
            "    H:\n",
            "      type: object\n",
            "      properties:\n",
            "        x: {nullable: true, allOf: [$ref: '#/components/schemas/X']}\n",
            "        y: {allOf: [$ref: '#/components/schemas/X']}\n",
            "        n: {description: a name, allOf: [$ref: '#/components/schemas/N']}\n",
            "        z: {allOf: [$ref: '#/components/schemas/X', {description: may be null, nullable: true}]}\n",
            "        w: {allOf: [$ref: '#/components/schemas/X', {description: never null}]}\n",
        ));
        let shapes: Vec<(&str, &Ty, bool)> = fields(&api, "H")
            .iter()
            .map(|f| (f.wire.as_str(), &f.shape.ty, f.shape.nullable))
            .collect();
        let named = |name: &str| Ty::Named(name.to_owned());
        assert_eq!(
            shapes,
            [
                ("x", &named("X"), true),
                ("y", &named("X"), false),
                ("n", &named("N"), true),
                ("z", &named("X"), true),
                ("w", &named("X"), false),
            ]
        );
    }

    /// A constraint beside a lone `allOf` member is kept: the type is the
    /// member's and the constraint merged, the tighter bound winning, for
    /// a named schema and for a property's own, and so is one in a member
    /// that says the type again.
    #[test]
    fn a_constraint_beside_a_lone_all_of_member_is_kept() {
        let api = api(concat!(
            "    Code: {type: string, maxLength: 8}\n",
            "    Short: {allOf: [$ref: '#/components/schemas/Code'], maxLength: 3}\n",
            "    Worded: {allOf: [$ref: '#/components/schemas/Code'], maxLength: 20, pattern: '^[a-z]+$'}\n",
            "    Capped: {allOf: [$ref: '#/components/schemas/Code', {type: string, maxLength: 3}]}\n",
            "    H:\n",
            "      type: object\n",
            "      properties:\n",
            "        code: {allOf: [$ref: '#/components/schemas/Code'], minLength: 2}\n",
        ));
        let checks = |kind: &TypeKind| match kind {
            TypeKind::Newtype(shape) => {
                assert_eq!(shape.ty, Ty::Primitive(crate::ir::Primitive::String));
                shape.checks.clone()
            }
            other => panic!("{other:?}"),
        };
        let short = checks(kind(&api, "Short"));
        assert_eq!((short.min_length, short.max_length), (None, Some(3)));
        // A member that gives the type again with a constraint constrains.
        assert_eq!(checks(kind(&api, "Capped")).max_length, Some(3));
        let worded = checks(kind(&api, "Worded"));
        assert_eq!(worded.max_length, Some(8));
        assert_eq!(worded.pattern.as_deref(), Some("^[a-z]+$"));
        let code = &fields(&api, "H")[0].shape;
        assert_eq!(
            (code.checks.min_length, code.checks.max_length),
            (Some(2), Some(8)),
            "{code:?}"
        );
    }

    /// Object keywords beside one scalar member and no `type` say nothing
    /// (FastAPI's enum fields): the type is the member's, whichever the
    /// keyword. Beside `type: object` they are an object's, which a string
    /// cannot be: refused.
    #[test]
    fn object_keywords_beside_a_scalar_member_say_nothing() {
        let api = api(concat!(
            "    Icons: {type: string, enum: [mail, phone]}\n",
            "    Closed: {additionalProperties: false, allOf: [$ref: '#/components/schemas/Icons']}\n",
            "    Listed: {properties: {a: {type: string}}, allOf: [$ref: '#/components/schemas/Icons']}\n",
            "    Needed: {required: [a], allOf: [$ref: '#/components/schemas/Icons']}\n",
        ));
        for name in ["Closed", "Listed", "Needed"] {
            assert!(
                matches!(kind(&api, name), TypeKind::Alias(shape) if shape.ty == Ty::Named("Icons".to_owned())),
                "{name}: {:?}",
                kind(&api, name)
            );
        }
        let typed = error(concat!(
            "    Icons: {type: string, enum: [mail, phone]}\n",
            "    Typed: {type: object, properties: {a: {type: string}}, allOf: [$ref: '#/components/schemas/Icons']}\n",
        ));
        assert!(
            typed.contains("both of type `string` and of type `object`"),
            "{typed}"
        );
    }

    /// A scalar `type` of its own beside members that only constrain is
    /// one scalar with every constraint.
    #[test]
    fn a_typed_scalar_of_constraining_members_is_one_scalar() {
        let api = api("    Code: {type: string, allOf: [{maxLength: 3}, {pattern: '^[a-z]+$'}]}\n");
        let TypeKind::Newtype(shape) = kind(&api, "Code") else {
            panic!("{:?}", kind(&api, "Code"));
        };
        assert_eq!(shape.ty, Ty::Primitive(crate::ir::Primitive::String));
        assert_eq!(shape.checks.max_length, Some(3));
        assert_eq!(shape.checks.pattern.as_deref(), Some("^[a-z]+$"));
    }

    /// An `allOf` of scalars and bare constraints is one scalar: the
    /// tighter of two bounds whichever comes first, `nullable` when a
    /// member says so, object keywords and extensions set aside, a flag
    /// left at its default ignored. An exclusive bound gives the merge up:
    /// the members are then objects to merge, which they are not.
    #[test]
    fn scalar_all_of_members_merge_into_one_scalar() {
        let api = api(concat!(
            "    Bounded: {allOf: [{type: integer, minimum: 1, maximum: 10}, {minimum: 3, maximum: 20}, {minimum: 2}]}\n",
            "    Maybe: {allOf: [{type: string}, {maxLength: 4, nullable: true}, {description: d}]}\n",
            "    Never: {allOf: [{type: string, nullable: false}, {maxLength: 4}]}\n",
            "    Needed: {required: [x], allOf: [{type: string}, {maxLength: 3}]}\n",
            "    Noted: {allOf: [{type: string, x-note: a}, {maxLength: 3, exclusiveMaximum: false}]}\n",
        ));
        let newtype = |name: &str| match kind(&api, name) {
            TypeKind::Newtype(shape) => shape.clone(),
            other => panic!("{name}: {other:?}"),
        };
        let bounded = newtype("Bounded");
        assert_eq!(bounded.ty, Ty::Primitive(crate::ir::Primitive::I64));
        assert_eq!(
            (bounded.checks.minimum, bounded.checks.maximum),
            (Some((3.0, false)), Some((10.0, false)))
        );
        let text = |name: &str| {
            let shape = newtype(name);
            assert_eq!(
                shape.ty,
                Ty::Primitive(crate::ir::Primitive::String),
                "{name}"
            );
            (shape.nullable, shape.checks.max_length)
        };
        assert_eq!(text("Maybe"), (true, Some(4)));
        assert_eq!(text("Never"), (false, Some(4)));
        assert_eq!(text("Needed"), (false, Some(3)));
        assert_eq!(text("Noted"), (false, Some(3)));
        let exclusive = error(
            "    Exclusive: {allOf: [{type: integer, minimum: 1, exclusiveMinimum: true}, {maximum: 5}]}\n",
        );
        assert!(
            exclusive.ends_with("Exclusive/allOf/0: not supported by the generator: `allOf` can only merge object schemas; this member is not an object"),
            "{exclusive}"
        );
    }

    /// A named schema that is only `allOf` of one object (to document it
    /// apart) is a struct of its own, with the object's fields, not another
    /// name for the object.
    #[test]
    fn a_named_all_of_of_one_object_is_a_struct_of_its_own() {
        let api = api(concat!(
            "    Base: {type: object, required: [a], properties: {a: {type: string}}}\n",
            "    Own:\n",
            "      description: A base, documented apart.\n",
            "      allOf: [$ref: '#/components/schemas/Base']\n",
        ));
        assert!(
            matches!(kind(&api, "Own"), TypeKind::Struct(_)),
            "{:?}",
            kind(&api, "Own")
        );
        let own: Vec<(&str, bool)> = fields(&api, "Own")
            .iter()
            .map(|f| (f.wire.as_str(), f.required))
            .collect();
        assert_eq!(own, [("a", true)]);
    }

    /// Only a member that says it is something else (a string, an array,
    /// an enum, a union) makes a named `allOf` that type; a member that
    /// gives no `type` is merged as an object, as every member was before
    /// (`is_object_like`), so the named type stays a struct.
    #[test]
    fn a_named_all_of_of_one_untyped_member_is_a_struct() {
        let api = api(concat!(
            "    Counted: {minProperties: 1}\n",
            "    Text: {type: string, maxLength: 3}\n",
            "    Own: {description: Counted apart., allOf: [$ref: '#/components/schemas/Counted']}\n",
            "    Word: {description: Text apart., allOf: [$ref: '#/components/schemas/Text']}\n",
        ));
        assert!(
            matches!(kind(&api, "Own"), TypeKind::Struct(_)),
            "{:?}",
            kind(&api, "Own")
        );
        assert!(
            matches!(kind(&api, "Word"), TypeKind::Alias(shape) if shape.ty == Ty::Named("Text".to_owned())),
            "{:?}",
            kind(&api, "Word")
        );
    }

    /// A named `allOf` whose one member is a map (an object of
    /// `additionalProperties` alone) is that map, not an empty struct that
    /// would drop every entry; so is 3.1's nullable map, which reads as one.
    #[test]
    fn a_named_all_of_of_one_map_is_the_map() {
        let api = api(concat!(
            "    Labels: {nullable: true, allOf: [{type: object, additionalProperties: {type: string}}]}
",
            "    Open: {allOf: [{type: object, additionalProperties: true}]}
",
        ));
        for name in ["Labels", "Open"] {
            let kind = kind(&api, name);
            assert!(
                matches!(kind, TypeKind::Alias(shape) | TypeKind::Newtype(shape) if matches!(shape.ty, Ty::Map(_))),
                "{name}: {kind:?}"
            );
        }
        let api = crate::testing::lowered_as(
            "3.1.0",
            "components:\n  schemas:\n    Metadata:\n      anyOf:\n        - {type: object, additionalProperties: {type: string}}\n        - {type: 'null'}\n    H: {type: object, properties: {m: {$ref: '#/components/schemas/Metadata'}}}\n",
        )
        .unwrap();
        let kind = &api.type_named("Metadata").unwrap().kind;
        let text = crate::ir::Shape::of(Ty::Primitive(crate::ir::Primitive::String));
        assert!(
            matches!(kind, TypeKind::Alias(shape) if shape.ty == Ty::Map(Box::new(text))),
            "{kind:?}"
        );
        // Its null travels with each reference, as a named type's does.
        assert!(fields(&api, "H")[0].shape.nullable);
    }

    /// `allOf` may nest 32 levels below the schema, and no deeper (a guard
    /// against documents built to exhaust the generator).
    #[test]
    fn all_of_nests_at_most_32_levels() {
        let nested = |levels: usize| {
            format!(
                "    Deep: {}{{type: object, properties: {{a: {{type: string}}}}}}{}\n",
                "{allOf: [".repeat(levels),
                "]}".repeat(levels)
            )
        };
        let api = api(&nested(33));
        assert_eq!(fields(&api, "Deep")[0].wire, "a");
        let message = error(&nested(34));
        assert!(
            message.ends_with("invalid document: `allOf` nests deeper than 32 levels"),
            "{message}"
        );
    }

    /// The members of an `allOf` are merged with the members of their own
    /// `allOf`s, whether a member is only an `allOf` or also has
    /// properties of its own.
    #[test]
    fn merges_the_all_of_of_each_member() {
        let api = api(concat!(
            "    A: {type: object, properties: {a: {type: string}}}\n",
            "    B: {type: object, properties: {b: {type: string}}, allOf: [$ref: '#/components/schemas/A']}\n",
            "    E: {type: object, properties: {e: {type: string}}}\n",
            "    C: {allOf: [$ref: '#/components/schemas/E']}\n",
            "    D:\n",
            "      allOf:\n",
            "        - $ref: '#/components/schemas/B'\n",
            "        - $ref: '#/components/schemas/C'\n",
            "        - {type: object, properties: {d: {type: string}}}\n",
        ));
        let wires: Vec<&str> = fields(&api, "D").iter().map(|f| f.wire.as_str()).collect();
        assert_eq!(wires, ["b", "a", "e", "d"]);
    }

    /// An inline `allOf: [$ref]` is that reference only when nothing
    /// beside it says more: with properties of its own, or a `oneOf` or
    /// `anyOf` beside it, it is a type of its own that keeps them.
    #[test]
    fn an_inline_all_of_reference_with_more_beside_it_is_a_type_of_its_own() {
        let api = api(concat!(
            "    Base: {type: object, properties: {a: {type: string}}}\n",
            "    Cat: {type: object, properties: {purrs: {type: boolean}}}\n",
            "    Dog: {type: object, properties: {barks: {type: boolean}}}\n",
            "    Holder:\n      type: object\n      properties:\n",
            "        more: {properties: {b: {type: string}}, allOf: [$ref: '#/components/schemas/Base']}\n",
            "        either:\n",
            "          allOf: [$ref: '#/components/schemas/Base']\n",
            "          oneOf: [$ref: '#/components/schemas/Cat', $ref: '#/components/schemas/Dog']\n",
            "        any:\n",
            "          allOf: [$ref: '#/components/schemas/Base']\n",
            "          anyOf: [$ref: '#/components/schemas/Cat', $ref: '#/components/schemas/Dog']\n",
        ));
        let types: Vec<(&str, &Ty)> = fields(&api, "Holder")
            .iter()
            .map(|f| (f.wire.as_str(), &f.shape.ty))
            .collect();
        let named = |name: &str| Ty::Named(name.to_owned());
        assert_eq!(
            types,
            [
                ("more", &named("HolderMore")),
                ("either", &named("HolderEither")),
                ("any", &named("HolderAny")),
            ]
        );
        let more: Vec<&str> = fields(&api, "HolderMore")
            .iter()
            .map(|f| f.wire.as_str())
            .collect();
        assert_eq!(more, ["b", "a"]);
        assert!(matches!(kind(&api, "HolderEither"), TypeKind::Union(_)));
        let any: Vec<&str> = fields(&api, "HolderAny")
            .iter()
            .map(|f| f.wire.as_str())
            .collect();
        assert_eq!(any, ["a", "purrs", "barks"]);
    }

    /// An inline `allOf` of a reference and an object of its own is both
    /// merged, not the reference alone.
    #[test]
    fn an_inline_all_of_of_a_reference_and_properties_merges_both() {
        let api = api(concat!(
            "    Base: {type: object, properties: {a: {type: string}}}\n",
            "    Holder:\n      type: object\n      properties:\n",
            "        x:\n          allOf:\n",
            "            - $ref: '#/components/schemas/Base'\n",
            "            - {type: object, properties: {b: {type: string}}}\n",
        ));
        assert_eq!(
            fields(&api, "Holder")[0].shape.ty,
            Ty::Named("HolderX".to_owned())
        );
        let x: Vec<&str> = fields(&api, "HolderX")
            .iter()
            .map(|f| f.wire.as_str())
            .collect();
        assert_eq!(x, ["a", "b"]);
    }

    /// `allOf` merges objects into one struct; a member of another type
    /// cannot be merged, and is named: as the document's contradiction
    /// when another member has a type no value shares with it (a string
    /// beside an object), as a limit otherwise.
    #[test]
    fn all_of_refuses_to_merge_a_member_that_is_not_an_object() {
        let message = error(concat!(
            "    A: {type: object, properties: {a: {type: string}}}\n",
            "    M: {allOf: [$ref: '#/components/schemas/A', {type: string, maxLength: 3}]}\n",
        ));
        assert!(
            message.ends_with("#/components/schemas/M/allOf/1: invalid document: `allOf` asks for a value that is both of type `string` and of type `object` (#/components/schemas/A): no value is"),
            "{message}"
        );
        let message = error(
            "    M: {allOf: [{properties: {a: {type: string}}}, {type: array, items: {type: string}}]}\n",
        );
        assert!(
            message.ends_with("#/components/schemas/M/allOf/1: not supported by the generator: `allOf` can only merge object schemas; this member is not an object"),
            "{message}"
        );
    }
}
