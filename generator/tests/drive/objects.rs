//! Objects as a server reads them: decoded and checked (`from_json_slice`,
//! what a request body goes through), or walked as raw JSON when they do
//! not decode.

use fixture_objects_models::{Nothing, Something, validation};
use serde_json::json;

/// The problems of `value` as a body of type `T`, by place and code.
fn problems<T>(value: serde_json::Value) -> Vec<(String, String)>
where
    T: serde::de::DeserializeOwned + validation::Validate + validation::ValidateJson,
{
    let bytes = serde_json::to_vec(&value).unwrap();
    match validation::from_json_slice::<T>(&bytes, "body") {
        Ok(_) => Vec::new(),
        Err(report) => report
            .problems()
            .iter()
            .map(|p| (p.property.clone(), p.error_code.clone()))
            .collect(),
    }
}

fn at(property: &str, code: &str) -> (String, String) {
    (property.to_owned(), code.to_owned())
}

/// `minProperties` counts the properties the schema does not declare:
/// they are kept, not dropped before the count.
#[test]
fn undeclared_properties_count_toward_min_properties() {
    assert_eq!(problems::<Something>(json!({"colour": "red"})), []);
    let decoded: Something = serde_json::from_value(json!({"colour": "red"})).unwrap();
    assert_eq!(decoded.additional_properties["colour"], "red");
    assert_eq!(serde_json::to_value(&decoded).unwrap(), json!({"colour": "red"}));
    assert_eq!(problems::<Something>(json!({})), [at("body", "OutOfRange")]);
    // Not an object at all: the raw walk says so.
    assert_eq!(problems::<Something>(json!([1])), [at("body", "InvalidType")]);
}

/// `additionalProperties: false` and no properties: only `{}`.
#[test]
fn an_object_that_must_be_empty_refuses_any_property() {
    assert_eq!(problems::<Nothing>(json!({})), []);
    assert_eq!(problems::<Nothing>(json!({"a": 1})), [at("a", "UnknownProperty")]);
}
