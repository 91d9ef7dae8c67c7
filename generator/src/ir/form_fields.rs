//! How the text of each field of a value spread over pairs or parts
//! becomes JSON: a form body's fields, a multipart body's text parts, an
//! object query parameter's properties (`deepObject`, exploded `form`).
//! The server stubs write these tables as the runtime's `FormField`s; the
//! mock builds the same from them, so both read such values alike.

use super::{Api, Multipart, Primitive, Shape, Ty, TypeKind, files_of, is_object, struct_of};

/// How a field's text becomes JSON (the runtime's `FormKind`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormKind {
    /// Text (strings, enums, formats).
    Text,
    /// An integer.
    Integer,
    /// A number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// JSON text (an object, an array of objects, a union).
    Json,
    /// An object whose properties are given below the field's name in
    /// brackets (`filter[near][lat]=1.5`), each read by these fields.
    Object(Vec<FormField>),
}

impl FormKind {
    /// The name of the runtime's variant (`Text`, `Json`, …).
    pub fn variant(&self) -> &'static str {
        match self {
            FormKind::Text => "Text",
            FormKind::Integer => "Integer",
            FormKind::Number => "Number",
            FormKind::Boolean => "Boolean",
            FormKind::Json => "Json",
            FormKind::Object(_) => "Object",
        }
    }
}

/// A field of a form (the runtime's `FormField`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormField {
    /// Its name on the wire; `*` for every name the others do not list
    /// (a map's values).
    pub name: String,
    /// How its text becomes JSON.
    pub kind: FormKind,
    /// Whether it is a list (repeated pairs or parts).
    pub list: bool,
}

/// How many objects deep, the parameter's own counted, properties are read
/// in brackets: 4 reads `filter[a][b][c][d]=…`. Deeper objects, and an
/// object of a type already above it (a type that contains itself), are
/// read as JSON text, so that the fields written stay few.
const MAX_NESTING: usize = 4;

impl Api {
    /// How each field of a form body of `shape` is read, or `None` when
    /// the shape is not an object (a struct, a map: `*`, or a union of
    /// structs).
    pub fn form_fields(&self, shape: &Shape) -> Option<Vec<FormField>> {
        self.fields_of(shape, &|name, shape| self.field(name, shape))
    }

    /// How each property of an object query parameter of `shape` is read:
    /// a property that is itself an object is an `Object` of its own
    /// fields (`filter[near][lat]=…`).
    pub fn object_param_fields(&self, shape: &Shape) -> Option<Vec<FormField>> {
        self.nested_fields(shape, &[shape])
    }

    /// How each text part of a multipart body is read: its fields but the
    /// files, which are set aside before their text would be typed.
    pub fn part_fields(&self, body: &Multipart) -> Vec<FormField> {
        struct_of(&self.types, &body.shape)
            .map(|object| {
                object
                    .fields
                    .iter()
                    .filter(|f| files_of(&self.types, &f.shape).is_none())
                    .map(|f| self.field(&f.wire, &f.shape))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn nested_fields(&self, shape: &Shape, above: &[&Shape]) -> Option<Vec<FormField>> {
        self.fields_of(shape, &|name, shape| {
            let nested = self
                .object_alternative(shape)
                .filter(|object| above.len() < MAX_NESTING && !above.contains(object))
                .and_then(|object| {
                    let above = [above, &[object]].concat();
                    self.nested_fields(object, &above)
                });
            match nested {
                Some(fields) => FormField {
                    name: name.to_owned(),
                    kind: FormKind::Object(fields),
                    list: false,
                },
                None => self.field(name, shape),
            }
        })
    }

    /// The object a value of `shape` is, or may be: a struct or a map, or
    /// the one alternative of a union that is one (Stripe's `created`: a
    /// range object or a timestamp).
    fn object_alternative<'s>(&'s self, shape: &'s Shape) -> Option<&'s Shape> {
        if is_object(&self.types, shape) {
            return Some(shape);
        }
        let Ty::Named(name) = &shape.ty else {
            return None;
        };
        let TypeKind::Union(union) = &self.type_named(name)?.kind else {
            return None;
        };
        let mut objects = union
            .variants
            .iter()
            .filter(|v| is_object(&self.types, &v.shape));
        match (objects.next(), objects.next()) {
            (Some(only), None) => Some(&only.shape),
            _ => None,
        }
    }

    /// Each field of an object of `shape`, made by `field`; `None` when the
    /// shape is not an object.
    fn fields_of(
        &self,
        shape: &Shape,
        field: &dyn Fn(&str, &Shape) -> FormField,
    ) -> Option<Vec<FormField>> {
        match &shape.ty {
            Ty::Map(value) => Some(vec![field("*", value)]),
            Ty::Any => Some(Vec::new()),
            Ty::Named(name) => match &self.type_named(name)?.kind {
                TypeKind::Alias(inner) | TypeKind::Newtype(inner)
                    if matches!(inner.ty, Ty::Map(_) | Ty::Named(_)) =>
                {
                    self.fields_of(inner, field)
                }
                // A union of objects (OAuth's token request, one struct per
                // `grant_type`): the fields of every alternative, the first
                // alternative's reading a name they share; serde then picks
                // the alternative.
                TypeKind::Union(union) => {
                    let mut fields: Vec<FormField> = Vec::new();
                    for variant in &union.variants {
                        for f in &struct_of(&self.types, &variant.shape)?.fields {
                            if !fields.iter().any(|known| known.name == f.wire) {
                                fields.push(field(&f.wire, &f.shape));
                            }
                        }
                    }
                    Some(fields)
                }
                _ => Some(
                    struct_of(&self.types, shape)?
                        .fields
                        .iter()
                        .map(|f| field(&f.wire, &f.shape))
                        .collect(),
                ),
            },
            _ => None,
        }
    }

    /// The field `name` of `shape`: an array of values that are text is a
    /// list (repeated pairs or parts), any other array one JSON value.
    fn field(&self, name: &str, shape: &Shape) -> FormField {
        let (kind, list) = match &shape.ty {
            Ty::Array(item) if self.kind_of(item, 0) != FormKind::Json => {
                (self.kind_of(item, 0), true)
            }
            _ => (self.kind_of(shape, 0), false),
        };
        FormField {
            name: name.to_owned(),
            kind,
            list,
        }
    }

    /// How the text of a value of `shape` becomes JSON.
    fn kind_of(&self, shape: &Shape, depth: usize) -> FormKind {
        match &shape.ty {
            Ty::Primitive(p) if p.is_integer() => FormKind::Integer,
            Ty::Primitive(p) if p.is_number() => FormKind::Number,
            Ty::Primitive(Primitive::Bool) => FormKind::Boolean,
            Ty::Primitive(_) => FormKind::Text,
            Ty::Named(name) if depth < 16 => match self.type_named(name).map(|d| &d.kind) {
                Some(TypeKind::Enum(_)) | None => FormKind::Text,
                Some(TypeKind::Newtype(inner) | TypeKind::Alias(inner)) => {
                    self.kind_of(inner, depth + 1)
                }
                Some(TypeKind::Struct(_) | TypeKind::Union(_)) => FormKind::Json,
            },
            Ty::Named(_) => FormKind::Text,
            Ty::Array(_) | Ty::Map(_) | Ty::Any => FormKind::Json,
        }
    }
}
