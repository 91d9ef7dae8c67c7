//! [`View`]: one reading of a schema over `openapiv3`'s two ways of holding
//! one (`Type` and `Any`), with what the rest of lowering asks of it (its
//! checks, whether it needs a named type), and its docs and access.

use indexmap::IndexMap;
use openapiv3::{AdditionalProperties, ReferenceOr, Schema, SchemaData, SchemaKind, Type};

use crate::error::Result;
use crate::ir::{Access, Checks, Docs, EnumRepr};
use crate::lower::lenient::{Leniency, Lenient};
use crate::parse::{Document, Pointer};

use super::enums::{number_text, scalar_enum_of, structure_enum_of};

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
pub(super) fn access_of(data: &SchemaData) -> Access {
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

pub(super) static NO_PROPERTIES: std::sync::LazyLock<IndexMap<String, ReferenceOr<Box<Schema>>>> =
    std::sync::LazyLock::new(IndexMap::new);

impl<'s> View<'s> {
    pub fn of(schema: &'s Schema) -> Self {
        let data = &schema.schema_data;
        let mut view = View::empty(data);
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
            SchemaKind::Any(any) => view.read_any(any),
        }
        view
    }

    /// A view of `data` with nothing of the schema's kind read yet.
    fn empty(data: &'s SchemaData) -> Self {
        View {
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
        }
    }

    /// Reads a schema openapiv3 could not type: whatever keywords it has.
    fn read_any(&mut self, any: &'s openapiv3::AnySchema) {
        self.typ = any.typ.as_deref();
        self.format = any.format.clone();
        // `enum: [null]` says the value is always null (`only_null`).
        self.only_null = !any.enumeration.is_empty() && any.enumeration.iter().all(|v| v.is_null());
        if !any.enumeration.is_empty() && !self.only_null {
            self.read_enum_values(&any.enumeration);
        }
        self.properties = &any.properties;
        self.required = &any.required;
        self.additional = any.additional_properties.as_ref();
        self.min_properties = any.min_properties;
        self.max_properties = any.max_properties;
        self.items = any.items.as_ref();
        self.min_items = any.min_items;
        self.max_items = any.max_items;
        self.unique_items = any.unique_items.unwrap_or(false);
        self.min_length = any.min_length;
        self.max_length = any.max_length;
        self.pattern = any.pattern.as_deref();
        self.minimum = any
            .minimum
            .map(|m| (m, any.exclusive_minimum.unwrap_or(false)));
        self.maximum = any
            .maximum
            .map(|m| (m, any.exclusive_maximum.unwrap_or(false)));
        self.multiple_of = any.multiple_of;
        self.one_of = &any.one_of;
        self.all_of = &any.all_of;
        self.any_of = &any.any_of;
        self.not = any.not.as_deref();
        if self.typ.is_none() && self.items.is_some() {
            self.typ = Some("array");
        }
    }

    /// Reads the `enum` of an untyped schema, which lists some value other
    /// than `null`.
    fn read_enum_values(&mut self, values: &[serde_json::Value]) {
        if values.iter().all(|v| v.is_string() || v.is_null()) {
            self.string_enum = Some(
                values
                    .iter()
                    .map(|v| v.as_str().map(str::to_owned))
                    .collect(),
            );
        } else if self.typ == Some("string") {
            // The type wins: `enum: [1, 2]` on a string means "1" and "2".
            self.string_enum = Some(
                values
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
            self.enum_as_text = true;
        } else {
            self.scalar_enum = scalar_enum_of(values, self.typ);
            let structures = structure_enum_of(values, self.typ);
            self.structure_enum = self.scalar_enum.is_none() && structures;
            self.other_enum = self.scalar_enum.is_none() && !structures;
        }
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
            && !self.constrains_scalar()
    }

    /// Whether this constrains a scalar value itself: a `format`, a
    /// `pattern`, a length or a bound.
    pub fn constrains_scalar(&self) -> bool {
        self.format.is_some()
            || self.pattern.is_some()
            || (self.min_length, self.max_length) != (None, None)
            || (self.minimum, self.maximum, self.multiple_of) != (None, None, None)
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
        let (text, number, array, object) = (
            applies(&["string"]),
            applies(&["number", "integer"]),
            applies(&["array"]),
            applies(&["object"]),
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
            min_properties: self.min_properties.filter(|&n| n > 0 && object),
            max_properties: self.max_properties.filter(|_| object),
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
    use crate::ir::TypeKind;

    use crate::lower::schemas::testing::{api, kind};

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
}
