//! Schemas: the named ones under `components/schemas`, and every inline
//! schema of a parameter, body, response or header, compared the same way.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use super::differ::Differ;
use super::nodes::{entries, flag, resolve, scalar_text, schema_ref, without_text};
use super::report::{breaks, ok};
use super::usage::Usage;
use crate::ir::Primitive;
use crate::lower::inheritance;
use crate::lower::value_names;
use crate::names::type_name;
use crate::parse::{Document, Pointer};

/// Where a schema is, in both documents, and how it is used.
#[derive(Clone)]
pub(crate) struct Site {
    pub old: Pointer,
    pub new: Pointer,
    /// How messages name it, e.g. "`CustomerInput`" or "the body of `createCustomer`".
    pub label: String,
    pub usage: Usage,
    /// Whether a value must be present here (a required property or
    /// parameter, a body): decides whether `nullable` changes the Rust type.
    pub required: bool,
}

impl Site {
    fn child(&self, old: Pointer, new: Pointer, label: String, required: bool) -> Site {
        Site {
            old,
            new,
            label,
            usage: self.usage,
            required,
        }
    }

    /// The label of property `name` of this schema: "`A.b`" below a name,
    /// "`b` of …" otherwise.
    fn property(&self, name: &str) -> String {
        match self.label.strip_suffix('`') {
            Some(head) if head.starts_with('`') && !head[1..].contains('`') => {
                format!("{head}.{name}`")
            }
            _ => format!("`{name}` of {}", self.label),
        }
    }
}

/// Every schema of `components/schemas`, by name.
pub(crate) fn compare_components(d: &mut Differ<'_>) {
    let at = Pointer::root().push("components").push("schemas");
    let old = entries(d.old.raw.get("components").and_then(|c| c.get("schemas")));
    let new = entries(d.new.raw.get("components").and_then(|c| c.get("schemas")));
    hierarchies(d);
    for (name, old_schema) in &old {
        let pointer = at.push(name);
        match new.iter().find(|(n, _)| n == name) {
            Some((_, new_schema)) => {
                let site = Site {
                    old: pointer.clone(),
                    new: pointer,
                    label: format!("`{name}`"),
                    usage: d.usage.get(name),
                    required: true,
                };
                compare(d, old_schema, new_schema, &site);
            }
            None => d.push(
                &pointer,
                format!("schema `{name}` removed"),
                ok("where it was used, the change is listed there"),
                breaks(format!("the type `{name}` is gone")),
            ),
        }
    }
    for (name, _) in &new {
        if !old.iter().any(|(n, _)| n == name) {
            d.push(
                &at.push(name),
                format!("schema `{name}` added"),
                ok("where it is used, the change is listed there"),
                ok("a new type"),
            );
        }
    }
}

/// Bases whose subtypes changed ([`crate::lower::inheritance`]): a schema
/// that gains its first subtype becomes an enum of them, one that loses its
/// last becomes a struct again, and a subtype gone is a variant gone. A
/// subtype added is a variant added to an enum that is `#[non_exhaustive]`.
fn hierarchies(d: &mut Differ<'_>) {
    let (old, new) = (inheritance::find(d.old), inheritance::find(d.new));
    let name = |pointer: &Pointer| format!("`{}`", pointer.last().unwrap_or_default());
    let mut bases: Vec<&Pointer> = old.keys().chain(new.keys()).collect();
    bases.sort();
    bases.dedup();
    for base in bases {
        let site = name(base);
        match (old.get(base), new.get(base)) {
            (Some(_), None) => d.push(
                base,
                format!("{site} no longer has subtypes told apart by a discriminator"),
                ok("the same values are read, each as the base"),
                breaks("its enum of subtypes becomes the struct of its own properties"),
            ),
            (None, Some(h)) => d.push(
                base,
                format!("{site} now has subtypes told apart by `{}`", h.property),
                ok("values of a subtype keep the subtype's own properties"),
                breaks("its struct becomes an enum of its subtypes (the struct is `…Base`)"),
            ),
            (Some(a), Some(b)) => {
                if a.property != b.property {
                    d.push(
                        base,
                        format!(
                            "the discriminator of {site} changed from `{}` to `{}`",
                            a.property, b.property
                        ),
                        breaks("values tagged by the old property are read as the base"),
                        ok("the variants stay"),
                    );
                }
                for subtype in &a.subtypes {
                    match b.subtypes.iter().find(|s| s.pointer == subtype.pointer) {
                        None => d.push(
                            base,
                            format!("{} is no longer a subtype of {site}", name(&subtype.pointer)),
                            ok("its values are read as the base"),
                            breaks("its variant is gone"),
                        ),
                        Some(now) if now.tags != subtype.tags => d.push(
                            base,
                            format!(
                                "the discriminator values of {} in {site} changed from [{}] to [{}]",
                                name(&subtype.pointer),
                                subtype.tags.join(", "),
                                now.tags.join(", ")
                            ),
                            breaks("values tagged as before are read as another variant"),
                            ok("the variant stays"),
                        ),
                        Some(_) => {}
                    }
                }
            }
            (None, None) => {}
        }
    }
}

/// Compares a schema node of the old document with one of the new.
pub(crate) fn compare(
    d: &mut Differ<'_>,
    old: &serde_yaml::Value,
    new: &serde_yaml::Value,
    site: &Site,
) {
    match (schema_ref(old), schema_ref(new)) {
        (Some(a), Some(b)) if a == b => return,
        (None, None) => {}
        (a, b) => {
            let name = |n: Option<String>| {
                n.map_or_else(|| "an inline schema".to_owned(), |n| format!("`{n}`"))
            };
            let same = without_text(resolve(d.old, old)) == without_text(resolve(d.new, new));
            d.push(
                &site.new,
                format!(
                    "the schema of {} changed from {} to {}",
                    site.label,
                    name(a),
                    name(b)
                ),
                if same {
                    ok("the two schemas have the same shape")
                } else {
                    site.usage.changed()
                },
                breaks("its Rust type is another type"),
            );
            return;
        }
    }
    let (old_kind, new_kind) = (kind(old), kind(new));
    if old_kind != new_kind {
        d.push(
            &site.new,
            format!(
                "the type of {} changed from {old_kind} to {new_kind}",
                site.label
            ),
            if site.usage.request || site.usage.response {
                breaks("values of the old type are not values of the new one")
            } else {
                ok("no request or response uses it")
            },
            breaks("its Rust type changes"),
        );
        return;
    }
    format(d, old, new, site, new_kind);
    nullable(d, old, new, site);
    enumeration(d, old, new, site);
    constraints(d, old, new, site);
    if new_kind == "object" {
        object(d, old, new, site);
    }
    if let (Some(a), Some(b)) = (old.get("items"), new.get("items")) {
        let child = site.child(
            site.old.push("items"),
            site.new.push("items"),
            format!("the items of {}", site.label),
            true,
        );
        compare(d, a, b, &child);
    }
    for key in ["oneOf", "anyOf"] {
        union(d, old, new, site, key);
    }
    discriminator(d, old, new, site);
}

/// The JSON type a schema describes: its `type`, else what its keywords imply.
fn kind(schema: &serde_yaml::Value) -> &str {
    if let Some(t) = schema.get("type").and_then(serde_yaml::Value::as_str) {
        return t;
    }
    if schema.get("oneOf").is_some() || schema.get("anyOf").is_some() {
        "a union"
    } else if schema.get("properties").is_some()
        || schema.get("allOf").is_some()
        || schema.get("additionalProperties").is_some()
    {
        "object"
    } else if schema.get("items").is_some() {
        "array"
    } else {
        "any value"
    }
}

/// The Rust type a type and format become (names for messages).
fn rust_scalar(kind: &str, format: Option<&str>) -> String {
    Primitive::of(kind, format).map_or_else(
        || "the same type".to_owned(),
        |primitive| format!("`{}`", primitive.rust_name()),
    )
}

fn format(
    d: &mut Differ<'_>,
    old: &serde_yaml::Value,
    new: &serde_yaml::Value,
    site: &Site,
    kind: &str,
) {
    let get = |s: &serde_yaml::Value| {
        s.get("format")
            .and_then(serde_yaml::Value::as_str)
            .map(str::to_owned)
    };
    let (a, b) = (get(old), get(new));
    if a == b {
        return;
    }
    let (what, wire) = match (&a, &b) {
        (None, Some(b)) => (
            format!("`format: {b}` added to {}", site.label),
            site.usage.narrowed(),
        ),
        (Some(a), None) => (
            format!("`format: {a}` removed from {}", site.label),
            site.usage.widened(),
        ),
        (Some(a), Some(b)) => (
            format!("the format of {} changed from `{a}` to `{b}`", site.label),
            site.usage.changed(),
        ),
        (None, None) => unreachable!("equal formats returned above"),
    };
    let (from, to) = (
        rust_scalar(kind, a.as_deref()),
        rust_scalar(kind, b.as_deref()),
    );
    let rust = if from == to {
        ok("its Rust type is unchanged")
    } else {
        breaks(format!("its Rust type changes from {from} to {to}"))
    };
    d.push(&site.new, what, wire, rust);
}

fn nullable(d: &mut Differ<'_>, old: &serde_yaml::Value, new: &serde_yaml::Value, site: &Site) {
    let (a, b) = (flag(old, "nullable"), flag(new, "nullable"));
    if a == b {
        return;
    }
    let rust = match (site.required, b) {
        (false, _) => ok("it is optional: an `Option` already"),
        (true, true) => breaks("its Rust type becomes an `Option`"),
        (true, false) => breaks("its Rust type is no longer an `Option`"),
    };
    if b {
        d.push(
            &site.new,
            format!("{} is now nullable", site.label),
            site.usage.widened(),
            rust,
        );
    } else {
        d.push(
            &site.new,
            format!("{} is no longer nullable", site.label),
            site.usage.narrowed(),
            rust,
        );
    }
}

fn enumeration(d: &mut Differ<'_>, old: &serde_yaml::Value, new: &serde_yaml::Value, site: &Site) {
    let values = |s: &serde_yaml::Value| -> Option<Vec<String>> {
        s.get("enum")
            .and_then(serde_yaml::Value::as_sequence)
            .map(|vs| vs.iter().filter_map(scalar_text).collect())
    };
    match (values(old), values(new)) {
        (None, None) => {}
        (None, Some(_)) => d.push(
            &site.new.push("enum"),
            format!("{} is now restricted to an enum", site.label),
            site.usage.narrowed(),
            breaks("its Rust type becomes an enum"),
        ),
        (Some(_), None) => d.push(
            &site.new,
            format!("{} is no longer an enum", site.label),
            site.usage.widened(),
            breaks("its Rust type is no longer an enum"),
        ),
        (Some(a), Some(b)) => {
            for (index, value) in a.iter().enumerate() {
                if !b.contains(value) {
                    d.push(
                        &site.old.push("enum").index(index),
                        format!("value `{value}` removed from {}", site.label),
                        if site.usage.request {
                            breaks("requests that send it are refused")
                        } else {
                            site.usage.narrowed()
                        },
                        breaks("its enum variant is gone"),
                    );
                }
            }
            for (index, value) in b.iter().enumerate() {
                if !a.contains(value) {
                    d.push(
                        &site.new.push("enum").index(index),
                        format!("value `{value}` added to {}", site.label),
                        if site.usage.response {
                            breaks("clients that accept only the documented values cannot read it")
                        } else {
                            site.usage.widened()
                        },
                        ok("enums are `#[non_exhaustive]`, and those the API sends decode unknown values: no `match` breaks"),
                    );
                }
            }
            let (old_names, new_names) = (given_names(old), given_names(new));
            for (index, value) in b.iter().enumerate() {
                let variant = |names: &BTreeMap<String, String>| {
                    names
                        .get(value)
                        .map_or_else(|| type_name(value), |name| type_name(name))
                };
                let (was, is) = (variant(&old_names), variant(&new_names));
                if a.contains(value) && was != is {
                    d.push(
                        &site.new.push("enum").index(index),
                        format!(
                            "the variant of value `{value}` of {} is renamed from `{was}` to `{is}` (the name an extension gives it changed)",
                            site.label
                        ),
                        ok("the value on the wire is the same"),
                        breaks("code that names the variant no longer builds"),
                    );
                }
            }
        }
    }
}

/// The names extensions give an enum's values, by the values' text, as
/// the lowering reads them ([`value_names::given`]).
fn given_names(schema: &serde_yaml::Value) -> BTreeMap<String, String> {
    let text = |value: &serde_json::Value| match value {
        serde_json::Value::String(text) => Some(text.clone()),
        serde_json::Value::Number(_) | serde_json::Value::Bool(_) => Some(value.to_string()),
        _ => None,
    };
    value_names::given(schema, text)
        .into_iter()
        .filter_map(|(value, given)| Some((value, given.name?)))
        .collect()
}

/// How a constraint bounds the values.
#[derive(Clone, Copy)]
enum Bound {
    /// Larger is looser (`maxLength`).
    Upper,
    /// Larger is tighter (`minLength`).
    Lower,
    /// Any change is both (`pattern`).
    Other,
    /// `true` is tighter (`uniqueItems`).
    Flag,
}

const CONSTRAINTS: [(&str, Bound); 12] = [
    ("maxLength", Bound::Upper),
    ("maxItems", Bound::Upper),
    ("maxProperties", Bound::Upper),
    ("maximum", Bound::Upper),
    ("minLength", Bound::Lower),
    ("minItems", Bound::Lower),
    ("minProperties", Bound::Lower),
    ("minimum", Bound::Lower),
    ("pattern", Bound::Other),
    ("multipleOf", Bound::Other),
    ("uniqueItems", Bound::Flag),
    ("exclusiveMaximum", Bound::Flag),
];

fn constraints(d: &mut Differ<'_>, old: &serde_yaml::Value, new: &serde_yaml::Value, site: &Site) {
    let keywords = CONSTRAINTS
        .iter()
        .copied()
        .chain([("exclusiveMinimum", Bound::Flag)]);
    for (key, bound) in keywords {
        let (a, b) = (old.get(key), new.get(key));
        if a == b {
            continue;
        }
        let text = |v: Option<&serde_yaml::Value>| v.and_then(scalar_text).unwrap_or_default();
        let number = |v: Option<&serde_yaml::Value>| v.and_then(serde_yaml::Value::as_f64);
        // How the new number compares with the old one; `10` and `10.0`
        // are the same bound.
        let order = number(b)
            .zip(number(a))
            .and_then(|(b, a)| b.partial_cmp(&a));
        if order == Some(Ordering::Equal) {
            continue;
        }
        // Whether the new value lets more values through (Some(true)), fewer
        // (Some(false)), or some of each (None).
        let looser = match (bound, a, b) {
            (Bound::Flag, _, _) => Some(!flag(new, key)),
            (_, Some(_), None) => Some(true),
            (_, None, Some(_)) => Some(false),
            (Bound::Upper, _, _) => order.map(|o| o == Ordering::Greater),
            (Bound::Lower, _, _) => order.map(|o| o == Ordering::Less),
            (Bound::Other, _, _) => None,
        };
        let what = match (a, b) {
            (None, Some(_)) => format!("`{key}: {}` added to {}", text(b), site.label),
            (Some(_), None) => format!("`{key}: {}` removed from {}", text(a), site.label),
            _ => format!(
                "`{key}` of {} changed from {} to {}",
                site.label,
                text(a),
                text(b)
            ),
        };
        let wire = match looser {
            Some(true) => site.usage.widened(),
            Some(false) => site.usage.narrowed(),
            None => site.usage.changed(),
        };
        let at = if b.is_some() { &site.new } else { &site.old };
        d.push(
            &at.push(key),
            what,
            wire,
            ok("validation only: the Rust type is unchanged"),
        );
    }
}

/// The properties of an object schema, its inline `allOf` members' merged in.
struct Object<'a> {
    properties: Vec<(String, &'a serde_yaml::Value, Pointer)>,
    required: BTreeSet<String>,
    /// The schemas named by `allOf` members that are `$ref`s.
    bases: Vec<String>,
}

impl<'a> Object<'a> {
    fn of(schema: &'a serde_yaml::Value, at: &Pointer) -> Object<'a> {
        let mut object = Object {
            properties: Vec::new(),
            required: BTreeSet::new(),
            bases: Vec::new(),
        };
        object.collect(schema, at);
        object
    }

    fn collect(&mut self, schema: &'a serde_yaml::Value, at: &Pointer) {
        for (name, property) in entries(schema.get("properties")) {
            if !self.properties.iter().any(|(n, _, _)| *n == name) {
                let pointer = at.push("properties").push(&name);
                self.properties.push((name, property, pointer));
            }
        }
        for name in schema
            .get("required")
            .and_then(serde_yaml::Value::as_sequence)
            .into_iter()
            .flatten()
            .filter_map(scalar_text)
        {
            self.required.insert(name);
        }
        for (index, member) in schema
            .get("allOf")
            .and_then(serde_yaml::Value::as_sequence)
            .into_iter()
            .flatten()
            .enumerate()
        {
            match schema_ref(member) {
                Some(name) => self.bases.push(name),
                None => self.collect(member, &at.push("allOf").index(index)),
            }
        }
    }
}

/// Whether property `name` of `object` must be present in the messages that
/// carry the schema, as the generated field is: `required`, unless it is
/// `readOnly` and requests carry the schema, or `writeOnly` and answers do
/// (OpenAPI applies their `required` to the other direction only).
fn travels_required(
    doc: &Document,
    object: &Object<'_>,
    name: &str,
    property: &serde_yaml::Value,
    usage: Usage,
) -> bool {
    let property = resolve(doc, property);
    object.required.contains(name)
        && !(usage.request && flag(property, "readOnly"))
        && !(usage.response && flag(property, "writeOnly"))
}

fn object(d: &mut Differ<'_>, old: &serde_yaml::Value, new: &serde_yaml::Value, site: &Site) {
    let (a, b) = (Object::of(old, &site.old), Object::of(new, &site.new));
    if a.bases != b.bases {
        let names = |bases: &[String]| {
            bases
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        d.push(
            &site.new.push("allOf"),
            format!(
                "the schemas `allOf` merges into {} changed from [{}] to [{}]",
                site.label,
                names(&a.bases),
                names(&b.bases)
            ),
            site.usage.changed(),
            breaks("its fields change"),
        );
    }
    let usage = site.usage;
    for (name, old_property, old_at) in &a.properties {
        let label = site.property(name);
        let was_required = travels_required(d.old, &a, name, old_property, usage);
        let Some((_, new_property, new_at)) = b.properties.iter().find(|(n, _, _)| n == name)
        else {
            let wire = if usage.request {
                breaks("requests that send it are refused as an unknown property, or it is ignored")
            } else if usage.response {
                breaks("clients that read it no longer get it")
            } else {
                ok("no request or response uses it")
            };
            d.push(
                old_at,
                format!("property {label} removed"),
                wire,
                breaks("its field (and setter) is gone"),
            );
            continue;
        };
        let required = travels_required(d.new, &b, name, new_property, usage);
        if required && !was_required {
            d.push(
                new_at,
                format!("property {label} is now required"),
                if usage.request {
                    breaks("requests that leave it out are refused")
                } else {
                    ok("the server always sends it now")
                },
                breaks("its field is no longer an `Option`, and `new` takes it"),
            );
        } else if was_required && !required {
            d.push(
                new_at,
                format!("property {label} is now optional"),
                if usage.response {
                    breaks("clients may no longer receive it")
                } else {
                    ok("clients may leave it out")
                },
                breaks("its field becomes an `Option`, and `new` no longer takes it"),
            );
        }
        let child = site.child(old_at.clone(), new_at.clone(), label, required);
        compare(d, old_property, new_property, &child);
    }
    for (name, new_property, new_at) in &b.properties {
        if a.properties.iter().any(|(n, _, _)| n == name) {
            continue;
        }
        let label = site.property(name);
        if travels_required(d.new, &b, name, new_property, usage) {
            d.push(
                new_at,
                format!("required property {label} added"),
                if usage.request {
                    breaks("old clients do not send it")
                } else {
                    ok("clients ignore properties they do not know")
                },
                breaks("`new` takes the required properties: it gains an argument"),
            );
        } else {
            d.push(
                new_at,
                format!("optional property {label} added"),
                ok(if usage.request {
                    "old clients leave it out"
                } else {
                    "clients ignore properties they do not know"
                }),
                ok("structs are `#[non_exhaustive]` and built with `new` and `with_*` setters: the field and its setter are new, `new` is unchanged"),
            );
        }
    }
    additional(d, old, new, site);
}

fn additional(d: &mut Differ<'_>, old: &serde_yaml::Value, new: &serde_yaml::Value, site: &Site) {
    let (a, b) = (
        old.get("additionalProperties"),
        new.get("additionalProperties"),
    );
    let closed =
        |v: Option<&serde_yaml::Value>| v.and_then(serde_yaml::Value::as_bool) == Some(false);
    let pointer = site.new.push("additionalProperties");
    match (a.filter(|v| v.is_mapping()), b.filter(|v| v.is_mapping())) {
        (Some(a), Some(b)) => {
            let child = site.child(
                site.old.push("additionalProperties"),
                pointer,
                format!("the other properties of {}", site.label),
                true,
            );
            compare(d, a, b, &child);
        }
        (None, None) => {
            if closed(a) && !closed(b) {
                d.push(
                    &pointer,
                    format!("{} now allows properties it does not declare", site.label),
                    site.usage.widened(),
                    ok("its Rust type is unchanged"),
                );
            } else if !closed(a) && closed(b) {
                d.push(
                    &pointer,
                    format!(
                        "{} no longer allows properties it does not declare",
                        site.label
                    ),
                    site.usage.narrowed(),
                    ok("its Rust type is unchanged"),
                );
            }
        }
        _ => d.push(
            &pointer,
            format!(
                "the schema of the other properties of {} changed",
                site.label
            ),
            site.usage.changed(),
            breaks("its Rust type gains or loses the map of other properties"),
        ),
    }
}

fn union(
    d: &mut Differ<'_>,
    old: &serde_yaml::Value,
    new: &serde_yaml::Value,
    site: &Site,
    key: &str,
) {
    let members = |s: &serde_yaml::Value| -> Vec<serde_yaml::Value> {
        s.get(key)
            .and_then(serde_yaml::Value::as_sequence)
            .cloned()
            .unwrap_or_default()
    };
    let (a, b) = (members(old), members(new));
    let name = |m: &serde_yaml::Value| {
        schema_ref(m).map_or_else(|| "an inline schema".to_owned(), |n| format!("`{n}`"))
    };
    // Referenced members match by name, inline ones by position.
    let matches =
        |m: &serde_yaml::Value, i: usize, others: &[serde_yaml::Value]| match schema_ref(m) {
            Some(n) => others
                .iter()
                .position(|o| schema_ref(o).as_deref() == Some(n.as_str())),
            None => others.get(i).filter(|o| schema_ref(o).is_none()).map(|_| i),
        };
    for (i, member) in a.iter().enumerate() {
        match matches(member, i, &b) {
            Some(j) => {
                let child = site.child(
                    site.old.push(key).index(i),
                    site.new.push(key).index(j),
                    format!("alternative {} of {}", j + 1, site.label),
                    true,
                );
                compare(d, member, &b[j], &child);
            }
            None => d.push(
                &site.old.push(key).index(i),
                format!("alternative {} removed from {}", name(member), site.label),
                site.usage.narrowed(),
                breaks("its enum variant is gone"),
            ),
        }
    }
    for (j, member) in b.iter().enumerate() {
        if matches(member, j, &a).is_none() {
            d.push(
                &site.new.push(key).index(j),
                format!("alternative {} added to {}", name(member), site.label),
                site.usage.widened(),
                breaks("its enum gains a variant"),
            );
        }
    }
}

/// The discriminator, which says how the variants of a union (or the
/// subtypes of a base) are told apart.
fn discriminator(
    d: &mut Differ<'_>,
    old: &serde_yaml::Value,
    new: &serde_yaml::Value,
    site: &Site,
) {
    let discriminator = |s: &serde_yaml::Value| s.get("discriminator").map(without_text);
    if discriminator(old) != discriminator(new) {
        d.push(
            &site.new.push("discriminator"),
            format!("the discriminator of {} changed", site.label),
            site.usage.changed(),
            breaks("its serde tagging changes"),
        );
    }
}
