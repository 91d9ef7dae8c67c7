//! Every example in spec/openapi.yaml decodes into its model, passes its
//! validator, and encodes back to the same JSON: the document and the
//! generated models agree on every example a reader sees.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test's unwrap is an assertion: a failure is the test's report"
)]

use logistics_models::validation::{self, Validate, ValidateJson};
use logistics_models::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

fn spec() -> Value {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../spec/openapi.yaml"))
            .unwrap();
    serde_yaml::from_str(&text).unwrap()
}

/// Objects lose `null` members (absent and null mean the same, decisions D6);
/// numbers compare by value (`20` and `20.0` are one number).
fn normalize(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), normalize(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(normalize).collect()),
        Value::Number(n) => serde_json::json!(n.as_f64().unwrap()),
        other => other.clone(),
    }
}

fn round_trip<T: DeserializeOwned + Serialize + Validate + ValidateJson>(
    example: &Value,
) -> Result<(), String> {
    let report = validation::check_json::<T>(example, "example");
    if !report.is_empty() {
        return Err(format!("the validator refuses it: {report}"));
    }
    let bytes = serde_json::to_vec(example).unwrap();
    let decoded: T = validation::from_json_slice(&bytes, "example")
        .map_err(|r| format!("does not decode: {r}"))?;
    let encoded = serde_json::to_value(&decoded).unwrap();
    if normalize(&encoded) != normalize(example) {
        return Err(format!(
            "encodes back differently:\n  example: {example}\n  encoded: {encoded}"
        ));
    }
    Ok(())
}

fn check(schema: &str, example: &Value) -> Result<(), String> {
    match schema {
        "ReceivingOrderBatch" => round_trip::<ReceivingOrderBatch>(example),
        "BulkUpsertResult" => round_trip::<BulkUpsertResult>(example),
        "TransferDetail" => round_trip::<TransferDetail>(example),
        "CustomerInput" => round_trip::<CustomerInput>(example),
        "Customer" => round_trip::<Customer>(example),
        "SalesOrder" => round_trip::<SalesOrder>(example),
        "ReturnList" => round_trip::<ReturnList>(example),
        "TaggedReturnList" => round_trip::<TaggedReturnList>(example),
        "ErrorResponse" => round_trip::<ErrorResponse>(example),
        other => Err(format!(
            "no case for schema `{other}`: add one to this test"
        )),
    }
}

/// `(where, schema name, example)` for every example of a media type.
fn media_examples(spec: &Value) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    let mut visit = |place: String, media: &Value| {
        let Some(reference) = media.pointer("/schema/$ref").and_then(Value::as_str) else {
            return;
        };
        let schema = reference.rsplit('/').next().unwrap().to_owned();
        if let Some(example) = media.get("example") {
            out.push((place.clone(), schema.clone(), example.clone()));
        }
        for (name, example) in media
            .get("examples")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            out.push((
                format!("{place} ({name})"),
                schema.clone(),
                example["value"].clone(),
            ));
        }
    };
    for (path, item) in spec["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            for (media_type, media) in op
                .pointer("/requestBody/content")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                visit(format!("{method} {path} request {media_type}"), media);
            }
            for (status, response) in op["responses"].as_object().unwrap() {
                for (media_type, media) in response
                    .get("content")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                {
                    visit(format!("{method} {path} {status} {media_type}"), media);
                }
            }
        }
    }
    for (name, response) in spec
        .pointer("/components/responses")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        for (media_type, media) in response["content"].as_object().unwrap() {
            visit(format!("response {name} {media_type}"), media);
        }
    }
    out
}

#[test]
fn every_media_type_example_round_trips_through_its_model() {
    let spec = spec();
    let examples = media_examples(&spec);
    assert!(
        examples.len() >= 20,
        "only {} examples found",
        examples.len()
    );
    let failures: Vec<String> = examples
        .iter()
        .filter_map(|(place, schema, example)| {
            check(schema, example)
                .err()
                .map(|e| format!("{place} ({schema}): {e}"))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_schema_example_round_trips_through_its_model() {
    let spec = spec();
    for (name, schema) in spec["components"]["schemas"].as_object().unwrap() {
        if let Some(example) = schema.get("example") {
            check(name, example).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}

#[test]
fn the_dqb_parameter_examples_are_valid_queries() {
    let spec = spec();
    let parameters = &spec["components"]["parameters"];
    ReturnsQuery::parse(parameters["ReturnsQuery"]["example"].as_str().unwrap()).unwrap();
    TaggedReturnsQuery::parse(
        parameters["TaggedReturnsQuery"]["example"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
}
