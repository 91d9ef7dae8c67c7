//! The 3.1 and 3.2 rewriting, one form at a time.

use super::*;

fn rewritten(yaml: &str) -> (Value, Origins) {
    let mut raw: Value = serde_yaml::from_str(yaml).unwrap();
    let origins = normalise(&mut raw).origins;
    (raw, origins)
}

fn schema(yaml: &str) -> (Value, Origins) {
    let text = format!(
        "openapi: 3.1.0\ninfo: {{title: t, version: '1'}}\ncomponents:\n  schemas:\n    A: {yaml}\n"
    );
    let (raw, origins) = rewritten(&text);
    (raw["components"]["schemas"]["A"].clone(), origins)
}

fn yaml(text: &str) -> Value {
    serde_yaml::from_str(text).unwrap()
}

fn at(text: &str) -> Pointer {
    Pointer::parse_local(text).unwrap()
}

#[test]
fn a_type_with_null_is_nullable() {
    let (s, _) = schema("{type: [string, 'null'], minLength: 1}");
    assert_eq!(s, yaml("{type: string, minLength: 1, nullable: true}"));
    let (s, _) = schema("{type: 'null'}");
    assert_eq!(s, yaml("{nullable: true, enum: [null]}"));
}

#[test]
fn several_types_are_one_of_with_their_keywords() {
    let (s, origins) = schema("{type: [string, integer], maxLength: 3, minimum: 0}");
    assert_eq!(
        s,
        yaml("{oneOf: [{type: string, maxLength: 3}, {type: integer, minimum: 0}]}")
    );
    assert_eq!(
        origins
            .to_user(&at("#/components/schemas/A/oneOf/1/minimum"))
            .to_string(),
        "#/components/schemas/A/minimum"
    );
}

#[test]
fn null_alternatives_make_the_rest_nullable() {
    let (s, origins) = schema("{anyOf: [{type: 'null'}, {$ref: '#/components/schemas/B'}]}");
    assert_eq!(
        s,
        yaml("{nullable: true, allOf: [{$ref: '#/components/schemas/B'}]}")
    );
    assert_eq!(
        origins
            .to_user(&at("#/components/schemas/A/allOf/0/$ref"))
            .to_string(),
        "#/components/schemas/A/anyOf/1/$ref"
    );
}

#[test]
fn refs_with_siblings_become_all_of() {
    let (s, origins) = schema("{$ref: '#/components/schemas/B', description: d}");
    assert_eq!(
        s,
        yaml("{description: d, allOf: [{$ref: '#/components/schemas/B'}]}")
    );
    assert_eq!(
        origins
            .to_user(&at("#/components/schemas/A/allOf/0/$ref"))
            .to_string(),
        "#/components/schemas/A/$ref"
    );
}

#[test]
fn keywords_change_form() {
    let (s, _) = schema(
        "{type: integer, const: 3, examples: [3], exclusiveMinimum: 0, maximum: 9, exclusiveMaximum: 10}",
    );
    assert_eq!(
        s,
        yaml(
            "{type: integer, maximum: 9, enum: [3], example: 3, minimum: 0, exclusiveMinimum: true}"
        )
    );
    let (s, _) = schema("{type: string, contentEncoding: base64}");
    assert_eq!(
        s,
        yaml("{type: string, contentEncoding: base64, format: byte}")
    );
    let (s, _) = schema("{properties: {a: true, b: false}, additionalProperties: false}");
    assert_eq!(
        s,
        yaml("{properties: {a: {}}, additionalProperties: false}")
    );
}

#[test]
fn prefix_items_become_items() {
    let (s, origins) =
        schema("{type: array, prefixItems: [{type: string}, {type: integer}], items: false}");
    assert_eq!(
        s,
        yaml(
            "{type: array, minItems: 2, maxItems: 2, items: {oneOf: [{type: string}, {type: integer}]}}"
        )
    );
    assert_eq!(
        origins
            .to_user(&at("#/components/schemas/A/items/oneOf/1/type"))
            .to_string(),
        "#/components/schemas/A/prefixItems/1/type"
    );
}

/// The tuple form of earlier drafts (`items: [A, B]`, `additionalItems`)
/// is read as `prefixItems`, and errors inside it name the user's `items`.
#[test]
fn tuple_items_are_read_as_prefix_items() {
    let (s, origins) =
        schema("{type: array, items: [{type: string}, {type: integer}], additionalItems: false}");
    assert_eq!(
        s,
        yaml(
            "{type: array, minItems: 2, maxItems: 2, items: {oneOf: [{type: string}, {type: integer}]}}"
        )
    );
    assert_eq!(
        origins
            .to_user(&at("#/components/schemas/A/items/oneOf/1/type"))
            .to_string(),
        "#/components/schemas/A/items/1/type"
    );
    // The same positions: their one schema, and further items alike.
    let (s, _) = schema("{type: array, items: [{type: string}, {type: string}]}");
    assert_eq!(s, yaml("{type: array, items: {type: string}}"));
}

#[test]
fn documents_without_paths_get_an_empty_one() {
    let (raw, _) = rewritten("openapi: 3.1.0\ninfo: {title: t, version: '1'}\nwebhooks: {}\n");
    assert_eq!(raw["openapi"], yaml("'3.0.3'"));
    assert_eq!(raw["paths"], yaml("{}"));
}

#[test]
fn operations_without_responses_get_an_empty_one_callbacks_included() {
    let (raw, _) = rewritten(
        "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      callbacks:\n        hook:\n          '{$url}':\n            post:\n              requestBody: {content: {application/json: {schema: {type: [string, 'null']}}}}\n",
    );
    let get = &raw["paths"]["/a"]["get"];
    assert_eq!(get["responses"], yaml("{}"));
    let hook = &get["callbacks"]["hook"]["{$url}"]["post"];
    assert_eq!(hook["responses"], yaml("{}"));
    assert_eq!(
        hook["requestBody"]["content"]["application/json"]["schema"],
        yaml("{type: string, nullable: true}")
    );
}

#[test]
fn mutual_tls_schemes_leave_the_components_by_name() {
    let mut raw: Value = serde_yaml::from_str(
            "openapi: 3.1.0\ninfo: {title: t, version: '1'}\ncomponents:\n  securitySchemes:\n    mtls: {type: mutualTLS}\n    key: {type: apiKey, in: header, name: X-Key}\n",
        )
        .unwrap();
    let normalised = normalise(&mut raw);
    assert_eq!(normalised.mutual_tls, ["mtls"]);
    let schemes = &raw["components"]["securitySchemes"];
    assert!(schemes.get("mtls").is_none());
    assert!(schemes.get("key").is_some());
}

#[test]
fn conditional_keywords_are_found_where_they_are() {
    let mut raw: Value = serde_yaml::from_str(
            "openapi: 3.1.0\ninfo: {title: t, version: '1'}\ncomponents:\n  schemas:\n    A:\n      type: object\n      properties:\n        b: {type: object, unevaluatedProperties: false}\n      dependentRequired: {b: [c]}\n    C: {type: string}\n",
        )
        .unwrap();
    let normalised = normalise(&mut raw);
    let a = Pointer::root().push("components").push("schemas").push("A");
    assert_eq!(
        normalised.unchecked,
        [
            a.push("dependentRequired"),
            a.push("properties").push("b").push("unevaluatedProperties")
        ]
    );
}

/// Several types with an `enum`: each alternative keeps the values of
/// its type (none of another), and its own keywords, arrays' too; an
/// integer is a number where both are listed; a combination already
/// given is kept as it is.
#[test]
fn several_types_share_out_their_values_and_keywords() {
    let (s, _) = schema("{type: [string, integer], enum: [a, 1, -1, 2.5], maxLength: 3}");
    assert_eq!(
        s,
        yaml("{oneOf: [{type: string, maxLength: 3, enum: [a]}, {type: integer, enum: [1, -1]}]}")
    );
    let (s, _) =
        schema("{type: [number, array], enum: [2.5, 3], maxItems: 2, items: {type: string}}");
    assert_eq!(
        s,
        yaml(
            "{oneOf: [{type: number, enum: [2.5, 3]}, {type: array, maxItems: 2, items: {type: string}}]}"
        )
    );
    let (s, _) = schema("{type: [string, boolean], enum: [a]}");
    assert_eq!(
        s,
        yaml("{oneOf: [{type: string, enum: [a]}, {type: boolean}]}")
    );
    let (s, _) = schema("{type: [integer, number, 'null']}");
    assert_eq!(s, yaml("{type: number, nullable: true}"));
    let (s, _) = schema(
        "{type: [string, integer], oneOf: [{type: string, format: date}, {type: integer, minimum: 1}]}",
    );
    assert_eq!(
        s,
        yaml("{oneOf: [{type: string, format: date}, {type: integer, minimum: 1}]}")
    );
}

/// One `patternProperties` and nothing else about other properties is
/// a map of its schema; two patterns, or one beside
/// `additionalProperties`, are left.
#[test]
fn one_pattern_of_property_names_is_a_map() {
    let (s, _) = schema("{type: object, patternProperties: {'^x': {type: integer}}}");
    assert_eq!(s["additionalProperties"], yaml("{type: integer}"));
    assert!(s.get("patternProperties").is_none(), "{s:?}");
    for kept in [
        "{type: object, patternProperties: {'^x': {type: integer}, '^y': {type: string}}}",
        "{type: object, patternProperties: {'^x': {type: integer}}, additionalProperties: false}",
    ] {
        let (s, _) = schema(kept);
        assert!(s.get("patternProperties").is_some(), "{kept}: {s:?}");
    }
}

/// Each way of writing a schema of only `null`, as an alternative; a
/// `$ref` beside it is not one.
#[test]
fn each_null_alternative_is_read_as_nullable() {
    for null in [
        "{type: 'null'}",
        "{type: ['null']}",
        "{const: null}",
        "{enum: [null]}",
    ] {
        let (s, _) = schema(&format!("{{anyOf: [{{type: string}}, {null}]}}"));
        assert_eq!(s["nullable"], yaml("true"), "{null}");
    }
    for not_null in [
        "{type: [string, 'null']}",
        "{type: ['null', string]}",
        "{type: [string]}",
        "{type: 'null', $ref: '#/components/schemas/B'}",
        "{enum: [null, 1]}",
    ] {
        let (s, _) = schema(&format!("{{anyOf: [{{type: string}}, {not_null}]}}"));
        assert!(s.get("nullable").is_none(), "{not_null}: {s:?}");
    }
    // Two alternatives besides null stay alternatives.
    let (s, _) = schema("{anyOf: [{type: string}, {type: integer}, {type: 'null'}]}");
    assert_eq!(
        s,
        yaml("{anyOf: [{type: string}, {type: integer}], nullable: true}")
    );
}

/// Schemas of parameters, headers and answers are rewritten as the
/// named ones are, under statuses written as numbers too; a `$ref`
/// beside an `allOf` joins its members, in their order; a numeric
/// exclusive bound replaces an inclusive one only where it is stricter;
/// a string's content encoding or media type is its format.
#[test]
fn schemas_everywhere_and_their_bounds_and_encodings() {
    let (raw, origins) = rewritten(
        "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      parameters:\n        - {name: q, in: query, schema: {type: [integer, 'null']}}\n      responses:\n        200:\n          description: ok\n          headers:\n            X-N: {schema: {type: [integer, 'null']}}\n          content:\n            application/json: {schema: {type: [string, 'null']}}\n",
    );
    let get = &raw["paths"]["/a"]["get"];
    let nullable = yaml("true");
    assert_eq!(get["parameters"][0]["schema"]["nullable"], nullable);
    let ok = &get["responses"][200];
    assert_eq!(ok["headers"]["X-N"]["schema"]["nullable"], nullable);
    assert_eq!(
        ok["content"]["application/json"]["schema"]["nullable"],
        nullable
    );
    let _ = origins;

    let (s, origins) =
        schema("{$ref: '#/components/schemas/B', allOf: [{required: [a]}, {required: [b]}]}");
    assert_eq!(
        s,
        yaml("{allOf: [{$ref: '#/components/schemas/B'}, {required: [a]}, {required: [b]}]}")
    );
    assert_eq!(
        origins
            .to_user(&at("#/components/schemas/A/allOf/2/required"))
            .to_string(),
        "#/components/schemas/A/allOf/1/required"
    );

    for (bounds, expected) in [
        (
            "{type: number, minimum: 1, exclusiveMinimum: 2}",
            "{type: number, minimum: 2, exclusiveMinimum: true}",
        ),
        (
            "{type: number, minimum: 3, exclusiveMinimum: 2}",
            "{type: number, minimum: 3}",
        ),
        (
            "{type: number, minimum: 2, exclusiveMinimum: 2}",
            "{type: number, minimum: 2, exclusiveMinimum: true}",
        ),
        (
            "{type: number, maximum: 9, exclusiveMaximum: 5}",
            "{type: number, maximum: 5, exclusiveMaximum: true}",
        ),
        (
            "{type: number, maximum: 4, exclusiveMaximum: 5}",
            "{type: number, maximum: 4}",
        ),
    ] {
        assert_eq!(schema(bounds).0, yaml(expected), "{bounds}");
    }
    for (string, format) in [
        ("{type: string, contentEncoding: base64}", Some("byte")),
        (
            "{type: string, contentMediaType: image/png}",
            Some("binary"),
        ),
        (
            "{type: string, contentEncoding: gzip, contentMediaType: image/png}",
            None,
        ),
        (
            "{type: string, format: uuid, contentMediaType: image/png}",
            Some("uuid"),
        ),
    ] {
        let (s, _) = schema(string);
        assert_eq!(s["format"].as_str(), format, "{string}");
    }
}

/// A tuple is an array of the one type its positions and the rest
/// share, else of their alternatives; an empty tuple is an array of
/// anything.
#[test]
fn a_tuple_is_an_array_of_its_positions_and_its_rest() {
    let (s, _) = schema("{prefixItems: [{type: string}], items: {type: integer}}");
    assert_eq!(
        s,
        yaml("{type: array, items: {oneOf: [{type: string}, {type: integer}]}}")
    );
    let (s, _) = schema("{prefixItems: [{type: string}], items: {type: string}}");
    assert_eq!(s, yaml("{type: array, items: {type: string}}"));
    let (s, _) = schema("{prefixItems: []}");
    assert_eq!(s, yaml("{type: array, items: {}}"));
}

/// `$dynamicRef: "#"` means the component schema it is in; outside
/// one (a response's schema) it names no schema and is left.
#[test]
fn a_dynamic_reference_to_the_root_names_its_component_schema() {
    let (s, _) =
        schema("{type: object, properties: {children: {type: array, items: {$dynamicRef: '#'}}}}");
    assert_eq!(
        s["properties"]["children"]["items"],
        yaml("{$ref: '#/components/schemas/A'}")
    );
    let (raw, _) = rewritten(
        "openapi: 3.1.0\ninfo: {title: t, version: '1'}\ncomponents:\n  responses:\n    R:\n      description: ok\n      content:\n        application/json: {schema: {$dynamicRef: '#'}}\n",
    );
    let schema = &raw["components"]["responses"]["R"]["content"]["application/json"]["schema"];
    assert_eq!(schema, &yaml("{$dynamicRef: '#'}"));
}
