//! The type table: every schema that needs a Rust type of its own becomes one
//! [`TypeDef`], keyed by the schema's pointer, so that a schema reached twice
//! (through `$ref`s or `allOf`) is one type; everything else is a [`Shape`]
//! in place. What kind of type each one is starts here ([`TypeTable::shape`]).

use std::collections::HashMap;

use openapiv3::{AdditionalProperties, ReferenceOr, Schema};

use crate::error::Result;
use crate::ir::{
    Access, Checks, Docs, EnumRepr, Primitive, Shape, StructDef, Ty, TypeDef, TypeKind,
};
use crate::lower::inheritance::{self, Hierarchy};
use crate::lower::lenient::{Leniency, Lenient};
use crate::lower::value_names::{self, ValueName};
use crate::names::{Namespace, type_name};
use crate::parse::{Document, Pointer};

use super::enums::{enum_def, json_wire_text};
use super::view::{View, docs_of};

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
    pub(super) doc: &'d Document,
    pub(super) defs: Vec<TypeDef>,
    /// Whether the schema of each def allows `null` (a `$ref` to it then does too).
    pub(super) nullable: Vec<bool>,
    pub(super) by_pointer: HashMap<Pointer, usize>,
    pub(super) names: Namespace,
    /// The Rust name of each component schema, claimed in document order.
    pub(super) component_names: HashMap<String, String>,
    pub(super) other_names: HashMap<Pointer, String>,
    /// The component schemas that have subtypes ([`inheritance`]), by pointer.
    pub(super) hierarchies: HashMap<Pointer, Hierarchy>,
    /// The struct of each such base schema's own properties, by the base's
    /// pointer (its union is the def `by_pointer` names).
    pub(super) base_structs: HashMap<Pointer, usize>,
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
    pub(super) fn value_names(&self, at: &Pointer, repr: EnumRepr) -> HashMap<String, ValueName> {
        self.doc
            .node(at)
            .map(|schema| value_names::given(schema, |value| json_wire_text(value, repr)))
            .unwrap_or_default()
    }

    /// The access of the schema `reference` (found at `at`) leads to: a
    /// property may be a `$ref` to a schema that is `readOnly` as a whole
    /// (an `Id`). A reference that leads nowhere is the shape's error, not
    /// this one's.
    pub(super) fn access_at(&self, reference: &str, at: &Pointer) -> Access {
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
    pub(super) fn named(
        &mut self,
        pointer: &Pointer,
        via: Option<(&str, &Pointer)>,
    ) -> Result<Shape> {
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

    /// The struct of the component schema at `pointer`: its type, or for
    /// a base schema with subtypes, the struct of its own properties.
    pub(super) fn struct_shape(&mut self, pointer: &Pointer) -> Result<Shape> {
        let shape = self.named(pointer, None)?;
        Ok(match self.base_structs.get(pointer) {
            Some(&base) => self.shape_of_def(base),
            None => shape,
        })
    }

    /// The shape of an inline schema.
    pub(super) fn inline(&mut self, schema: &Schema, at: &Pointer, hint: &str) -> Result<Shape> {
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

    /// Takes the def for the schema at `pointer`, to be filled in, so that
    /// a schema that contains itself finds its type while it is lowered.
    pub(super) fn reserve(&mut self, name: String, pointer: &Pointer, schema: &Schema) -> usize {
        let data = &schema.schema_data;
        let index = self.push_def(name, pointer, docs_of(data), data.nullable);
        self.defs[index].schema_name = pointer.component_name("schemas");
        self.by_pointer.insert(pointer.clone(), index);
        index
    }

    /// A def with nothing in it yet, from `pointer`, that no pointer names.
    pub(super) fn push_def(
        &mut self,
        name: String,
        pointer: &Pointer,
        docs: Docs,
        nullable: bool,
    ) -> usize {
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
            from_param: false,
        });
        self.nullable.push(nullable);
        self.defs.len() - 1
    }

    pub(super) fn shape_of_def(&self, index: usize) -> Shape {
        Shape {
            ty: Ty::Named(self.defs[index].name.clone()),
            nullable: self.nullable[index],
            checks: Checks::default(),
        }
    }

    /// What the named type for `schema` is.
    pub(super) fn kind_of(
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
            let additional = self.additional(&view, at, name, &fields)?;
            return Ok(TypeKind::Struct(StructDef {
                fields,
                additional,
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

    /// Arrays, maps and primitives, which need no type of their own.
    pub(super) fn plain_shape(
        &mut self,
        view: &View<'_>,
        at: &Pointer,
        hint: &str,
    ) -> Result<Shape> {
        let checks = view.checks(self.doc, at, &mut self.lenient)?;
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
            Some(kind @ ("string" | "integer" | "number" | "boolean")) => {
                // (`format: email` is a check `View::checks` has set.)
                Primitive::of(kind, view.format.as_deref()).map_or(Ty::Any, Ty::Primitive)
            }
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

pub(super) fn hint_from_pointer(pointer: &Pointer) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    use crate::lower::schemas::testing::{api, fields, kind};

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
}
