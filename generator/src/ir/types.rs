//! Named types and the shapes of values.

use std::collections::BTreeSet;

use super::{Docs, Origin};

/// A type with a name of its own in the models crate.
#[derive(Debug, Clone)]
pub struct TypeDef {
    /// The Rust name (UpperCamelCase, unique in the API).
    pub name: String,
    /// The name the document gives it (`components.schemas` key), if any.
    pub schema_name: Option<String>,
    /// Where the schema is.
    pub origin: Origin,
    /// Its documentation.
    pub docs: Docs,
    /// What it is.
    pub kind: TypeKind,
    /// The tags of the operations that use it (directly or through other
    /// types): emitters group types into modules by them.
    pub tags: BTreeSet<String>,
    /// Whether a request (body or parameter) can carry it: such types are
    /// decoded strictly (an optional field may be absent, but not `null`
    /// unless the schema allows it).
    pub in_request: bool,
    /// Whether an answer (response body or header) can carry it.
    pub in_response: bool,
    /// Whether it, or anything it holds, has a constraint that serde cannot check.
    pub has_checks: bool,
    /// Whether a parameter the server stubs read holds it as one value read
    /// from text (an enum, or a newtype of a scalar): the models crate then
    /// implements `FromParam` for it.
    pub from_param: bool,
}

/// What a named type is.
#[derive(Debug, Clone)]
pub enum TypeKind {
    /// An object with known properties.
    Struct(StructDef),
    /// A string with a fixed set of values.
    Enum(EnumDef),
    /// One of several shapes (`oneOf`, `anyOf`).
    Union(UnionDef),
    /// A named array, map or primitive with constraints of its own: a newtype,
    /// so that its constraints are checked wherever it is used.
    Newtype(Shape),
    /// A named array, map or primitive without constraints: a type alias.
    Alias(Shape),
}

/// An object's fields.
#[derive(Debug, Clone)]
pub struct StructDef {
    /// The fields, in document order.
    pub fields: Vec<Field>,
    /// What happens to properties that are not fields.
    pub additional: Additional,
    /// `minProperties` / `maxProperties`, when given. They count every
    /// property, so where they are given `additional` is never
    /// [`Additional::Ignore`]: the undeclared properties are kept to be counted.
    pub property_count: (Option<usize>, Option<usize>),
}

/// What happens to an object's unknown properties.
#[derive(Debug, Clone)]
pub enum Additional {
    /// `additionalProperties: false`: they are refused.
    Deny,
    /// Not said: they are accepted and dropped.
    Ignore,
    /// `additionalProperties: true` or a schema: they are kept in a map.
    Map {
        /// The map's Rust name (`additional_properties`), claimed after the
        /// fields' names so that a property of that name keeps it and the
        /// map takes the next free one.
        field: String,
        /// Each value's shape.
        value: Box<Shape>,
    },
}

/// A property of an object.
#[derive(Debug, Clone)]
pub struct Field {
    /// The Rust name (snake_case, unique in the struct).
    pub name: String,
    /// The property's name on the wire.
    pub wire: String,
    /// Its shape.
    pub shape: Shape,
    /// Whether the property must be present.
    pub required: bool,
    /// Whether the field must be boxed because the type contains itself.
    pub boxed: bool,
    /// Its default value, when the schema gives one.
    pub default: Option<serde_json::Value>,
    /// Which messages carry it, as `readOnly` and `writeOnly` say.
    pub access: Access,
    /// Its documentation.
    pub docs: Docs,
}

/// Which messages carry a property, as `readOnly` and `writeOnly` say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Access {
    /// Requests and answers alike: neither keyword.
    #[default]
    ReadWrite,
    /// `readOnly: true`: the API sets it, and a request need not send it
    /// even when it is required (OpenAPI: `required` then applies to
    /// answers only).
    ReadOnly,
    /// `writeOnly: true`: a request sends it (a password), and an answer
    /// need not carry it even when it is required.
    WriteOnly,
}

/// An enum: a string, integer, number or boolean with a fixed set of values.
#[derive(Debug, Clone)]
pub struct EnumDef {
    /// The variants, in document order.
    pub variants: Vec<EnumVariant>,
    /// The JSON type of its values.
    pub repr: EnumRepr,
    /// Whether a value it does not list decodes into a variant that keeps
    /// it (string enums that answers carry, unless the target turns it off:
    /// see [`open_enums`](crate::lower::open_enums)).
    pub open: bool,
}

/// The JSON type of an enum's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnumRepr {
    /// Strings.
    String,
    /// Integers (`i64`).
    Integer,
    /// Numbers (`f64`).
    Number,
    /// `true` and `false`.
    Boolean,
}

/// One value of an enum.
#[derive(Debug, Clone)]
pub struct EnumVariant {
    /// The Rust name (UpperCamelCase).
    pub name: String,
    /// The value on the wire: the string itself, or the JSON text of a
    /// number or boolean (`1`, `2.5`, `true`).
    pub wire: String,
    /// What the value means, when an extension says (`x-enum-descriptions`,
    /// `x-ms-enum`).
    pub description: Option<String>,
}

/// A `oneOf` or `anyOf`.
#[derive(Debug, Clone)]
pub struct UnionDef {
    /// The alternatives, in document order.
    pub variants: Vec<UnionVariant>,
    /// How a value says which alternative it is.
    pub tagging: Tagging,
}

/// One alternative of a union.
#[derive(Debug, Clone)]
pub struct UnionVariant {
    /// The Rust name (UpperCamelCase).
    pub name: String,
    /// Its shape.
    pub shape: Shape,
    /// Whether it must be boxed because the type contains itself.
    pub boxed: bool,
    /// For an internally tagged union, the tag values that select it.
    pub tag_values: Vec<String>,
}

/// How a union's value names its alternative.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tagging {
    /// By a property (a `discriminator`, or a required property whose
    /// single-valued enum differs between the alternatives).
    Internal {
        /// The property's wire name.
        property: String,
        /// The alternative a value whose tag names no other alternative
        /// (or that has none) is read as: the base schema of an inheritance
        /// hierarchy (`allOf` subtypes of a schema with a `discriminator`),
        /// which the tags of subtypes not listed here also fall back to.
        fallback: Option<usize>,
    },
    /// It does not: the first alternative that fits wins.
    Untagged,
}

/// The shape of a value: its type, whether it may be null, and the
/// constraints serde cannot check.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    /// The type.
    pub ty: Ty,
    /// Whether `null` is allowed.
    pub nullable: bool,
    /// The constraints to check after decoding.
    pub checks: Checks,
}

impl Shape {
    /// A shape of type `ty` with no constraints.
    pub fn of(ty: Ty) -> Self {
        Shape {
            ty,
            nullable: false,
            checks: Checks::default(),
        }
    }

    /// Whether this shape, not counting named types it refers to, has checks.
    pub fn has_own_checks(&self) -> bool {
        !self.checks.is_empty()
            || match &self.ty {
                Ty::Array(item) | Ty::Map(item) => item.has_own_checks(),
                _ => false,
            }
    }
}

/// A type.
#[derive(Debug, Clone, PartialEq)]
pub enum Ty {
    /// A named type of the API.
    Named(String),
    /// A primitive.
    Primitive(Primitive),
    /// An array.
    Array(Box<Shape>),
    /// An object used as a map from string keys.
    Map(Box<Shape>),
    /// Any JSON value.
    Any,
}

/// The primitive types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Primitive {
    /// A string.
    String,
    /// A UUID (`format: uuid`).
    Uuid,
    /// An RFC 3339 date-time (`format: date-time`).
    DateTime,
    /// A full date (`format: date`).
    Date,
    /// Raw bytes (`format: binary`), as a request or response body.
    Binary,
    /// `true` or `false`.
    Bool,
    /// An 8-bit signed integer.
    I8,
    /// A 16-bit signed integer.
    I16,
    /// A 32-bit signed integer.
    I32,
    /// A 64-bit signed integer (also `integer` without format).
    I64,
    /// An 8-bit unsigned integer.
    U8,
    /// A 16-bit unsigned integer.
    U16,
    /// A 32-bit unsigned integer.
    U32,
    /// A 64-bit unsigned integer.
    U64,
    /// A single-precision float.
    F32,
    /// A double-precision float (also `number` without format).
    F64,
    /// Always `null` (`enum: [null]`), Rust's `()`.
    Null,
}

impl Primitive {
    /// The primitive a JSON Schema `type` and `format` describe, `None` for
    /// the types that are not scalars. A format the generator does not know
    /// (`email`, `uri`, `double`) is the type's default.
    pub fn of(kind: &str, format: Option<&str>) -> Option<Primitive> {
        let primitive = match (kind, format) {
            ("string", Some("date-time")) => Primitive::DateTime,
            ("string", Some("date")) => Primitive::Date,
            ("string", Some("uuid")) => Primitive::Uuid,
            ("string", Some("binary")) => Primitive::Binary,
            ("string", _) => Primitive::String,
            ("integer", Some("int8")) => Primitive::I8,
            ("integer", Some("int16")) => Primitive::I16,
            ("integer", Some("int32")) => Primitive::I32,
            ("integer", Some("uint8")) => Primitive::U8,
            ("integer", Some("uint16")) => Primitive::U16,
            ("integer", Some("uint32")) => Primitive::U32,
            ("integer", Some("uint64" | "uint")) => Primitive::U64,
            ("integer", _) => Primitive::I64,
            ("number", Some("float")) => Primitive::F32,
            ("number", _) => Primitive::F64,
            ("boolean", _) => Primitive::Bool,
            _ => return None,
        };
        Some(primitive)
    }

    /// The Rust type a value of it is, as people write it (without the
    /// crate paths the generated code spells out).
    pub fn rust_name(self) -> &'static str {
        match self {
            Primitive::String | Primitive::Binary => "String",
            Primitive::Uuid => "Uuid",
            Primitive::DateTime => "DateTime<Utc>",
            Primitive::Date => "NaiveDate",
            Primitive::Bool => "bool",
            Primitive::I8 => "i8",
            Primitive::I16 => "i16",
            Primitive::I32 => "i32",
            Primitive::I64 => "i64",
            Primitive::U8 => "u8",
            Primitive::U16 => "u16",
            Primitive::U32 => "u32",
            Primitive::U64 => "u64",
            Primitive::F32 => "f32",
            Primitive::F64 => "f64",
            Primitive::Null => "()",
        }
    }

    /// Whether values are JSON integers.
    pub fn is_integer(self) -> bool {
        matches!(
            self,
            Primitive::I8
                | Primitive::I16
                | Primitive::I32
                | Primitive::I64
                | Primitive::U8
                | Primitive::U16
                | Primitive::U32
                | Primitive::U64
        )
    }

    /// Whether values are JSON numbers.
    pub fn is_number(self) -> bool {
        self.is_integer() || matches!(self, Primitive::F32 | Primitive::F64)
    }
}

/// Constraints that serde cannot check, checked by the generated validators.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Checks {
    /// `minLength`, in characters.
    pub min_length: Option<usize>,
    /// `maxLength`, in characters.
    pub max_length: Option<usize>,
    /// `pattern`, an ECMA-262 regular expression.
    pub pattern: Option<String>,
    /// `format: email`.
    pub email: bool,
    /// `minimum`, and whether it is exclusive.
    pub minimum: Option<(f64, bool)>,
    /// `maximum`, and whether it is exclusive.
    pub maximum: Option<(f64, bool)>,
    /// `multipleOf`.
    pub multiple_of: Option<f64>,
    /// `minItems`.
    pub min_items: Option<usize>,
    /// `maxItems`.
    pub max_items: Option<usize>,
    /// `uniqueItems: true`.
    pub unique_items: bool,
    /// `minProperties` of a map or of a value of any type (a struct's
    /// bounds are its `property_count`).
    pub min_properties: Option<usize>,
    /// `maxProperties`, as `min_properties`.
    pub max_properties: Option<usize>,
    /// The error code reported when one of these checks fails, instead of the
    /// generic one (from the `x-error-code` extension).
    pub error_code: Option<String>,
}

impl Checks {
    /// Whether there is nothing to check.
    pub fn is_empty(&self) -> bool {
        self.min_length.is_none()
            && self.max_length.is_none()
            && self.pattern.is_none()
            && !self.email
            && self.minimum.is_none()
            && self.maximum.is_none()
            && self.multiple_of.is_none()
            && self.min_items.is_none()
            && self.max_items.is_none()
            && !self.unique_items
            && self.min_properties.is_none()
            && self.max_properties.is_none()
    }
}
