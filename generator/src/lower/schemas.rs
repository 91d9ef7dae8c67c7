//! Schemas → named types and shapes.
//!
//! Every schema that needs a Rust type of its own (objects, string enums,
//! unions, and named constrained primitives) becomes a [`TypeDef`], keyed by the
//! pointer of the schema, so that a schema reached twice (through `$ref`s or
//! `allOf`) becomes one type. Everything else becomes a [`Shape`] in place.

use std::collections::HashMap;

use indexmap::IndexMap;
use openapiv3::{AdditionalProperties, ReferenceOr, Schema, SchemaData, SchemaKind, Type};

use super::inheritance::{self, Hierarchy};
use super::lenient::{Leniency, Lenient};
use super::value_names::{self, ValueName};
use crate::error::Result;
use crate::ir::{
    Access, Additional, Checks, Docs, EnumDef, EnumRepr, EnumVariant, Field, Primitive, Shape,
    StructDef, Tagging, Ty, TypeDef, TypeKind, UnionDef, UnionVariant,
};
use crate::names::{Namespace, type_name};
use crate::parse::{Document, Pointer};

/// A schema or a `$ref` to one, however `openapiv3` boxed it.
#[derive(Clone, Copy)]
pub(crate) enum SchemaRef<'a> {
    Ref(&'a str),
    Item(&'a Schema),
}

impl<'a> From<&'a ReferenceOr<Schema>> for SchemaRef<'a> {
    fn from(item: &'a ReferenceOr<Schema>) -> Self {
        match item {
            ReferenceOr::Reference { reference } => SchemaRef::Ref(reference),
            ReferenceOr::Item(schema) => SchemaRef::Item(schema),
        }
    }
}

impl<'a> From<&'a ReferenceOr<Box<Schema>>> for SchemaRef<'a> {
    fn from(item: &'a ReferenceOr<Box<Schema>>) -> Self {
        match item {
            ReferenceOr::Reference { reference } => SchemaRef::Ref(reference),
            ReferenceOr::Item(schema) => SchemaRef::Item(schema),
        }
    }
}

/// The named types of a document, as they are lowered.
pub(crate) struct TypeTable<'d> {
    doc: &'d Document,
    defs: Vec<TypeDef>,
    /// Whether the schema of each def allows `null` (a `$ref` to it then does too).
    nullable: Vec<bool>,
    by_pointer: HashMap<Pointer, usize>,
    names: Namespace,
    /// The Rust name of each component schema, claimed in document order.
    component_names: HashMap<String, String>,
    other_names: HashMap<Pointer, String>,
    /// The component schemas that have subtypes ([`inheritance`]), by pointer.
    hierarchies: HashMap<Pointer, Hierarchy>,
    /// The struct of each such base schema's own properties, by the base's
    /// pointer (its union is the def `by_pointer` names).
    base_structs: HashMap<Pointer, usize>,
    /// What was read leniently, for the document's note.
    pub lenient: Lenient,
}

impl<'d> TypeTable<'d> {
    pub fn new(doc: &'d Document) -> Self {
        TypeTable {
            doc,
            defs: Vec::new(),
            nullable: Vec::new(),
            by_pointer: HashMap::new(),
            names: Namespace::default(),
            component_names: HashMap::new(),
            other_names: HashMap::new(),
            hierarchies: inheritance::find(doc),
            base_structs: HashMap::new(),
            lenient: Lenient::default(),
        }
    }

    /// Lowers every schema of `components.schemas`, in document order, so that
    /// they get the names the document gives them before inline schemas are named.
    pub fn lower_components(&mut self) -> Result<()> {
        let Some(components) = &self.doc.api.components else {
            return Ok(());
        };
        let base = Pointer::root().push("components").push("schemas");
        // Claim every component name first: an inline schema lowered while
        // lowering an earlier component must not take a later one's name.
        let names: Vec<String> = components.schemas.keys().cloned().collect();
        for name in &names {
            let rust_name = self.names.claim(type_name(name));
            self.component_names.insert(name.clone(), rust_name);
        }
        for name in names {
            let pointer = base.push(&name);
            self.named(&pointer, None)?;
        }
        Ok(())
    }

    /// Takes a type name for something else the models crate defines at
    /// `origin` (such as a dynamic query's types), so that no schema takes it;
    /// asking again for the same origin gives the same name.
    pub fn claim_name(&mut self, origin: &Pointer, name: String) -> String {
        if let Some(name) = self.other_names.get(origin) {
            return name.clone();
        }
        let name = self.names.claim(name);
        self.other_names.insert(origin.clone(), name.clone());
        name
    }

    /// The types lowered so far.
    pub fn defs(&self) -> &[TypeDef] {
        &self.defs
    }

    /// All types, sorted by name.
    pub fn into_defs(self) -> Vec<TypeDef> {
        let mut defs = self.defs;
        defs.sort_by(|a, b| a.name.cmp(&b.name));
        defs
    }

    /// The shape of `schema`, found at `at`; `hint` names it if it needs a type of its own.
    pub fn shape(&mut self, schema: SchemaRef<'_>, at: &Pointer, hint: &str) -> Result<Shape> {
        match schema {
            SchemaRef::Ref(reference) => {
                let target = self.doc.follow(reference, at)?;
                self.named(&target, Some((reference, at)))
            }
            SchemaRef::Item(schema) => self.inline(schema, at, hint),
        }
    }

    /// What extensions say of the values of the enum at `at`, by wire
    /// text ([`value_names::given`]).
    fn value_names(&self, at: &Pointer, repr: EnumRepr) -> HashMap<String, ValueName> {
        self.doc
            .node(at)
            .map(|schema| value_names::given(schema, |value| json_wire_text(value, repr)))
            .unwrap_or_default()
    }

    /// The access of the schema `reference` (found at `at`) leads to: a
    /// property may be a `$ref` to a schema that is `readOnly` as a whole
    /// (an `Id`). A reference that leads nowhere is the shape's error, not
    /// this one's.
    fn access_at(&self, reference: &str, at: &Pointer) -> Access {
        let flag = |key: &str| {
            self.doc
                .follow(reference, at)
                .ok()
                .and_then(|target| self.doc.node(&target))
                .and_then(|node| node.get(key))
                .and_then(serde_yaml::Value::as_bool)
                == Some(true)
        };
        if flag("readOnly") {
            Access::ReadOnly
        } else if flag("writeOnly") {
            Access::WriteOnly
        } else {
            Access::ReadWrite
        }
    }

    /// The shape of the schema at `pointer`, lowering it as a named type on
    /// first use; `via` is the `$ref` that led there and where it was found.
    fn named(&mut self, pointer: &Pointer, via: Option<(&str, &Pointer)>) -> Result<Shape> {
        if let Some(&index) = self.by_pointer.get(pointer) {
            return Ok(self.shape_of_def(index));
        }
        let node = self
            .doc
            .node(pointer)
            .ok_or_else(|| self.doc.invalid(pointer, "no schema here"))?;
        let schema: Schema = crate::parse::deserialize_at(node, &self.doc.file, pointer).map_err(
            |error| match via {
                Some((reference, at)) => self
                    .doc
                    .wrong_target::<Schema>(reference, at, pointer, error),
                None => error,
            },
        )?;
        let name = match pointer.component_name("schemas") {
            Some(component) => match self.component_names.get(&component) {
                Some(name) => name.clone(),
                None => {
                    let name = self.names.claim(type_name(&component));
                    self.component_names.insert(component, name.clone());
                    name
                }
            },
            None => self.names.claim(hint_from_pointer(pointer)),
        };
        let index = self.reserve(name, pointer, &schema);
        let name = self.defs[index].name.clone();
        let reference = node.get("$ref").and_then(serde_yaml::Value::as_str);
        let kind = match (reference, self.hierarchies.get(pointer).cloned()) {
            // A component that is a `$ref` (`Alias: {$ref: Error}`): the
            // target's type under this name. OpenAPI 3.0 reads nothing
            // beside a `$ref` but its docs (3.1's siblings are an `allOf`
            // by now: `parse::v31`); every use of it is its target's.
            (Some(reference), _) => {
                TypeKind::Alias(self.shape(SchemaRef::Ref(reference), pointer, &name)?)
            }
            (None, Some(hierarchy)) => self.polymorphic(&schema, pointer, &name, hierarchy)?,
            (None, None) => self.kind_of(&schema, pointer, &name, true)?,
        };
        self.defs[index].kind = kind;
        Ok(self.shape_of_def(index))
    }

    /// A base schema with subtypes: a union of each subtype's struct, told
    /// apart by the discriminator, and of a struct of the base's own
    /// properties (`{name}Base`), which any other value is read as.
    fn polymorphic(
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

    /// The struct of the component schema at `pointer`: its type, or for
    /// a base schema with subtypes, the struct of its own properties.
    fn struct_shape(&mut self, pointer: &Pointer) -> Result<Shape> {
        let shape = self.named(pointer, None)?;
        Ok(match self.base_structs.get(pointer) {
            Some(&base) => self.shape_of_def(base),
            None => shape,
        })
    }

    /// The shape of an inline schema.
    fn inline(&mut self, schema: &Schema, at: &Pointer, hint: &str) -> Result<Shape> {
        if let Some(&index) = self.by_pointer.get(at) {
            return Ok(self.shape_of_def(index));
        }
        let view = View::of(schema);
        if view.not.is_some() {
            self.lenient
                .record(Leniency::NotNotChecked, &at.push("not"));
        }
        if view.needs_named_type() {
            if let Some(shape) = self.single_all_of(&view, at)? {
                return Ok(shape);
            }
            if let Some(merged) = self.merged_scalar_all_of(schema, &view, at)? {
                return self.inline(&merged, at, hint);
            }
            let name = self.names.claim(type_name(hint));
            let index = self.reserve(name.clone(), at, schema);
            let kind = self.kind_of(schema, at, &name, false)?;
            self.defs[index].kind = kind;
            return Ok(self.shape_of_def(index));
        }
        self.plain_shape(&view, at, hint)
    }

    /// The one member of `view`'s `allOf` that says what the value is
    /// ([`sole_all_of_member`]). Object keywords beside it with no `type`
    /// of their own hold for every scalar, so they are read past when that
    /// member is a scalar (FastAPI's `{allOf: [$ref to a string enum],
    /// additionalProperties: false}`).
    fn sole_member(&self, view: &View<'_>, at: &Pointer) -> Result<Option<usize>> {
        if let Some(i) = sole_all_of_member(view) {
            return Ok(Some(i));
        }
        if view.typ.is_some() || !view.has_object_keywords() {
            return Ok(None);
        }
        let without_object_keywords = View {
            properties: &NO_PROPERTIES,
            required: &[],
            additional: None,
            min_properties: None,
            max_properties: None,
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
    fn single_all_of(&mut self, view: &View<'_>, at: &Pointer) -> Result<Option<Shape>> {
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
    fn merged_scalar_all_of(
        &self,
        schema: &Schema,
        view: &View<'_>,
        at: &Pointer,
    ) -> Result<Option<Schema>> {
        use serde_json::{Map, Value};
        // Object keywords (`properties`, `additionalProperties`) hold for
        // every value that is not an object, so beside scalar members and no
        // `type` of its own they say nothing (FastAPI's `{allOf: [$ref to a
        // string enum], additionalProperties: false}`).
        if view.all_of.is_empty()
            || (view.has_object_keywords() && view.typ.is_some())
            || !view.one_of.is_empty()
            || !view.any_of.is_empty()
        {
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
    fn all_of_non_object(
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
        let is_struct = member.one_of.is_empty()
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

    /// Takes the def for the schema at `pointer`, to be filled in, so that
    /// a schema that contains itself finds its type while it is lowered.
    fn reserve(&mut self, name: String, pointer: &Pointer, schema: &Schema) -> usize {
        let data = &schema.schema_data;
        let index = self.push_def(name, pointer, docs_of(data), data.nullable);
        self.defs[index].schema_name = pointer.component_name("schemas");
        self.by_pointer.insert(pointer.clone(), index);
        index
    }

    /// A def with nothing in it yet, from `pointer`, that no pointer names.
    fn push_def(&mut self, name: String, pointer: &Pointer, docs: Docs, nullable: bool) -> usize {
        self.defs.push(TypeDef {
            name,
            schema_name: None,
            origin: pointer.clone(),
            docs,
            kind: TypeKind::Alias(Shape::of(Ty::Any)),
            tags: Default::default(),
            in_request: false,
            in_response: false,
            has_checks: false,
        });
        self.nullable.push(nullable);
        self.defs.len() - 1
    }

    fn shape_of_def(&self, index: usize) -> Shape {
        Shape {
            ty: Ty::Named(self.defs[index].name.clone()),
            nullable: self.nullable[index],
            checks: Checks::default(),
        }
    }

    /// What the named type for `schema` is.
    fn kind_of(
        &mut self,
        schema: &Schema,
        at: &Pointer,
        name: &str,
        is_named: bool,
    ) -> Result<TypeKind> {
        let view = View::of(schema);
        if view.not.is_some() {
            // A value the rest of the schema takes and `not` excludes is
            // let through: Rust types cannot say "anything but".
            self.lenient
                .record(Leniency::NotNotChecked, &at.push("not"));
        }
        if !view.one_of.is_empty() || !view.any_of.is_empty() {
            return self.union(&view, at, name);
        }
        if !view.all_of.is_empty() {
            if let Some(kind) = self.all_of_non_object(&view, at, name)? {
                return Ok(kind);
            }
            if let Some(merged) = self.merged_scalar_all_of(schema, &view, at)? {
                return self.kind_of(&merged, at, name, is_named);
            }
            return self.all_of(&view, at, name);
        }
        if let Some(values) = view.string_enum(self.doc, at)? {
            if view.enum_as_text {
                self.lenient
                    .record(Leniency::EnumValuesAsText, &at.push("enum"));
            }
            let named = self.value_names(at, EnumRepr::String);
            return Ok(TypeKind::Enum(enum_def(&values, EnumRepr::String, &named)));
        }
        if let Some((repr, values)) = &view.scalar_enum {
            if values.is_empty() {
                return Err(self
                    .doc
                    .invalid(&at.push("enum"), "an enum needs at least one value"));
            }
            let named = self.value_names(at, *repr);
            return Ok(TypeKind::Enum(enum_def(values, *repr, &named)));
        }
        if view.is_object() && (!view.properties.is_empty() || view.denies_additional()) {
            let fields = self.fields(&[(view.clone(), at.clone())], name)?;
            return Ok(TypeKind::Struct(StructDef {
                fields,
                additional: self.additional(&view, at, name)?,
                property_count: (view.min_properties, view.max_properties),
            }));
        }
        debug_assert!(is_named, "inline plain shapes never get here");
        let shape = self.plain_shape(&view, at, name)?;
        Ok(if shape.has_own_checks() {
            TypeKind::Newtype(shape)
        } else {
            TypeKind::Alias(shape)
        })
    }

    /// Fields of one object, or of the members of an `allOf`, merged in order.
    fn fields(&mut self, members: &[(View<'_>, Pointer)], parent: &str) -> Result<Vec<Field>> {
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

    fn additional(&mut self, view: &View<'_>, at: &Pointer, name: &str) -> Result<Additional> {
        Ok(match view.additional {
            Some(AdditionalProperties::Any(false)) => Additional::Deny,
            Some(AdditionalProperties::Any(true)) => Additional::Map(Box::new(Shape::of(Ty::Any))),
            Some(AdditionalProperties::Schema(schema)) => {
                let shape = self.shape(
                    SchemaRef::from(schema.as_ref()),
                    &at.push("additionalProperties"),
                    &format!("{name}Value"),
                )?;
                Additional::Map(Box::new(shape))
            }
            None => Additional::Ignore,
        })
    }

    fn all_of(&mut self, view: &View<'_>, at: &Pointer, name: &str) -> Result<TypeKind> {
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
        Ok(TypeKind::Struct(StructDef {
            fields,
            additional: self.additional(view, at, name)?,
            property_count: (view.min_properties, view.max_properties),
        }))
    }

    /// Errors for members that cannot be merged into a struct.
    fn check_mergeable(&mut self, views: &[(View<'_>, Pointer)]) -> Result<()> {
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

    /// Object schemas merged (`views`), one of which (`union`) also has a
    /// `oneOf` or `anyOf`: what a Rust user writes by hand. `oneOf`: an enum
    /// of one struct per alternative, each with the shared properties and
    /// the alternative's. `anyOf` (any number of alternatives may hold): one
    /// struct with the shared properties and every alternative's, which are
    /// optional.
    fn distribute(
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
            return Ok(TypeKind::Struct(StructDef {
                fields,
                additional: self.additional(view, at, name)?,
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
    /// `at`) says, else as the alternative's own does.
    fn alternative_struct(
        &mut self,
        merged: &[(View<'_>, Pointer)],
        own: &(Schema, Pointer),
        view: &View<'_>,
        at: &Pointer,
        name: &str,
    ) -> Result<StructDef> {
        let fields = self.fields(merged, name)?;
        let additional = if view.additional.is_some() {
            self.additional(view, at, name)?
        } else {
            self.additional(&View::of(&own.0), &own.1, name)?
        };
        Ok(StructDef {
            fields,
            additional,
            property_count: (view.min_properties, view.max_properties),
        })
    }

    /// Flattens nested `allOf`s and `$ref`s into the list of object schemas to
    /// merge, each without its own `allOf`.
    fn collect_all_of(
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

    fn union(&mut self, view: &View<'_>, at: &Pointer, name: &str) -> Result<TypeKind> {
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
    fn tagging(
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
    fn untagged_or_distinguished(
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
    fn distinguishing_property(
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

    /// Arrays, maps and primitives, which need no type of their own.
    fn plain_shape(&mut self, view: &View<'_>, at: &Pointer, hint: &str) -> Result<Shape> {
        let mut checks = view.checks(self.doc, at, &mut self.lenient)?;
        if let Some(example) = &view.data.example {
            if !view.example_fits(example) {
                self.lenient
                    .record(Leniency::ExampleOfAnotherType, &at.push("example"));
            }
        }
        let ty = match view.typ {
            Some("array") => {
                let Some(items) = view.items else {
                    // Published documents do this; JSON Schema allows any items.
                    self.lenient.record(Leniency::ArrayWithoutItems, at);
                    return Ok(Shape {
                        ty: Ty::Array(Box::new(Shape::of(Ty::Any))),
                        nullable: view.data.nullable,
                        checks,
                    });
                };
                let item = self.shape(
                    SchemaRef::from(items),
                    &at.push("items"),
                    &format!("{hint}Item"),
                )?;
                Ty::Array(Box::new(item))
            }
            Some("string") => {
                let primitive = match view.format.as_deref() {
                    Some("date-time") => Primitive::DateTime,
                    Some("date") => Primitive::Date,
                    Some("uuid") => Primitive::Uuid,
                    Some("binary") => Primitive::Binary,
                    Some("email") => {
                        checks.email = true;
                        Primitive::String
                    }
                    _ => Primitive::String,
                };
                Ty::Primitive(primitive)
            }
            Some("integer") => Ty::Primitive(match view.format.as_deref() {
                Some("int8") => Primitive::I8,
                Some("int16") => Primitive::I16,
                Some("int32") => Primitive::I32,
                Some("uint8") => Primitive::U8,
                Some("uint16") => Primitive::U16,
                Some("uint32") => Primitive::U32,
                Some("uint64" | "uint") => Primitive::U64,
                _ => Primitive::I64,
            }),
            Some("number") => Ty::Primitive(match view.format.as_deref() {
                Some("float") => Primitive::F32,
                _ => Primitive::F64,
            }),
            Some("boolean") => Ty::Primitive(Primitive::Bool),
            Some("object") | None if view.is_object() => match view.additional {
                Some(AdditionalProperties::Schema(schema)) => {
                    let value = self.shape(
                        SchemaRef::from(schema.as_ref()),
                        &at.push("additionalProperties"),
                        &format!("{hint}Value"),
                    )?;
                    Ty::Map(Box::new(value))
                }
                _ => Ty::Map(Box::new(Shape::of(Ty::Any))),
            },
            None if view.only_null => Ty::Primitive(Primitive::Null),
            None => Ty::Any,
            Some(other) => {
                return Err(self.doc.invalid(
                    &at.push("type"),
                    format!("`{other}` is not a JSON Schema type"),
                ));
            }
        };
        Ok(Shape {
            ty,
            nullable: view.data.nullable,
            checks,
        })
    }
}

/// The index of the one `allOf` member of `view` that says what the value
/// is, when the schema itself adds no properties and every other member
/// only annotates.
fn sole_all_of_member(view: &View<'_>) -> Option<usize> {
    // `oneOf: [{}]` beside the `allOf` says nothing more (progenitor writes it).
    let says_nothing = |members: &[ReferenceOr<Schema>]| {
        members
            .iter()
            .all(|m| matches!(m, ReferenceOr::Item(s) if View::of(s).only_annotates()))
    };
    if view.has_object_keywords() || !says_nothing(view.one_of) || !says_nothing(view.any_of) {
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

/// A label for a union member: the name its `$ref` points at, or what
/// [`variant_label`] finds in it.
fn member_label(member: &ReferenceOr<Schema>, index: usize) -> String {
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

/// The enum of `values` (wire texts): a variant is named as `named` (an
/// extension's names and meanings, by wire text) says, or else by its value.
fn enum_def(values: &[String], repr: EnumRepr, named: &HashMap<String, ValueName>) -> EnumDef {
    let mut names = Namespace::default();
    // A value listed twice is one value (published documents do this).
    let mut seen = std::collections::HashSet::new();
    EnumDef {
        variants: values
            .iter()
            .filter(|wire| seen.insert(wire.as_str()))
            .map(|wire| {
                let given = named.get(wire);
                // `-1.5` → `Minus1Point5`; strings keep their own spelling.
                let spoken = match (given.and_then(|g| g.name.as_deref()), repr) {
                    (Some(name), _) => name.to_owned(),
                    (None, EnumRepr::String) => wire.clone(),
                    (None, _) => wire.replace('-', "minus ").replace('.', " point "),
                };
                EnumVariant {
                    name: names.claim(type_name(&spoken)),
                    wire: wire.clone(),
                    description: given.and_then(|g| g.description.clone()),
                }
            })
            .collect(),
        repr,
        open: false,
    }
}

/// The wire text of an enum value (as JSON), written as the enum's values
/// are (`i64`, or [`number_text`] for numbers).
fn json_wire_text(value: &serde_json::Value, repr: EnumRepr) -> Option<String> {
    match (value, repr) {
        (serde_json::Value::String(text), EnumRepr::String) => Some(text.clone()),
        (serde_json::Value::Number(n), EnumRepr::Integer) => n.as_i64().map(|n| n.to_string()),
        (serde_json::Value::Number(n), EnumRepr::Number) => n.as_f64().map(number_text),
        (serde_json::Value::Bool(b), EnumRepr::Boolean) => Some(b.to_string()),
        _ => None,
    }
}

/// The JSON text of a number enum's value: integral values without `.0`.
fn number_text(value: f64) -> String {
    // Every integral value below 2^63 is an `i64` exactly; serde_json would
    // write those from 1e15 to 1e16 with `.0` (`1000000000000000.0`).
    if value.fract() == 0.0 && value.abs() < I64_END {
        format!("{}", value as i64)
    } else {
        serde_json::Number::from_f64(value).map_or_else(|| value.to_string(), |n| n.to_string())
    }
}

/// 2^63: where `i64` ends (`as i64` saturates there).
const I64_END: f64 = 9_223_372_036_854_775_808.0;

/// The type and JSON texts of an enum of numbers or booleans (nulls dropped:
/// they make the type nullable); `None` when the values mix types.
fn scalar_enum_of(
    values: &[serde_json::Value],
    typ: Option<&str>,
) -> Option<(EnumRepr, Vec<String>)> {
    let values: Vec<&serde_json::Value> = values.iter().filter(|v| !v.is_null()).collect();
    if values.iter().all(|v| v.is_boolean()) && typ.is_none_or(|t| t == "boolean") {
        return Some((
            EnumRepr::Boolean,
            values.iter().map(|v| v.to_string()).collect(),
        ));
    }
    if values.iter().all(|v| v.is_i64()) && typ.is_none_or(|t| t == "integer" || t == "number") {
        let repr = if typ == Some("number") {
            EnumRepr::Number
        } else {
            EnumRepr::Integer
        };
        return Some((repr, values.iter().map(|v| v.to_string()).collect()));
    }
    if values.iter().all(|v| v.is_number()) && typ.is_none_or(|t| t == "number") {
        let texts = values
            .iter()
            .filter_map(|v| v.as_f64())
            .map(number_text)
            .collect();
        return Some((EnumRepr::Number, texts));
    }
    None
}

/// Folds one keyword of an `allOf` member into the scalar schema `merged`
/// (see `merged_scalar_all_of`): the tighter of two bounds, `nullable` when
/// either says so, the first annotation; `false` when it cannot be merged
/// (a second `type`, `pattern`, `format`, `enum` or `multipleOf` that
/// differs, an exclusive bound, structure).
fn fold_scalar_keyword(
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
        match merged.get(&key).map(Value::as_f64) {
            Some(None) => false,
            Some(Some(old)) if !tighter(new, old) => true,
            _ => {
                merged.insert(key, value);
                true
            }
        }
    };
    match key.as_str() {
        "nullable" => {
            let nullable = merged.get("nullable") == Some(&Value::Bool(true));
            merged.insert(key, Value::Bool(nullable || value == Value::Bool(true)));
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

/// A property that merged object schemas require, declare nowhere and
/// cannot hold (one of them has `additionalProperties: false`), with where
/// it is required: no value can match them.
fn unmatchable_requirement<'v>(
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

/// Whether an enum's values are all objects, or all arrays, of the
/// schema's type (nulls aside): read as that type, its values not checked
/// against the list ([`Leniency::StructureEnumNotChecked`]).
fn structure_enum_of(values: &[serde_json::Value], typ: Option<&str>) -> bool {
    let values: Vec<&serde_json::Value> = values.iter().filter(|v| !v.is_null()).collect();
    let all = |kind: fn(&serde_json::Value) -> bool, name: &str| {
        values.iter().all(|v| kind(v)) && typ.is_none_or(|t| t == name)
    };
    !values.is_empty()
        && (all(serde_json::Value::is_object, "object")
            || all(serde_json::Value::is_array, "array"))
}

fn hint_from_pointer(pointer: &Pointer) -> String {
    let tokens: Vec<String> = pointer.tokens().collect();
    let interesting: Vec<&String> = tokens
        .iter()
        .rev()
        .filter(|t| {
            !matches!(
                t.as_str(),
                "properties"
                    | "schema"
                    | "content"
                    | "items"
                    | "allOf"
                    | "oneOf"
                    | "anyOf"
                    | "components"
                    | "schemas"
            )
        })
        .filter(|t| !t.contains('/'))
        .take(2)
        .collect();
    let joined: Vec<&str> = interesting.iter().rev().map(|s| s.as_str()).collect();
    type_name(&joined.join(" "))
}

pub(crate) fn docs_of(data: &SchemaData) -> Docs {
    // `description: ""` says nothing: the generated code documents it as if absent.
    let said = |text: &Option<String>| text.clone().filter(|t| !t.trim().is_empty());
    Docs {
        title: said(&data.title),
        description: said(&data.description),
        example: data.example.clone(),
        deprecated: data.deprecated,
    }
}

/// Which messages carry a property of this schema (`readOnly` wins when a
/// schema says both, which OpenAPI forbids).
fn access_of(data: &SchemaData) -> Access {
    if data.read_only {
        Access::ReadOnly
    } else if data.write_only {
        Access::WriteOnly
    } else {
        Access::ReadWrite
    }
}

/// One view over `openapiv3`'s two ways of holding a schema (`Type` and `Any`).
#[derive(Clone)]
pub(crate) struct View<'s> {
    pub data: &'s SchemaData,
    pub typ: Option<&'s str>,
    pub format: Option<String>,
    pub string_enum: Option<Vec<Option<String>>>,
    /// An enum of integers, numbers or booleans: their type and JSON texts.
    pub scalar_enum: Option<(EnumRepr, Vec<String>)>,
    /// An enum whose values mix types, or do not fit the schema's type.
    pub other_enum: bool,
    /// An enum of objects or of arrays: read as the schema's type, the
    /// values not checked against the list (noted as lenient).
    pub structure_enum: bool,
    /// A `type: string` enum with values of other types (`enum: [1, 2]`):
    /// its numbers and booleans read as their text, its objects and arrays
    /// left out (noted as lenient).
    pub enum_as_text: bool,
    /// `enum: [null]` without a `type`: the value is always null.
    pub only_null: bool,
    pub properties: &'s IndexMap<String, ReferenceOr<Box<Schema>>>,
    pub required: &'s [String],
    pub additional: Option<&'s AdditionalProperties>,
    pub min_properties: Option<usize>,
    pub max_properties: Option<usize>,
    pub items: Option<&'s ReferenceOr<Box<Schema>>>,
    pub min_items: Option<usize>,
    pub max_items: Option<usize>,
    pub unique_items: bool,
    pub min_length: Option<usize>,
    pub max_length: Option<usize>,
    pub pattern: Option<&'s str>,
    pub minimum: Option<(f64, bool)>,
    pub maximum: Option<(f64, bool)>,
    pub multiple_of: Option<f64>,
    pub one_of: &'s [ReferenceOr<Schema>],
    pub all_of: &'s [ReferenceOr<Schema>],
    pub any_of: &'s [ReferenceOr<Schema>],
    pub not: Option<&'s ReferenceOr<Schema>>,
}

static NO_PROPERTIES: std::sync::LazyLock<IndexMap<String, ReferenceOr<Box<Schema>>>> =
    std::sync::LazyLock::new(IndexMap::new);

impl<'s> View<'s> {
    pub fn of(schema: &'s Schema) -> Self {
        let data = &schema.schema_data;
        let mut view = View {
            data,
            typ: None,
            format: None,
            string_enum: None,
            scalar_enum: None,
            other_enum: false,
            structure_enum: false,
            enum_as_text: false,
            only_null: false,
            properties: &NO_PROPERTIES,
            required: &[],
            additional: None,
            min_properties: None,
            max_properties: None,
            items: None,
            min_items: None,
            max_items: None,
            unique_items: false,
            min_length: None,
            max_length: None,
            pattern: None,
            minimum: None,
            maximum: None,
            multiple_of: None,
            one_of: &[],
            all_of: &[],
            any_of: &[],
            not: None,
        };
        // A typed `enum` of `null` alone (ideal-postcodes' `{type: boolean,
        // nullable: true, enum: [null]}`) lists no value of the type: it is
        // read as the type, as a string's is.
        match &schema.schema_kind {
            SchemaKind::Type(Type::String(s)) => {
                view.typ = Some("string");
                view.format = format_name(&s.format);
                view.string_enum = (s.enumeration.is_empty()
                    || s.enumeration.iter().any(Option::is_some))
                .then(|| s.enumeration.clone())
                .filter(|values| !values.is_empty());
                view.min_length = s.min_length;
                view.max_length = s.max_length;
                view.pattern = s.pattern.as_deref();
            }
            SchemaKind::Type(Type::Number(n)) => {
                view.typ = Some("number");
                view.format = format_name(&n.format);
                view.scalar_enum = n.enumeration.iter().any(Option::is_some).then(|| {
                    let texts = n.enumeration.iter().flatten().map(|v| number_text(*v));
                    (EnumRepr::Number, texts.collect())
                });
                view.minimum = n.minimum.map(|m| (m, n.exclusive_minimum));
                view.maximum = n.maximum.map(|m| (m, n.exclusive_maximum));
                view.multiple_of = n.multiple_of;
            }
            SchemaKind::Type(Type::Integer(n)) => {
                view.typ = Some("integer");
                view.format = format_name(&n.format);
                view.scalar_enum = n.enumeration.iter().any(Option::is_some).then(|| {
                    let texts = n.enumeration.iter().flatten().map(i64::to_string);
                    (EnumRepr::Integer, texts.collect())
                });
                view.minimum = n.minimum.map(|m| (m as f64, n.exclusive_minimum));
                view.maximum = n.maximum.map(|m| (m as f64, n.exclusive_maximum));
                view.multiple_of = n.multiple_of.map(|m| m as f64);
            }
            SchemaKind::Type(Type::Boolean(b)) => {
                view.typ = Some("boolean");
                view.scalar_enum = b.enumeration.iter().any(Option::is_some).then(|| {
                    let texts = b.enumeration.iter().flatten().map(bool::to_string);
                    (EnumRepr::Boolean, texts.collect())
                });
            }
            SchemaKind::Type(Type::Object(o)) => {
                view.typ = Some("object");
                view.properties = &o.properties;
                view.required = &o.required;
                view.additional = o.additional_properties.as_ref();
                view.min_properties = o.min_properties;
                view.max_properties = o.max_properties;
            }
            SchemaKind::Type(Type::Array(a)) => {
                view.typ = Some("array");
                view.items = a.items.as_ref();
                view.min_items = a.min_items;
                view.max_items = a.max_items;
                view.unique_items = a.unique_items;
            }
            SchemaKind::OneOf { one_of } => view.one_of = one_of,
            SchemaKind::AllOf { all_of } => view.all_of = all_of,
            SchemaKind::AnyOf { any_of } => view.any_of = any_of,
            SchemaKind::Not { not } => view.not = Some(not),
            SchemaKind::Any(any) => {
                view.typ = any.typ.as_deref();
                view.format = any.format.clone();
                // `enum: [null]` says the value is always null (`only_null`).
                view.only_null =
                    !any.enumeration.is_empty() && any.enumeration.iter().all(|v| v.is_null());
                if !any.enumeration.is_empty() && !view.only_null {
                    if any.enumeration.iter().all(|v| v.is_string() || v.is_null()) {
                        view.string_enum = Some(
                            any.enumeration
                                .iter()
                                .map(|v| v.as_str().map(str::to_owned))
                                .collect(),
                        );
                    } else if view.typ == Some("string") {
                        // The type wins: `enum: [1, 2]` on a string means "1" and "2".
                        view.string_enum = Some(
                            any.enumeration
                                .iter()
                                .filter_map(|v| match v {
                                    serde_json::Value::String(text) => Some(Some(text.clone())),
                                    serde_json::Value::Null => Some(None),
                                    serde_json::Value::Number(_) | serde_json::Value::Bool(_) => {
                                        Some(Some(v.to_string()))
                                    }
                                    _ => None,
                                })
                                .collect(),
                        );
                        view.enum_as_text = true;
                    } else {
                        view.scalar_enum = scalar_enum_of(&any.enumeration, view.typ);
                        let structures = structure_enum_of(&any.enumeration, view.typ);
                        view.structure_enum = view.scalar_enum.is_none() && structures;
                        view.other_enum = view.scalar_enum.is_none() && !structures;
                    }
                }
                view.properties = &any.properties;
                view.required = &any.required;
                view.additional = any.additional_properties.as_ref();
                view.min_properties = any.min_properties;
                view.max_properties = any.max_properties;
                view.items = any.items.as_ref();
                view.min_items = any.min_items;
                view.max_items = any.max_items;
                view.unique_items = any.unique_items.unwrap_or(false);
                view.min_length = any.min_length;
                view.max_length = any.max_length;
                view.pattern = any.pattern.as_deref();
                view.minimum = any
                    .minimum
                    .map(|m| (m, any.exclusive_minimum.unwrap_or(false)));
                view.maximum = any
                    .maximum
                    .map(|m| (m, any.exclusive_maximum.unwrap_or(false)));
                view.multiple_of = any.multiple_of;
                view.one_of = &any.one_of;
                view.all_of = &any.all_of;
                view.any_of = &any.any_of;
                view.not = any.not.as_deref();
                if view.typ.is_none() && view.items.is_some() {
                    view.typ = Some("array");
                }
            }
        }
        view
    }

    /// Whether the schema says nothing about the value: no type, no
    /// keyword that constrains it (a description, a title, an example).
    pub fn only_annotates(&self) -> bool {
        self.typ.is_none()
            && !self.has_object_keywords()
            && self.items.is_none()
            && self.string_enum.is_none()
            && self.scalar_enum.is_none()
            && !self.other_enum
            && !self.structure_enum
            && !self.only_null
            && self.one_of.is_empty()
            && self.all_of.is_empty()
            && self.any_of.is_empty()
            && self.not.is_none()
            && self.format.is_none()
            && self.pattern.is_none()
            && (self.min_length, self.max_length) == (None, None)
            && (self.minimum, self.maximum, self.multiple_of) == (None, None, None)
    }

    /// Whether this says only a scalar `type` (`{type: string}`), with
    /// annotations and `nullable`.
    pub fn restates_scalar_type(&self) -> bool {
        matches!(self.typ, Some("string" | "integer" | "number" | "boolean"))
            && View {
                typ: None,
                ..self.clone()
            }
            .only_annotates()
    }

    /// Whether the schema is an object (said so, or implied by object keywords).
    pub fn is_object(&self) -> bool {
        self.typ == Some("object") || (self.typ.is_none() && self.has_object_keywords())
    }

    pub fn has_object_keywords(&self) -> bool {
        !self.properties.is_empty() || self.additional.is_some() || !self.required.is_empty()
    }

    pub fn is_object_like(&self) -> bool {
        self.typ.is_none_or(|t| t == "object")
    }

    pub fn denies_additional(&self) -> bool {
        matches!(self.additional, Some(AdditionalProperties::Any(false)))
    }

    /// Whether this schema needs a named type when it appears inline.
    pub fn needs_named_type(&self) -> bool {
        !self.one_of.is_empty()
            || !self.any_of.is_empty()
            || !self.all_of.is_empty()
            || self.string_enum.is_some()
            || self.scalar_enum.is_some()
            || (self.is_object() && (!self.properties.is_empty() || self.denies_additional()))
    }

    /// The values of a string enum (null dropped: it makes the type nullable).
    pub fn string_enum(&self, doc: &Document, at: &Pointer) -> Result<Option<Vec<String>>> {
        let Some(values) = &self.string_enum else {
            return Ok(None);
        };
        let values: Vec<String> = values.iter().flatten().cloned().collect();
        if values.is_empty() {
            return Err(doc.invalid(&at.push("enum"), "an enum needs at least one value"));
        }
        Ok(Some(values))
    }

    /// Whether `example` has the JSON type the schema says.
    pub fn example_fits(&self, example: &serde_json::Value) -> bool {
        if example.is_null() {
            return self.data.nullable || self.typ.is_none();
        }
        match self.typ {
            Some("string") => example.is_string(),
            Some("integer") => example.is_i64() || example.is_u64(),
            Some("number") => example.is_number(),
            Some("boolean") => example.is_boolean(),
            Some("array") => example.is_array(),
            Some("object") => example.is_object(),
            _ => true,
        }
    }

    /// The constraints on this schema's own value; a pattern the generated
    /// code cannot compile is left unchecked, recorded in `lenient`.
    pub fn checks(&self, doc: &Document, at: &Pointer, lenient: &mut Lenient) -> Result<Checks> {
        if self.structure_enum {
            lenient.record(Leniency::StructureEnumNotChecked, &at.push("enum"));
        }
        // Values of several types, or not of the schema's (`type: boolean,
        // enum: ["0", "1", true, false]`, as image-charts has): the schema's
        // type, or any value without one; the list is not checked.
        if self.other_enum {
            lenient.record(Leniency::MixedEnumNotChecked, &at.push("enum"));
        }
        let error_code = match self.data.extensions.get("x-error-code") {
            None => None,
            Some(serde_json::Value::String(code)) => Some(code.clone()),
            Some(_) => {
                return Err(
                    doc.invalid(&at.push("x-error-code"), "`x-error-code` must be a string")
                );
            }
        };
        // Checked now, so that the generated validator can never fail to
        // build it: what regex-lite cannot compile (look-around,
        // backreferences, some classes) is not checked, and the note says where.
        let pattern = self.pattern.filter(|pattern| {
            let compiles = regex_lite::Regex::new(pattern).is_ok();
            if !compiles {
                lenient.record(Leniency::PatternNotChecked, &at.push("pattern"));
            }
            compiles
        });
        // A keyword applies to values of its type only (`maxLength` beside
        // `type: array` says nothing about the array).
        let applies = |types: &[&str]| self.typ.is_none_or(|t| types.contains(&t));
        let (text, number, array) = (
            applies(&["string"]),
            applies(&["number", "integer"]),
            applies(&["array"]),
        );
        Ok(Checks {
            min_length: self.min_length.filter(|&n| n > 0 && text),
            max_length: self.max_length.filter(|_| text),
            pattern: pattern.filter(|_| text).map(str::to_owned),
            email: text && self.format.as_deref() == Some("email"),
            minimum: self.minimum.filter(|_| number),
            maximum: self.maximum.filter(|_| number),
            multiple_of: self.multiple_of.filter(|_| number),
            min_items: self.min_items.filter(|&n| n > 0 && array),
            max_items: self.max_items.filter(|_| array),
            unique_items: self.unique_items && array,
            error_code,
        })
    }
}

fn format_name<T: FormatName>(format: &openapiv3::VariantOrUnknownOrEmpty<T>) -> Option<String> {
    match format {
        openapiv3::VariantOrUnknownOrEmpty::Item(item) => Some(item.name().to_owned()),
        openapiv3::VariantOrUnknownOrEmpty::Unknown(other) => Some(other.clone()),
        openapiv3::VariantOrUnknownOrEmpty::Empty => None,
    }
}

/// The name a format has in the document.
trait FormatName {
    fn name(&self) -> &'static str;
}

impl FormatName for openapiv3::StringFormat {
    fn name(&self) -> &'static str {
        match self {
            openapiv3::StringFormat::Date => "date",
            openapiv3::StringFormat::DateTime => "date-time",
            openapiv3::StringFormat::Password => "password",
            openapiv3::StringFormat::Byte => "byte",
            openapiv3::StringFormat::Binary => "binary",
        }
    }
}

impl FormatName for openapiv3::NumberFormat {
    fn name(&self) -> &'static str {
        match self {
            openapiv3::NumberFormat::Float => "float",
            openapiv3::NumberFormat::Double => "double",
        }
    }
}

impl FormatName for openapiv3::IntegerFormat {
    fn name(&self) -> &'static str {
        match self {
            openapiv3::IntegerFormat::Int32 => "int32",
            openapiv3::IntegerFormat::Int64 => "int64",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Api;

    use crate::lower::testing;

    /// The document whose `components.schemas` is `schemas` (YAML, indented
    /// by four spaces) lowered.
    fn api(schemas: &str) -> Api {
        testing::api(&components(schemas))
    }

    /// The error lowering `schemas` gives.
    fn error(schemas: &str) -> String {
        testing::error(&components(schemas))
    }

    fn components(schemas: &str) -> String {
        format!("paths: {{}}\ncomponents:\n  schemas:\n{schemas}")
    }

    /// The fields of the struct `name` is, or stands for (an inline copy
    /// of another is its alias: `lower::shared_shapes`).
    fn fields<'a>(api: &'a Api, name: &str) -> &'a [Field] {
        match kind(api, name) {
            TypeKind::Struct(def) => &def.fields,
            TypeKind::Alias(Shape {
                ty: Ty::Named(first),
                ..
            }) => fields(api, first),
            other => panic!("{name} is {other:?}"),
        }
    }

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
            ]
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

    /// An example of another JSON type than its schema's is noted (the
    /// docs show it as given); one of the schema's type is not. `null`
    /// fits a nullable schema or one without a type; an integer may be
    /// above `i64::MAX`.
    #[test]
    fn an_example_fits_when_it_has_its_schemas_json_type() {
        let cases = [
            ("{type: string}", "\"a\"", "1"),
            ("{type: integer}", "18446744073709551615", "1.5"),
            ("{type: integer}", "-1", "\"1\""),
            ("{type: number}", "1.5", "\"1.5\""),
            ("{type: boolean}", "true", "1"),
            ("{type: array}", "[]", "{}"),
            ("{type: object}", "{}", "[]"),
            ("{type: string, nullable: true}", "null", "[]"),
            ("{description: anything}", "null", "null"),
            ("{type: string}", "\"b\"", "null"),
        ];
        for (schema, fits, other) in cases {
            let schema: Schema = serde_yaml::from_str(schema).unwrap();
            let view = View::of(&schema);
            let fits_value: serde_json::Value = serde_json::from_str(fits).unwrap();
            let other_value: serde_json::Value = serde_json::from_str(other).unwrap();
            assert!(view.example_fits(&fits_value), "{fits} for {schema:?}");
            if fits != other {
                assert!(!view.example_fits(&other_value), "{other} for {schema:?}");
            }
        }
    }

    /// A schema whose keywords check its value is a newtype that checks
    /// them; `minLength: 0` and `minItems: 0` check nothing, nor does a
    /// keyword of another type (`maxLength` beside `type: array`), so
    /// those are plain aliases.
    #[test]
    fn only_keywords_that_can_refuse_a_value_make_checks() {
        let api = api(concat!(
            "    AnyLength: {type: string, minLength: 0}\n",
            "    NotEmpty: {type: string, minLength: 1}\n",
            "    AnyCount: {type: array, items: {type: string}, minItems: 0}\n",
            "    SomeItems: {type: array, items: {type: string}, minItems: 1}\n",
            "    ListWithMaxLength: {type: array, items: {type: string}, maxLength: 3}\n",
            "    TextWithMaximum: {type: string, maximum: 3}\n",
        ));
        let newtypes: Vec<(&str, bool)> = [
            "AnyLength",
            "NotEmpty",
            "AnyCount",
            "SomeItems",
            "ListWithMaxLength",
            "TextWithMaximum",
        ]
        .into_iter()
        .map(|name| (name, matches!(kind(&api, name), TypeKind::Newtype(_))))
        .collect();
        assert_eq!(
            newtypes,
            [
                ("AnyLength", false),
                ("NotEmpty", true),
                ("AnyCount", false),
                ("SomeItems", true),
                ("ListWithMaxLength", false),
                ("TextWithMaximum", false),
            ]
        );
    }

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

    /// Each format is the Rust type that holds exactly its values: a
    /// `uint16` is a `u16`, not an `i64` that takes what the API refuses.
    #[test]
    fn each_format_is_its_rust_type() {
        let api = api(concat!(
            "    F:\n      type: object\n      properties:\n",
            "        i8: {type: integer, format: int8}\n",
            "        i16: {type: integer, format: int16}\n",
            "        i32: {type: integer, format: int32}\n",
            "        i64: {type: integer, format: int64}\n",
            "        u8: {type: integer, format: uint8}\n",
            "        u16: {type: integer, format: uint16}\n",
            "        u32: {type: integer, format: uint32}\n",
            "        u64: {type: integer, format: uint64}\n",
            "        uint: {type: integer, format: uint}\n",
            "        f32: {type: number, format: float}\n",
            "        f64: {type: number, format: double}\n",
            "        date: {type: string, format: date}\n",
            "        time: {type: string, format: date-time}\n",
            "        id: {type: string, format: uuid}\n",
            "        file: {type: string, format: binary}\n",
        ));
        let types: Vec<(&str, &Ty)> = fields(&api, "F")
            .iter()
            .map(|f| (f.wire.as_str(), &f.shape.ty))
            .collect();
        let p = Ty::Primitive;
        assert_eq!(
            types,
            [
                ("i8", &p(Primitive::I8)),
                ("i16", &p(Primitive::I16)),
                ("i32", &p(Primitive::I32)),
                ("i64", &p(Primitive::I64)),
                ("u8", &p(Primitive::U8)),
                ("u16", &p(Primitive::U16)),
                ("u32", &p(Primitive::U32)),
                ("u64", &p(Primitive::U64)),
                ("uint", &p(Primitive::U64)),
                ("f32", &p(Primitive::F32)),
                ("f64", &p(Primitive::F64)),
                ("date", &p(Primitive::Date)),
                ("time", &p(Primitive::DateTime)),
                ("id", &p(Primitive::Uuid)),
                ("file", &p(Primitive::Binary)),
            ]
        );
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

    /// A number enum's value is written as JSON writes it, an integral
    /// value without `.0` however large, and never as another number:
    /// from 2^63 on (past `i64`) in exponent form.
    #[test]
    fn a_number_value_is_written_as_its_exact_json_text() {
        let texts: Vec<String> = [1.0, -2.0, 1.5, 1e15, 4e15, 1e18, -1e18, I64_END]
            .into_iter()
            .map(number_text)
            .collect();
        assert_eq!(
            texts,
            [
                "1",
                "-2",
                "1.5",
                "1000000000000000",
                "4000000000000000",
                "1000000000000000000",
                "-1000000000000000000",
                "9.223372036854776e+18",
            ]
        );
    }

    /// An enum of numbers or booleans is read by its values and its
    /// `type`, also when a keyword of another type beside them (`maxLength`
    /// beside `type: integer`, as published documents have) makes
    /// `openapiv3` hold it untyped; values that are not of its `type` are
    /// no enum of it (`other_enum`: read as its type, the list unchecked).
    #[test]
    fn reads_an_enum_of_numbers_or_booleans_by_its_values_and_type() {
        let cases = [
            (
                "{type: integer, enum: [1, 2], maxLength: 2}",
                Some((EnumRepr::Integer, vec!["1", "2"])),
            ),
            (
                "{type: number, enum: [1, 2], maxLength: 2}",
                Some((EnumRepr::Number, vec!["1", "2"])),
            ),
            (
                "{type: number, enum: [1.5, 2], maxLength: 2}",
                Some((EnumRepr::Number, vec!["1.5", "2"])),
            ),
            (
                "{type: boolean, enum: [true, false], maxLength: 2}",
                Some((EnumRepr::Boolean, vec!["true", "false"])),
            ),
            ("{enum: [1, 2]}", Some((EnumRepr::Integer, vec!["1", "2"]))),
            (
                "{enum: [true, null]}",
                Some((EnumRepr::Boolean, vec!["true"])),
            ),
            ("{type: integer, enum: [1.5], maxLength: 2}", None),
            ("{type: integer, enum: [true], maxLength: 2}", None),
            ("{type: boolean, enum: [1], maxLength: 2}", None),
        ];
        for (schema, expected) in cases {
            let parsed: Schema = serde_yaml::from_str(schema).unwrap();
            let view = View::of(&parsed);
            let read = view
                .scalar_enum
                .as_ref()
                .map(|(repr, texts)| (*repr, texts.iter().map(String::as_str).collect::<Vec<_>>()));
            assert_eq!(read, expected, "{schema}");
            assert_eq!(view.other_enum, read.is_none(), "{schema}");
        }
    }

    /// A `type: string` enum with values of other types is a string enum:
    /// numbers and booleans as their text, objects and arrays left out,
    /// noted (`enum_as_text`).
    #[test]
    fn reads_a_string_enum_with_values_of_other_types_as_text() {
        let cases = [
            ("{type: string, enum: [1, 2]}", vec![Some("1"), Some("2")]),
            (
                "{type: string, enum: [true, false, null]}",
                vec![Some("true"), Some("false"), None],
            ),
            (
                "{type: string, enum: [none, 1, [a, b], {x: 1}]}",
                vec![Some("none"), Some("1")],
            ),
            ("{type: string, enum: [{}]}", vec![]),
        ];
        for (schema, expected) in cases {
            let parsed: Schema = serde_yaml::from_str(schema).unwrap();
            let view = View::of(&parsed);
            let read: Vec<Option<&str>> = view
                .string_enum
                .iter()
                .flatten()
                .map(Option::as_deref)
                .collect();
            assert_eq!(read, expected, "{schema}");
            assert!(view.enum_as_text && !view.other_enum, "{schema}");
        }
    }

    /// An enum of objects or of arrays of the schema's type is read as
    /// that type, noted; one that mixes them, or whose values are not of
    /// its type, is `other_enum` (read as its type, the list unchecked).
    #[test]
    fn reads_an_enum_of_objects_or_arrays_as_its_type() {
        let cases = [
            ("{type: object, enum: [{}]}", true),
            ("{enum: [{a: 1}, null]}", true),
            ("{type: array, enum: [[1], []]}", true),
            ("{enum: [[1]]}", true),
            ("{type: object, enum: [[1]]}", false),
            ("{type: array, enum: [{}]}", false),
            ("{enum: [{}, [1]]}", false),
            ("{enum: [{}, 1]}", false),
        ];
        for (schema, structure) in cases {
            let parsed: Schema = serde_yaml::from_str(schema).unwrap();
            let view = View::of(&parsed);
            assert_eq!(view.structure_enum, structure, "{schema}");
            assert_eq!(view.other_enum, !structure, "{schema}");
            assert!(!view.only_annotates(), "{schema}");
        }
    }

    /// A schema only annotates (an `allOf` member that documents the
    /// other, a `oneOf: [{}]` that says nothing) when it has no keyword
    /// that says anything of the value: any one of them is enough.
    #[test]
    fn a_schema_only_annotates_when_no_keyword_says_what_the_value_is() {
        let annotates = |yaml: &str| {
            let schema: Schema = serde_yaml::from_str(yaml).unwrap();
            View::of(&schema).only_annotates()
        };
        assert!(annotates(
            "{description: d, title: t, example: 1, deprecated: true}"
        ));
        let saying = [
            "{type: string}",
            "{properties: {a: {}}}",
            "{required: [a]}",
            "{additionalProperties: false}",
            "{items: {}}",
            "{enum: [a]}",
            "{enum: [1]}",
            "{enum: [1, a]}",
            "{enum: [null]}",
            "{oneOf: [{}]}",
            "{allOf: [{}]}",
            "{anyOf: [{}]}",
            "{not: {}}",
            "{format: uuid}",
            "{pattern: a}",
            "{minLength: 1}",
            "{maxLength: 1}",
            "{minimum: 1}",
            "{maximum: 1}",
            "{multipleOf: 2}",
        ];
        let wrong: Vec<&str> = saying.into_iter().filter(|yaml| annotates(yaml)).collect();
        assert!(wrong.is_empty(), "read as only annotating: {wrong:?}");
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

    /// A typed `enum` of `null` alone lists no value of its type: the
    /// type, nullable (ideal-postcodes' `catchall`), as for a string.
    #[test]
    fn a_typed_enum_of_null_alone_is_its_nullable_type() {
        let api = api(concat!(
            "    B: {type: boolean, nullable: true, enum: [null]}\n",
            "    I: {type: integer, nullable: true, enum: [null]}\n",
        ));
        for (name, primitive) in [("B", Primitive::Bool), ("I", Primitive::I64)] {
            assert!(
                matches!(kind(&api, name), TypeKind::Alias(shape)
                    if shape.ty == Ty::Primitive(primitive) && shape.nullable),
                "{name}: {:?}",
                kind(&api, name)
            );
        }
    }

    /// `not` says what a value may not be, which a Rust type cannot: the
    /// schema is read without it (a bare `not` is any value), with a note
    /// that names the first place, whether it stands beside properties, on
    /// its own, or in a member of an `allOf`.
    #[test]
    fn a_not_schema_is_read_without_it_and_noted() {
        let api = api(concat!(
            "    Pair: {type: object, properties: {a: {type: string}, b: {type: string}}, not: {required: [a, b]}}\n",
            "    Word: {type: string, not: {enum: ['']}}\n",
            "    Other: {not: {type: string}}\n",
            "    Merged: {allOf: [{type: object, properties: {c: {type: integer}}, not: {type: string}}]}\n",
        ));
        let names =
            |name| -> Vec<&str> { fields(&api, name).iter().map(|f| f.wire.as_str()).collect() };
        assert_eq!(names("Pair"), ["a", "b"]);
        assert_eq!(names("Merged"), ["c"]);
        assert!(
            matches!(kind(&api, "Word"), TypeKind::Alias(shape) if shape.ty == Ty::Primitive(Primitive::String)),
            "{:?}",
            kind(&api, "Word")
        );
        assert!(
            matches!(kind(&api, "Other"), TypeKind::Alias(shape) if shape.ty == Ty::Any),
            "{:?}",
            kind(&api, "Other")
        );
        assert!(
            api.notes.iter().any(|n| n.contains(
                "`not` schemas (4, the first at t.yaml#/components/schemas/Pair/not): not checked"
            )),
            "{:?}",
            api.notes
        );
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

    fn kind<'a>(api: &'a Api, name: &str) -> &'a TypeKind {
        &api.type_named(name)
            .unwrap_or_else(|| panic!("no type {name}"))
            .kind
    }
}
