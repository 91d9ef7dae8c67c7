//! Values made up from a shape, for an answer whose document gives no
//! example: valid against the shape (lengths, ranges, patterns, formats,
//! required properties), and the same for the same seed.

use openapi_codegen::ir::{
    Access, Additional, Api, EnumRepr, Primitive, Shape, Tagging, Ty, TypeKind,
};
use serde_json::{Map, Number, Value};

use crate::check::{Checker, Patterns, Reading};
use crate::pattern;

/// How deep optional properties and list items are still filled in; below
/// it a value has only what its schema requires, so that a recursive
/// schema ends.
const FULL_DEPTH: usize = 4;
/// Where a chain of required properties of a recursive schema is cut.
const MAX_DEPTH: usize = 16;

/// Makes up values of one API's shapes from a seeded generator.
pub struct Sampler<'a> {
    api: &'a Api,
    rng: fastrand::Rng,
    patterns: Patterns,
}

impl<'a> Sampler<'a> {
    /// A sampler of `api`'s shapes; the same `seed` makes the same values.
    pub fn new(api: &'a Api, seed: u64) -> Self {
        Sampler {
            api,
            rng: fastrand::Rng::with_seed(seed),
            patterns: Patterns::default(),
        }
    }

    /// A value of `shape`, as an answer carries it (write-only properties
    /// left out).
    pub fn value(&mut self, shape: &Shape) -> Value {
        self.shape(shape, 0)
    }

    fn shape(&mut self, shape: &Shape, depth: usize) -> Value {
        if depth > MAX_DEPTH {
            return Value::Null;
        }
        let checks = &shape.checks;
        match &shape.ty {
            Ty::Any => Value::Object(Map::new()),
            Ty::Primitive(primitive) => self.primitive(*primitive, shape),
            Ty::Array(item) => {
                let wanted = if depth < FULL_DEPTH { 2 } else { 0 };
                let count = wanted
                    .max(checks.min_items.unwrap_or(0))
                    .min(checks.max_items.unwrap_or(usize::MAX));
                let mut items: Vec<Value> = Vec::with_capacity(count);
                // Unique items: a few tries per item, then fewer items.
                for _ in 0..count * 4 {
                    if items.len() == count {
                        break;
                    }
                    let item = self.shape(item, depth + 1);
                    if !checks.unique_items || !items.contains(&item) {
                        items.push(item);
                    }
                }
                Value::Array(items)
            }
            Ty::Map(item) => {
                let mut map = Map::new();
                if depth < FULL_DEPTH {
                    map.insert("key".to_owned(), self.shape(item, depth + 1));
                }
                Value::Object(map)
            }
            Ty::Named(name) => self.named(name, depth),
        }
    }

    fn named(&mut self, name: &str, depth: usize) -> Value {
        let api = self.api;
        let Some(def) = api.type_named(name) else {
            return Value::Null;
        };
        let own = Shape::of(Ty::Named(name.to_owned()));
        if let Some(example) = self.valid_example(def.docs.example.as_ref(), &own) {
            return example;
        }
        match &def.kind {
            TypeKind::Struct(s) => {
                let mut object = Map::new();
                for field in &s.fields {
                    let wanted = field.required || depth < FULL_DEPTH;
                    if !wanted || field.access == Access::WriteOnly && !field.required {
                        continue;
                    }
                    let value = match self.valid_example(field.docs.example.as_ref(), &field.shape)
                    {
                        Some(example) => example,
                        None => self.shape(&field.shape, depth + 1),
                    };
                    object.insert(field.wire.clone(), value);
                }
                if let (Some(min), Additional::Map { value, .. }) =
                    (s.property_count.0, &s.additional)
                {
                    for index in object.len()..min {
                        let extra = self.shape(value, depth + 1);
                        object.insert(format!("property{index}"), extra);
                    }
                }
                Value::Object(object)
            }
            TypeKind::Enum(e) => {
                let Some(variant) = e.variants.get(self.rng.usize(..e.variants.len().max(1)))
                else {
                    return Value::Null;
                };
                match e.repr {
                    EnumRepr::String => Value::String(variant.wire.clone()),
                    _ => serde_json::from_str(&variant.wire).unwrap_or(Value::Null),
                }
            }
            TypeKind::Union(u) => {
                let Some(variant) = u.variants.first() else {
                    return Value::Null;
                };
                let mut value = self.shape(&variant.shape, depth);
                if let (Tagging::Internal { property, .. }, Some(tag), Value::Object(object)) =
                    (&u.tagging, variant.tag_values.first(), &mut value)
                {
                    object.insert(property.clone(), Value::String(tag.clone()));
                }
                value
            }
            TypeKind::Newtype(shape) | TypeKind::Alias(shape) => self.shape(shape, depth),
        }
    }

    /// A schema's `example`, when it is valid against the schema: a
    /// document's examples are not always (a number for a string, text
    /// longer than its `maxLength`), and made-up data must be.
    fn valid_example(&self, example: Option<&Value>, shape: &Shape) -> Option<Value> {
        let example = example?;
        let checker = Checker::new(self.api, Reading::Document, &self.patterns);
        checker
            .check(shape, example, "example")
            .is_empty()
            .then(|| example.clone())
    }

    fn primitive(&mut self, primitive: Primitive, shape: &Shape) -> Value {
        let checks = &shape.checks;
        match primitive {
            Primitive::String | Primitive::Binary => Value::String(self.text(shape)),
            Primitive::Uuid => {
                let bytes: [u8; 16] = std::array::from_fn(|_| self.rng.u8(..));
                Value::String(
                    uuid::Builder::from_random_bytes(bytes)
                        .into_uuid()
                        .to_string(),
                )
            }
            Primitive::DateTime => Value::String(format!(
                "2026-{:02}-{:02}T{:02}:{:02}:00Z",
                self.rng.u8(1..=12),
                self.rng.u8(1..=28),
                self.rng.u8(0..24),
                self.rng.u8(0..60)
            )),
            Primitive::Date => Value::String(format!(
                "2026-{:02}-{:02}",
                self.rng.u8(1..=12),
                self.rng.u8(1..=28)
            )),
            Primitive::Bool => Value::Bool(self.rng.bool()),
            Primitive::Null => Value::Null,
            Primitive::F32 | Primitive::F64 => {
                let (low, high) = bounds(checks, -1000.0, 1000.0);
                let number = match (checks.multiple_of, checks.minimum, checks.maximum) {
                    (Some(factor), ..) if factor > 0.0 => (low / factor).ceil() * factor,
                    // Both bounds, either exclusive: the middle is inside.
                    (None, Some((min, _)), Some((max, _))) => (min + max) / 2.0,
                    _ => low + (high - low) * self.rng.f64(),
                };
                Number::from_f64(number).map_or(Value::Null, Value::Number)
            }
            integer => {
                let (low, high) = integer_range(integer);
                let (low, high) = bounds(checks, low.max(-1000.0), high.min(1000.0));
                let (low, high) = (low.ceil() as i64, high.floor() as i64);
                let mut number = if low <= high {
                    self.rng.i64(low..=high)
                } else {
                    low
                };
                if let Some(factor) = checks.multiple_of.filter(|f| *f >= 1.0) {
                    let factor = factor as i64;
                    number = (low + factor - 1).div_euclid(factor) * factor;
                }
                Value::Number(number.into())
            }
        }
    }

    /// A string of the shape's length, e-mail format or pattern.
    fn text(&mut self, shape: &Shape) -> String {
        let checks = &shape.checks;
        if checks.email {
            return format!("user{}@example.com", self.rng.u16(..));
        }
        if let Some(text) = checks
            .pattern
            .as_deref()
            .and_then(|p| pattern::sample(p, &mut self.rng))
        {
            return text;
        }
        let min = checks.min_length.unwrap_or(0);
        let max = checks.max_length.unwrap_or(usize::MAX).max(min);
        let length = 8.clamp(min, max);
        (0..length)
            .map(|_| char::from(b'a' + self.rng.u8(..26)))
            .collect()
    }
}

/// The lowest and highest value a number may take.
fn bounds(checks: &openapi_codegen::ir::Checks, low: f64, high: f64) -> (f64, f64) {
    let mut low = low;
    let mut high = high;
    if let Some((minimum, exclusive)) = checks.minimum {
        low = if exclusive { minimum + 1.0 } else { minimum };
        high = high.max(low + 1000.0);
    }
    if let Some((maximum, exclusive)) = checks.maximum {
        high = if exclusive { maximum - 1.0 } else { maximum };
        if checks.minimum.is_none() {
            low = low.min(high - 1000.0);
        }
    }
    (low, high.max(low))
}

fn integer_range(primitive: Primitive) -> (f64, f64) {
    match primitive {
        Primitive::I8 => (f64::from(i8::MIN), f64::from(i8::MAX)),
        Primitive::I16 => (f64::from(i16::MIN), f64::from(i16::MAX)),
        Primitive::I32 => (f64::from(i32::MIN), f64::from(i32::MAX)),
        Primitive::U8 => (0.0, f64::from(u8::MAX)),
        Primitive::U16 => (0.0, f64::from(u16::MAX)),
        Primitive::U32 => (0.0, f64::from(u32::MAX)),
        Primitive::U64 => (0.0, 9.0e15),
        _ => (-9.0e15, 9.0e15),
    }
}
