//! Enums of scalars: the variants of a string, number or boolean enum, named by
//! their values (or by an extension), and the exact JSON text of each value.

use std::collections::HashMap;

use crate::ir::{EnumDef, EnumRepr, EnumVariant};
use crate::lower::value_names::ValueName;
use crate::names::{Namespace, type_name};

/// The enum of `values` (wire texts): a variant is named as `named` (an
/// extension's names and meanings, by wire text) says, or else by its value.
pub(super) fn enum_def(
    values: &[String],
    repr: EnumRepr,
    named: &HashMap<String, ValueName>,
) -> EnumDef {
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
pub(super) fn json_wire_text(value: &serde_json::Value, repr: EnumRepr) -> Option<String> {
    match (value, repr) {
        (serde_json::Value::String(text), EnumRepr::String) => Some(text.clone()),
        (serde_json::Value::Number(n), EnumRepr::Integer) => n.as_i64().map(|n| n.to_string()),
        (serde_json::Value::Number(n), EnumRepr::Number) => n.as_f64().map(number_text),
        (serde_json::Value::Bool(b), EnumRepr::Boolean) => Some(b.to_string()),
        _ => None,
    }
}

/// The JSON text of a number enum's value: integral values without `.0`.
pub(super) fn number_text(value: f64) -> String {
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
pub(super) fn scalar_enum_of(
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

/// Whether an enum's values are all objects, or all arrays, of the
/// schema's type (nulls aside): read as that type, its values not checked
/// against the list ([`Leniency::StructureEnumNotChecked`]).
pub(super) fn structure_enum_of(values: &[serde_json::Value], typ: Option<&str>) -> bool {
    let values: Vec<&serde_json::Value> = values.iter().filter(|v| !v.is_null()).collect();
    let all = |kind: fn(&serde_json::Value) -> bool, name: &str| {
        values.iter().all(|v| kind(v)) && typ.is_none_or(|t| t == name)
    };
    !values.is_empty()
        && (all(serde_json::Value::is_object, "object")
            || all(serde_json::Value::is_array, "array"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Primitive, Ty, TypeKind};
    use crate::lower::schemas::testing::{api, kind};

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

    /// `x-enum-varnames` names the values of an enum of any type, matched
    /// by their JSON text: strings, integers, numbers and booleans.
    #[test]
    fn value_names_are_given_to_enums_of_every_type() {
        let api = api(concat!(
            "    S: {type: string, enum: [a, b], x-enum-varnames: [Apple, Banana]}\n",
            "    I: {type: integer, enum: [1, 2], x-enum-varnames: [One, Two]}\n",
            "    N: {type: number, enum: [1.5, 2], x-enum-varnames: [Half, Whole]}\n",
            "    B: {type: boolean, enum: [true, false], x-enum-varnames: [Yes, No]}\n",
        ));
        for (name, expected) in [
            ("S", [("Apple", "a"), ("Banana", "b")]),
            ("I", [("One", "1"), ("Two", "2")]),
            ("N", [("Half", "1.5"), ("Whole", "2")]),
            ("B", [("Yes", "true"), ("No", "false")]),
        ] {
            let TypeKind::Enum(def) = kind(&api, name) else {
                panic!("{name}: {:?}", kind(&api, name));
            };
            let variants: Vec<(&str, &str)> = def
                .variants
                .iter()
                .map(|v| (v.name.as_str(), v.wire.as_str()))
                .collect();
            assert_eq!(variants, expected, "{name}");
        }
    }
}
