//! OpenAPI 3.1 documents, rewritten into the OpenAPI 3.0 that `openapiv3`
//! reads, so that every later stage works on them unchanged.
//!
//! The rewrite works on the ordered tree, before `openapiv3` sees it, and
//! only where a 3.1 construct has a 3.0 equivalent:
//! - `type` arrays: `[T, "null"]` is `type: T, nullable: true`; several types
//!   are a `oneOf` of one schema per type (each with the keywords that apply
//!   to it); `type: "null"` alone is `enum: [null]`;
//! - `anyOf`/`oneOf` with a `{type: "null"}` member: the others, `nullable`;
//!   a single other member becomes `allOf: [it]`;
//! - `const` is a one-value `enum`; an `examples` array is `example` (its
//!   first value); numeric `exclusiveMinimum`/`exclusiveMaximum` are a
//!   bound with the boolean of 3.0;
//! - boolean schemas: `true` is `{}`, `false` is `{not: {}}` (a property
//!   that is `false` is dropped: it may not be present);
//! - a `$ref` beside other keywords is `allOf: [{$ref}]` beside them;
//! - `prefixItems`: the items' schema (a `oneOf` of the positions' schemas
//!   when they differ), `minItems`/`maxItems` from their count when
//!   `items: false` closes the tuple;
//! - `contentEncoding: base64` is `format: byte`; `contentMediaType` on a
//!   string is `format: binary`;
//! - a single `patternProperties` schema is `additionalProperties`;
//! - `$recursiveRef: "#"` and `$dynamicRef: "#"` are a `$ref` to the
//!   component schema they are in (the schema resource they mean);
//! - a document without `paths` gets an empty one, an operation without
//!   `responses` (optional in 3.1) an empty one; `webhooks` (rewritten as
//!   `paths` are), `pathItems`, `jsonSchemaDialect`, `info.summary` and
//!   `license.identifier` stay where they are (the later stages read what
//!   they need of them);
//! - a `mutualTLS` security scheme, which 3.0 has no type for, is taken out
//!   of `components.securitySchemes` and its name kept in
//!   [`Normalised::mutual_tls`]: the connection meets it, not the request.
//!
//! Every node that moves is recorded in [`Origins`], so that an error about
//! the rewritten tree names the node in the user's file.

use serde_yaml::{Mapping, Value};

use crate::pointer::Pointer;

/// Where nodes of the rewritten tree came from in the user's document: pairs
/// of (pointer in the rewritten tree, pointer in the user's), the nodes
/// under each pair having moved with it.
#[derive(Debug, Default, Clone)]
pub struct Origins {
    moves: std::collections::HashMap<Pointer, Pointer>,
}

impl Origins {
    /// The pointer in the user's document of the node at `pointer` of the
    /// rewritten tree: its nearest moved ancestor's, with the rest appended.
    pub fn to_user(&self, pointer: &Pointer) -> Pointer {
        if self.moves.is_empty() {
            return pointer.clone();
        }
        pointer
            .ancestors()
            .find_map(|from| {
                let to = self.moves.get(&from)?;
                pointer.rebase(&from, to)
            })
            .unwrap_or_else(|| pointer.clone())
    }

    pub(super) fn record(&mut self, rewritten: Pointer, user: Pointer) {
        if rewritten != user {
            self.moves.insert(rewritten, user);
        }
    }
}

/// Whether `version` (the `openapi` field) is one this module rewrites.
pub fn is_31(version: &str) -> bool {
    version == "3.1" || version.starts_with("3.1.")
}

/// What rewriting a 3.1 document found that the 3.0 tree cannot say.
#[derive(Debug, Default)]
pub struct Normalised {
    /// Where the rewritten tree's nodes are in the user's document.
    pub origins: Origins,
    /// The names of the `mutualTLS` security schemes, taken out of
    /// `components.securitySchemes`.
    pub mutual_tls: Vec<String>,
    /// Schemas with JSON Schema's conditional keywords (`if`, `then`,
    /// `else`, `dependentRequired`, `dependentSchemas`,
    /// `unevaluatedProperties`, `unevaluatedItems`), which no Rust type
    /// says and the validators do not check: where, in the rewritten tree.
    pub unchecked: Vec<Pointer>,
    /// Schemas whose `items` was a list, the tuple form of JSON Schema's
    /// drafts before 2020-12, read as `prefixItems`: where (the pointer of
    /// `prefixItems` in the rewritten tree, which names the user's `items`).
    pub tuples: Vec<Pointer>,
}

impl From<Origins> for Normalised {
    /// Only where the nodes are: a tree rewritten by another stage (Swagger
    /// 2.0's conversion), or one that is not a document.
    fn from(origins: Origins) -> Self {
        Normalised {
            origins,
            ..Normalised::default()
        }
    }
}

/// The keywords of [`Normalised::unchecked`].
const UNCHECKED: [&str; 7] = [
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "unevaluatedProperties",
    "unevaluatedItems",
];

/// Rewrites the 3.1 document `raw` into 3.0 in place.
pub fn normalise(raw: &mut Value) -> Normalised {
    normalise_from(raw, Origins::default())
}

/// Rewrites the document `raw`, a rewriting of the user's whose nodes
/// `origins` places (`v32.rs`), into 3.0 in place.
pub fn normalise_from(raw: &mut Value, origins: Origins) -> Normalised {
    let Value::Mapping(root) = raw else {
        return Normalised::from(origins);
    };
    root.insert("openapi".into(), "3.0.3".into());
    if !root.contains_key("paths") {
        root.insert("paths".into(), Value::Mapping(Mapping::new()));
    }
    let mut walker = Walker {
        origins,
        resource: None,
        unchecked: Vec::new(),
        tuples: Vec::new(),
    };
    let at = Pointer::root();
    for section in ["paths", "webhooks"] {
        if let Some(Value::Mapping(items)) = root.get_mut(section) {
            for (key, item) in items.iter_mut() {
                if let Some(key) = key.as_str() {
                    walker.path_item(item, &at.push(section).push(key));
                }
            }
        }
    }
    let mut mutual_tls = Vec::new();
    if let Some(Value::Mapping(components)) = root.get_mut("components") {
        mutual_tls = take_mutual_tls(components);
        let at = at.push("components");
        type Visit = fn(&mut Walker, &mut Value, &Pointer);
        let sections: [(&str, Visit); 7] = [
            ("schemas", Walker::schema),
            ("responses", Walker::response),
            ("parameters", Walker::parameter),
            ("requestBodies", Walker::request_body),
            ("headers", Walker::parameter),
            ("pathItems", Walker::path_item),
            ("callbacks", Walker::callback),
        ];
        for (section, visit) in sections {
            if let Some(Value::Mapping(items)) = components.get_mut(section) {
                for (key, item) in items.iter_mut() {
                    if let Some(key) = key.as_str() {
                        let at = at.push(section).push(key);
                        walker.resource = (section == "schemas").then(|| at.clone());
                        visit(&mut walker, item, &at);
                    }
                }
            }
        }
    }
    Normalised {
        origins: walker.origins,
        mutual_tls,
        unchecked: walker.unchecked,
        tuples: walker.tuples,
    }
}

/// Takes the `mutualTLS` schemes out of `components.securitySchemes`; their names.
fn take_mutual_tls(components: &mut Mapping) -> Vec<String> {
    let Some(Value::Mapping(schemes)) = components.get_mut("securitySchemes") else {
        return Vec::new();
    };
    let mut names = Vec::new();
    schemes.retain(|name, scheme| {
        let mutual = scheme.get("type").and_then(Value::as_str) == Some("mutualTLS");
        if let (true, Some(name)) = (mutual, name.as_str()) {
            names.push(name.to_owned());
        }
        !mutual
    });
    names
}

/// The methods a path item names by a field of its own.
pub(super) const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// The path item extension that holds the operations of any other method,
/// by the method's name (`QUERY`, `COPY`): where `v32.rs` puts OpenAPI
/// 3.2's `query` and `additionalOperations`, and the lowering reads them.
pub const OTHER_METHODS: &str = "x-openapi-codegen-other-methods";

/// Keywords that apply to one JSON type only, for splitting `type` arrays.
const STRING_KEYWORDS: [&str; 6] = [
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "contentEncoding",
    "contentMediaType",
];
const NUMBER_KEYWORDS: [&str; 6] = [
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "format",
];
const ARRAY_KEYWORDS: [&str; 6] = [
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "contains",
];
const OBJECT_KEYWORDS: [&str; 7] = [
    "properties",
    "required",
    "additionalProperties",
    "minProperties",
    "maxProperties",
    "patternProperties",
    "discriminator",
];

fn keywords_of(typ: &str) -> &'static [&'static str] {
    match typ {
        "string" => &STRING_KEYWORDS,
        "number" | "integer" => &NUMBER_KEYWORDS,
        "array" => &ARRAY_KEYWORDS,
        "object" => &OBJECT_KEYWORDS,
        _ => &[],
    }
}

struct Walker {
    origins: Origins,
    /// See [`Normalised::unchecked`].
    unchecked: Vec<Pointer>,
    /// See [`Normalised::tuples`].
    tuples: Vec<Pointer>,
    /// The component schema being rewritten, which `$recursiveRef: "#"`
    /// and `$dynamicRef: "#"` inside it mean.
    resource: Option<Pointer>,
}

impl Walker {
    /// The user's pointer of the node at `at` of the rewritten tree.
    fn user(&self, at: &Pointer) -> Pointer {
        self.origins.to_user(at)
    }

    fn path_item(&mut self, node: &mut Value, at: &Pointer) {
        let Value::Mapping(map) = node else { return };
        for method in METHODS {
            if let Some(op) = map.get_mut(method) {
                self.operation(op, &at.push(method));
            }
        }
        self.each_key(map, OTHER_METHODS, at, Self::operation);
        self.each_index(map, "parameters", at, Self::parameter);
    }

    fn operation(&mut self, node: &mut Value, at: &Pointer) {
        let Value::Mapping(map) = node else { return };
        self.each_index(map, "parameters", at, Self::parameter);
        if let Some(body) = map.get_mut("requestBody") {
            self.request_body(body, &at.push("requestBody"));
        }
        if !map.contains_key("responses") {
            map.insert("responses".into(), Value::Mapping(Mapping::new()));
        }
        self.each_key(map, "responses", at, Self::response);
        self.each_key(map, "callbacks", at, Self::callback);
    }

    /// A callback: path items by runtime expression.
    fn callback(&mut self, node: &mut Value, at: &Pointer) {
        let Value::Mapping(map) = node else { return };
        for (key, item) in map.iter_mut() {
            if let Some(key) = key.as_str() {
                self.path_item(item, &at.push(key));
            }
        }
    }

    /// A parameter or a header.
    fn parameter(&mut self, node: &mut Value, at: &Pointer) {
        let Value::Mapping(map) = node else { return };
        if let Some(schema) = map.get_mut("schema") {
            self.schema(schema, &at.push("schema"));
        }
        self.each_key(map, "content", at, Self::media_type);
    }

    fn request_body(&mut self, node: &mut Value, at: &Pointer) {
        let Value::Mapping(map) = node else { return };
        self.each_key(map, "content", at, Self::media_type);
    }

    fn response(&mut self, node: &mut Value, at: &Pointer) {
        let Value::Mapping(map) = node else { return };
        self.each_key(map, "headers", at, Self::parameter);
        self.each_key(map, "content", at, Self::media_type);
    }

    fn media_type(&mut self, node: &mut Value, at: &Pointer) {
        let Value::Mapping(map) = node else { return };
        if let Some(schema) = map.get_mut("schema") {
            self.schema(schema, &at.push("schema"));
        }
    }

    fn each_key(
        &mut self,
        map: &mut Mapping,
        field: &str,
        at: &Pointer,
        visit: fn(&mut Self, &mut Value, &Pointer),
    ) {
        if let Some(Value::Mapping(children)) = map.get_mut(field) {
            for (key, child) in children.iter_mut() {
                let key = match key {
                    Value::String(s) => s.clone(),
                    Value::Number(n) => n.to_string(),
                    _ => continue,
                };
                visit(self, child, &at.push(field).push(&key));
            }
        }
    }

    fn each_index(
        &mut self,
        map: &mut Mapping,
        field: &str,
        at: &Pointer,
        visit: fn(&mut Self, &mut Value, &Pointer),
    ) {
        if let Some(Value::Sequence(children)) = map.get_mut(field) {
            for (i, child) in children.iter_mut().enumerate() {
                visit(self, child, &at.push(field).index(i));
            }
        }
    }

    /// Rewrites the schema at `at` and then the schemas inside it.
    fn schema(&mut self, node: &mut Value, at: &Pointer) {
        if let Value::Bool(allowed) = node {
            *node = if *allowed {
                Value::Mapping(Mapping::new())
            } else {
                let not = Mapping::from_iter([("not".into(), Value::Mapping(Mapping::new()))]);
                Value::Mapping(not)
            };
            return;
        }
        let Value::Mapping(map) = node else { return };
        if let Some(keyword) = UNCHECKED.iter().find(|k| map.contains_key(**k)) {
            self.unchecked.push(at.push(keyword));
        }
        for keyword in ["$recursiveRef", "$dynamicRef"] {
            let to_root = map.get(keyword).and_then(Value::as_str) == Some("#");
            if let (true, Some(resource)) = (to_root, &self.resource) {
                map.shift_remove(keyword);
                map.insert("$ref".into(), resource.to_string().into());
            }
        }
        self.ref_with_siblings(map, at);
        self.null_alternatives(map, at);
        self.type_keyword(map, at);
        rewrite_annotations(map);
        let keywords = if self.tuple_items(map, at) {
            ("items", "additionalItems")
        } else {
            ("prefixItems", "items")
        };
        self.prefix_items(map, at, keywords);
        self.pattern_properties(map, at);
        // A property that is `false` may not be present: the type leaves it out.
        if let Some(Value::Mapping(properties)) = map.get_mut("properties") {
            properties.retain(|_, v| *v != Value::Bool(false));
        }
        for field in ["properties", "$defs", "definitions", "dependentSchemas"] {
            self.each_key(map, field, at, Self::schema);
        }
        for field in [
            "items",
            "not",
            "contains",
            "if",
            "then",
            "else",
            "propertyNames",
        ] {
            if let Some(child) = map.get_mut(field) {
                self.schema(child, &at.push(field));
            }
        }
        if let Some(child @ Value::Mapping(_)) = map.get_mut("additionalProperties") {
            self.schema(child, &at.push("additionalProperties"));
        }
        for field in ["allOf", "anyOf", "oneOf"] {
            self.each_index(map, field, at, Self::schema);
        }
    }

    /// `{$ref, description, …}` → `{allOf: [{$ref}], description, …}`.
    #[allow(clippy::expect_used, reason = "the `$ref` was found in this map above")]
    fn ref_with_siblings(&mut self, map: &mut Mapping, at: &Pointer) {
        if map.len() < 2 || !map.contains_key("$ref") {
            return;
        }
        let reference = map.shift_remove("$ref").expect("checked");
        let member = Value::Mapping(Mapping::from_iter([("$ref".into(), reference)]));
        let mut all_of = vec![member];
        let user = self.user(at);
        if let Some(Value::Sequence(existing)) = map.shift_remove("allOf") {
            for (i, item) in existing.into_iter().enumerate() {
                self.origins
                    .record(at.push("allOf").index(i + 1), user.push("allOf").index(i));
                all_of.push(item);
            }
        }
        self.origins.record(at.push("allOf").index(0), user.clone());
        map.insert("allOf".into(), Value::Sequence(all_of));
    }

    /// Drops the null members of `anyOf`/`oneOf`, making the schema nullable.
    #[allow(
        clippy::expect_used,
        reason = "one kept member: the condition above counted them"
    )]
    fn null_alternatives(&mut self, map: &mut Mapping, at: &Pointer) {
        for keyword in ["anyOf", "oneOf"] {
            let Some(Value::Sequence(members)) = map.get(keyword) else {
                continue;
            };
            if !members.iter().any(is_null_schema) {
                continue;
            }
            let user = self.user(&at.push(keyword));
            let Some(Value::Sequence(members)) = map.shift_remove(keyword) else {
                unreachable!("checked")
            };
            let kept: Vec<(usize, Value)> = members
                .into_iter()
                .enumerate()
                .filter(|(_, m)| !is_null_schema(m))
                .collect();
            map.insert("nullable".into(), true.into());
            let structural = ["type", "properties", "allOf", "items", "enum"];
            if kept.len() == 1 && !structural.iter().any(|k| map.contains_key(*k)) {
                let (i, member) = kept.into_iter().next().expect("one");
                self.origins
                    .record(at.push("allOf").index(0), user.index(i));
                map.insert("allOf".into(), Value::Sequence(vec![member]));
            } else if kept.is_empty() {
                map.insert("enum".into(), Value::Sequence(vec![Value::Null]));
            } else {
                let mut out = Vec::with_capacity(kept.len());
                for (new, (old, member)) in kept.into_iter().enumerate() {
                    self.origins
                        .record(at.push(keyword).index(new), user.index(old));
                    out.push(member);
                }
                map.insert(keyword.into(), Value::Sequence(out));
            }
        }
    }

    /// `type` arrays and `type: "null"`.
    fn type_keyword(&mut self, map: &mut Mapping, at: &Pointer) {
        let types: Vec<String> = match map.get("type") {
            Some(Value::String(t)) => vec![t.clone()],
            Some(Value::Sequence(items)) => items
                .iter()
                .filter_map(|t| t.as_str().map(str::to_owned))
                .collect(),
            _ => return,
        };
        if let Some(Value::Sequence(items)) = map.get("type") {
            if items.len() != types.len() {
                // Something other than a string in the array: leave it to
                // the reader, which names it.
                return;
            }
        }
        let nullable = types.iter().any(|t| t == "null");
        let mut others: Vec<String> = types.into_iter().filter(|t| t != "null").collect();
        others.dedup();
        // Integers are numbers: with `number` listed, `integer` says nothing more.
        if others.iter().any(|t| t == "number") {
            others.retain(|t| t != "integer");
        }
        if nullable {
            map.insert("nullable".into(), true.into());
        }
        match others.as_slice() {
            [] => {
                map.shift_remove("type");
                if !map.contains_key("enum") {
                    map.insert("enum".into(), Value::Sequence(vec![Value::Null]));
                }
            }
            [only] => {
                map.insert("type".into(), only.as_str().into());
            }
            several
                if ["allOf", "anyOf", "oneOf"]
                    .iter()
                    .any(|k| map.contains_key(*k)) =>
            {
                // Already a combination: the members say what each value is.
                let _ = several;
                map.shift_remove("type");
            }
            several => {
                let several = several.to_vec();
                map.shift_remove("type");
                let user = self.user(at);
                let mut members = Vec::with_capacity(several.len());
                for (i, typ) in several.iter().enumerate() {
                    let mut member = Mapping::new();
                    member.insert("type".into(), typ.as_str().into());
                    for keyword in keywords_of(typ) {
                        if let Some(value) = map.get(*keyword) {
                            member.insert((*keyword).into(), value.clone());
                        }
                    }
                    if typ == "string" || typ == "number" || typ == "integer" {
                        if let Some(Value::Sequence(values)) = map.get("enum") {
                            let fits: Vec<Value> = values
                                .iter()
                                .filter(|v| value_has_type(v, typ))
                                .cloned()
                                .collect();
                            if !fits.is_empty() {
                                member.insert("enum".into(), Value::Sequence(fits));
                            }
                        }
                    }
                    self.origins.record(at.push("oneOf").index(i), user.clone());
                    members.push(Value::Mapping(member));
                }
                for keyword in several.iter().flat_map(|t| keywords_of(t)) {
                    map.shift_remove(*keyword);
                }
                map.shift_remove("enum");
                map.insert("oneOf".into(), Value::Sequence(members));
            }
        }
    }

    /// `items: [A, B]` (and `additionalItems`), the tuple form of JSON
    /// Schema's drafts before 2020-12, → `prefixItems: [A, B]` (and
    /// `items`), which [`Walker::prefix_items`] then reads; whether it was
    /// there.
    fn tuple_items(&mut self, map: &mut Mapping, at: &Pointer) -> bool {
        if !matches!(map.get("items"), Some(Value::Sequence(_))) || map.contains_key("prefixItems")
        {
            return false;
        }
        let user = self.user(at);
        if let Some(positions) = map.shift_remove("items") {
            map.insert("prefixItems".into(), positions);
        }
        if let Some(rest) = map.shift_remove("additionalItems") {
            map.insert("items".into(), rest);
        }
        self.origins
            .record(at.push("prefixItems"), user.push("items"));
        self.tuples.push(at.push("prefixItems"));
        true
    }

    /// `prefixItems` → `items` (and the count, when `items: false` closes
    /// it); `keywords` are the user's names of the two (`items` and
    /// `additionalItems` for the tuple form).
    #[allow(
        clippy::expect_used,
        reason = "one member: the match above counted them"
    )]
    fn prefix_items(&mut self, map: &mut Mapping, at: &Pointer, keywords: (&str, &str)) {
        let (positions_keyword, rest_keyword) = keywords;
        let Some(Value::Sequence(positions)) = map.shift_remove("prefixItems") else {
            return;
        };
        let user = self.user(at);
        let rest = map.shift_remove("items");
        let closed = matches!(rest, Some(Value::Bool(false)));
        if closed {
            if !map.contains_key("minItems") {
                map.insert("minItems".into(), positions.len().into());
            }
            if !map.contains_key("maxItems") {
                map.insert("maxItems".into(), positions.len().into());
            }
        }
        let mut members: Vec<(Value, Pointer)> = positions
            .into_iter()
            .enumerate()
            .map(|(i, m)| (m, user.push(positions_keyword).index(i)))
            .collect();
        if let Some(rest) = rest.filter(|r| !closed && *r != Value::Bool(true)) {
            members.push((rest, user.push(rest_keyword)));
        }
        let mut distinct: Vec<(Value, Pointer)> = Vec::new();
        for (member, from) in members {
            if !distinct.iter().any(|(m, _)| *m == member) {
                distinct.push((member, from));
            }
        }
        map.insert("type".into(), "array".into());
        match distinct.len() {
            0 => {
                map.insert("items".into(), Value::Mapping(Mapping::new()));
            }
            1 => {
                let (member, from) = distinct.pop().expect("one");
                self.origins.record(at.push("items"), from);
                map.insert("items".into(), member);
            }
            _ => {
                let mut one_of = Vec::with_capacity(distinct.len());
                for (i, (member, from)) in distinct.into_iter().enumerate() {
                    self.origins
                        .record(at.push("items").push("oneOf").index(i), from);
                    one_of.push(member);
                }
                self.origins
                    .record(at.push("items"), user.push(positions_keyword));
                let items = Mapping::from_iter([("oneOf".into(), Value::Sequence(one_of))]);
                map.insert("items".into(), Value::Mapping(items));
            }
        }
    }

    /// One `patternProperties` schema and no `additionalProperties`: a map.
    #[allow(
        clippy::expect_used,
        reason = "one pattern: the match above counted them"
    )]
    fn pattern_properties(&mut self, map: &mut Mapping, at: &Pointer) {
        let single = match map.get("patternProperties") {
            Some(Value::Mapping(patterns)) if patterns.len() == 1 => {
                !map.contains_key("additionalProperties")
            }
            _ => false,
        };
        if !single {
            return;
        }
        let user = self.user(at);
        let Some(Value::Mapping(patterns)) = map.shift_remove("patternProperties") else {
            unreachable!("checked")
        };
        let (pattern, schema) = patterns.into_iter().next().expect("one");
        let pattern = pattern.as_str().unwrap_or_default().to_owned();
        self.origins.record(
            at.push("additionalProperties"),
            user.push("patternProperties").push(&pattern),
        );
        map.insert("additionalProperties".into(), schema);
    }
}

/// The keywords whose form changed without moving anything.
fn rewrite_annotations(map: &mut Mapping) {
    if let Some(value) = map.shift_remove("const") {
        if !map.contains_key("enum") {
            map.insert("enum".into(), Value::Sequence(vec![value]));
        }
    }
    if let Some(examples) = map.get("examples") {
        if let Value::Sequence(values) = examples {
            if let Some(first) = values.first().cloned() {
                if !map.contains_key("example") {
                    map.insert("example".into(), first);
                }
            }
        }
        map.shift_remove("examples");
    }
    for (exclusive, bound, stricter) in [
        (
            "exclusiveMinimum",
            "minimum",
            (|new, old| new >= old) as fn(f64, f64) -> bool,
        ),
        ("exclusiveMaximum", "maximum", |new, old| new <= old),
    ] {
        let Some(Value::Number(limit)) = map.get(exclusive).cloned() else {
            continue;
        };
        let replaces = match map.get(bound).and_then(Value::as_f64) {
            Some(old) => stricter(limit.as_f64().unwrap_or(old), old),
            None => true,
        };
        if replaces {
            map.insert(bound.into(), Value::Number(limit));
            map.insert(exclusive.into(), true.into());
        } else {
            map.shift_remove(exclusive);
        }
    }
    let is_string = map.get("type").and_then(Value::as_str) == Some("string");
    if is_string && !map.contains_key("format") {
        let encoding = map.get("contentEncoding").and_then(Value::as_str);
        if matches!(encoding, Some("base64" | "base64url")) {
            map.insert("format".into(), "byte".into());
        } else if encoding.is_none() && map.contains_key("contentMediaType") {
            map.insert("format".into(), "binary".into());
        }
    }
}

/// `{type: "null"}`, `{type: ["null"]}`, `{const: null}` or `{enum: [null]}`.
fn is_null_schema(node: &Value) -> bool {
    let Value::Mapping(map) = node else {
        return false;
    };
    let null_type = match map.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Sequence(ts)) => ts.len() == 1 && ts[0].as_str() == Some("null"),
        _ => false,
    };
    let null_value = map.get("const") == Some(&Value::Null)
        || matches!(map.get("enum"), Some(Value::Sequence(vs)) if vs.len() == 1 && vs[0].is_null());
    (null_type || null_value) && !map.contains_key("$ref")
}

fn value_has_type(value: &Value, typ: &str) -> bool {
    match typ {
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        _ => false,
    }
}

#[cfg(test)]
mod tests;
