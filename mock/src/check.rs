//! A JSON value checked against a shape of the IR, with the validation
//! runtime's own checks and messages: the walk the models crate's
//! generated `ValidateJson` impls do (`generator/src/emit/checks.rs`,
//! `emit/models/items.rs` and `unions.rs`), done by reading the IR
//! instead of by generated code.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use openapi_codegen::ir::{
    Additional, Api, EnumDef, EnumRepr, Primitive, Shape, StructDef, Tagging, Ty, TypeKind,
    UnionDef,
};
use openapi_runtime::models::validation::{self as rt, Path, Report};
use serde_json::Value;

/// How strictly `null` is read where a property is optional.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// As the generated server stubs read a request: a type that requests
    /// carry refuses `null` for an optional property that is not nullable;
    /// a response-only type takes it (D49).
    Stubs,
    /// As the document says, everywhere: `null` only where a schema allows
    /// it. The contract checker reads answers so.
    Document,
}

/// Checks values against the shapes of one API.
pub struct Checker<'a> {
    api: &'a Api,
    reading: Reading,
    patterns: &'a Patterns,
}

/// The compiled `pattern`s of a document, shared by every check.
#[derive(Debug, Default)]
pub struct Patterns(Mutex<HashMap<String, Option<Arc<regex_lite::Regex>>>>);

impl Patterns {
    /// The regular expression of `pattern`, compiled once; `None` when it
    /// does not compile (the generator refuses such a document, so a mock
    /// of one never gets here).
    fn get(&self, pattern: &str) -> Option<Arc<regex_lite::Regex>> {
        let mut compiled = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        compiled
            .entry(pattern.to_owned())
            .or_insert_with(|| regex_lite::Regex::new(pattern).ok().map(Arc::new))
            .clone()
    }
}

impl<'a> Checker<'a> {
    /// A checker of `api`'s shapes, reading `null` as `reading` says.
    pub fn new(api: &'a Api, reading: Reading, patterns: &'a Patterns) -> Self {
        Checker {
            api,
            reading,
            patterns,
        }
    }

    /// Every problem of `value` as a `shape`, with `root` naming the value
    /// itself (`body`).
    pub fn check(&self, shape: &Shape, value: &Value, root: &'static str) -> Report {
        let mut report = Report::new();
        self.shape(shape, value, &mut Path::new(root), &mut report);
        report
    }

    /// Every problem of `value` as a `shape`, under the property `name`
    /// (`filter.limit`): a value that stands for a parameter.
    pub fn check_under(&self, shape: &Shape, value: &Value, name: &'static str) -> Report {
        let mut report = Report::new();
        let mut path = Path::new(name);
        path.push_key(name);
        self.shape(shape, value, &mut path, &mut report);
        report
    }

    /// `value` as a `shape`: its type, then its own constraints. `null`
    /// is the caller's concern unless the shape is nullable.
    pub(crate) fn shape<'v>(
        &self,
        shape: &Shape,
        value: &'v Value,
        path: &mut Path<'v>,
        report: &mut Report,
    ) {
        if shape.nullable && value.is_null() {
            return;
        }
        let checks = &shape.checks;
        let code = checks.error_code.as_deref();
        if let Some(items) = value.as_array() {
            if checks.min_items.is_some() || checks.max_items.is_some() {
                rt::check_items(
                    items.len(),
                    checks.min_items,
                    checks.max_items,
                    code,
                    path,
                    report,
                );
            }
        }
        self.ty(&shape.ty, value, path, report);
        if let Some(text) = value.as_str() {
            if checks.min_length.is_some() || checks.max_length.is_some() {
                rt::check_length(
                    text,
                    checks.min_length,
                    checks.max_length,
                    code,
                    path,
                    report,
                );
            }
            if checks.email {
                rt::check_email(text, code, path, report);
            }
            if let Some(pattern) = checks.pattern.as_deref().and_then(|p| self.patterns.get(p)) {
                rt::check_pattern(text, &pattern, code, path, report);
            }
        }
        if let Some(number) = value.as_f64() {
            if checks.minimum.is_some() || checks.maximum.is_some() {
                rt::check_range(number, checks.minimum, checks.maximum, code, path, report);
            }
            if let Some(factor) = checks.multiple_of {
                rt::check_multiple_of(number, factor, code, path, report);
            }
        }
        if checks.unique_items {
            if let Some(items) = value.as_array() {
                rt::check_unique(items, code, path, report);
            }
        }
    }

    fn ty<'v>(&self, ty: &Ty, value: &'v Value, path: &mut Path<'v>, report: &mut Report) {
        match ty {
            Ty::Any => {}
            Ty::Primitive(primitive) => primitive_type(*primitive, value, path, report),
            Ty::Array(item) => match value {
                Value::Array(items) => {
                    for (index, item_value) in items.iter().enumerate() {
                        path.push_index(index);
                        self.shape(item, item_value, path, report);
                        path.pop();
                    }
                }
                // The runtime's walk of a list says what a non-list is.
                other => rt::walk::<Vec<()>>(other, path, report),
            },
            Ty::Map(item) => {
                if let Some(object) = rt::expect_object(value, path, report) {
                    for (key, item_value) in object {
                        path.push_key(key);
                        self.shape(item, item_value, path, report);
                        path.pop();
                    }
                }
            }
            Ty::Named(name) => {
                let Some(def) = self.api.type_named(name) else {
                    return;
                };
                let strict = def.in_request || self.reading == Reading::Document;
                match &def.kind {
                    TypeKind::Struct(s) => self.object(s, strict, value, path, report),
                    TypeKind::Enum(e) => enumeration(e, value, path, report),
                    TypeKind::Union(u) => self.union(u, value, path, report),
                    TypeKind::Newtype(shape) | TypeKind::Alias(shape) => {
                        self.shape(shape, value, path, report);
                    }
                }
            }
        }
    }

    /// An object's properties, as `struct_validate_json` writes the walk.
    fn object<'v>(
        &self,
        s: &StructDef,
        strict: bool,
        value: &'v Value,
        path: &mut Path<'v>,
        report: &mut Report,
    ) {
        let Some(object) = rt::expect_object(value, path, report) else {
            return;
        };
        let required: Vec<&str> = s
            .fields
            .iter()
            .filter(|f| f.required)
            .map(|f| f.wire.as_str())
            .collect();
        rt::check_required_properties(object, &required, path, report);
        let known: Vec<&str> = s.fields.iter().map(|f| f.wire.as_str()).collect();
        if matches!(s.additional, Additional::Deny) {
            rt::check_unknown_properties(object, &known, path, report);
        }
        if s.property_count != (None, None) {
            let (min, max) = s.property_count;
            rt::check_property_count(object.len(), min, max, path, report);
        }
        for field in &s.fields {
            let Some((key, field_value)) = object.get_key_value(&field.wire) else {
                continue;
            };
            // A property of any type takes `null` as any other value: the
            // stubs decode it into a `serde_json::Value`, which serde fills
            // with `null` before the JSON walk is ever asked.
            let null_allowed = field.shape.nullable
                || matches!(field.shape.ty, Ty::Primitive(Primitive::Null) | Ty::Any)
                || (!field.required && !strict);
            path.push_key(key);
            match (field_value.is_null(), null_allowed) {
                (true, true) => {}
                (true, false) => rt::report_null(path, report),
                (false, _) => self.shape(&field.shape, field_value, path, report),
            }
            path.pop();
        }
        if let Additional::Map { value: shape, .. } = &s.additional {
            for (key, item) in object {
                if !known.contains(&key.as_str()) {
                    path.push_key(key);
                    self.shape(shape, item, path, report);
                    path.pop();
                }
            }
        }
    }

    /// A union: the alternative its tag names, or the first that fits.
    fn union<'v>(&self, u: &UnionDef, value: &'v Value, path: &mut Path<'v>, report: &mut Report) {
        match &u.tagging {
            Tagging::Untagged => {
                for variant in &u.variants {
                    let mut attempt = Report::new();
                    self.shape(&variant.shape, value, &mut path.clone(), &mut attempt);
                    if attempt.is_empty() {
                        return;
                    }
                }
                let names: Vec<&str> = u.variants.iter().map(|v| v.name.as_str()).collect();
                rt::report_no_alternative(path, &names.join(", "), report);
            }
            Tagging::Internal { property, fallback } => {
                let Some(object) = rt::expect_object(value, path, report) else {
                    return;
                };
                let fallback = fallback.and_then(|index| u.variants.get(index));
                let is_fallback = |v: &&openapi_codegen::ir::UnionVariant| {
                    fallback.is_some_and(|f| f.name == v.name)
                };
                let tag = object.get(property).and_then(Value::as_str);
                let chosen = u
                    .variants
                    .iter()
                    .filter(|v| !is_fallback(v))
                    .find(|v| tag.is_some_and(|tag| v.tag_values.iter().any(|t| t == tag)))
                    .or(fallback);
                match (chosen, tag) {
                    (Some(variant), _) => self.shape(&variant.shape, value, path, report),
                    (None, Some(_)) => {
                        let expected: Vec<&str> = u
                            .variants
                            .iter()
                            .flat_map(|v| &v.tag_values)
                            .map(String::as_str)
                            .collect();
                        let message = format!("must be one of: {}", expected.join(", "));
                        report.push_child(path, property, &message, "InvalidEnumValue");
                    }
                    (None, None) => report.push_child(path, property, "is required", "Required"),
                }
            }
        }
    }
}

/// The JSON type of a primitive, with the runtime's walk of the Rust type
/// the generated crates give it.
fn primitive_type<'v>(
    primitive: Primitive,
    value: &'v Value,
    path: &mut Path<'v>,
    report: &mut Report,
) {
    match primitive {
        Primitive::String | Primitive::Binary => rt::walk::<String>(value, path, report),
        Primitive::Uuid => rt::walk::<uuid::Uuid>(value, path, report),
        Primitive::DateTime => rt::walk::<chrono::DateTime<chrono::Utc>>(value, path, report),
        Primitive::Date => rt::walk::<chrono::NaiveDate>(value, path, report),
        Primitive::Bool => rt::walk::<bool>(value, path, report),
        Primitive::I8 => rt::walk::<i8>(value, path, report),
        Primitive::I16 => rt::walk::<i16>(value, path, report),
        Primitive::I32 => rt::walk::<i32>(value, path, report),
        Primitive::I64 => rt::walk::<i64>(value, path, report),
        Primitive::U8 => rt::walk::<u8>(value, path, report),
        Primitive::U16 => rt::walk::<u16>(value, path, report),
        Primitive::U32 => rt::walk::<u32>(value, path, report),
        Primitive::U64 => rt::walk::<u64>(value, path, report),
        Primitive::F32 => rt::walk::<f32>(value, path, report),
        Primitive::F64 => rt::walk::<f64>(value, path, report),
        Primitive::Null => rt::walk::<()>(value, path, report),
    }
}

/// An enum's value: one of those listed. An open enum keeps a value it
/// does not list when it decodes, but a request carrying one is refused,
/// and the document does not allow it in an answer: listed is listed.
fn enumeration<'v>(e: &EnumDef, value: &'v Value, path: &mut Path<'v>, report: &mut Report) {
    let listed = || e.variants.iter().map(|v| v.wire.as_str());
    let fits = match (e.repr, value) {
        (EnumRepr::String, Value::String(text)) => Some(listed().any(|w| w == text)),
        (EnumRepr::Integer | EnumRepr::Number, Value::Number(_))
        | (EnumRepr::Boolean, Value::Bool(_)) => {
            let text = value.to_string();
            Some(listed().any(|w| {
                w == text
                    || w.parse::<f64>()
                        .ok()
                        .zip(value.as_f64())
                        .is_some_and(|(a, b)| a == b)
            }))
        }
        _ => None,
    };
    match fits {
        Some(true) => {}
        Some(false) => {
            let expected: Vec<&str> = listed().collect();
            report.push(
                path,
                format!("must be one of: {}", expected.join(", ")),
                "InvalidEnumValue",
            );
        }
        None => match e.repr {
            EnumRepr::String => rt::walk::<String>(value, path, report),
            EnumRepr::Integer => rt::walk::<i64>(value, path, report),
            EnumRepr::Number => rt::walk::<f64>(value, path, report),
            EnumRepr::Boolean => rt::walk::<bool>(value, path, report),
        },
    }
}
